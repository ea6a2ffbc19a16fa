"""``softmax_solve`` by Newton's method whose steps solve the normal equations HᵀH δ = Hᵀg of the Newton
system: the same fixed point, but it squares κ(H) ≈ κ(A)²·w_max²/w_min², so once κ(A) reaches about 1e4
the steps carry no correct digits and the iterate stalls far from x*."""

import numpy as np

import solvers.adapter as correct


def softmax_solve(A, b, w):
    x = np.zeros(A.shape[1])
    for _ in range(60):
        g = correct.softmax_gradient(A, b, w, x)
        H = correct.softmax_hessian(A, b, w, x)
        x = x - np.linalg.solve(H.T @ H, H.T @ g)
    return x
