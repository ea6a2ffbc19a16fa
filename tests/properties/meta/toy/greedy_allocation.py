"""A ``kron`` that reserves 3 GiB (untouched) before answering correctly: it passes without a memory
limit, and with ``--memory 1024`` its allocation is a MemoryError, a FAIL."""

import numpy as np


def kron(x, y):
    reserve = np.empty(3 << 30, dtype=np.uint8)
    del reserve
    return np.kron(x, y)
