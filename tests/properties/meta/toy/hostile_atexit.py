"""Hostile module: a wrong ``kron`` (every entry off by one) that registers ``os._exit(0)`` at exit, so an
in-process judge ends with exit code 0 after printing its FAIL.  Isolated: FAIL, exit code 1."""

import atexit
import os

import numpy as np

atexit.register(lambda: os._exit(0))


def kron(x, y):
    return np.kron(x, y) + 1.0
