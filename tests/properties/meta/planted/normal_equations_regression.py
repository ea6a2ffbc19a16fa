"""``fast_linear_regression`` by the normal equations AᵀA x = Aᵀb: exact on well-conditioned data (the
search's instances), but it squares κ, so on a square A with κ ≥ 1e3 its residual ‖Ax̂ − b‖ (OPT = 0)
misses backward stability by about κ."""

import numpy as np


def fast_linear_regression(A, b, eps, delta, seed):
    return np.linalg.solve(A.T @ A, A.T @ b)
