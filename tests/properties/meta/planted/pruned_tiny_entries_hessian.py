"""``softmax_hessian`` that treats entries of A below 1e-100 in magnitude as exact zeros (a sparsity
shortcut): every plain draw has its nonzero entries above 1e-8, so it is exact there; the scaled corners
(A·10^e, x·10^-e, the Hessian scaled by 10^(2e)) reach entries of 1e-146, where it drops the whole
Hessian."""

import numpy as np

import solvers.adapter as correct


def softmax_hessian(A, b, w, x):
    A = np.where(np.abs(A) < 1e-100, 0.0, A)
    return np.asarray(correct.softmax_hessian(A, b, w, x))
