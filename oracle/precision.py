"""Exact conversion between float64 arrays and mpmath numbers, input validation, and the precision policy.

Instances are float64 numbers, which mpmath holds exactly at any working precision of 53 bits or
more (docs/development.md#exact-judgement).  Every oracle judgement is made at ``DEFAULT_DPS`` = 50 decimal digits
or more, and :func:`decide_sign` raises the precision along ``LADDER`` until the sign of a quantity
is stable, refusing to decide when it never becomes stable.

Validation, shared by every oracle module (docs/development.md#bad-input): :func:`as_float_array` (float64
data), :func:`check_mp` (mpmath values: ``mpf`` or real ``mp.matrix``) and :func:`check_int`.  NaN,
±inf, complex numbers (``complex``, numpy complex, ``mpc`` or an ``mp.matrix`` holding one), values
a float64 cannot hold exactly, and objects that are not numbers raise ``ValueError`` naming the
argument and the rule; nothing is silently rounded or cut to its real part.

Sizes (the one limit rule of the oracle, as ``solvers/memory.py`` is the solvers'): a function that
builds a matrix from size arguments (``identity(n)``, ``walsh_hadamard(N)``, ``kron(A, B)``) calls
:func:`check_entries` first, so a matrix of more than :data:`MAX_ENTRIES` entries is a ``ValueError``
naming the arguments and the limit before anything is allocated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral

import mpmath
import numpy as np
from mpmath import mp
from mpmath.libmp import finf, fnan, fninf, from_int

__all__ = [
    "DEFAULT_DPS",
    "GUARD_DIGITS",
    "LADDER",
    "MIN_LADDER_DPS",
    "MAX_ENTRIES",
    "Decision",
    "UndecidableError",
    "as_float_array",
    "check_entries",
    "check_int",
    "check_ladder",
    "check_mp",
    "decide_sign",
    "to_float",
    "to_float_array",
    "to_mp",
    "workdps",
]

DEFAULT_DPS = 50
LADDER = (50, 100, 200, 400)
GUARD_DIGITS = 10
#: the lowest rung of a valid ladder: 16 digits (57 bits) hold every float64 exactly.
MIN_LADDER_DPS = 16
#: a rung must resolve at least this many digits beyond its guard digits.
_MIN_RESOLVED_DIGITS = 5

workdps = mp.workdps

_NON_FINITE = (fnan, finf, fninf)
_CONSTANT = type(mp.pi)  # mpmath's lazily evaluated constants (mp.pi, mp.e, mp.euler, …)


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_mpf(v, name: str):
    if v._mpf_ in _NON_FINITE:
        raise ValueError(f"{name}={v} must be finite")
    return v


def _entries(M):
    """((i, j), M[i, j]) for every entry of an ``mp.matrix``, through its public indexing."""
    return (((i, j), M[i, j]) for i in range(M.rows) for j in range(M.cols))


_NON_FINITE_SET = frozenset(_NON_FINITE)


def _check_matrix_entries(M, name: str):
    # fast path: every entry an mp.matrix stores is a finite mpf (the entries it does not store are mp.zero);
    # otherwise the loop below finds the first offending entry in row-major order and names it
    data = getattr(M, "_data", None)
    if type(data) is dict and all(type(v) is mpmath.mpf and v._mpf_ not in _NON_FINITE_SET for v in data.values()):
        return M
    for (i, j), v in _entries(M):
        if type(v) is not mpmath.mpf:
            if isinstance(v, mpmath.mpc):
                raise ValueError(f"{name} must be real: entry ({i},{j}) is the complex {_shown(v)}")
            raise ValueError(f"{name} must hold mpmath reals: entry ({i},{j}) is {type(v).__name__}")
        if v._mpf_ in _NON_FINITE:
            raise ValueError(f"{name} must be finite: entry ({i},{j}) is {v}")
    return M


def _check_shape(M, name: str, ndim: int):
    """The shape rule of ``ndim`` (1: a non-empty n×1 column; 2: a non-empty matrix) on an ``mp.matrix``."""
    if M.rows == 0 or M.cols == 0:
        raise ValueError(f"{name} must not be empty (shape {M.rows}x{M.cols})")
    if ndim == 1 and M.cols != 1:
        raise ValueError(f"{name} must be a column vector, got {M.rows}x{M.cols}")


def check_mp(value, name: str, *, ndim: int | None = None):
    """``value`` validated as an mpmath real: an ``mpf`` or an ``mp.matrix`` of ``mpf`` entries.

    Python and numpy reals (not bool) are converted exactly (a float to the ``mpf`` holding it, an
    int exactly at any size); an mpmath constant (``mp.pi``) gives its value at the working precision;
    a numpy array is refused with the advice to convert it with :func:`to_mp`.  Shared by every oracle
    module for arguments that are mpmath values: the one argument check of the oracle's matrices and columns.

    **Arguments:**
    - ``ndim``: ``None`` accepts a number or a matrix; ``0`` a number only; ``2`` a non-empty
      ``mp.matrix``; ``1`` a non-empty n×1 ``mp.matrix`` (a column, the image of a 1-d array).

    **Raises:** ``ValueError`` naming ``name`` for NaN/±inf, complex (``complex``, ``mpc``, or a
    matrix entry that is one), bool, anything that is not a number, and a value of the wrong
    ``ndim`` (a number where a matrix is required, an empty matrix, a matrix that is not a column).
    """
    if ndim not in (None, 0, 1, 2):
        raise ValueError(f"ndim={ndim!r} must be None, 0, 1 or 2")
    if ndim in (1, 2):
        if not isinstance(value, mpmath.matrix):
            raise ValueError(f"{name} must be an mp.matrix (convert with oracle.to_mp), got {type(value).__name__}")
        _check_shape(value, name, ndim)
    if isinstance(value, mpmath.matrix):
        if ndim == 0:
            raise ValueError(f"{name} must be a number, not a matrix")
        return _check_matrix_entries(value, name)
    if isinstance(value, mpmath.mpf):
        return _check_mpf(value, name)
    if isinstance(value, _CONSTANT):  # mp.pi, mp.e, …: their value at the working precision
        return +value
    if isinstance(value, np.ndarray):
        raise ValueError(f"{name} must be an mpmath value (mpf or mp.matrix), not a numpy array of shape "
                         f"{value.shape}: convert it with oracle.to_mp")
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} must be a real number, not a bool")
    if isinstance(value, (mpmath.mpc, complex, np.complexfloating)):
        raise ValueError(f"{name}={_shown(value)} must be real, not complex")
    if isinstance(value, Integral):
        return mp.make_mpf(from_int(int(value)))
    if isinstance(value, (float, np.floating)):
        f = float(value)
        if not np.isfinite(value):
            raise ValueError(f"{name}={value!r} must be finite")
        if f != value:
            raise ValueError(f"{name}={value!r} must be exactly representable as a float64")
        return mp.mpf(f)
    raise ValueError(f"{name} must be a real number or mp.matrix, got {type(value).__name__} {_shown(value)}")


MAX_ENTRIES = 10**7
"""The most entries one mpmath matrix the oracle builds may hold (about a gigabyte of ``mpf`` values and
minutes of pure-Python loops: far beyond the sizes a judgement uses)."""


def check_entries(count: int, what: str, **sizes) -> None:
    """``ValueError`` when ``what`` (set by the arguments ``sizes``) would hold more than
    :data:`MAX_ENTRIES` entries: ``n=… must give at most 10000000 entries: identity(n) would hold …``."""
    if count > MAX_ENTRIES:
        args = ", ".join(f"{name}={value}" for name, value in sizes.items())
        raise ValueError(f"{args} must give at most MAX_ENTRIES={MAX_ENTRIES} entries: {what} would hold "
                         f"{count} entries")


def check_int(value, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as a Python int (not bool), in ``[minimum, maximum]`` for the bounds given; ValueError
    naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise ValueError(f"{name}={_shown(value)} must be an int")
    value = int(value)
    low = minimum is not None and value < minimum
    if low or (maximum is not None and value > maximum):
        rule = " and ".join(f"{op} {b}" for op, b in ((">=", minimum), ("<=", maximum)) if b is not None)
        raise ValueError(f"{name}={value} must be {rule}")
    return value


def _object_array(arr: np.ndarray, name: str) -> np.ndarray:
    out = np.empty(arr.shape, dtype=np.float64)
    for idx, v in np.ndenumerate(arr):
        where = f"{name}[{', '.join(map(str, idx))}]" if idx else name
        v = check_mp(v, where)
        f = float(v)
        if mp.mpf(f) != v:
            raise ValueError(f"{where}={v} must be exactly representable as a float64")
        out[idx] = f
    return out


def as_float_array(x, name: str, *, ndim: int | None = None, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a float64 numpy array after validating it (every value held exactly).

    Accepts real numbers, numpy arrays of int/float dtype, nested sequences of them, an
    ``mp.matrix`` or object arrays whose entries are real numbers a float64 holds exactly.

    **Raises:** ``ValueError`` naming ``name`` when ``x`` is not numeric (strings, objects, ragged
    sequences, bools), is complex, has the wrong number of dimensions, is empty, holds NaN/inf, or holds a
    value a float64 cannot represent exactly (a large int, a long double, an ``mpf`` with more bits).
    """
    if isinstance(x, mpmath.matrix):
        _check_matrix_entries(x, name)
        x = np.array(x.tolist(), dtype=object)
    if isinstance(x, np.ma.MaskedArray) and np.ma.is_masked(x):
        raise ValueError(f"{name} must not be a masked array with masked entries (their values would be used)")
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers ({exc})") from None
    kind = arr.dtype.kind
    if kind == "c":
        raise ValueError(f"{name} must be an array of real numbers, not complex (dtype {arr.dtype})")
    if kind == "O":
        out = _object_array(arr, name)
    elif kind == "b":
        raise ValueError(f"{name} must be an array of real numbers, not bool")
    elif kind in "iuf":
        if kind == "f" and not np.all(np.isfinite(arr)):
            idx = tuple(int(k) for k in np.argwhere(~np.isfinite(arr))[0])
            raise ValueError(f"{name} must be finite: {name}{list(idx) if idx else ''} is {arr[idx]}")
        out = arr.astype(np.float64)
        if kind in "iu" and arr.size and np.abs(out).max() > 2.0**53:
            for idx in np.argwhere(np.abs(out) > 2.0**53):
                idx = tuple(int(k) for k in idx)
                if int(out[idx]) != int(arr[idx]):
                    raise ValueError(f"{name}{list(idx) if idx else ''}={int(arr[idx])} must be exactly representable "
                                     "as a float64")
        if kind == "f" and arr.dtype.itemsize > 8 and not np.array_equal(out.astype(arr.dtype), arr):
            raise ValueError(f"{name} (dtype {arr.dtype}) must hold values exactly representable as float64")
    else:
        raise ValueError(f"{name} must be an array of real numbers (got dtype {arr.dtype})")
    if ndim is not None and out.ndim != ndim:
        raise ValueError(f"{name}.ndim={out.ndim} must be {ndim} (shape {out.shape})")
    if out.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty (shape {out.shape})")
    if not np.all(np.isfinite(out)):
        idx = tuple(int(k) for k in np.argwhere(~np.isfinite(out))[0])
        raise ValueError(f"{name} must be finite: {name}{list(idx) if idx else ''} is {out[idx]}")
    return out


