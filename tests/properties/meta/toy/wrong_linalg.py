"""A deliberately wrong implementation: ``spectral_norm`` returns the Frobenius norm, ``kron``
uses the column-major convention.  The validator must catch both with a minimal input."""

import numpy as np


def spectral_norm(A):
    return float(np.linalg.norm(A, "fro"))


def sigma_min(A):
    return float(np.linalg.svd(A, compute_uv=False)[-1])


def kron(x, y):
    return np.kron(y, x)
