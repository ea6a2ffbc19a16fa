"""``attention_pruning_binarize`` zeroing equal scores from the higher flattened index first (the tail of
a stable descending sort); the tie rule says the lower."""

import math

import numpy as np


def attention_pruning_binarize(scores, rho):
    k = int(math.floor(rho * scores.size + 0.5 + 1e-9))
    out = np.ones(scores.size)
    out[np.argsort(-scores.reshape(-1), kind="stable")[::-1][:k]] = 0.0
    return out.reshape(scores.shape)
