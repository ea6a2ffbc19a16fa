"""An implementation whose functions leave by ``BaseException``: ``spectral_norm`` calls
``sys.exit(0)`` and ``sigma_min`` raises ``KeyboardInterrupt`` itself; ``kron`` is right.  The
validator must FAIL the first two by name and still judge ``kron`` (and exit 1, not 0)."""

import sys

import numpy as np


def spectral_norm(A):
    sys.exit(0)


def sigma_min(A):
    raise KeyboardInterrupt


def kron(x, y):
    return np.kron(x, y)
