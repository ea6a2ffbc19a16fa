"""``attention_solve`` whose Newton steps solve the normal equations HᵀH δ = Hᵀ∇L_tot of the exact Hessian
H = ∇²L_tot(z): the same fixed point, but κ(H) is squared, so on the plain draws (κ(H) ≲ 1e3) it converges
like the correct solver and once κ(H) passes about 1e8 (the rescaled corners of the validator's search) the
steps lose every digit along H's small eigenvectors."""

import numpy as np

from solvers import attention_optimization as A


def attention_solve(A1, A2, A3, B, w, z0, iterations, m, seed):
    z = np.array(z0, dtype=np.float64)
    for _ in range(int(iterations)):
        g = np.asarray(A.gradient_tot(A1, A2, A3, B, w, z))
        H = np.asarray(A.hessian_tot(A1, A2, A3, B, w, z))
        z = z - np.linalg.solve(H.T @ H, H.T @ g)
    return z
