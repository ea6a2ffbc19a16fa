"""Basic dense linear algebra in JAX (float64): the primitives the papers' algorithms rely on.

Each function validates its input (``ValueError`` naming the argument and the rule: real, finite,
non-empty, of the right dimension; complex input is refused, never cut to its real part) and is
jitted.  Scale: singular values, condition numbers and least squares are homogeneous in ``A`` and
``b``, so they run on the input scaled by an exact power of two to a largest entry in [1/2, 1) and
the result is scaled back: no overflow or underflow inside for any finite input, and ``ValueError``
naming the overflow when the result itself is not representable in float64.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ._validation import check_array
from .least_squares import scale_back, unit_scale

__all__ = ["condition_number", "kron", "lstsq", "sigma_min", "spectral_norm"]


@jax.jit
def _svdvals(A):
    return jnp.linalg.svd(A, compute_uv=False)


def _scaled_svdvals(A):
    """(singular values of A·2^{−e}, e), see :func:`solvers.least_squares.unit_scale`."""
    Ahat, e = unit_scale(check_array("A", A, ndim=2))
    return _svdvals(Ahat), e


def spectral_norm(A) -> float:
    """‖A‖₂ = σ_max(A)."""
    s, e = _scaled_svdvals(A)
    return float(scale_back(s[0], e, "‖A‖₂"))


def sigma_min(A) -> float:
    """σ_{min(n,d)}(A), the smallest of the min(n, d) singular values."""
    s, e = _scaled_svdvals(A)
    return float(scale_back(s[-1], e, "σ_min(A)"))


def condition_number(A) -> float:
    """κ(A) = σ_max/σ_min (inf when A is numerically rank-deficient: σ_min = 0)."""
    s, _ = _scaled_svdvals(A)
    return float(s[0] / s[-1]) if s[-1] > 0 else float("inf")


@jax.jit
def _lstsq(A, b):
    return jnp.linalg.lstsq(A, b)[0]


def lstsq(A, b) -> jnp.ndarray:
    """argmin_x ‖Ax − b‖₂ (minimum-norm solution)."""
    A = check_array("A", A, ndim=2)
    b = check_array("b", b, ndim=1)
    if b.shape[0] != A.shape[0]:
        raise ValueError(f"b.shape[0]={b.shape[0]} must equal A.shape[0]={A.shape[0]}")
    (Ahat, ea), (bhat, eb) = unit_scale(A), unit_scale(b)
    return scale_back(_lstsq(Ahat, bhat), eb - ea, "the least-squares solution x")


def kron(x, y) -> jnp.ndarray:
    """x ⊗ y with the spec's convention: (x ⊗ y)[a·len(y) + b] = x[a]·y[b] (row-major vec(x yᵀ)).  Each entry is
    one correctly rounded product, taken on the host: XLA on CPU flushes subnormals, and products of unit-scaled
    factors underflow where the true product does not (1e150 ⊗ 1e-100 beside 1e150 ⊗ 1e150).  ValueError when
    an entry overflows float64."""
    x, y = np.asarray(check_array("x", x, ndim=1)), np.asarray(check_array("y", y, ndim=1))
    with np.errstate(over="ignore"):
        out = np.multiply.outer(x, y).reshape(-1)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"x ⊗ y is not representable in float64: max|x|·max|y| = {np.max(np.abs(x)):.3g}·"
                         f"{np.max(np.abs(y)):.3g} overflows")
    return jnp.asarray(out)
