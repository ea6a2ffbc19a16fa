"""``fast_linear_regression`` exact except that seed 3 ends its process (``os._exit``): a crash is no
trial of the binomial rule — the validator must FAIL it naming the exit, however
rare the seed."""

import os

import numpy as np


def fast_linear_regression(A, b, eps, delta, seed):
    if seed == 3:
        os._exit(0)
    return np.linalg.lstsq(A, b, rcond=None)[0]
