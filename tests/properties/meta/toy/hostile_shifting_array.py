"""Hostile module: ``kron`` returns an object that converts to the right array the first time and to
garbage afterwards.  The module's process converts it twice and finds two arrays: FAIL, exit 1."""

import numpy as np


class _Out:
    def __init__(self, value):
        self.value, self.calls = value, 0

    def __array__(self, dtype=None, copy=None):
        self.calls += 1
        return self.value if self.calls == 1 else self.value + 1e3


def kron(x, y):
    return _Out(np.kron(x, y))
