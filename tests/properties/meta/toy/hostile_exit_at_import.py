"""Hostile module: ``os._exit(0)`` at import.  Isolated, the module cannot be imported: exit code 2."""

import os

import numpy as np


def kron(x, y):
    return np.kron(x, y)


os._exit(0)
