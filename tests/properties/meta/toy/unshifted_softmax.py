"""Softmax-regression loss, gradient and Hessian with softmax(u) = exp(u)/Σexp(u) evaluated without
the max-shift: right for ‖Ax‖∞ < 709, NaN past it (exp overflows).  The validator must FAIL all three
on the corner A = [[1]], x = [710]."""

import numpy as np


def _f(A, x):
    e = np.exp(A @ x)
    return e / e.sum()


def softmax_loss(A, b, w, x):
    f, u = _f(A, x), A @ x
    return float(0.5 * np.sum((f - b) ** 2) + 0.5 * np.sum((w * u) ** 2))


def softmax_gradient(A, b, w, x):
    f, u = _f(A, x), A @ x
    c = f - b
    return A.T @ (f * c - f * (c @ f) + w**2 * u)


def softmax_hessian(A, b, w, x):
    f = _f(A, x)
    c = f - b
    J = np.diag(f) - np.outer(f, f)  # ∂f/∂u
    dr = np.diag(c + f) @ J - np.outer(f, f + c) @ J - (c @ f) * J + np.diag(w**2)
    return A.T @ dr @ A
