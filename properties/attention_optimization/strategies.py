"""Strategies of instances for the claims of paper 003 (spec ``attention_optimization.md`` §5).

Cheap float64 draws only; everything derived (norm scalings that make a hypothesis hold exactly,
PSD products) is formed by the checks in mpmath from the drawn factors.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..toolkit.strategies import dims, elements, lipschitz_pairs, matrices, scalars, vectors

__all__ = ["ATTENTION_FIELDS", "H12_FIELDS", "attention_instances", "h8_fields",
           "h8_pairs", "h12_instances", "loewner_pairs", "problems", "regularised_problems",
           "vec_pairs_mixed", "vecs"]


ATTENTION_FIELDS = ("A1", "A2", "A3", "X", "Y", "B", "j0", "i0", "i", "l", "i2")
"""The names of an :func:`attention_instances` draw (spec §1: A1, A2, A3 ∈ R^{n×d}, X, Y ∈ R^{d×d}, B, row
j0, column i0, the variables i, l ∈ [d²] and a second column i2)."""

H12_FIELDS = ("A1", "A2", "A3", "X", "Y", "B", "j0", "i0")
"""The names of an :func:`h12_instances` draw."""


def h8_fields(in_y=False, names=None):
    """The names of an :func:`h8_pairs` draw: the H12 data and the two points, x and x̃ (z = (x, y) and z̃ with
    ``in_y``; ``names`` for points read otherwise, e.g. ("y", "ỹ"))."""
    return H12_FIELDS + (names or (("z", "z̃") if in_y else ("x", "x̃")))


def vecs(k, max_n=8, max_abs=10.0):
    """k vectors of one length n ≤ max_n (entries up to max_abs; zeros are frequent after shrinking)."""
    return dims(1, max_n).flatmap(lambda n: st.tuples(*[vectors(st.just(n), max_abs=max_abs) for _ in range(k)]))


def _sparse_vectors(n, max_abs=10.0):
    """Vectors with many exact zeros (axis-aligned and one-sign vectors make the Loewner facts tight)."""
    return hnp.arrays(np.float64, (n,), elements=st.one_of(st.just(0.0), elements(max_abs=max_abs)))


def vec_pairs_mixed(max_n=6):
    """u, v ∈ Rⁿ, dense or sparse (n ≤ max_n)."""
    return dims(1, max_n).flatmap(
        lambda n: st.tuples(st.one_of(vectors(st.just(n)), _sparse_vectors(n)),
                            st.one_of(vectors(st.just(n)), _sparse_vectors(n))))


def loewner_pairs():
    """u, v ∈ Rⁿ for the Loewner facts (n ≤ 4: each check takes eigen- and singular values at 50–400
    digits, and Hypothesis shrinks a counterexample through hundreds of calls)."""
    return vec_pairs_mixed(max_n=4)


def attention_instances(d_lo=1, d_hi=2, n_hi=3, B_square=False):
    """(A1, A2, A3, X, Y, B, j0, i0, i, l, i2): A1, A2, A3 ∈ R^{n×d}, X, Y ∈ R^{d×d}, B ∈ R^{n×d}
    (R^{n×n} if ``B_square``), indices j0 ∈ [n], i0 ∈ [d], i, l ∈ [d²], i2 ∈ [d] (entries ≤ 2 in
    magnitude, so exp stays moderate; n ≤ 3, d ≤ 2 keep d² ≤ 4 variables for numerical derivatives)."""
    def build(nd):
        n, d = nd
        m = lambda r, c: matrices(st.just(r), st.just(c), max_abs=2.0)
        return st.tuples(m(n, d), m(n, d), m(n, d), m(d, d), m(d, d), m(n, n if B_square else d),
                         st.integers(0, n - 1), st.integers(0, d - 1), st.integers(0, d * d - 1),
                         st.integers(0, d * d - 1), st.integers(0, d - 1))
    return st.tuples(dims(1, n_hi), dims(d_lo, d_hi)).flatmap(build)


def problems(n_lo=1, n_hi=4, d_lo=1, d_hi=2, max_abs=2.0):
    """(A1, A2, A3, B, X, Y) float64 with A's and B n×d, X, Y d×d, entries ≤ max_abs (adapter inputs).
    Arrays of the largest size are drawn and cut to (n, d), so a failure shrinks in n and d alone."""
    m = lambda r, c: matrices(st.just(r), st.just(c), max_abs=max_abs)
    full = st.tuples(m(n_hi, d_hi), m(n_hi, d_hi), m(n_hi, d_hi), m(n_hi, d_hi), m(d_hi, d_hi), m(d_hi, d_hi))
    return st.tuples(dims(n_lo, n_hi), dims(d_lo, d_hi), full).map(
        lambda t: tuple(M[:t[0], :t[1]].copy() for M in t[2][:4]) + tuple(M[:t[1], :t[1]].copy() for M in t[2][4:]))


def regularised_problems(n_hi=3, d_hi=2, w_lo=1.0, w_hi=4.0, full_rank=False):
    """(A1, A2, A3, B, w, z) with w ∈ [w_lo, w_hi]ⁿ and z ∈ R^{2d²}; with ``full_rank``, n ≥ d and
    3·I_{n×d} is added to A1, A2, A3 (entries of the rest ≤ 1), so σ_min of each is ≥ 3 − √(nd) > 0 and
    the regulariser's Hessian is positive definite."""
    def build(nd):
        n, d = nd
        if full_rank:
            n = max(n, d)
        shift = 3.0 * np.eye(n, d) if full_rank else np.zeros((n, d))
        m = lambda: matrices(st.just(n), st.just(d), max_abs=1.0).map(lambda M: M + shift)
        return st.tuples(m(), m(), m(), matrices(st.just(n), st.just(d), max_abs=1.0),
                         hnp.arrays(np.float64, (n,), elements=st.floats(w_lo, w_hi)),
                         vectors(st.just(2 * d * d), max_abs=1.0))
    return st.tuples(dims(1, n_hi), dims(1, d_hi)).flatmap(build)


