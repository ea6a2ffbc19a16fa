"""``attention_pruning_wanda`` returning all zeros: every pruned entry is 0 (a check that only counts
"at least k zeros per column" passes it)."""

import numpy as np


def attention_pruning_wanda(W, X, rho):
    return np.zeros_like(W)