def to_mp(x, name: str = "x", *, ndim: int | None = None):
    """Convert a float64 scalar, vector or matrix to mpmath exactly (mpmath values are validated
    and passed through).

    A scalar gives an ``mpf``; a vector gives an n×1 ``mp.matrix``; a matrix an ``mp.matrix``.
    The conversion is exact because every float64 fits in the working precision (≥ 53 bits).
    ``ndim`` (``None``, 0, 1 or 2), when given, is required of an array (``as_float_array``'s
    rule) and of an mpmath value (``check_mp``'s rule: 1 is an n×1 column, 2 any non-empty matrix).

    **Raises:** ``ValueError`` naming ``name`` for the bad input of :func:`as_float_array` and
    :func:`check_mp` (NaN, inf, complex, ``mpc``, objects, empty arrays, the wrong ``ndim``) and
    for ndim > 2.
    """
    if mp.prec < 53:
        raise ValueError(f"mp.prec={mp.prec} must be >= 53 for exact conversion of float64")
    if isinstance(x, (mpmath.mpf, mpmath.matrix, mpmath.mpc, complex, np.complexfloating)):
        return check_mp(x, name, ndim=ndim)
    arr = as_float_array(x, name, ndim=ndim)
    if arr.ndim == 0:
        return mp.mpf(float(arr))
    if arr.ndim == 1:
        return mp.matrix([float(v) for v in arr])
    if arr.ndim == 2:
        return mp.matrix([[float(v) for v in row] for row in arr])
    raise ValueError(f"{name}.ndim={arr.ndim} must be 0, 1 or 2")


