"""Argument validation shared by the pruning solvers (``name=... must be ...`` ValueErrors)."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

__all__ = ["finite", "flag", "float_matrix", "nonneg_real", "positive_int", "ratio", "square_like"]


def float_matrix(x, name: str, *, shape: tuple | None = None) -> np.ndarray:
    """``x`` as a finite, nonempty 2-D float64 array (of ``shape`` when given)."""
    if isinstance(x, np.ma.MaskedArray) and np.ma.is_masked(x):
        raise ValueError(f"{name} must not be a masked array with masked entries (their values would be used)")
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be an array of real numbers ({exc})") from None
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"{name}.shape={arr.shape} must be a nonempty 2-D array")
    if shape is not None and arr.shape != tuple(shape):
        raise ValueError(f"{name}.shape={arr.shape} must be {tuple(shape)}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (it holds NaN or inf)")
    return arr


def square_like(X, W, name: str = "W") -> tuple[np.ndarray, np.ndarray]:
    """X (n, d) and a d×d matrix ``name``."""
    X = float_matrix(X, "X")
    W = float_matrix(W, name, shape=(X.shape[1], X.shape[1]))
    return X, W


def nonneg_real(v, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (Real, np.floating, np.integer)) or not math.isfinite(float(v)) \
            or float(v) < 0:
        raise ValueError(f"{name}={v!r} must be a finite real number >= 0")
    return float(v)


def ratio(rho) -> float:
    if isinstance(rho, bool) or not isinstance(rho, (Real, np.floating, np.integer)) or not (0.0 <= float(rho) <= 1.0):
        raise ValueError(f"rho={rho!r} must be a real number in [0, 1]")
    return float(rho)


def positive_int(v, name: str, *, allow_zero: bool = False) -> int:
    if isinstance(v, bool) or not isinstance(v, (Integral, np.integer)) or int(v) < (0 if allow_zero else 1):
        raise ValueError(f"{name}={v!r} must be an integer >= {0 if allow_zero else 1}")
    return int(v)


def flag(v, name: str) -> bool:
    """``v`` as a bool: True/False (Python or numpy) only, never a truthy string or number."""
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{name}={v!r} must be True or False")
    return bool(v)


def finite(out, what: str, X):
    """``out`` (an array or a tuple of arrays) when every entry is finite; else ValueError naming the overflow."""
    if all(np.all(np.isfinite(np.asarray(o))) for o in (out if isinstance(out, tuple) else (out,))):
        return out
    raise ValueError(f"{what} is not finite in float64: it overflows (the logits X(M∘W)Xᵀ or the products with X, "
                     f"max |X| = {float(np.max(np.abs(X))):.3g})")
