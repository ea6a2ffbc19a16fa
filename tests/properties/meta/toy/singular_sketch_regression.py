"""A correct sketch-and-precondition ``fast_linear_regression`` that raises on a rare singular sketch
: S is a CountSketch of m = 40d rows (seeded), R the triangular factor of SA, and the
solution is R⁻¹y for y minimising ‖(AR⁻¹)y − b‖ (AR⁻¹ is well conditioned when S embeds the column
space of A), refined once against the residual.  When two nonzero rows of A hash to one bucket SA may
be singular: it then raises ``numpy.linalg.LinAlgError`` — on an 8 × 2 A with two nonzero rows that is
one seed in 80, well inside δ = 0.05, so the validator must count it as one failed trial of the binomial
rule and PASS the module; :mod:`always_singular_regression` raises on every seed and must FAIL."""

import numpy as np


def _countsketch(A: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """S·A for an m × n CountSketch S: row i of A added with a random sign into a uniformly drawn bucket."""
    rows = rng.integers(0, m, size=A.shape[0])
    signs = rng.choice([-1.0, 1.0], size=A.shape[0])
    SA = np.zeros((m, A.shape[1]))
    np.add.at(SA, rows, signs[:, None] * A)
    return SA


def fast_linear_regression(A, b, eps, delta, seed):
    A, b = np.asarray(A, dtype=np.float64), np.asarray(b, dtype=np.float64)
    d = A.shape[1]
    SA = _countsketch(A, 40 * d, np.random.default_rng(seed))
    if np.linalg.matrix_rank(SA) < d:
        raise np.linalg.LinAlgError("singular matrix")
    R = np.linalg.qr(SA, mode="r")
    AR = np.linalg.solve(R.T, A.T).T  # A R⁻¹

    def solve(rhs):
        return np.linalg.solve(R, np.linalg.lstsq(AR, rhs, rcond=None)[0])

    x = solve(b)
    return x + solve(b - A @ x)