def to_float(x) -> float:
    """Round an mpmath real to the nearest float64 (correctly rounded, not via a string); a value
    beyond the float64 range (or ±inf) gives ±inf.  ValueError for NaN, complex, matrices or non-numbers."""
    if not (isinstance(x, mpmath.mpf) and x._mpf_ in (finf, fninf)):
        x = check_mp(x, "x")
        if isinstance(x, mpmath.matrix):
            raise ValueError("x must be a number, not an mp.matrix (use to_float_array)")
    return float(x)


def to_float_array(m, ndim: int | None = None) -> np.ndarray:
    """Round an ``mp.matrix`` to a float64 numpy array of ``ndim`` dimensions (default: a column
    matrix gives a vector, anything else a matrix); entries beyond the float64 range give ±inf."""
    if ndim not in (None, 1, 2):
        raise ValueError(f"ndim={ndim!r} must be None, 1 or 2")
    if not isinstance(m, mpmath.matrix):
        raise ValueError(f"m must be an mp.matrix, got {type(m).__name__}")
    for (i, j), v in _entries(m):
        if type(v) is not mpmath.mpf or v._mpf_ == fnan:
            raise ValueError(f"m must be real and not NaN: entry ({i},{j}) is {v}")
    arr = np.array([[float(m[i, j]) for j in range(m.cols)] for i in range(m.rows)], dtype=np.float64)
    if ndim == 1 or (ndim is None and m.cols == 1):
        if m.cols != 1:
            raise ValueError(f"m has {m.cols} columns, must have 1 to give a vector")
        return arr[:, 0]
    return arr


