"""Adapter functions of paper 004 (attention-kernel regression): sketches (bits + apply; the
validator rebuilds each matrix from its bits), Algorithms 1–6, and the operation counts their
running-time claims are judged on (``*_ops``, ``even_powers_iterations``: reported by this
implementation, so ``python -m properties validate MODULE`` judges MODULE's own running time)."""

from __future__ import annotations

import numpy as np

from .. import regression as _reg
from .. import sketches as _sk
from .._validation import check_int

__all__ = [
    "attention_regression",
    "attention_regression_ops",
    "countsketch_apply",
    "countsketch_bits",
    "even_powers",
    "even_powers_iterations",
    "even_powers_ops",
    "fast_linear_regression",
    "fast_linear_regression_ops",
    "fast_psd_regression",
    "fast_psd_regression_ops",
    "four_matrices",
    "four_matrices_ops",
    "gaussian_apply",
    "gaussian_bits",
    "odd_powers",
    "odd_powers_ops",
    "osnap_apply",
    "osnap_apply_ops",
    "osnap_bits",
    "srht_apply",
    "srht_apply_ops",
    "srht_bits",
    "tensor_srht_apply",
    "tensor_srht_bits",
]


def _seed(seed):
    """The solvers' key from the contract's ``seed`` (an int in [0, 2**64); ValueError otherwise)."""
    return _sk.as_key(seed, "seed")


def _np_bits(bits):
    return {k: np.asarray(v) for k, v in bits.items()}


def srht_bits(n, m, seed):
    return _np_bits(_sk.srht_bits(_seed(seed), n, m))


def srht_apply(bits, M):
    return np.asarray(_sk.srht_apply(bits, M))


def tensor_srht_bits(d1, d2, m, seed):
    return _np_bits(_sk.tensor_srht_bits(_seed(seed), d1, d2, m))


def tensor_srht_apply(bits, x, y):
    return np.asarray(_sk.tensor_srht_apply(bits, x, y))


def osnap_bits(n, m, s, seed):
    return _np_bits(_sk.osnap_bits(_seed(seed), n, m, s))


def osnap_apply(bits, M):
    return np.asarray(_sk.osnap_apply(bits, M))


def countsketch_bits(n, m, seed):
    return _np_bits(_sk.countsketch_bits(_seed(seed), n, m))


def countsketch_apply(bits, M):
    return np.asarray(_sk.countsketch_apply(bits, M))


def gaussian_bits(n, m, seed):
    return _np_bits(_sk.gaussian_bits(_seed(seed), n, m))


def gaussian_apply(bits, M):
    return np.asarray(_sk.gaussian_apply(bits, M))


def fast_linear_regression(A, b, eps, delta, seed):
    return np.asarray(_reg.fast_linear_regression(A, b, eps, delta, key=_seed(seed)).x)


def fast_psd_regression(A, b, eps, delta, seed):
    return np.asarray(_reg.fast_psd_regression(A, b, eps, delta, key=_seed(seed)).x)


def attention_regression(A, b, eps, delta, seed):
    return np.asarray(_reg.attention_regression(A, b, eps, delta, key=_seed(seed)).x)


def four_matrices(A, b, eps, delta, seed):
    return np.asarray(_reg.four_matrices(A, b, eps, delta, key=_seed(seed)).x)


def even_powers(A, b, j, eps, delta, seed):
    return np.asarray(_reg.even_powers(A, b, j, eps, delta, key=_seed(seed)).x)


def odd_powers(A, b, j, eps, delta, seed):
    return np.asarray(_reg.odd_powers(A, b, j, eps, delta, key=_seed(seed)).x)


# ----------------------------------------------------------------------------- operation counts


def srht_apply_ops(n, k, m):
    """Operations of ``srht_apply`` on an n×k matrix with m sketch rows: k·n_pad·log₂ n_pad butterflies."""
    return int(_sk.sketch_work("srht", check_int("n", n, lo=1), check_int("k", k, lo=1), check_int("m", m, lo=1)))


def osnap_apply_ops(n, k, m, s):
    """Operations of ``osnap_apply`` on an n×k matrix (column sparsity s): s·n·k scatter-adds."""
    sizes = (check_int(name, v, lo=1) for name, v in (("n", n), ("k", k), ("m", m), ("s", s)))
    return int(_sk.sketch_work("osnap", *sizes))


def _run_ops(res, n):
    """Operations a run performed, from the counts its result reports, summed over its stages:
    (matvecs with A and Aᵀ)·n·d + sketch work + QR of the m×d sketched matrix (m·d²) + d³."""
    total = 0
    for st in getattr(res, "stages", None) or (res,):
        m, d = st.qr_shape
        total += int(st.sketch_work) + m * d * d + d**3 + (int(st.matvecs_A) + int(st.matvecs_At)) * int(n) * d
    return total


def fast_linear_regression_ops(A, b, eps, delta, seed):
    return _run_ops(_reg.fast_linear_regression(A, b, eps, delta, key=_seed(seed)), np.shape(A)[0])


def fast_psd_regression_ops(A, b, eps, delta, seed):
    return _run_ops(_reg.fast_psd_regression(A, b, eps, delta, key=_seed(seed)), np.shape(A)[0])


def attention_regression_ops(A, b, eps, delta, seed):
    return _run_ops(_reg.attention_regression(A, b, eps, delta, key=_seed(seed)), np.shape(A)[0])


def four_matrices_ops(A, b, eps, delta, seed):
    return _run_ops(_reg.four_matrices(A, b, eps, delta, key=_seed(seed)), np.shape(A)[0])


def even_powers_ops(A, b, j, eps, delta, seed):
    return _run_ops(_reg.even_powers(A, b, j, eps, delta, key=_seed(seed)), np.shape(A)[0])


def odd_powers_ops(A, b, j, eps, delta, seed):
    return _run_ops(_reg.odd_powers(A, b, j, eps, delta, key=_seed(seed)), np.shape(A)[0])


def even_powers_iterations(A, b, j, eps, delta, seed):
    """(iterations run, the algorithm's own worst-case bound Σ_k T₂(k)) of Algorithm 5's stages."""
    res = _reg.even_powers(A, b, j, eps, delta, key=_seed(seed))
    return np.array([int(res.iterations), sum(int(st.max_iterations) for st in res.stages)], dtype=np.int64)
