"""Singular values through the eigenvalues of AᵀA: right in the middle of float64's range, but the
squares overflow past 1e154 (inf) and underflow below 1e-162 (σ_min → 0).  The validator must FAIL
``spectral_norm`` and ``sigma_min`` on a corner instance."""

import numpy as np


def spectral_norm(A):
    return float(np.sqrt(np.linalg.eigvalsh(A.T @ A)[-1]))


def sigma_min(A):
    G = A.T @ A if A.shape[0] >= A.shape[1] else A @ A.T
    return float(np.sqrt(max(np.linalg.eigvalsh(G)[0], 0.0)))