class UndecidableError(ArithmeticError):
    """The sign of a quantity did not become stable along the precision ladder (also raised by
    :mod:`oracle.derivatives` when a derivative cannot be resolved to its stated digits)."""


@dataclass(frozen=True)
class Decision:
    """The decided sign of a quantity.

    ``sign`` is -1, 0 or +1; 0 means "zero to within ``10**-digits`` relative to ``scale``" at every
    precision tried (an identity or an inequality holding with equality).  ``digits`` is how many
    decimal digits support the verdict and ``dps`` the highest working precision used.
    """

    sign: int
    value: mpmath.mpf
    scale: mpmath.mpf
    dps: int
    digits: int


def check_ladder(ladder, guard) -> tuple[tuple[int, ...], int]:
    """Validate a precision ladder and its guard digits (see :func:`decide_sign`).

    A valid ladder is a sequence of at least two strictly increasing ints, the first ``>=``
    ``MIN_LADDER_DPS`` (16 digits hold a float64 exactly) and ``>= guard + 5`` (each rung resolves
    at least 5 digits); ``guard`` is an int ``>= 0``.  ValueError naming ``ladder`` or ``guard``.
    """
    guard = check_int(guard, "guard", minimum=0)
    try:
        rungs = tuple(ladder)
    except TypeError:
        raise ValueError(f"ladder={ladder!r} must be a sequence of ints") from None
    if len(rungs) < 2:
        raise ValueError(f"ladder={rungs!r} must have at least two precisions (a verdict needs two that agree)")
    for k, dps in enumerate(rungs):
        check_int(dps, f"ladder[{k}]")
    rungs = tuple(int(d) for d in rungs)
    if any(b <= a for a, b in zip(rungs, rungs[1:])):
        raise ValueError(f"ladder={rungs!r} must be strictly increasing")
    low = max(MIN_LADDER_DPS, guard + _MIN_RESOLVED_DIGITS)
    if rungs[0] < low:
        raise ValueError(f"ladder={rungs!r} must start at >= {low} digits (>= {MIN_LADDER_DPS} to hold a float64, "
                         f">= guard={guard} + {_MIN_RESOLVED_DIGITS} to resolve anything)")
    return rungs, guard


