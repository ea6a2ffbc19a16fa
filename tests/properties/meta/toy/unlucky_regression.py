"""A correct randomised ``fast_linear_regression``: exact least squares, except on the seeds where its
seeded coin (probability δ/2, below the guarantee's δ) comes up, when it returns a point far off — a
sketch-and-precondition solver's rare unlucky sketch.  Its guarantee (success w.p. ≥ 1 − δ) holds, so
the validator must PASS it (a search over the seed would find an unlucky seed and raise a false alarm);
:mod:`coin_regression` fails half the time and must FAIL."""

import numpy as np

FAILURE_RATE = 0.5  # of δ


def _solve(A, b, eps, delta, seed, rate):
    x = np.linalg.lstsq(A, b, rcond=None)[0]
    if np.random.default_rng([seed, 14]).random() < rate:
        return x + 1e3
    return x


def fast_linear_regression(A, b, eps, delta, seed):
    return _solve(A, b, eps, delta, seed, FAILURE_RATE * delta)
