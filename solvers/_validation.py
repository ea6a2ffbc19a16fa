"""Argument checks of ``solvers``, each written once (as Hypothesis's ``internal/validation.py``).

Every check takes the argument's name first, then its value, and returns the value in the type the
solvers compute with, or raises ``ValueError`` whose message names the argument and the rule, in the
form ``name=value must be …`` (an array: ``name.dtype=… must be …``, ``name.ndim=…``, ``name.shape=…``;
docs/development.md#bad-input).  Nothing here returns NaN or inf: :func:`require_finite` refuses a
computed value that overflowed, naming the quantity.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Integral, Real

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["all_finite", "check_array", "check_bool", "check_int", "check_positive", "check_real", "check_unit", "is_finite",
           "require_finite"]


def _interval(lo, hi, lo_open: bool, hi_open: bool) -> str:
    """The rule of :func:`check_real` in words: ``in [lo, hi)``, ``a finite number > lo``, …"""
    if lo is not None and hi is not None and lo_open and hi_open:
        return f"in the open interval ({lo}, {hi})"
    if lo is not None and hi is not None:
        return f"in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}"
    if lo is not None:
        return f"a finite number {'>' if lo_open else '>='} {lo}"
    if hi is not None:
        return f"a finite number {'<' if hi_open else '<='} {hi}"
    return "a finite number"


def check_real(name: str, value, *, lo=None, hi=None, lo_open: bool = False, hi_open: bool = False) -> float:
    """``value`` as a finite float between ``lo`` and ``hi`` (each bound closed unless ``*_open``; ``None``:
    no bound), or ValueError ``name=value must be in [lo, hi]`` (a bool is not a real number here)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ValueError(f"{name}={value!r} must be a real number")
    v = float(value)
    below = lo is not None and (v <= lo if lo_open else v < lo)
    above = hi is not None and (v >= hi if hi_open else v > hi)
    if not math.isfinite(v) or below or above:
        raise ValueError(f"{name}={value!r} must be {_interval(lo, hi, lo_open, hi_open)}")
    return v


def check_positive(name: str, value) -> float:
    """``value`` as a finite float > 0, or ValueError ``name=value must be a finite number > 0``."""
    return check_real(name, value, lo=0, lo_open=True)


def check_unit(name: str, value) -> float:
    """``value`` as a float in the open interval (0, 1) (a probability or an accuracy), or ValueError."""
    return check_real(name, value, lo=0, hi=1, lo_open=True, hi_open=True)


def check_int(name: str, value, *, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as a Python int (not a bool) in ``[lo, hi]`` (``None``: no bound), or ValueError."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise ValueError(f"{name}={value!r} must be an int")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        rule = " and ".join(r for r in (lo is not None and f">= {lo}", hi is not None and f"<= {hi}") if r)
        raise ValueError(f"{name}={v} must be {rule}")
    return v


def check_bool(name: str, value) -> bool:
    """``value`` as a bool: True or False (Python or numpy) only, never a truthy string or number."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} must be True or False")
    return bool(value)


def check_array(name: str, value, *, ndim: int | tuple[int, ...] = (1, 2), shape: tuple | None = None,
                finite: bool = True) -> jax.Array:
    """``value`` as a float64 JAX array: real (floating or integer dtype), of ``ndim`` dimensions (one of
    them, for a tuple), of ``shape`` when given, non-empty and finite; or ValueError naming ``name``.

    ``finite=False`` leaves out the finiteness test (a pass over the array), for a caller that detects
    NaN and inf itself from a pass it makes anyway (:mod:`solvers.cholesky_qr`, from ``SA``)."""
    if isinstance(value, np.ma.MaskedArray) and np.ma.is_masked(value):
        raise ValueError(f"{name} must not be a masked array with masked entries (their values would be used)")
    arr = value if isinstance(value, (jax.Array, np.ndarray)) else np.asarray(value)
    if arr.dtype == object or not (jnp.issubdtype(arr.dtype, jnp.floating) or jnp.issubdtype(arr.dtype, jnp.integer)):
        raise ValueError(f"{name}.dtype={arr.dtype} must be a real floating or integer dtype")
    ndims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if arr.ndim not in ndims:
        rule = ndims[0] if len(ndims) == 1 else f"one of {ndims}"
        raise ValueError(f"{name}.ndim={arr.ndim} must be {rule} (shape {arr.shape})")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty (shape {arr.shape})")
    if shape is not None and tuple(arr.shape) != tuple(shape):
        raise ValueError(f"{name}.shape={tuple(arr.shape)} must be {tuple(shape)}")
    arr = jnp.asarray(arr, dtype=jnp.float64)
    if finite:
        require_finite(name, arr, what="must be finite (it holds NaN or inf)")
    return arr


@jax.jit
def all_finite(x) -> jax.Array:
    """Whether every entry of ``x`` is finite (one fused pass on the device)."""
    return jnp.all(jnp.isfinite(x))


def is_finite(value) -> bool:
    """Whether every entry of ``value`` (an array, or a tuple of arrays) is finite."""
    return all(bool(all_finite(jnp.asarray(p))) for p in (value if isinstance(value, tuple) else (value,)))


def require_finite(name: str, value, *, what: str = "is not finite in float64 (it overflows at this input)",
                   hint: Callable[[], str] | None = None):
    """``value`` (an array, or a tuple of arrays) if every entry is finite, else ValueError
    ``"{name} {what}"``, followed by ``hint()`` (called only on failure: the input's scale)."""
    if is_finite(value):
        return value
    extra = f": {hint()}" if hint is not None else ""
    raise ValueError(f"{name} {what}{extra}")