def _evaluate(fn, dps):
    with mp.workdps(dps):
        out = fn()
        value, scale = out if isinstance(out, tuple) and len(out) == 2 else (out, mp.mpf(1))
        value = check_mp(value, "decide_sign: the quantity")
        scale = abs(check_mp(scale, "decide_sign: the scale"))
        if isinstance(value, mpmath.matrix) or isinstance(scale, mpmath.matrix):
            raise ValueError("decide_sign: the quantity and its scale must be numbers, not matrices")
        if scale == 0:
            scale = mp.mpf(1)
        return +value, +scale


def decide_sign(fn: Callable, *, ladder=LADDER, guard: int = GUARD_DIGITS) -> Decision:
    """Decide the sign of the quantity computed by ``fn`` and say how many digits support it.

    **Arguments:**
    - ``fn``: a thunk computing the quantity under the current mpmath precision; it returns the
      value, or ``(value, scale)`` where ``scale`` is the magnitude of the terms it came from (its
      rounding error is then about ``scale * 10**-dps``).
    - ``ladder``: increasing working precisions in decimal digits (validated by :func:`check_ladder`).
    - ``guard``: digits of each precision not trusted (rounding error allowance).

    **Returns:** a :class:`Decision`.  At each precision ``p`` the resolution is
    ``scale * 10**-(p - guard)``.  The quantity is computed at successive precisions; a nonzero sign
    is accepted when two consecutive precisions give values outside their resolutions that agree to
    more than one digit (``digits`` = how many they agree to), and a value inside the resolution at
    two consecutive precisions is zero (``sign=0``).  Agreement between precisions, not a single
    evaluation, is what is trusted: an input that cannot be represented at the working precision
    (``sin(10**1000)`` at 50 digits) gives values that never agree and is refused.

    **Raises:** :class:`UndecidableError` when the ladder ends without a stable verdict;
    ``ValueError`` for an invalid ladder or guard, a ``fn`` that is not callable, and a quantity or
    scale that is NaN, infinite, complex or not a number.
    """
    ladder, guard = check_ladder(ladder, guard)
    if not callable(fn):
        raise ValueError(f"fn={_shown(fn)} must be callable")
    previous = None
    for dps in ladder:
        value, scale = _evaluate(fn, dps)
        with mp.workdps(dps):
            resolution = scale * mp.mpf(10) ** (-(dps - guard))
            if previous is not None:
                p_value, p_res, p_dps = previous
                if abs(value) <= resolution and abs(p_value) <= p_res:
                    return Decision(0, value, scale, dps, p_dps - guard)
                agree = abs(value - p_value)
                if abs(value) > resolution and abs(p_value) > p_res and agree < abs(value) / 10:
                    digits = p_dps - guard if agree == 0 else min(p_dps - guard, int(-mp.log10(agree / abs(value))))
                    return Decision(int(mp.sign(value)), value, scale, dps, max(digits, 1))
        previous = (value, resolution, dps)
    raise UndecidableError(
        f"the sign is not stable up to {ladder[-1]} digits (last value {mp.nstr(previous[0], 5)}, "
        f"scale {mp.nstr(previous[1] * mp.mpf(10) ** (ladder[-1] - guard), 5)})"
    )
