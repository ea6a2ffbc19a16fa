"""Least squares by the normal equations AᵀA x = Aᵀb, which squares κ(A): the normal-equation
residual ‖Aᵀ(b − A x̂)‖ stays small, but on a square A with κ ≥ 1e3 the residual ‖b − A x̂‖ misses
backward stability by a factor ≈ κ.  The validator must FAIL ``lstsq``."""

import numpy as np


def lstsq(A, b):
    return np.linalg.lstsq(A.T @ A, A.T @ b, rcond=None)[0]
