"""Meta-tests of ``properties.toolkit.strategies``, in the manner of
array-api-tests' ``meta_tests/test_hypothesis_helpers.py``: each helper's arguments are validated
when the strategy is built (``ValueError`` naming the argument), and each keeps its promise —
``with_corners``' weight, ``conditioned_matrices``' κ ≤ 10**max_log10_cond (reached, never
exceeded, measured exactly by the oracle), ``lipschitz_pairs``' radii and distances, and the
defining property of every family of ``corner_matrices``.

Statistical promises are measured on *fresh* draws (:func:`fresh_draws`): each is one example of
Hypothesis's generator from its own seeded random source, so they are independent, which the
stated bounds need; the examples of one ``@given`` search are not (it starts from the minimal
example and mutates earlier ones).
"""

from __future__ import annotations

import math
from random import Random

import numpy as np
import pytest
from hypothesis import find, settings
from hypothesis import strategies as st
from hypothesis.control import BuildContext
from hypothesis.internal.conjecture.data import ConjectureData
from mpmath import mp

from oracle import linalg, to_mp
from properties.toolkit.strategies import (
    CORNER_KINDS,
    KAPPA_CORNERS,
    conditioned_matrices,
    corner_matrices,
    dims,
    elements,
    kappa_corner_matrices,
    lipschitz_pairs,
    matrices,
    scalars,
    scaled_arrays,
    vectors,
    with_corners,
)

J = st.just
FIND = settings(database=None, derandomize=True, max_examples=2000)


def fresh_draws(strategy, n: int, *, seed: int = 0) -> list:
    """``n`` independent draws of ``strategy``: draw k is one fresh example of Hypothesis's generator
    with random source ``Random(seed + k)`` (deterministic, and no search correlating them)."""
    out = []
    for k in range(n):
        data = ConjectureData(random=Random(seed + k))
        with BuildContext(data, wrapped_test=lambda: None):
            out.append(data.draw(strategy))
    return out


def exact_log10_cond(A) -> float:
    """log10 κ₂(A) of the float64 matrix A, exactly as the oracle measures it (50 digits)."""
    with mp.workdps(50):
        return float(mp.log10(linalg.cond(to_mp(A))))


# -- arguments: strategies for sizes, named bounds, checked when the strategy is built ------------------

BAD_ARGUMENTS = [
    (lambda: vectors(3), r"lengths=3 must be a Hypothesis strategy \(st\.just\(3\) for a fixed value\)"),
    (lambda: matrices(2, J(2)), r"rows=2 must be a Hypothesis strategy"),
    (lambda: matrices(J(2), 2), r"cols=2 must be a Hypothesis strategy"),
    (lambda: conditioned_matrices(J(3), 2.0), r"cols=2\.0 must be a Hypothesis strategy of sizes or an integer >= 0"),
    (lambda: conditioned_matrices(J(3), J(2), max_log10_cond=-1.0), r"max_log10_cond=-1\.0 must be a finite number >= 0"),
    (lambda: conditioned_matrices(J(3), J(2), max_log10_cond=math.inf), r"max_log10_cond=inf must be a finite number"),
    (lambda: corner_matrices(-1, J(2)), r"rows=-1 must be a Hypothesis strategy of sizes or an integer >= 0"),
    (lambda: corner_matrices(J(3), J(2), kinds=("bogus",)), r"kinds=\('bogus',\) must be a nonempty tuple of names"),
    (lambda: corner_matrices(J(3), J(2), kinds="ties"), r"kinds='ties' must be a nonempty tuple of names"),
    (lambda: corner_matrices(J(3), J(2), kinds=()), r"kinds=\(\) must be a nonempty tuple of names"),
    (lambda: corner_matrices(J(3), J(2), max_log10_cond=2.0), r"max_log10_cond=2\.0 must be a finite number >= 3"),
    (lambda: with_corners(3, J(1)), r"strategy=3 must be a Hypothesis strategy"),
    (lambda: with_corners(J(0), 1), r"corners=1 must be a Hypothesis strategy"),
    *[(lambda w=w: with_corners(J(0), J(1), weight=w), rf"weight={w!r} must be a number in \(0, 1\)")
      for w in (0, 1, 1.5, -0.1, True, "0.5")],
    (lambda: scalars(1.0, 0.0), r"min_value=1\.0 must be <= max_value=0\.0"),
    (lambda: scalars(math.nan, 1.0), r"min_value=nan must be a finite number"),
    (lambda: scalars(0.0, math.inf), r"max_value=inf must be a finite number"),
    (lambda: scalars("0", 1.0), r"min_value='0' must be a finite number"),
    (lambda: dims(-1, 2), r"min_value=-1 must be an integer >= 0"),
    (lambda: dims(1, 2.5), r"max_value=2\.5 must be an integer >= 0"),
    (lambda: dims(1, True), r"max_value=True must be an integer >= 0"),
    (lambda: dims(3, 2), r"min_value=3 must be <= max_value=2"),
    (lambda: elements(max_abs=0.0), r"max_abs=0\.0 must be a finite number > 0"),
    (lambda: elements(max_abs=1.0, min_abs_nonzero=2.0), r"min_abs_nonzero=2\.0 must be <= max_abs=1\.0"),
    (lambda: elements(min_abs_nonzero=-1e-3), r"min_abs_nonzero=-0\.001 must be a finite number >= 0"),
    (lambda: scaled_arrays([2], min_exponent=0.0, max_exponent=1.0), r"shape=\[2\] must be a tuple of integers >= 0"),
    (lambda: scaled_arrays((2,), min_exponent=1.0, max_exponent=0.0), r"min_exponent=1\.0 must be <= max_exponent=0\.0"),
    (lambda: lipschitz_pairs((1,), len), r"params=\(1,\) must be a Hypothesis strategy"),
    (lambda: lipschitz_pairs(J((1,)), 3), r"dim=3 must be a function of the drawn params"),
    (lambda: lipschitz_pairs(J((1,)), len, max_exponent=math.nan), r"max_exponent=nan must be a finite number"),
]


