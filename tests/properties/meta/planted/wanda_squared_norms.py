"""``attention_pruning_wanda`` scoring with ‖X_i‖² instead of ‖X_i‖: the mask is the same whenever the
two rankings agree (ρ ∈ {0, 1}, d_in = 1, dead or equal-norm columns), so only a search on instances
separating them catches it."""

import math

import numpy as np


def attention_pruning_wanda(W, X, rho):
    k = int(math.floor(rho * W.shape[0] + 1e-9))
    S = np.abs(W) * np.sum(X * X, axis=0)[:, None]
    out = W.copy()
    for o in range(W.shape[1]):
        out[np.argsort(S[:, o], kind="stable")[:k], o] = 0.0
    return out
