"""The oracle's refusals are one short line even when the refused value is huge: a complex value computed
at thousands of bits is shown cut to 60 characters, not as its full repr."""

import pytest
from mpmath import mp

from oracle import derivatives
from oracle.precision import check_mp


def test_a_complex_value_at_high_precision_is_shown_short():
    with mp.workprec(20000), pytest.raises(ValueError, match="must be real, not complex") as err:
        check_mp(mp.mpc(1, 1) / 3, "z")
    assert len(str(err.value)) < 200, len(str(err.value))


def test_a_complex_valued_f_is_refused_in_one_short_line():
    with pytest.raises(ValueError, match="must be real") as err:
        derivatives.gradient(lambda x: mp.sqrt(x[0] - 10), mp.matrix([1]))
    assert len(str(err.value)) < 300, len(str(err.value))