@pytest.mark.parametrize("build, message", BAD_ARGUMENTS)
def test_bad_argument_is_refused_when_the_strategy_is_built(build, message):
    with pytest.raises(ValueError, match=message):
        build()  # nothing is drawn: the error comes from building the strategy


def test_int_size_draws_the_same_matrix_as_a_just_size():
    """conditioned_matrices and corner_matrices take an int size as well as st.just (see the module
    docstring of properties.toolkit.strategies): the same values, only st.just is recorded as a draw."""
    for k in range(20):
        a, b = (fresh_draws(f(3, 2), 1, seed=k)[0] for f in (conditioned_matrices, corner_matrices))
        a2, b2 = (fresh_draws(f(J(3), J(2)), 1, seed=k)[0] for f in (conditioned_matrices, corner_matrices))
        assert np.array_equal(a, a2) and np.array_equal(b, b2), f"seed {k}: int and st.just sizes draw different matrices"


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        vectors(J(2), 3.0)
    with pytest.raises(TypeError):
        scaled_arrays((2,), 0.0, 1.0)


def test_entries_respect_max_abs_and_min_abs_nonzero():
    for A in fresh_draws(matrices(dims(1, 4), dims(1, 4), max_abs=3.0), 200):
        a = np.abs(A)
        assert np.all(a <= 3.0) and not np.any((a > 0) & (a < 1e-3)), f"entries {A.tolist()} [matrices(max_abs=3)]"
    for v in fresh_draws(vectors(J(3), max_abs=1e-2), 100):
        assert v.shape == (3,) and np.all(np.abs(v) <= 1e-2), f"{v} [vectors(st.just(3), max_abs=1e-2)]"


# -- with_corners: the weight -------------------------------------------------------------------------------

PLAIN = st.tuples(J("plain"), st.integers(0, 10**9))
CORNER = st.tuples(J("corner"), st.integers(0, 10**9))


@pytest.mark.parametrize("weight", [0.25, 0.3])
def test_with_corners_weight_on_fresh_draws(weight):
    """Over N = 3000 independent draws the share from ``corners`` is p ± t, where p is between
    0.95·weight (the 5% of integer draws Hypothesis replaces by its constants all avoid the corner
    branch) and 0.95·weight + 0.05 (all hit it), and t = √(ln(2/1e-6)/(2N)) = 0.049 bounds the
    deviation with probability ≥ 1 − 1e-6 (Hoeffding): the false-alarm rate is at most 1e-6.  An even
    split (``st.one_of``, 0.5) or an inverted weight (0.7, 0.75) is outside the band."""
    n = 3000
    share = sum(x[0] == "corner" for x in fresh_draws(with_corners(PLAIN, CORNER, weight=weight), n)) / n
    t = math.sqrt(math.log(2 / 1e-6) / (2 * n))
    lo, hi = 0.95 * weight - t, 0.95 * weight + 0.05 + t
    assert lo <= share <= hi, f"corner share {share:.4f} outside [{lo:.4f}, {hi:.4f}] [with_corners(weight={weight})]"
    assert not lo <= 0.5 <= hi and not lo <= 1 - weight <= hi, "the band cannot tell a wrong weight from the right one"


