"""``fast_linear_regression`` that raises ``LinAlgError`` on every seed: however the binomial rule
counts a raised trial, 30 failures of 30 exceed its threshold, so the validator must FAIL it and say
how many trials raised and what (the twin of :mod:`singular_sketch_regression`)."""

import numpy as np


def fast_linear_regression(A, b, eps, delta, seed):
    raise np.linalg.LinAlgError("singular matrix")