def _scaled(A1, A2, A3, X, Y, B, R, t):
    """Spec §5 steps 2–6: ‖A2‖ = ‖A3‖ = R, rows of A1 ≤ 1 and ‖A1‖ ≤ R, ‖X‖_F = tR, columns of Y of norm R,
    B ← R·B (float64 scalings; the checks recompute the radius R the result meets exactly)."""
    def to(M, r):
        s = np.linalg.norm(M, 2)
        return M * (r / s) if s > 0 else M
    rows = np.linalg.norm(A1, axis=1).max()
    if rows > 0:
        A1 = A1 / max(rows, np.linalg.norm(A1, 2) / R)
    nx = np.linalg.norm(X)
    cols = np.linalg.norm(Y, axis=0)
    Y = Y * np.where(cols > 0, R / np.where(cols > 0, cols, 1.0), 1.0)[None, :]
    return A1, to(A2, R), to(A3, R), X * (t * R / nx) if nx > 0 else X, Y, B * R


def _adversarial(n, d, R, bsign=-1.0):
    """Spec §5 adversarial family: X = 0 (uniform softmax), A1 rows of norm 1, A2's first column ∝ the
    alternating signs (1, −1, 1), A3 = R·e_1 in its first column, Y columns R·e_1, B = bsign·R (so |c|
    reaches R² + R at n = 1; ‖H_xy‖ = (√2/2)R²(R² + R) at n = 2, d = 1)."""
    A1 = np.ones((n, d)) / np.sqrt(d)
    A2 = np.outer([(-1.0) ** k for k in range(n)], np.eye(d)[0]) * (R / np.sqrt(n))
    A3 = np.zeros((n, d))
    A3[0, 0] = R
    Y = np.zeros((d, d))
    Y[0, :] = R
    return A1, A2, A3, np.zeros((d, d)), Y, np.full((n, d), bsign * R)


def h12_instances(n_hi=3, d_hi=2, R_lo=4.0, R_hi=10.0, n_lo=1):
    """(A1, A2, A3, X, Y, B, j0, i0) meeting H12 with some R ∈ [R_lo, R_hi] (spec §5): a scaled random
    draw, or the adversarial family of §5 (the search's route to the tight and violating cases).
    Everything is drawn at the largest size and cut to (n, d) (no flatmap), so failures shrink fast."""
    m = lambda r, c: matrices(st.just(r), st.just(c), max_abs=1.0)
    full = st.tuples(m(n_hi, d_hi), m(n_hi, d_hi), m(n_hi, d_hi), m(d_hi, d_hi), m(d_hi, d_hi), m(n_hi, d_hi))
    def build(t):
        n, d, family, arrays, R, frac, j0, i0 = t
        if family:
            data = _adversarial(n, d, R)
        else:
            A1, A2, A3, X, Y, B = arrays
            data = _scaled(A1[:n, :d], A2[:n, :d], A3[:n, :d], X[:d, :d], Y[:d, :d], B[:n, :d], R, frac)
        return (*(M.copy() for M in data), j0 % n, i0 % d)

    return st.tuples(dims(n_lo, n_hi), dims(1, d_hi), st.booleans(), full, scalars(R_lo, R_hi), scalars(0.0, 1.0),
                     st.integers(0, n_hi - 1), st.integers(0, d_hi - 1)).map(build)


def h8_pairs(n_hi=3, d_hi=2, in_y=False):
    """Lipschitz instances (A1, A2, A3, X, Y, B, j0, i0, z, z̃) for Sections 8 and 12: the data of
    :func:`h12_instances`, z, z̃ ∈ R^{d²} (x only) or R^{2d²} (``in_y``: z = (x, y)) near or far apart."""
    return lipschitz_pairs(h12_instances(n_hi=n_hi, d_hi=d_hi),
                           lambda p: p[0].shape[1] ** 2 * (2 if in_y else 1))