def test_with_corners_shrinks_towards_the_plain_strategy():
    s = with_corners(PLAIN, CORNER, weight=0.3)
    assert find(s, lambda x: True, settings=FIND) == ("plain", 0), "the minimal example should be the plain one"
    assert find(s, lambda x: x[0] == "corner", settings=FIND) == ("corner", 0), "corners should be reachable"


# -- conditioned_matrices: the κ promise ---------------------------------------------------------------------

MAX_LOG10_COND = 8.0
# The float64 product (u·s)·vᵀ of numpy's (orthonormal to ~1e-15) QR factors is within ~n·ε·‖A‖ of
# U diag(s) Vᵀ, whose κ is 10**c exactly: κ of the instance is 10**c·(1 ± ~n·ε·10**c) ≈ 10**c·(1 ± 1e-6)
# for n ≤ 6, c ≤ 8.  The margin 1e-5 in log10 (2.3e-5 relative) leaves 20× headroom.
COND_MARGIN = 1e-5
TALL = dims(2, 6).flatmap(lambda n: conditioned_matrices(J(n), dims(2, n), max_log10_cond=MAX_LOG10_COND))


def test_conditioned_matrices_keep_the_kappa_promise():
    """Over 150 fresh draws, κ never exceeds 10**max_log10_cond (beyond COND_MARGIN) and reaches it
    within 0.01 in log10 (Hypothesis draws the bound of a float range often: 4 of these 150 draws)."""
    got = []
    for A in fresh_draws(TALL, 150):
        n, d = A.shape
        got.append(exact_log10_cond(A))
        assert 2 <= d <= n and got[-1] <= MAX_LOG10_COND + COND_MARGIN, (
            f"log10 κ = {got[-1]} > {MAX_LOG10_COND} + {COND_MARGIN} for a {n}×{d} matrix [conditioned_matrices]")
    assert max(got) >= MAX_LOG10_COND - 0.01, f"largest log10 κ drawn {max(got)}, should reach {MAX_LOG10_COND} − 0.01"


def test_conditioned_matrices_refuse_wide_shapes_when_drawn():
    with pytest.raises(ValueError, match=r"cols=3 must be <= rows=2 for a full-column-rank matrix"):
        fresh_draws(conditioned_matrices(J(2), J(3)), 1)


def test_kappa_corner_matrices_draw_each_corner_and_only_the_corners():
    """κ of every fresh draw is one of KAPPA_CORNERS (1, 1e4, 1e8, 1e12), within 1e-3 in log10 (the float64
    product is within ~n·ε·κ of the exact U diag(s) Vᵀ), and 60 draws meet every corner (each misses with
    probability (3/4)^60 < 1e-7)."""
    seen = set()
    for A in fresh_draws(dims(2, 5).flatmap(lambda n: kappa_corner_matrices(J(n), dims(2, n))), 60):
        c = exact_log10_cond(A)
        near = min(KAPPA_CORNERS, key=lambda k: abs(k - c))
        assert abs(c - near) < 1e-3, f"log10 κ = {c} is no corner of {KAPPA_CORNERS} [kappa_corner_matrices]"
        seen.add(near)
    assert seen == set(KAPPA_CORNERS), f"corners drawn {sorted(seen)}, should be {KAPPA_CORNERS}"


@pytest.mark.parametrize("conds", [(), "0", (-1.0,), (17.0,), (float("nan"),)])
def test_kappa_corner_matrices_refuse_bad_corners(conds):
    with pytest.raises(ValueError, match="log10_conds"):
        kappa_corner_matrices(J(3), J(2), log10_conds=conds)


# -- lipschitz_pairs: radii and distances ------------------------------------------------------------------

