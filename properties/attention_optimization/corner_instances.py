"""Fixed magnitude and size corners of the adapters ``attention_sketched_gram`` and ``attention_newton_step``
(``contract.Adapter.magnitude_corners`` and ``size_corners``; docs/validate.md, "What is searched"): entries up
to each function's valid range and across float64's overflow and underflow thresholds, and sizes crossing
:data:`~properties.toolkit.strategies.PATH_SIZES` as far as the oracle affords."""

from __future__ import annotations

import numpy as np

from ..toolkit.strategies import PATH_SIZES, fixed_matrix

__all__ = ["gram_magnitudes", "gram_sizes", "step_magnitudes", "step_sizes"]


def gram_magnitudes():
    """(A1, A2, wd, m): A1 near 1e150 beside A2 near 1e-150 (A1ᵀA1 overflows, C2ᵀC2 underflows, M of order 1), wd
    near 1e300 beside A1 near 1e-150 (C2 = diag(wd)^{1/2}A2 near 1e150), and entries above 10; wd with a zero
    entry; m = 64."""
    A1, A2, wd = fixed_matrix(4, 2), fixed_matrix(4, 2)[::-1] * 0.5, np.array([1.0, 0.5, 2.0, 0.0])
    return [(A1 * 1e150, A2 * 1e-150, wd, 64), (A1 * 1e-150, A2, wd * 1e300, 64), (A1 + 11.0, A2 * 12.0, wd * 20.0, 64)]


def gram_sizes():
    """n = 7 … 65 rows at d = 2, m = 64 (the TensorSRHT pads 9 rows to 16, 17 to 32, 33 to 64, 65 to 128); the
    oracle's M = (A1ᵀA1) ⊗ (C2ᵀC2) costs little at any n, so every size of PATH_SIZES is judged (16 seeds each,
    under 2 s)."""
    return [(fixed_matrix(n, 2), np.cos(np.arange(2.0 * n)).reshape(n, 2), np.linspace(0.5, 2.0, n), 64)
            for n in PATH_SIZES]


def _step_problem(n):
    """(A1, A2, A3, B, w, z) of n rows at d = 2: fixed matrices of entries of order 1, z = (vec_row X, Y's columns)."""
    F = fixed_matrix(n, 2)
    return F * 0.5, F * 0.3, F, F * 0.1, np.linspace(1.0, 3.0, n), np.array([0.5, -0.2, 0.1, 0.3, 1.0, 0.5, -0.5, 1.0])


def _hessian_factor():
    """G of H̃ = GGᵀ + sI for k = 2d² = 8: the identity plus a fixed full perturbation of 0.1."""
    return np.eye(8) + 0.1 * np.sin(np.outer(np.arange(1, 9), np.arange(1, 9)))


def step_magnitudes():
    """((A1, A2, A3, B, w, z), G, s): B near 1e150 (∇L_tot near 1e150), entries above 10, z of 1e3 (exponents
    A1XA2ᵀ near 1e3, past exp's overflow: the softmax needs its max-shift), and H̃ = GGᵀ near 1e300 and 1e-300
    (s = 0; a step near 1e-300 and near 1e300)."""
    A1, A2, A3, B, w, z = _step_problem(3)
    G = _hessian_factor()
    return [((A1, A2, A3, B * 1e150, w, z), G, 1.0), ((A1 + 11.0, A2 - 12.0, A3 * 12.0, B * 15.0, w, z), G, 1.0),
            ((A1, A2, A3, B, w, z * 1e3), G, 1.0), ((A1, A2, A3, B, w, z), G * 1e150, 0.0),
            ((A1, A2, A3, B, w, z), G * 1e-150, 0.0)]


def step_sizes():
    """n = 7 … 33 rows at d = 2 (k = 8); stops at 33: the 50-digit gradient costs about 2 s there and 7 s at
    n = 64 (d stays 2: k = 2d² past 8 makes the 50-digit solve with H̃ the cost)."""
    return [(_step_problem(n), _hessian_factor(), 1.0) for n in PATH_SIZES if n <= 33]
