"""An implementation whose ``spectral_norm`` never returns; ``sigma_min`` is right.  The validator
must FAIL ``spectral_norm`` after its time limit, judge ``sigma_min``, and exit."""

import time

import numpy as np


def spectral_norm(A):
    while True:
        time.sleep(0.05)


def sigma_min(A):
    return float(np.linalg.svd(A, compute_uv=False)[-1])
