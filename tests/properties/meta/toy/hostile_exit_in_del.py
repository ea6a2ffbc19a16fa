"""Hostile module: ``kron`` returns the right array, of a subclass whose ``__del__`` calls ``os._exit(0)``:
the process ends when the result is released.  Isolated, it is a FAIL of ``kron``; exit code 1."""

import os

import numpy as np


class _Dying(np.ndarray):
    def __del__(self):
        os._exit(0)


def kron(x, y):
    return np.kron(x, y).view(_Dying)