LO, HI = -1.5, 0.5
PAIRS = lipschitz_pairs(st.tuples(matrices(dims(1, 3), dims(1, 3))), lambda p: p[0].shape[1],
                        min_exponent=LO, max_exponent=HI)


def _norms(inst):
    A, x, y = inst
    r = max(1.0, float(np.abs(x).max()))
    return float(np.abs(x).max()), float(np.abs(y).max()), float(np.abs(x - y).max()) / r


def test_lipschitz_pairs_shapes_radii_and_distances():
    """Every draw: x, y of length dim(params), ‖x‖∞ ≤ 10**max_exponent, y within 0.1·max(1, ‖x‖∞) of x
    or itself of radius ≤ 10**max_exponent.  Over 300 fresh draws the radii span the exponent range
    (within 0.5 of each end) and the distances reach both 1e-6·max(1, ‖x‖∞) (near) and 0.5 (far)."""
    norms = []
    for inst in fresh_draws(PAIRS, 300):
        A, x, y = inst
        nx, ny, dist = _norms(inst)
        assert x.shape == y.shape == (A.shape[1],), f"x {x.shape}, y {y.shape} for A {A.shape} [lipschitz_pairs]"
        assert nx <= 10.0**HI and (dist <= 0.1 or ny <= 10.0**HI), f"‖x‖∞={nx}, ‖y‖∞={ny}, distance {dist}"
        norms.append((nx, dist))
    radii = [nx for nx, _ in norms if nx > 0]
    assert max(radii) >= 10.0 ** (HI - 0.5) and min(radii) <= 10.0 ** (LO + 0.5), (
        f"radii span [{min(radii):.3g}, {max(radii):.3g}], should reach 10**[{LO} + 0.5, {HI} − 0.5]")
    distances = [d for _, d in norms if d > 0]
    assert min(distances) <= 1e-6 and max(distances) > 0.5, (
        f"relative distances span [{min(distances):.3g}, {max(distances):.3g}], should reach 1e-6 and 0.5")


# -- corner_matrices: each family's defining property ---------------------------------------------------------

def _square_of_max(A) -> float:
    """max |A_ij|² in float64 (overflows to inf, or underflows to 0, for those corners)."""
    with np.errstate(over="ignore", under="ignore"):
        return float(np.square(np.abs(A).max()))


def _is_power_of_two(p: int) -> bool:
    return p >= 1 and p & (p - 1) == 0


CORNER_PROPERTIES = {
    "square ill-conditioned": lambda A: A.shape[0] == A.shape[1] >= 2 and 3 - 1e-2 <= exact_log10_cond(A) <= 12 + 1e-2,
    "n = 1": lambda A: A.shape[0] == 1 and np.all(np.abs(A) <= 1e3),
    "exact zeros": lambda A: set(np.unique(A)) <= {0.0, 1.0, -2.0} and np.any(np.all(A == 0, axis=0)),
    "ties": lambda A: np.all(A == A.flat[0]) and A.flat[0] in (1.0, -1.0, 3.0, 0.5),
    "huge": lambda A: np.all(np.isfinite(A)) and _square_of_max(A) == math.inf,
    "tiny": lambda A: np.abs(A).max() > 0 and _square_of_max(A) == 0.0,
    "spikes": lambda A: np.all((A != 0).sum(axis=0) == 1) and set(np.unique(A)) <= {0.0, 1.0, 1e3},
    "hadamard": lambda A: _is_power_of_two(A.shape[0]) and np.all(np.abs(A) == 1) and np.array_equal(
        A.T @ A, A.shape[0] * np.eye(A.shape[1])),
    "repeated rows": lambda A: np.all(A == A[0]),
}
# κ of "square ill-conditioned": 10**c, c ∈ [3, 12], up to ~m·ε·10**c ≤ 1e-3 relative (m ≤ 5): 1e-2 in log10.


def test_every_corner_kind_has_a_property():
    assert set(CORNER_PROPERTIES) == set(CORNER_KINDS)


@pytest.mark.parametrize("kind", CORNER_KINDS)
def test_corner_matrices_kind(kind):
    for A in fresh_draws(corner_matrices(dims(1, 5), dims(1, 5), kinds=(kind,)), 40):
        assert CORNER_PROPERTIES[kind](A), f"{A.tolist()} is not a {kind!r} corner [corner_matrices]"
