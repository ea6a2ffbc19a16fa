"""Meta-tests of the judges of ``properties.toolkit.judge``, in the manner of
array-api-tests' ``meta_tests/``: the ratio rules of ``le``/``eq``/``loewner``/``float_outcome``
(``Outcome.ratio``: measured/bound for a positive bound, 1 + (measured − bound)/scale otherwise, so
a ratio above 1 means violated whatever the sign of the bound; 0 for ``0 ≤ 0``), the ``scale``
option (the magnitude a difference cancelled from), and the Loewner margin λ_min(Y − X) on matrices
whose margin is known.

Where a rule could silently be replaced by a plausible wrong one, the wrong rule is planted in a
local function and the same check is shown to reject it, so the check is known to be able to fail.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st
from mpmath import mp

from oracle import UndecidableError
from properties.toolkit.judge import eq, float_outcome, le, loewner

M = mp.mpf
FINITE = st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=False)
# le's ratio is computed at 50 digits and rounded to float64: within 2^-52 relative (the rounding)
# plus 1e-40 absolute (the 50-digit arithmetic, whose 1 + (m − b)/scale may cancel; such ratios
# are ≤ 2) of the exact value.  float_outcome computes it in float64: 4 rounding errors of a
# quantity ≤ 2, so 2^-49 absolute.
RATIO_RTOL, RATIO_ATOL, FLOAT_ATOL = 2.0**-52, 1e-40, 2.0**-49


def _le(m: float, b: float):
    return le(lambda: (M(m), M(b)))


def exact_ratio(m: float, b: float) -> float:
    """The documented ratio of ``m ≤ b``, in exact rational arithmetic, rounded once to float64."""
    fm, fb = Fraction(m), Fraction(b)
    s = max(abs(fm), abs(fb))
    if s == 0:
        return 0.0
    return float(fm / fb) if fb > 0 else float(1 + (fm - fb) / s)


def ratio_rule_violation(m: float, b: float, holds: bool, ratio: float, atol: float = RATIO_ATOL) -> str | None:
    """What is wrong with a judge's (holds, ratio) for ``m ≤ b`` (float64 m, b), or None.

    The rules: holds iff m ≤ b exactly; a violation by more than 1e-12 of the scale has ratio > 1
    and a ratio > 1 means violated, whatever the sign of the bound; the ratio is the documented
    formula (:func:`exact_ratio`) up to rounding (``atol`` absolute, see RATIO_ATOL)."""
    fm, fb = Fraction(m), Fraction(b)
    if holds != (fm <= fb):
        return f"holds={holds} for {m!r} ≤ {b!r}"
    if not holds and fm - fb > Fraction(1, 10**12) * max(abs(fm), abs(fb)) and not ratio > 1:
        return f"ratio={ratio!r} ≤ 1 although {m!r} ≤ {b!r} is violated"
    if holds and ratio > 1:
        return f"ratio={ratio!r} > 1 although {m!r} ≤ {b!r} holds"
    want = exact_ratio(m, b)
    if not abs(ratio - want) <= RATIO_RTOL * abs(want) + atol:
        return f"ratio={ratio!r}, documented ratio {want!r} for {m!r} ≤ {b!r}"
    return None


# -- le: ratio rules --------------------------------------------------------------------------------

@pytest.mark.parametrize("m, b, holds, ratio", [
    (3.0, 4.0, True, 0.75),        # measured/bound
    (5.0, 4.0, False, 1.25),
    (0.0, 4.0, True, 0.0),
    (-3.0, -1.0, True, 1 / 3),      # negative bound: 1 + (m − b)/max(|m|, |b|)
    (-1.0, -3.0, False, 5 / 3),     # (m/b would say 1/3: "holds with room to spare")
    (-1.0, 0.0, True, 0.0),         # zero bound
    (1.0, 0.0, False, 2.0),
    (0.0, -1.0, False, 2.0),
])
def test_le_ratio_rule(m, b, holds, ratio):
    o = _le(m, b)
    assert (o.holds, o.measured, o.bound) == (holds, m, b), f"{o} [le({m} ≤ {b})]"
    assert o.ratio == pytest.approx(ratio, rel=RATIO_RTOL), f"ratio={o.ratio}, should be {ratio} [le({m} ≤ {b})]"
    assert o.digits is not None and o.digits >= 40, f"digits={o.digits}, should be ≥ 40 at 50 digits [le({m} ≤ {b})]"


@pytest.mark.parametrize("x", [1.0, -2.5, 1e300, -1e-300, 0.1])
def test_le_equal_sides_hold_with_ratio_one(x):
    """Equality holds (never "falsified" by rounding) and is as tight as can be: ratio exactly 1."""
    o = _le(x, x)
    assert o.holds and o.ratio == 1.0, f"{o}, should hold with ratio 1 [le({x} ≤ {x})]"


def test_zero_le_zero_holds_with_ratio_zero():
    """``0 ≤ 0`` holds and says nothing about tightness: ratio 0 (not 1, not NaN from 0/0)."""
    o = _le(0.0, 0.0)
    assert (o.holds, o.ratio, o.measured, o.bound) == (True, 0.0, 0.0, 0.0), f"{o} [le(0 ≤ 0)]"
    f = float_outcome(0.0, 0.0)
    assert (f.holds, f.ratio, f.digits) == (True, 0.0, None), f"{f} [float_outcome(0, 0)]"


@given(FINITE, FINITE)
def test_le_ratio_rules_on_any_floats(m, b):
    """For every pair of float64 numbers, le decides m ≤ b exactly and reports the documented ratio."""
    o = _le(m, b)
    why = ratio_rule_violation(m, b, o.holds, o.ratio)
    assert why is None, f"{why} [le; {o}]"


@given(FINITE, FINITE)
def test_float_outcome_follows_the_same_rules(m, b):
    o = float_outcome(m, b)
    why = ratio_rule_violation(m, b, o.holds, o.ratio, FLOAT_ATOL)
    assert why is None and o.digits is None, f"{why} [float_outcome; {o}]"


def test_ratio_rules_reject_a_planted_ratio():
    """The rule check is not vacuous: a judge whose ratio is measured/bound for every bound (the
    obvious rule, wrong for a negative bound) is rejected on a pair it finds."""

    def planted(m, b):
        return Fraction(m) <= Fraction(b), (m / b if b else 0.0)

    m, b = find(st.tuples(FINITE, FINITE), lambda mb: ratio_rule_violation(*mb, *planted(*mb)) is not None,
                settings=settings(database=None, derandomize=True, max_examples=500))
    assert b <= 0, f"the planted ratio m/b is only wrong for bounds ≤ 0, found ({m}, {b})"


def test_le_resolves_a_violation_below_the_first_rung():
    """m = 1 + 1e-45 ≤ 1 fails although 50 digits (resolution 1e-40) cannot see it: the ladder
    escalates until the sign is stable instead of calling it equal."""
    o = le(lambda: (M(1) + M(10) ** -45, M(1)))
    assert not o.holds and o.digits > 40, f"{o}, should fail with more than 40 digits [le(1 + 1e-45 ≤ 1)]"


# -- scale: the magnitude a difference cancelled from ------------------------------------------------

def _cancelled():
    """(a + e) − a with a = π·10⁶⁰: equal to e, computed with a rounding error of about a·10^-dps at
    every precision (e's bits reach below a's last bit at any precision)."""
    a = mp.pi * M(10) ** 60
    return (a + mp.e) - a, +mp.e


def test_without_scale_a_persistent_cancellation_is_undecidable():
    """Judged against max(|lhs|, |rhs|) ≈ e, the rounding error (≈ 10^(60 − dps)) never falls inside
    the resolution and never settles: the judge refuses to decide rather than guess."""
    with pytest.raises(UndecidableError):
        eq(_cancelled)
    with pytest.raises(UndecidableError):
        le(_cancelled)


def test_scale_makes_a_cancelled_equality_hold():
    a = lambda: mp.pi * M(10) ** 60  # noqa: E731
    o = eq(_cancelled, scale=a)
    assert o.holds and o.ratio <= 1e-40, f"{o}, should hold to the resolution of 50 digits [eq((a + e) − a, e; scale=a)]"
    o = le(_cancelled, scale=a)
    assert o.holds and o.ratio == pytest.approx(1.0, rel=1e-15), f"{o}, should hold tight [le((a + e) − a ≤ e; scale=a)]"


# -- eq -------------------------------------------------------------------------------------------

def test_eq_exact_identity_holds_with_ratio_zero():
    o = eq(lambda: (M(1) / 3 + M(2) / 3, M(1)))
    assert (o.holds, o.ratio, o.bound) == (True, 0.0, 0.0), f"{o} [eq(1/3 + 2/3 = 1)]"


def test_eq_ratio_is_the_relative_discrepancy():
    o = eq(lambda: (M(3), M(4)))
    assert not o.holds and o.ratio == 0.25 and o.measured == 1.0, f"{o} [eq(3 = 4): |3 − 4|/4]"
    o = eq(lambda: (M(1) + M(10) ** -45, M(1)))
    assert not o.holds and o.ratio == pytest.approx(1e-45, rel=1e-10), f"{o} [eq(1 + 1e-45 = 1)]"
    o = eq(lambda: (mp.matrix([[3.0, 0.0]]), mp.matrix([[0.0, 4.0]])))
    assert not o.holds and o.ratio == pytest.approx(5 / 4), f"{o} [eq((3, 0) = (0, 4)): ‖(3, −4)‖/max(3, 4)]"


def test_eq_refuses_sides_of_different_shapes():
    with pytest.raises(ValueError, match="shapes 1x2 and 2x1"):
        eq(lambda: (mp.matrix([[1.0, 2.0]]), mp.matrix([[1.0], [2.0]])))


# -- loewner: λ_min(Y − X) on known matrices ----------------------------------------------------------

Q = lambda: mp.matrix([[1, 2, 2], [2, 1, -2], [2, -2, 1]]) / 3  # noqa: E731  (orthogonal; 1/3 not exact in binary)


def _conj(d):
    return lambda: Q() * mp.diag(d) * Q().T


@pytest.mark.parametrize("X, Y, holds, ratio, measured", [
    (lambda: mp.diag([1, 2]), lambda: mp.diag([3, 3]), True, 1 - 1 / 3, -1.0),    # λ_min(diag(2, 1)) = 1, scale 3
    (lambda: mp.diag([1, 2]), lambda: mp.diag([1, 2]), True, 1.0, 0.0),            # X = Y: tight
    (lambda: mp.diag([1, 2]), lambda: mp.diag([2, 1.5]), False, 1 + 0.5 / 2, 0.5),  # λ_min = −0.5, scale 2
    (_conj([1, 2, 3]), _conj([2, 2, 4]), True, 1.0, 0.0),                          # λ(Y − X) = (1, 0, 1), rounded Q
    (lambda: mp.zeros(2, 2), lambda: mp.zeros(2, 2), True, 1.0, 0.0),              # 0 ⪯ 0, scale 0
])
def test_loewner_margin_on_known_matrices(X, Y, holds, ratio, measured):
    o = loewner(X, Y)
    assert o.holds == holds and o.bound == 0.0, f"{o}, should have holds={holds} [loewner]"
    assert o.ratio == pytest.approx(ratio, rel=1e-15), f"ratio={o.ratio}, should be {ratio} [loewner; {o}]"
    assert o.measured == pytest.approx(measured, abs=1e-90), f"measured={o.measured}, should be −λ_min = {measured}"


def test_loewner_tiny_violation_caught_at_50_digits():
    """Y = X − 1e-30·e₁e₁ᵀ: X ⪯ Y fails by 1e-30.  Judged from 50 digits up it fails with the margin
    measured; float64 (the planted judge) rounds 1 − 1e-30 to 1 and calls it an equality."""
    X = lambda: mp.eye(2)  # noqa: E731
    Y = lambda: mp.eye(2) - M(10) ** -30 * mp.matrix([[1, 0], [0, 0]])  # noqa: E731
    o = loewner(X, Y)
    assert not o.holds and o.measured == pytest.approx(1e-30, rel=1e-10), f"{o}, should fail by 1e-30"

    def planted(X, Y):  # the same rule evaluated in float64
        x, y = (np.array(Z().tolist(), dtype=np.float64) for Z in (X, Y))
        return float(np.linalg.eigvalsh(y - x).min()) >= 0

    assert planted(X, Y), "float64 sees the margin (so this test would not show what 50 digits buy)"
    o = loewner(_conj([1, 2, 3]), _conj([2, 2 - M(10) ** -20, 4]))
    assert not o.holds and o.measured == pytest.approx(1e-20, rel=1e-10), f"{o}, should fail by 1e-20 [rounded Q]"
    assert math.isfinite(o.ratio) and o.ratio >= 1.0, f"ratio={o.ratio}, a violation has ratio ≥ 1"
