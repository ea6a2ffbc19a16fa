"""Adapter function for full-column-rank least squares judged by forward and backward error
(:mod:`properties.least_squares`): SPIR, the backward-stable sketch-preconditioned solver.

The randomized Cholesky QR solver (:mod:`solvers.cholesky_qr`) is exposed under the same contract by
:mod:`solvers.adapter._cholesky_qr` (not re-exported here: one function per contract name), validated
with ``python -m properties validate solvers.adapter._cholesky_qr``."""

from __future__ import annotations

import numpy as np

from ..stable_least_squares import spir

__all__ = ["least_squares"]


def least_squares(A, b, seed):
    return np.asarray(spir(A, b, key=seed).x)
