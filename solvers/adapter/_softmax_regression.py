"""Adapter functions of paper 001 (softmax regression; spec/softmax_regression.md)."""

from __future__ import annotations

import numpy as np

from .. import softmax_regression as _S
from ..sketches import as_key

__all__ = [
    "softmax_gradient",
    "softmax_hessian",
    "softmax_iteration_flops",
    "softmax_loss",
    "softmax_newton_step",
    "softmax_solve",
    "softmax_sparsify",
]


def softmax_loss(A, b, w, x):
    """L(x) = ½‖softmax(Ax) − b‖² + ½‖diag(w)Ax‖²."""
    return float(_S.loss(A, b, w, x))


def softmax_gradient(A, b, w, x):
    """∇L(x), shape (d,)."""
    return np.asarray(_S.gradient(A, b, w, x))


def softmax_hessian(A, b, w, x):
    """∇²L(x) = Aᵀ(B(x) + W²)A, shape (d, d)."""
    return np.asarray(_S.hessian(A, b, w, x))


def softmax_solve(A, b, w):
    """The minimiser x* of L by exact Newton, run to the float64 noise floor (tol = 0, fixed budget)."""
    return np.asarray(_S.exact_newton(A, b, w, tol=0.0, max_iter=60).x)


def softmax_newton_step(A, b, w, x, H_tilde):
    """One approximate-Newton update x − H̃⁻¹∇L(x) with a given approximate Hessian H̃ (d, d)."""
    g = np.asarray(_S.gradient(A, b, w, x))  # validates A, b, w, x
    H = np.asarray(H_tilde)
    d = g.shape[0]
    if H.dtype.kind not in "fiu" or H.shape != (d, d) or not np.all(np.isfinite(H)):
        raise ValueError(f"H_tilde (shape={H.shape}, dtype={H.dtype}) must be a finite real ({d}, {d}) array")
    try:
        step = np.linalg.solve(H.astype(np.float64), g)
    except np.linalg.LinAlgError as exc:
        raise ValueError("H_tilde must be nonsingular (numpy.linalg.solve failed)") from exc
    x_new = np.asarray(x, dtype=np.float64) - step
    if not np.all(np.isfinite(x_new)):
        raise ValueError("x − H_tilde⁻¹∇L(x) is not finite in float64 (H_tilde is too close to singular)")
    return x_new


def softmax_sparsify(A, D, eps0, delta, seed):
    """alg.sparsify (spec §3.1): D̃ (n,) from exact leverage scores of D^{1/2}A, seeded."""
    return np.asarray(_S.sparsify(A, D, eps0=eps0, delta=delta, key=as_key(seed, "seed")))


def softmax_iteration_flops(n, d, *, eps0=0.01, delta=0.01):
    """XLA FLOPs of one approximate-Newton iteration of the solver on a dense n × d problem."""
    return _S.iteration_flops(n, d, eps0=eps0, delta=delta)
