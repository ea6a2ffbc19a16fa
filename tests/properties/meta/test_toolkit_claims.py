"""Meta-tests of ``properties.toolkit.claims``: every error :class:`ClaimSet` raises
when a claim is declared (unknown id, another paper's id, an id declared twice, a repeated repair,
a bad ``expected``, a bad ``delta``), the repairs it accepts, and what a declared shape does with a
drawn instance (exact conversion by :func:`to_oracle`, the judge each shape calls).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from mpmath import mp

from properties.toolkit.claims import ClaimSet, canonical_ids, to_oracle

PAPER = "softmax_regression"
ID = "softmax_regression.fact4.2.p1"
OTHER_PAPER_ID = next(cid for cid, row in canonical_ids().items() if row["paper"] == "attention_pruning")
NEVER = lambda: None  # noqa: E731  (a strategy thunk the declaration never calls)


def _identity(cs: ClaimSet, claim_id: str = ID, statement: str = "x = x", **options):
    return cs.identity(claim_id, statement, instances=NEVER, sides=lambda x: (x, x), **options)


# -- every error ClaimSet raises --------------------------------------------------------------------

def test_unknown_id_is_refused():
    with pytest.raises(ValueError, match=r"claim_id='softmax_regression\.fact9\.9' must be an id of claims\.tsv"):
        _identity(ClaimSet(PAPER), "softmax_regression.fact9.9")


def test_other_papers_id_is_refused():
    with pytest.raises(ValueError, match=rf"claim_id='{OTHER_PAPER_ID}' belongs to paper 'attention_pruning', "
                                         rf"not '{PAPER}'"):
        _identity(ClaimSet(PAPER), OTHER_PAPER_ID)


def test_id_declared_twice_is_refused_whatever_the_shape():
    cs = ClaimSet(PAPER)
    _identity(cs)
    with pytest.raises(ValueError, match=rf"claim_id='{ID}' is declared twice$"):
        cs.inequality(ID, "another statement", instances=NEVER, sides=lambda x: (x, x))
    with pytest.raises(ValueError, match=rf"claim_id='{ID}' is declared twice$"):
        cs.not_applicable(ID, "a third", reason="none")
    assert len(cs) == 1, f"{len(cs)} claims after two refused declarations, should be 1"


def test_repairs_share_the_id_but_not_the_statement():
    """A repair is declared with its claim's id; several repairs may be, each with its own statement;
    the same repair statement twice is refused (and a repair does not count as the claim itself)."""
    cs = ClaimSet(PAPER)
    _identity(cs, statement="repaired: x = x", repair=True)
    _identity(cs)  # the claim itself, after its repair
    _identity(cs, statement="another repair", repair=True)
    with pytest.raises(ValueError, match=rf"claim_id='{ID}' is declared twice with this repair"):
        _identity(cs, statement="repaired: x = x", repair=True)
    assert [(c.id, c.repair, c.statement) for c in cs] == [
        (ID, True, "repaired: x = x"), (ID, False, "x = x"), (ID, True, "another repair")]


@pytest.mark.parametrize("expected", ["true", "Verified", None, ""])
def test_bad_expected_is_refused(expected):
    with pytest.raises(ValueError, match=rf"expected={expected!r} must be one of \("):
        _identity(ClaimSet(PAPER), expected=expected)


@pytest.mark.parametrize("delta", [0, 1, 0.0, 1.0, -0.1, 1.5, None])
def test_bad_delta_is_refused(delta):
    cs = ClaimSet(PAPER)
    with pytest.raises(ValueError, match=rf"delta={delta!r} must be in \(0, 1\) for a statistical claim \[{ID}\]"):
        cs.trial(ID, "a randomised bound", delta=delta)(lambda seed: None)
    assert len(cs) == 0, "a refused declaration must not register a claim"


def test_good_declarations_are_registered_with_their_fields():
    cs = ClaimSet(PAPER)
    fn = cs.trial(ID, "a randomised bound", delta=0.1, trials=20, expected="falsified")(lambda seed: None)
    (c,) = list(cs)
    row = canonical_ids()[ID]
    assert (c.id, c.paper, c.section, c.kind) == (ID, PAPER, row["section"], row["kind"]), c
    assert (c.delta, c.trials, c.expected, c.trial, c.strategy) == (0.1, 20, "falsified", fn, None), c
    assert fn.__doc__ == f"{ID}: a randomised bound", f"docstring {fn.__doc__!r}, should be the id and statement"


# -- what a shape does with a drawn instance -----------------------------------------------------------

def _exact(v) -> Fraction:
    sign, man, exp, _ = mp.mpf(v)._mpf_
    return (-1) ** sign * Fraction(man) * Fraction(2) ** exp


def test_to_oracle_converts_float64_exactly():
    x = np.array([0.1, -1e-300, 2.0**1000, 5e-324])
    with mp.workdps(50):
        got = to_oracle((x, 0.1, np.float64(1 / 3), 7, "label"))
    assert [_exact(v) for v in got[0]] == [Fraction(float(w)) for w in x], (
        f"{got[0]} is not exactly {x.tolist()} [to_oracle(array)]")
    assert (_exact(got[1]), _exact(got[2])) == (Fraction(0.1), Fraction(1 / 3)), got[1:3]
    assert got[3:] == (7, "label"), f"{got[3:]}: ints and labels should pass unchanged"


def test_identity_shape_judges_the_converted_instance_exactly():
    """0.1 + 0.2 = 0.30000000000000004 in float64, but the drawn numbers are converted exactly, so
    the sides (0.1 + 0.2, 0.3) differ by 2^-54·… and the identity is judged false; (x, x) holds."""
    cs = ClaimSet(PAPER)
    check = cs.identity(ID, "a + b = c", instances=NEVER, sides=lambda a, b, c: (a + b, c))
    o = check((0.1, 0.2, 0.3))
    assert not o.holds and 0 < o.ratio < 1e-15, f"{o}: exact 0.1 + 0.2 ≠ exact 0.3 [identity]"
    o = check((0.5, 0.25, 0.75))
    assert o.holds and o.ratio == 0.0, f"{o}: 0.5 + 0.25 = 0.75 exactly [identity]"


def test_inequality_and_loewner_shapes_call_their_judges():
    cs = ClaimSet(PAPER)
    le_check = cs.inequality(ID, "a ≤ b", instances=NEVER, sides=lambda a, b: (a, b))
    assert (le_check((3.0, 4.0)).ratio, le_check((5.0, 4.0)).holds) == (0.75, False)
    cs = ClaimSet(PAPER)
    lw_check = cs.loewner(ID, "A ⪯ B", instances=NEVER, sides=lambda A, B: (A, B))
    o = lw_check((np.diag([1.0, 2.0]), np.diag([3.0, 3.0])))
    assert o.holds and o.measured == -1.0 and o.ratio == pytest.approx(2 / 3), f"{o} [loewner shape]"
