"""The adapter of ``solvers`` for the validator: numpy arrays in, numpy arrays or floats out.

``python -m properties validate solvers.adapter`` checks every function here against the oracle,
through the same path as any outside implementation (DESIGN principle 7).  Names and signatures
are the public contract listed in README.
"""

from __future__ import annotations

import numpy as np

from . import linalg


def spectral_norm(A):
    return linalg.spectral_norm(A)


def sigma_min(A):
    return linalg.sigma_min(A)


def condition_number(A):
    return linalg.condition_number(A)


def lstsq(A, b):
    return np.asarray(linalg.lstsq(A, b))


def kron(x, y):
    return np.asarray(linalg.kron(x, y))
