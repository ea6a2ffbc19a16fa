"""Adapter function for the ``least_squares`` contract (:mod:`properties.least_squares`, forward and
backward error) backed by randomized Cholesky QR with iterative refinement
(:func:`solvers.cholesky_qr.cholqr_lstsq`).

The package adapter :mod:`solvers.adapter` exposes SPIR under this name
(:mod:`solvers.adapter._least_squares`); this module, not re-exported there, exposes the Cholesky-QR
solver under the same contract so that it is validated the same way:
``python -m properties validate solvers.adapter._cholesky_qr``.
"""

from __future__ import annotations

import numpy as np

from ..cholesky_qr import cholqr_lstsq

__all__ = ["least_squares"]


def least_squares(A, b, seed):
    return np.asarray(cholqr_lstsq(A, b, key=seed).x)
