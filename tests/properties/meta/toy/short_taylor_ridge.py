"""``taylor_ridge_solve`` whose Taylor degree is chosen for ε = 1e-2 whatever ε the caller asks: the
truncation error ‖K − Q_q‖ then exceeds ελ/2, so the validator must FAIL it on an instance with a small ε."""

import numpy as np

from solvers import kernel_taylor


def taylor_ridge_solve(X, y, lam, eps):
    return np.asarray(kernel_taylor.taylor_ridge_solve(X, y, float(lam), eps=1e-2).x)
