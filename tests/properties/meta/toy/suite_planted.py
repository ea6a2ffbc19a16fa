"""Planted bugs for the pytest suite's meta-test (:mod:`properties.suite`): a CountSketch with every
sign +1 (its statistical check fails), an iteration whose count grows as n² (the claim
softmax_regression.thm9.1.time fails), and a correct ``kron`` (passes)."""

import numpy as np
import scipy.linalg


def countsketch(A, m, seed):
    return np.abs(scipy.linalg.clarkson_woodruff_transform(np.eye(A.shape[0]), m, rng=np.random.default_rng(seed))) @ A


def softmax_iteration_flops(n, d, *, eps0=0.01, delta=0.01):
    return float(n * n * d * d)


def kron(x, y):
    return np.kron(x, y)
