"""Adapter functions for the basic linear algebra every paper relies on."""

from __future__ import annotations

import numpy as np

from .. import linalg

__all__ = ["condition_number", "kron", "lstsq", "sigma_min", "spectral_norm"]


def spectral_norm(A):
    return linalg.spectral_norm(A)


def sigma_min(A):
    return linalg.sigma_min(A)


def condition_number(A):
    """κ(A) = σ_max/σ_min in float64; ``inf`` exactly when A is numerically rank-deficient (its smallest
    computed singular value is 0, e.g. a singular matrix): the value the contract allows when σ_min is
    within rounding of 0 (docs/contract.md), never NaN."""
    return linalg.condition_number(A)


def lstsq(A, b):
    return np.asarray(linalg.lstsq(A, b))


def kron(x, y):
    return np.asarray(linalg.kron(x, y))
