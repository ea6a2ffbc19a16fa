"""``attention_pruning_wanda`` taking the tail of a descending sort: the k smallest scores, but equal scores
pruned from the higher index first (the tie rule says the lower)."""

import math

import numpy as np


def attention_pruning_wanda(W, X, rho):
    k = int(math.floor(rho * W.shape[0] + 1e-9))
    S = np.abs(W) * np.linalg.norm(X, axis=0)[:, None]
    out = W.copy()
    for o in range(W.shape[1]):
        order = np.argsort(-S[:, o], kind="stable")[::-1]
        out[order[:k], o] = 0.0
    return out
