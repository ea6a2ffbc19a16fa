"""Hypothesis strategies shared by the papers' claims.

Strategies draw cheap float64 data only (DESIGN: "draw cheap data in strategies"); anything derived
(a PSD matrix G Gᵀ, a unit vector, an exact product) is formed by the check in mpmath from the drawn
factors, so hypotheses such as "B is PSD" hold exactly rather than up to rounding.  Sizes are small:
the oracle runs at 50+ digits.

Arguments follow Hypothesis's api-style guide: sizes are strategies (``st.just(3)`` for a fixed
size), bounds are named ``min_…``/``max_…``, options are keyword-only, and a bad argument raises
``ValueError`` naming it when the strategy is built, not when it is drawn.  One exception:
:func:`conditioned_matrices` and :func:`corner_matrices` also take an int size, which they use
without a draw, where ``st.just(n)`` is drawn (an empty draw, but one Hypothesis records and its
mutations act on): their call sites of both kinds keep the examples the ledger records, until a
re-baselined ledger lets them pass ``st.just`` alone.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

__all__ = [
    "PATH_SIZES", "fixed_matrix",
    "CORNER_KINDS",
    "conditioned_matrices",
    "KAPPA_CORNERS",
    "corner_matrices",
    "dims",
    "elements",
    "kappa_corner_matrices",
    "lipschitz_pairs",
    "log10_cond",
    "matrices",
    "scalars",
    "scaled_arrays",
    "vectors",
    "walsh_hadamard_columns",
    "with_corners",
]


# -- argument checks (Hypothesis's ``internal/validation.py``, raising ValueError) ----------------

def _strategy(name: str, value) -> st.SearchStrategy:
    if not isinstance(value, st.SearchStrategy):
        raise ValueError(f"{name}={value!r} must be a Hypothesis strategy (st.just({value!r}) for a fixed value)")
    return value


def _size(name: str, value) -> None:
    """A size of conditioned_matrices/corner_matrices: a strategy, or an int (fixed, not drawn)."""
    if not isinstance(value, st.SearchStrategy) and (
            isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0):
        raise ValueError(f"{name}={value!r} must be a Hypothesis strategy of sizes or an integer >= 0")


def _draw_size(draw, value) -> int:
    return draw(value) if isinstance(value, st.SearchStrategy) else value


def _real(name: str, value, *, min_value: float = -math.inf, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or value < min_value or (positive and value <= 0):
        rule = "a finite number" + (" > 0" if positive else f" >= {min_value}" if min_value > -math.inf else "")
        raise ValueError(f"{name}={value!r} must be {rule}")
    return float(value)


def _ordered(lo_name: str, lo: float, hi_name: str, hi: float) -> None:
    if lo > hi:
        raise ValueError(f"{lo_name}={lo!r} must be <= {hi_name}={hi!r}")


def _exponents(min_exponent: float, max_exponent: float) -> None:
    _ordered("min_exponent", _real("min_exponent", min_exponent), "max_exponent", _real("max_exponent", max_exponent))


# -- entries, sizes, arrays ------------------------------------------------------------------------

def elements(*, max_abs: float = 10.0, min_abs_nonzero: float = 1e-3) -> st.SearchStrategy[float]:
    """Finite float64 entries in [−max_abs, max_abs], those below ``min_abs_nonzero`` in magnitude
    set to 0; shrink towards 0 and small integers."""
    max_abs = _real("max_abs", max_abs, positive=True)
    _ordered("min_abs_nonzero", _real("min_abs_nonzero", min_abs_nonzero, min_value=0.0), "max_abs", max_abs)
    return st.floats(
        min_value=-max_abs, max_value=max_abs, allow_nan=False, allow_infinity=False, allow_subnormal=False
    ).map(lambda v: 0.0 if abs(v) < min_abs_nonzero else v)


def scalars(min_value: float, max_value: float) -> st.SearchStrategy[float]:
    """Finite float64 numbers in [min_value, max_value] (no subnormals)."""
    _ordered("min_value", _real("min_value", min_value), "max_value", _real("max_value", max_value))
    return st.floats(min_value=min_value, max_value=max_value, allow_nan=False, allow_infinity=False,
                     allow_subnormal=False)


def dims(min_value: int = 1, max_value: int = 5) -> st.SearchStrategy[int]:
    """Sizes in [min_value, max_value] (integers >= 0)."""
    for name, v in (("min_value", min_value), ("max_value", max_value)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name}={v!r} must be an integer >= 0")
    _ordered("min_value", min_value, "max_value", max_value)
    return st.integers(min_value=min_value, max_value=max_value)


def vectors(lengths: st.SearchStrategy[int], *, max_abs: float = 10.0) -> st.SearchStrategy[np.ndarray]:
    """float64 vectors whose length is drawn from ``lengths``, entries from :func:`elements`."""
    _strategy("lengths", lengths)
    entries = elements(max_abs=max_abs)
    return lengths.flatmap(lambda k: hnp.arrays(np.float64, (k,), elements=entries))


def matrices(rows: st.SearchStrategy[int], cols: st.SearchStrategy[int], *,
             max_abs: float = 10.0) -> st.SearchStrategy[np.ndarray]:
    """float64 matrices of shape rows × cols (each drawn from its strategy), entries from :func:`elements`."""
    _strategy("rows", rows), _strategy("cols", cols)
    entries = elements(max_abs=max_abs)
    return st.tuples(rows, cols).flatmap(lambda rc: hnp.arrays(np.float64, rc, elements=entries))


def conditioned_matrices(rows: st.SearchStrategy[int] | int, cols: st.SearchStrategy[int] | int, *,
                         max_log10_cond: float = 8.0) -> st.SearchStrategy[np.ndarray]:
    """Full-column-rank float64 matrices with condition number up to about 10**max_log10_cond.

    A = U diag(s) Vᵀ with U, V orthonormal factors of drawn Gaussian-like matrices and log10 s
    spread evenly over [−c, 0] + scale, c ∈ [0, max_log10_cond] drawn; the float64 product is the
    instance (its exact condition number, what the oracle measures, is 10**c up to rounding).
    ``cols`` must not exceed ``rows`` on any draw.  An int size is used without a draw (see the
    module docstring).
    """
    _size("rows", rows), _size("cols", cols)
    return _conditioned_matrices(rows, cols, _real("max_log10_cond", max_log10_cond, min_value=0.0))


@st.composite
def _conditioned_matrices(draw, rows, cols, max_log10_cond):
    n, d = _draw_size(draw, rows), _draw_size(draw, cols)
    if d > n:
        raise ValueError(f"cols={d} must be <= rows={n} for a full-column-rank matrix")
    g1 = draw(hnp.arrays(np.float64, (n, d), elements=scalars(-1.0, 1.0)), label="U factor")
    g2 = draw(hnp.arrays(np.float64, (d, d), elements=scalars(-1.0, 1.0)), label="V factor")
    c = draw(max_log10_cond if isinstance(max_log10_cond, st.SearchStrategy) else scalars(0.0, max_log10_cond),
             label="log10 cond")
    scale = draw(scalars(-2.0, 2.0), label="log10 scale")
    # Orthonormal factors; a degenerate draw (rank-deficient g) is repaired with the identity.
    u, _ = np.linalg.qr(g1 + np.eye(n, d))
    v, _ = np.linalg.qr(g2 + 2 * np.eye(d))
    s = 10.0 ** (scale - c * np.linspace(0.0, 1.0, d))
    return (u * s) @ v.T


KAPPA_CORNERS = (0.0, 4.0, 8.0, 12.0)
"""log10 κ of the condition corners every solve adapter mixes into its search: κ = 1, where
every method agrees; 1e4, where squaring κ (normal equations, HᵀH) still leaves 8 digits; 1e8, where it
leaves none; 1e12, where a backward-stable method still has 4."""


def kappa_corner_matrices(rows: st.SearchStrategy[int] | int, cols: st.SearchStrategy[int] | int, *,
                          log10_conds: tuple[float, ...] = KAPPA_CORNERS) -> st.SearchStrategy[np.ndarray]:
    """Full-column-rank float64 matrices as :func:`conditioned_matrices`, with log10 κ drawn from the corners
    ``log10_conds`` (each in [0, 16]) instead of an interval, so a search meets κ = 1e12 on about a quarter of
    its draws instead of at the end of a climb.  An int size is used without a draw."""
    _size("rows", rows), _size("cols", cols)
    if isinstance(log10_conds, (str, bytes)) or not log10_conds:
        raise ValueError(f"log10_conds={log10_conds!r} must be a nonempty tuple of numbers in [0, 16]")
    for c in log10_conds:
        if not 0.0 <= _real("log10_conds entry", c) <= 16.0:
            raise ValueError(f"log10_conds={log10_conds!r} must hold numbers in [0, 16]")
    return _conditioned_matrices(rows, cols, st.sampled_from(tuple(float(c) for c in log10_conds)))


def scaled_arrays(shape: tuple[int, ...], *, min_exponent: float,
                  max_exponent: float) -> st.SearchStrategy[np.ndarray]:
    """float64 arrays of the fixed ``shape`` with entries in [−1, 1] times 10**e, one e drawn from
    [min_exponent, max_exponent] per array (small and large radii)."""
    if not isinstance(shape, tuple) or not all(isinstance(k, (int, np.integer)) and k >= 0 for k in shape):
        raise ValueError(f"shape={shape!r} must be a tuple of integers >= 0")
    _exponents(min_exponent, max_exponent)
    return st.tuples(hnp.arrays(np.float64, shape, elements=elements(max_abs=1.0, min_abs_nonzero=1e-6)),
                     scalars(min_exponent, max_exponent)).map(lambda ms: ms[0] * 10.0 ** ms[1])


def lipschitz_pairs(params: st.SearchStrategy[tuple], dim, *, min_exponent: float = -1.5,
                    max_exponent: float = 0.5) -> st.SearchStrategy[tuple]:
    """``(*params, x, y)`` for Lipschitz claims: ``params`` is a strategy of a tuple (the fixed data,
    e.g. (A, b)), ``dim(params)`` the length of x; x has radius 10**e, e ∈ [min_exponent,
    max_exponent]; y is a near point (‖x − y‖ down to 1e-7·max(1, ‖x‖_∞), where a claimed constant
    is tightest) or an independent far one."""
    _strategy("params", params)
    if not callable(dim):
        raise ValueError(f"dim={dim!r} must be a function of the drawn params")
    _exponents(min_exponent, max_exponent)
    return _lipschitz_pairs(params, dim, min_exponent, max_exponent)


@st.composite
def _lipschitz_pairs(draw, params, dim, lo, hi):
    p = draw(params, label="params")
    d = dim(p)
    x = draw(scaled_arrays((d,), min_exponent=lo, max_exponent=hi), label="x")
    if draw(st.booleans(), label="near pair"):
        h = draw(hnp.arrays(np.float64, (d,), elements=scalars(-1.0, 1.0)), label="direction")
        k = draw(scalars(1.0, 7.0), label="-log10 distance")
        y = x + h * 10.0**-k * max(1.0, float(np.abs(x).max()))
    else:
        y = draw(scaled_arrays((d,), min_exponent=lo, max_exponent=hi), label="y")
    return (*p, x, y)


# -- float64's hard corners -----------------------------------------------------------

CORNER_KINDS = ("square ill-conditioned", "n = 1", "exact zeros", "ties", "huge", "tiny", "spikes", "hadamard",
                "repeated rows")
"""The corner families of :func:`corner_matrices`: κ up to 1e12 on square systems, one row, exact
zeros, ties (equal entries), magnitudes whose squares overflow (> 1e154) or underflow (< 1e-162),
coherent inputs for sketches (spikes e_i, Walsh–Hadamard columns, repeated rows)."""


def with_corners(strategy: st.SearchStrategy, corners: st.SearchStrategy, *,
                 weight: float = 0.25) -> st.SearchStrategy:
    """``strategy`` mixed with ``corners`` (a strategy of corner instances) with explicit weight
    (``st.one_of`` would split evenly between branches): the corner branch is the top
    round(100·weight) values (at least 1) of an integer drawn from [0, 99], so a fresh draw comes
    from ``corners`` with probability about ``weight`` (Hypothesis's own constants replace 5% of its
    integer draws).  Within one search the share is lower: Hypothesis starts from the minimal example
    and mutates earlier ones, and 400-example searches gave 0.43–0.95·weight (six seeds, weights 0.25
    and 0.3, integer and matrix branches).  Shrinking moves towards ``strategy``, whose simplest
    draws are the minimal witnesses a report should show."""
    _strategy("strategy", strategy), _strategy("corners", corners)
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


def corner_matrices(rows: st.SearchStrategy[int] | int, cols: st.SearchStrategy[int] | int, *,
                    kinds: tuple[str, ...] = CORNER_KINDS, max_log10_cond: float = 12.0) -> st.SearchStrategy[np.ndarray]:
    """float64 matrices from the corner families ``kinds`` (see :data:`CORNER_KINDS`), shape rows × cols
    drawn from the two strategies (a square kind uses rows for both, "n = 1" one row, "hadamard"
    rounds rows up to a power of two); the square kind's κ is 10**c, c ∈ [3, max_log10_cond].  An
    int size is used without a draw (see the module docstring)."""
    _size("rows", rows), _size("cols", cols)
    if isinstance(kinds, str) or not kinds or set(kinds) - set(CORNER_KINDS):
        raise ValueError(f"kinds={kinds!r} must be a nonempty tuple of names from {CORNER_KINDS}")
    max_log10_cond = _real("max_log10_cond", max_log10_cond, min_value=3.0)
    return _corner_matrices(rows, cols, tuple(kinds), max_log10_cond)


@st.composite
def _corner_matrices(draw, rows, cols, kinds, max_log10_cond):
    kind = draw(st.sampled_from(kinds), label="corner kind")
    n, d = _draw_size(draw, rows), _draw_size(draw, cols)
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


PATH_SIZES = (7, 8, 9, 16, 17, 32, 33, 64, 65)
"""The sizes where implementations change path (blocked kernels, unrolled loops, remainder blocks, the
power-of-two padding of a Hadamard transform): every adapter's ``size_corners`` cross as many of them as its
oracle affords (``docs/validate.md``)."""


def fixed_matrix(n: int, d: int) -> np.ndarray:
    """A fixed full-rank n × d matrix with every entry nonzero and of order 1 (sin(1 + 0.37·(i + 1)(j + 1)) plus
    2 on the diagonal): every row and column counts, so a kernel that drops a remainder block is wrong on it."""
    _size("n", n), _size("d", d)
    return np.sin(1.0 + 0.37 * np.outer(np.arange(1, n + 1), np.arange(1, d + 1))) + 2.0 * np.eye(n, d)

