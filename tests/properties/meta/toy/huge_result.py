"""A ``kron`` that returns 10⁸ float64 entries (800 MB): refused in the module's process as a result too
large, a FAIL with one line, never a timeout or a broken pipe."""

import numpy as np


def kron(x, y):
    return np.zeros(10**8)
