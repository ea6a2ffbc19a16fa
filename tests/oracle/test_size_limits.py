"""Sizes the oracle refuses before it allocates: an mpmath matrix beyond
:data:`oracle.precision.MAX_ENTRIES` entries is a ``ValueError`` naming the argument and the limit,
raised at once (:func:`oracle.precision.check_entries`)."""

import pytest
from mpmath import mp

from oracle import linalg
from oracle.precision import MAX_ENTRIES


@pytest.mark.parametrize("build, words", [
    (lambda: linalg.identity(10**12), "n=1000000000000"),
    (lambda: linalg.walsh_hadamard(2**40), "N=1099511627776"),
    (lambda: linalg.kron(mp.matrix(10**4, 1), mp.matrix(10**4, 1)), "A (10000×1) and B (10000×1)"),
])
def test_a_size_beyond_the_limit_is_refused_before_allocating(build, words):
    with pytest.raises(ValueError) as err:
        build()
    assert words in str(err.value) and f"{MAX_ENTRIES}" in str(err.value), str(err.value)


def test_small_sizes_are_built():
    assert linalg.identity(3).rows == 3
    assert linalg.walsh_hadamard(4)[3, 3] == 1
    assert linalg.kron(mp.matrix([[2]]), mp.matrix([[3], [5]])).rows == 2
