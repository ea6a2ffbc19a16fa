"""``kernel_ridge_solve`` whose Richardson loop exits after two steps whatever the residual (Algorithm
7R's loop cut short): its residual misses ε‖y‖ once ε is small."""

import numpy as np

from solvers import kernel_ridge as KR


def kernel_ridge_solve(X, y, lam, eps, seed):
    return np.asarray(KR.kernel_ridge_solve(X, y, float(lam), eps=float(eps), key=int(seed), max_iter=2).x)
