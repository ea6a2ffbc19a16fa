"""Adapter functions of paper 004 (attention-kernel regression): sketches (bits + apply; the
validator rebuilds each matrix from its bits) and Algorithms 1–6."""

from __future__ import annotations

import numpy as np

from .. import regression as _reg
from .. import sketches as _sk

__all__ = [
    "attention_regression",
    "countsketch_apply",
    "countsketch_bits",
    "even_powers",
    "fast_linear_regression",
    "fast_psd_regression",
    "four_matrices",
    "gaussian_apply",
    "gaussian_bits",
    "odd_powers",
    "osnap_apply",
    "osnap_bits",
    "srht_apply",
    "srht_bits",
    "tensor_srht_apply",
    "tensor_srht_bits",
]


def _np_bits(bits):
    return {k: np.asarray(v) for k, v in bits.items()}


def srht_bits(n, m, seed):
    return _np_bits(_sk.srht_bits(int(seed), int(n), int(m)))


def srht_apply(bits, M):
    return np.asarray(_sk.srht_apply(bits, M))


def tensor_srht_bits(d1, d2, m, seed):
    return _np_bits(_sk.tensor_srht_bits(int(seed), int(d1), int(d2), int(m)))


def tensor_srht_apply(bits, x, y):
    return np.asarray(_sk.tensor_srht_apply(bits, x, y))


def osnap_bits(n, m, s, seed):
    return _np_bits(_sk.osnap_bits(int(seed), int(n), int(m), int(s)))


def osnap_apply(bits, M):
    return np.asarray(_sk.osnap_apply(bits, M))


def countsketch_bits(n, m, seed):
    return _np_bits(_sk.countsketch_bits(int(seed), int(n), int(m)))


def countsketch_apply(bits, M):
    return np.asarray(_sk.countsketch_apply(bits, M))


def gaussian_bits(n, m, seed):
    return _np_bits(_sk.gaussian_bits(int(seed), int(n), int(m)))


def gaussian_apply(bits, M):
    return np.asarray(_sk.gaussian_apply(bits, M))


def fast_linear_regression(A, b, eps, delta, seed):
    return np.asarray(_reg.fast_linear_regression(A, b, eps, delta, key=int(seed)).x)


def fast_psd_regression(A, b, eps, delta, seed):
    return np.asarray(_reg.fast_psd_regression(A, b, eps, delta, key=int(seed)).x)


def attention_regression(A, b, eps, delta, seed):
    return np.asarray(_reg.attention_regression(A, b, eps, delta, key=int(seed)).x)


def four_matrices(A, b, eps, delta, seed):
    return np.asarray(_reg.four_matrices(A, b, eps, delta, key=int(seed)).x)


def even_powers(A, b, j, eps, delta, seed):
    return np.asarray(_reg.even_powers(A, b, int(j), eps, delta, key=int(seed)).x)


def odd_powers(A, b, j, eps, delta, seed):
    return np.asarray(_reg.odd_powers(A, b, int(j), eps, delta, key=int(seed)).x)
