"""Black-box sketches (``f(A, m, seed) -> S·A``, numpy only) for the meta-tests of
:mod:`properties.blackbox`: one correct form of each kind (they must pass) and planted bugs, each
named after its bug."""

import numpy as np
import scipy.linalg


def _signs(rng, shape):
    return rng.choice(np.array([-1.0, 1.0]), shape)


def srht(A, m, seed):
    n = A.shape[0]
    p = 1 << (n - 1).bit_length()
    rng = np.random.default_rng(seed)
    signs, rows = _signs(rng, p), rng.integers(0, p, m)
    return (scipy.linalg.hadamard(p)[rows, :n] * signs[:n]) @ A / np.sqrt(m)


def osnap(A, m, s, seed):
    n = A.shape[0]
    rng = np.random.default_rng(seed)
    S = np.zeros((m, n))
    for j in range(n):
        S[rng.choice(m, s, replace=False), j] = _signs(rng, s) / np.sqrt(s)
    return S @ A


def countsketch(A, m, seed):
    return osnap(A, m, 1, seed)


def gaussian_sketch(A, m, seed):
    return np.random.default_rng(seed).standard_normal((m, A.shape[0])) @ A / np.sqrt(m)


def countsketch_constant_signs(A, m, seed):
    """scipy's CountSketch with every sign +1: the structure holds, the sign balance does not."""
    return np.abs(scipy.linalg.clarkson_woodruff_transform(np.eye(A.shape[0]), m, rng=np.random.default_rng(seed))) @ A


def srht_not_linear(A, m, seed):
    """An SRHT plus a small cubic term that vanishes on entries in {−1, 0, 1}: f(I) is an SRHT, f(A) is not S·A."""
    return srht(A, m, seed) + 1e-9 * srht(A**3 - A, m, seed)


def countsketch_seeded_by_input(A, m, seed):
    """Draws its S from the seed and the input's first bytes: deterministic, but another S for another input."""
    mix = int.from_bytes(np.ascontiguousarray(A).tobytes()[:8].ljust(8, b"\0"), "little")
    return scipy.linalg.clarkson_woodruff_transform(A, m, rng=np.random.default_rng([seed, mix]))


def gaussian_sketch_ignores_seed(A, m, seed):
    """A Gaussian sketch drawn from one fixed seed: the law holds entrywise, nothing varies with the seed."""
    return gaussian_sketch(A, m, 0)


def srht_is_a_countsketch(A, m, seed):
    """A CountSketch where an SRHT is declared: f(I) has zeros."""
    return countsketch(A, m, seed)


def osnap_one_row_per_block_repeated(A, m, s, seed):
    """OSNAP whose s rows of a column are the same row hit s times (S[r, j] = ±√s): one nonzero, not s."""
    n = A.shape[0]
    rng = np.random.default_rng(seed)
    S = np.zeros((m, n))
    S[rng.integers(0, m, n), np.arange(n)] = _signs(rng, n) * np.sqrt(s)
    return S @ A
