"""Basic dense linear algebra in JAX (float64): the primitives the papers' algorithms rely on.

Each function validates its input (``ValueError`` naming the argument and the rule) and is jitted.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["check_array", "condition_number", "kron", "lstsq", "sigma_min", "spectral_norm"]


def check_array(x, name: str, ndim: int) -> jnp.ndarray:
    """``x`` as a float64 JAX array of ``ndim`` dimensions, non-empty and finite, or ValueError."""
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != ndim:
        raise ValueError(f"{name}.ndim={arr.ndim} must be {ndim} (shape {arr.shape})")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (it holds NaN or inf)")
    return jnp.asarray(arr)


@jax.jit
def _svdvals(A):
    return jnp.linalg.svd(A, compute_uv=False)


def spectral_norm(A) -> float:
    """‖A‖₂ = σ_max(A)."""
    return float(_svdvals(check_array(A, "A", 2))[0])


def sigma_min(A) -> float:
    """σ_{min(n,d)}(A), the smallest of the min(n, d) singular values."""
    return float(_svdvals(check_array(A, "A", 2))[-1])


def condition_number(A) -> float:
    """κ(A) = σ_max/σ_min (inf when A is numerically rank-deficient: σ_min = 0)."""
    s = _svdvals(check_array(A, "A", 2))
    return float(s[0] / s[-1]) if s[-1] > 0 else float("inf")


@jax.jit
def _lstsq(A, b):
    return jnp.linalg.lstsq(A, b)[0]


def lstsq(A, b) -> jnp.ndarray:
    """argmin_x ‖Ax − b‖₂ (minimum-norm solution)."""
    A = check_array(A, "A", 2)
    b = check_array(b, "b", 1)
    if b.shape[0] != A.shape[0]:
        raise ValueError(f"b.shape[0]={b.shape[0]} must equal A.shape[0]={A.shape[0]}")
    return _lstsq(A, b)


def kron(x, y) -> jnp.ndarray:
    """x ⊗ y with the spec's convention: (x ⊗ y)[a·len(y) + b] = x[a]·y[b] (row-major vec(x yᵀ))."""
    x = check_array(x, "x", 1)
    y = check_array(y, "y", 1)
    return jnp.kron(x, y)
