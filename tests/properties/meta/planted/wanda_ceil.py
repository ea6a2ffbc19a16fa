"""``attention_pruning_wanda`` pruning ceil(ρ·d_in) entries per column instead of ⌊ρ·d_in + 10⁻⁹⌋: one
entry too many whenever ρ·d_in is not an integer; the kept entries are still the largest scores."""

import math

import numpy as np


def attention_pruning_wanda(W, X, rho):
    k = math.ceil(rho * W.shape[0] - 1e-9)
    S = np.abs(W) * np.linalg.norm(X, axis=0)[:, None]
    out = W.copy()
    for o in range(W.shape[1]):
        out[np.argsort(S[:, o], kind="stable")[:k], o] = 0.0
    return out
