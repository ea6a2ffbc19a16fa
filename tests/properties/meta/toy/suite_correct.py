"""A small correct implementation for the pytest suite's meta-test (:mod:`properties.suite`): scipy's
CountSketch, numpy's kron, and an iteration counted as O(n·d² + d³) (the claim
softmax_regression.thm9.1.time holds on it)."""

import numpy as np
import scipy.linalg


def countsketch(A, m, seed):
    return scipy.linalg.clarkson_woodruff_transform(A, m, rng=np.random.default_rng(seed))


def softmax_iteration_flops(n, d, *, eps0=0.01, delta=0.01):
    return float(4 * n * d * d + 2 * d**3)


def kron(x, y):
    return np.kron(x, y)
