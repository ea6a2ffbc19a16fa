"""Hypothesis strategies shared by the papers' claims.

Strategies draw cheap float64 data only (DESIGN: "draw cheap data in strategies"); anything derived
(a PSD matrix G Gᵀ, a unit vector, an exact product) is formed by the check in mpmath from the drawn
factors, so hypotheses such as "B is PSD" hold exactly rather than up to rounding.  Sizes are small:
the oracle runs at 50+ digits.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

__all__ = [
    "CORNER_KINDS",
    "conditioned_matrices",
    "corner_matrices",
    "dims",
    "elements",
    "walsh_hadamard_columns",
    "lipschitz_pairs",
    "log10_cond",
    "matrices",
    "scalars",
    "scaled_arrays",
    "vectors",
    "with_corners",
]


def elements(*, max_abs: float = 10.0, min_abs_nonzero: float = 1e-3) -> st.SearchStrategy[float]:
    """Finite float64 entries in [−max_abs, max_abs]; shrink towards 0 and small integers."""
    return st.floats(
        min_value=-max_abs, max_value=max_abs, allow_nan=False, allow_infinity=False, allow_subnormal=False
    ).map(lambda v: 0.0 if abs(v) < min_abs_nonzero else v)


def scalars(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False, allow_subnormal=False)


def dims(lo: int = 1, hi: int = 5) -> st.SearchStrategy[int]:
    return st.integers(min_value=lo, max_value=hi)


def vectors(n, *, max_abs: float = 10.0) -> st.SearchStrategy[np.ndarray]:
    """float64 vectors of length ``n`` (an int or a strategy of ints)."""
    n_st = n if isinstance(n, st.SearchStrategy) else st.just(n)
    return n_st.flatmap(lambda k: hnp.arrays(np.float64, (k,), elements=elements(max_abs=max_abs)))


def matrices(rows, cols, *, max_abs: float = 10.0) -> st.SearchStrategy[np.ndarray]:
    """float64 matrices of shape rows × cols (ints or strategies of ints)."""
    r_st = rows if isinstance(rows, st.SearchStrategy) else st.just(rows)
    c_st = cols if isinstance(cols, st.SearchStrategy) else st.just(cols)
    return st.tuples(r_st, c_st).flatmap(
        lambda rc: hnp.arrays(np.float64, rc, elements=elements(max_abs=max_abs))
    )


@st.composite
def conditioned_matrices(draw, rows, cols, *, max_log10_cond: float = 8.0):
    """Full-column-rank float64 matrices with condition number up to 10**max_log10_cond.

    A = U diag(s) Vᵀ with U, V orthonormal factors of drawn Gaussian-like matrices and log10 s
    spread over [−c, 0], c ≤ max_log10_cond; the float64 product is the instance (its exact
    condition number is what the oracle measures).
    """
    n = draw(rows) if isinstance(rows, st.SearchStrategy) else rows
    d = draw(cols) if isinstance(cols, st.SearchStrategy) else cols
    if d > n:
        raise ValueError(f"cols={d} must be <= rows={n} for a full-column-rank matrix")
    g1 = draw(hnp.arrays(np.float64, (n, d), elements=scalars(-1.0, 1.0)), label="U factor")
    g2 = draw(hnp.arrays(np.float64, (d, d), elements=scalars(-1.0, 1.0)), label="V factor")
    c = draw(scalars(0.0, max_log10_cond), label="log10 cond")
    scale = draw(scalars(-2.0, 2.0), label="log10 scale")
    # Orthonormal factors; a degenerate draw (rank-deficient g) is repaired with the identity.
    u, _ = np.linalg.qr(g1 + np.eye(n, d))
    v, _ = np.linalg.qr(g2 + 2 * np.eye(d))
    s = 10.0 ** (scale - c * np.linspace(0.0, 1.0, d))
    return (u * s) @ v.T


def scaled_arrays(shape, lo: float, hi: float) -> st.SearchStrategy[np.ndarray]:
    """float64 arrays with entries in [−1, 1] times 10**s, s ∈ [lo, hi] (small and large radii)."""
    return st.tuples(hnp.arrays(np.float64, shape, elements=elements(max_abs=1.0, min_abs_nonzero=1e-6)),
                     scalars(lo, hi)).map(lambda ms: ms[0] * 10.0 ** ms[1])


@st.composite
def lipschitz_pairs(draw, params, dim, *, lo: float = -1.5, hi: float = 0.5):
    """``(*params, x, y)`` for Lipschitz claims: ``params`` is a strategy of a tuple (the fixed data,
    e.g. (A, b)), ``dim(params)`` the length of x; x has radius 10**U(lo, hi); y is a near point
    (‖x − y‖ down to 1e-7·max(1, ‖x‖_∞), where a claimed constant is tightest) or an independent far one."""
    p = draw(params, label="params")
    d = dim(p)
    x = draw(scaled_arrays((d,), lo, hi), label="x")
    if draw(st.booleans(), label="near pair"):
        h = draw(hnp.arrays(np.float64, (d,), elements=scalars(-1.0, 1.0)), label="direction")
        k = draw(scalars(1.0, 7.0), label="-log10 distance")
        y = x + h * 10.0**-k * max(1.0, float(np.abs(x).max()))
    else:
        y = draw(scaled_arrays((d,), lo, hi), label="y")
    return (*p, x, y)


# -- float64's hard corners (issue 14) -----------------------------------------------------------

CORNER_KINDS = ("square ill-conditioned", "n = 1", "exact zeros", "ties", "huge", "tiny", "spikes", "hadamard",
                "repeated rows")
"""The corner families of :func:`corner_matrices`: κ up to 1e12 on square systems, one row, exact
zeros, ties (equal entries), magnitudes whose squares overflow (> 1e154) or underflow (< 1e-162),
coherent inputs for sketches (spikes e_i, Walsh–Hadamard columns, repeated rows)."""


def with_corners(strategy, corners, *, weight: float = 0.25) -> st.SearchStrategy:
    """``strategy`` mixed with ``corners`` (a strategy of corner instances) with explicit weight: a
    draw comes from ``corners`` for about ``weight`` of the examples (``st.one_of`` would split evenly
    between branches); shrinking moves towards ``strategy``, whose simplest draws are the minimal
    witnesses a report should show."""
    if isinstance(weight, bool) or not (isinstance(weight, (int, float)) and 0 < weight < 1):
        raise ValueError(f"weight={weight!r} must be a number in (0, 1)")
    cut = max(1, round(100 * weight))
    return st.integers(0, 99).flatmap(lambda i: corners if i >= 100 - cut else strategy)


def walsh_hadamard_columns(n: int, d: int) -> np.ndarray:
    """The first d columns of the n × n Walsh–Hadamard matrix (n a power of two, entries ±1): the
    coherent input on which an SRHT with constant signs fails."""
    if n < 1 or n & (n - 1):
        raise ValueError(f"n={n!r} must be a power of two")
    idx = np.arange(n)
    bits = np.array([[bin(i & j).count("1") & 1 for j in range(d)] for i in idx])
    return np.where(bits == 1, -1.0, 1.0)


def log10_cond(A, *, max_value: float = 17.0) -> float:
    """log10 κ₂(A) in float64, at most ``max_value`` (a singular, zero or non-finite A gives ``max_value``).

    For ``target()`` (the default cap 17 is past float64's reach) and for choosing a working precision
    (a caller that needs more digits passes its own cap), never for a verdict.  ``A`` is a float64 array
    or the exact mpmath image of one (anything with ``tolist()``)."""
    if not isinstance(A, np.ndarray) and hasattr(A, "tolist"):
        A = A.tolist()
    s = np.linalg.svd(np.asarray(A, dtype=np.float64), compute_uv=False)
    if s.size == 0 or s[-1] == 0 or not np.isfinite(s[0]):
        return float(max_value)
    return float(min(max_value, np.log10(s[0] / s[-1])))


@st.composite
def corner_matrices(draw, rows, cols, *, kinds=CORNER_KINDS, max_log10_cond: float = 12.0):
    """float64 matrices from the corner families ``kinds`` (see :data:`CORNER_KINDS`); ``rows`` and
    ``cols`` are ints or strategies (a square kind uses rows for both, "n = 1" one row, "hadamard"
    rounds rows up to a power of two)."""
    unknown = set(kinds) - set(CORNER_KINDS)
    if not kinds or unknown:
        raise ValueError(f"kinds={kinds!r} must be a nonempty subset of {CORNER_KINDS}")
    kind = draw(st.sampled_from(tuple(kinds)), label="corner kind")
    n = draw(rows) if isinstance(rows, st.SearchStrategy) else rows
    d = draw(cols) if isinstance(cols, st.SearchStrategy) else cols
    if kind == "square ill-conditioned":
        c = draw(scalars(3.0, max_log10_cond), label="log10 cond")
        m = max(n, 2)
        g = draw(hnp.arrays(np.float64, (m, m), elements=scalars(-1.0, 1.0)), label="factor")
        u, _ = np.linalg.qr(g + np.eye(m))
        v, _ = np.linalg.qr(g.T + 2 * np.eye(m))
        return (u * 10.0 ** (-c * np.linspace(0.0, 1.0, m))) @ v.T
    if kind == "n = 1":
        return draw(hnp.arrays(np.float64, (1, d), elements=elements(max_abs=1e3)), label="row")
    if kind == "exact zeros":
        A = draw(hnp.arrays(np.float64, (n, d), elements=st.sampled_from([0.0, 1.0, -2.0])), label="sparse")
        A[:, draw(st.integers(0, d - 1), label="zero column")] = 0.0
        return A
    if kind == "ties":
        return np.full((n, d), draw(st.sampled_from([1.0, -1.0, 3.0, 0.5]), label="tied value"))
    if kind in ("huge", "tiny"):
        e = draw(scalars(154.5, 300.0) if kind == "huge" else scalars(-300.0, -162.5), label="log10 magnitude")
        M = draw(hnp.arrays(np.float64, (n, d), elements=scalars(-1.0, 1.0)), label="shape")
        M[0, 0] = 1.0  # never the zero matrix
        return M * 10.0**e
    if kind == "spikes":
        A = np.zeros((n, d))
        for j in range(d):
            A[draw(st.integers(0, n - 1), label=f"spike row {j}"), j] = draw(st.sampled_from([1.0, 1e3]), label="height")
        return A
    if kind == "hadamard":
        p = 1 << (max(n, d) - 1).bit_length()
        return walsh_hadamard_columns(p, d)
    row = draw(hnp.arrays(np.float64, (1, d), elements=scalars(-1.0, 1.0)), label="row")  # repeated rows
    return np.repeat(row + np.eye(1, d), n, axis=0)
