"""``taylor_ridge_solve`` on the Taylor feature map one degree short of def.Q's smallest admissible q
(n·Σ_{l>q} r^{2l}/l! ≤ ελ/2): the truncation error ‖K − Q_{q−1}‖ exceeds ελ/2, by a factor ≈ (q + 1)/r²."""

import numpy as np

from solvers import kernel_taylor as KT


def taylor_ridge_solve(X, y, lam, eps):
    r = float(np.sqrt(np.max(np.sum(X * X, axis=0))))
    q = KT.taylor_degree(r, X.shape[1], eps * lam / 2)
    Phi = KT.taylor_features(X, max(q - 1, 0))
    return np.asarray(KT.feature_ridge_solve(Phi, y, float(lam), eps=eps / 4).x)
