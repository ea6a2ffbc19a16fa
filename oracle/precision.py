"""Exact conversion between float64 arrays and mpmath numbers, and the precision policy.

Instances are float64 numbers, which mpmath holds exactly at any working precision of 53 bits or
more (DESIGN principle 4).  Every oracle judgement is made at ``DEFAULT_DPS`` = 50 decimal digits
or more, and :func:`decide_sign` raises the precision along ``LADDER`` until the sign of a quantity
is stable, refusing to decide when it never becomes stable.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import numpy as np
from mpmath import mp

__all__ = [
    "DEFAULT_DPS",
    "LADDER",
    "Decision",
    "UndecidableError",
    "as_float_array",
    "decide_sign",
    "to_float",
    "to_float_array",
    "to_mp",
    "workdps",
]

DEFAULT_DPS = 50
LADDER = (50, 100, 200, 400)
GUARD_DIGITS = 10

workdps = mp.workdps


def as_float_array(x, name: str, *, ndim: int | None = None, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a float64 numpy array after validating it.

    Raises ``ValueError`` naming ``name`` when ``x`` is not numeric, has the wrong number of
    dimensions, is empty, or holds NaN/inf.
    """
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers ({exc})") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name}.ndim={arr.ndim} must be {ndim} (shape {arr.shape})")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (it holds NaN or inf)")
    return arr


def to_mp(x, name: str = "x"):
    """Convert a float64 scalar, vector or matrix to mpmath exactly.

    A scalar gives an ``mpf``; a vector gives an n×1 ``mp.matrix``; a matrix an ``mp.matrix``.
    The conversion is exact because every float64 fits in the working precision (≥ 53 bits).
    """
    if mp.prec < 53:
        raise ValueError(f"mp.prec={mp.prec} must be >= 53 for exact conversion of float64")
    if isinstance(x, (mpmath.mpf, mpmath.matrix)):
        return x
    arr = as_float_array(x, name)
    if arr.ndim == 0:
        return mp.mpf(float(arr))
    if arr.ndim == 1:
        return mp.matrix([float(v) for v in arr])
    if arr.ndim == 2:
        return mp.matrix([[float(v) for v in row] for row in arr])
    raise ValueError(f"{name}.ndim={arr.ndim} must be 0, 1 or 2")


def to_float(x) -> float:
    """Round an mpmath real to the nearest float64 (correctly rounded, not via a string)."""
    return float(mp.mpf(x))


def to_float_array(m, ndim: int | None = None) -> np.ndarray:
    """Round an ``mp.matrix`` to a float64 numpy array of ``ndim`` dimensions (default: a column
    matrix gives a vector, anything else a matrix)."""
    if ndim not in (None, 1, 2):
        raise ValueError(f"ndim={ndim!r} must be None, 1 or 2")
    arr = np.array([[to_float(m[i, j]) for j in range(m.cols)] for i in range(m.rows)], dtype=np.float64)
    if ndim == 1 or (ndim is None and m.cols == 1):
        if m.cols != 1:
            raise ValueError(f"m has {m.cols} columns, must have 1 to give a vector")
        return arr[:, 0]
    return arr


class UndecidableError(ArithmeticError):
    """The sign of a quantity did not become stable along the precision ladder."""


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


def _evaluate(fn, dps):
    with mp.workdps(dps):
        out = fn()
        if isinstance(out, tuple):
            value, scale = out
        else:
            value, scale = out, mp.mpf(1)
        value = mp.mpf(value)
        scale = abs(mp.mpf(scale))
        if not mp.isfinite(value) or not mp.isfinite(scale):
            raise ValueError(f"decide_sign: quantity must be finite, got value={value}, scale={scale}")
        if scale == 0:
            scale = mp.mpf(1)
        return value, scale


def decide_sign(fn: Callable, *, ladder=LADDER, guard: int = GUARD_DIGITS) -> Decision:
    """Decide the sign of the quantity computed by ``fn`` and say how many digits support it.

    **Arguments:**
    - ``fn``: a thunk computing the quantity under the current mpmath precision; it returns the
      value, or ``(value, scale)`` where ``scale`` is the magnitude of the terms it came from (its
      rounding error is then about ``scale * 10**-dps``).
    - ``ladder``: increasing working precisions in decimal digits.

    **Returns:** a :class:`Decision`.  At each precision ``p`` the resolution is
    ``scale * 10**-(p - guard)``.  The quantity is computed at successive precisions; a nonzero sign
    is accepted when two consecutive precisions give values outside their resolutions that agree to
    more than one digit (``digits`` = how many they agree to), and a value inside the resolution at
    two consecutive precisions is zero (``sign=0``).  Agreement between precisions, not a single
    evaluation, is what is trusted: an input that cannot be represented at the working precision
    (``sin(10**1000)`` at 50 digits) gives values that never agree and is refused.

    **Raises:** :class:`UndecidableError` when the ladder ends without a stable verdict.
    """
    previous = None
    for dps in ladder:
        value, scale = _evaluate(fn, dps)
        resolution = scale * mp.mpf(10) ** (-(dps - guard))
        if previous is not None:
            p_value, p_res, p_dps = previous
            if abs(value) <= resolution and abs(p_value) <= p_res:
                return Decision(0, value, scale, dps, p_dps - guard)
            agree = abs(value - p_value)
            if abs(value) > resolution and abs(p_value) > p_res and agree < abs(value) / 10:
                digits = int(min(p_dps - guard, -math.log10(float(agree / abs(value))) if agree else p_dps - guard))
                return Decision(int(mp.sign(value)), value, scale, dps, max(digits, 1))
        previous = (value, resolution, dps)
    raise UndecidableError(
        f"the sign is not stable up to {ladder[-1]} digits (last value {mp.nstr(previous[0], 5)}, "
        f"scale {mp.nstr(previous[1] * mp.mpf(10) ** (ladder[-1] - guard), 5)})"
    )
