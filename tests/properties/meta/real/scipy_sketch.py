"""scipy's CountSketch as the contract's black-box ``countsketch``: ``scipy.linalg.clarkson_woodruff_transform``
returns S·A for an m×n CountSketch S and exposes no bits; the validator recovers S by probing."""

import numpy as np
import scipy.linalg


def countsketch(A, m, seed):
    return scipy.linalg.clarkson_woodruff_transform(A, m, rng=np.random.default_rng(seed))
