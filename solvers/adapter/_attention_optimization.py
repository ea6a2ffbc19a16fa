"""Adapter functions of paper 003 (single-layer attention optimisation; spec/attention_optimization.md).

Conventions: L_half = ½‖S(X)A3Y − B‖_F² (spec def.loss); z = (vec_row X, vec_cols Y) ∈ R^{2d²};
the regulariser is reading (b) of spec def.reg_x with W = diag(w), w ≥ 0.
"""

from __future__ import annotations

import numpy as np

from .. import attention_optimization as _A

__all__ = [
    "attention_flops",
    "attention_grad_x",
    "attention_grad_y",
    "attention_hessian_xx",
    "attention_hessian_xy",
    "attention_hessian_yy",
    "attention_loss",
    "attention_newton_step",
    "attention_sketch_rows",
    "attention_sketched_gram",
    "attention_solve",
]


def attention_loss(A1, A2, A3, B, X, Y):
    """L_half(X, Y) = ½‖S(X)A3Y − B‖_F²."""
    return _A.loss(A1, A2, A3, B, X, Y)


def attention_grad_x(A1, A2, A3, B, X, Y):
    """∇_X L_half = A1ᵀQA2, shape (d, d)."""
    return np.asarray(_A.grad_x(A1, A2, A3, B, X, Y))


def attention_grad_y(A1, A2, A3, B, X, Y):
    """∇_Y L_half = A3ᵀSᵀ(SA3Y − B), shape (d, d)."""
    return np.asarray(_A.grad_y(A1, A2, A3, B, X, Y))


def attention_hessian_xx(A1, A2, A3, B, X, Y):
    """∂²L_half/∂x∂xᵀ, shape (d², d²)."""
    return np.asarray(_A.hessian_blocks(A1, A2, A3, B, X, Y)[0])


def attention_hessian_xy(A1, A2, A3, B, X, Y):
    """∂²L_half/∂x∂yᵀ, shape (d², d²)."""
    return np.asarray(_A.hessian_blocks(A1, A2, A3, B, X, Y)[1])


def attention_hessian_yy(A1, A2, A3, B, X, Y):
    """∂²L_half/∂y∂yᵀ, shape (d², d²)."""
    return np.asarray(_A.hessian_blocks(A1, A2, A3, B, X, Y)[2])


def attention_sketch_rows(A1, C2, signs1, signs2, rows1, rows2):
    """S(A1 ⊗ C2) (m, d²) for the TensorSRHT S = (1/√m)P(H_N D1 ⊗ H_N D2) given by its bits."""
    n = np.asarray(A1).shape[0]
    bits = {"d1": np.int64(n), "d2": np.int64(n), "signs1": signs1, "signs2": signs2, "rows1": rows1,
            "rows2": rows2}
    return np.asarray(_A.sketch_rows(bits, A1, C2))


def attention_sketched_gram(A1, A2, wd, m, seed):
    """M̃ ≈ Σ_{j0} 𝖠_{j0}ᵀ diag(wd) 𝖠_{j0} from a TensorSRHT of m rows (seeded), shape (d², d²)."""
    return np.asarray(_A.sketched_gram(A1, A2, wd, int(m), key=int(seed)))


def attention_newton_step(A1, A2, A3, B, w, z, H_tilde):
    """z − H̃⁻¹∇L_tot(z), shape (2d²,)."""
    return np.asarray(_A.newton_step(A1, A2, A3, B, w, z, H_tilde))


def attention_solve(A1, A2, A3, B, w, z0, iterations, m, seed):
    """z after ``iterations`` updates of alg.newton from z0 (exact Hessian if m = 0, else the x-regulariser
    block sketched with m TensorSRHT rows, seeded), shape (2d²,)."""
    return np.asarray(_A.newton(A1, A2, A3, B, w, z0, m=int(m), key=int(seed), tol=0.0,
                                max_iter=int(iterations)).x)


def attention_flops(kernel, n, d):
    """XLA FLOPs of one compiled kernel (forward, grad_x, grad_y, softmax_jvp, hessian, sketch,
    newton_step) on an n × d problem."""
    return _A.flops(kernel, int(n), int(d))
