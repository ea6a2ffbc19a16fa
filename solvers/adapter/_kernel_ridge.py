"""Adapter functions of Section L of paper 004 (attention-kernel regression): Algorithm 8's
polynomial sketch, the features W_g (bits + apply; the validator rebuilds both from the bits),
Algorithm 7R, Algorithm 7 as stated, and the operation counts the running-time claims judge.
Data is ``X ∈ R^{d×n}`` (columns are the points), as in Section L."""

from __future__ import annotations

import numpy as np

from .. import kernel_ridge as _kr
from .. import sketches as _sk

__all__ = [
    "attention_feature_bits",
    "attention_features",
    "attention_features_ops",
    "kernel_ridge_solve",
    "preconditioned_gd",
    "preconditioned_gd_ops",
    "taylor_ridge_solve",
    "tensor_sketch",
    "tensor_sketch_ops",
]


def _np_bits(bits):
    return {k: np.asarray(v) for k, v in bits.items()}


def tensor_sketch(X, p, T_bits, S_bits):
    return np.asarray(_kr.tensor_sketch(X, int(p), T_bits, S_bits).Z)


def attention_feature_bits(d, rows, seed):
    return [[_np_bits(T), _np_bits(S)] for T, S in _kr.feature_bits(int(seed), int(d), tuple(int(m) for m in rows))]


def attention_features(bits, X):
    return np.asarray(_kr.attention_features(X, [tuple(pair) for pair in bits]).W)


def kernel_ridge_solve(X, y, lam, eps, seed):
    return np.asarray(_kr.kernel_ridge_solve(X, y, float(lam), eps=float(eps), key=int(seed)).x)


def taylor_ridge_solve(X, y, lam, eps):
    return np.asarray(_kr.taylor_ridge_solve(X, y, float(lam), eps=float(eps)).x)


def preconditioned_gd(X, y, feature_bits, s_bits, eps, max_iter):
    res = _kr.preconditioned_gd(X, y, feature_bits=[tuple(pair) for pair in feature_bits], s_bits=s_bits,
                                eps=float(eps), max_iter=int(max_iter))
    return np.asarray(res.x)


def _data(d, n, seed):
    rng = np.random.default_rng(int(seed))
    X = rng.standard_normal((int(d), int(n)))
    return X / np.linalg.norm(X, axis=0)


def tensor_sketch_ops(d, n, m, p, seed):
    T = _sk.srht_bits(int(seed), int(d), int(m))
    S = _sk.tensor_srht_bits(int(seed) + 1, int(m), int(m), int(m))
    return int(_kr.tensor_sketch(_data(d, n, seed), int(p), T, S).ops)


def attention_features_ops(d, n, rows, seed):
    bits = _kr.feature_bits(int(seed), int(d), tuple(int(m) for m in rows))
    return int(_kr.attention_features(_data(d, n, seed), bits).ops)


def preconditioned_gd_ops(d, n, rows, s, max_iter, seed):
    X = _data(d, n, seed)
    y = np.random.default_rng(int(seed) + 1).standard_normal(int(n))
    bits = _kr.feature_bits(int(seed), int(d), tuple(int(m) for m in rows))
    s_bits = None if int(s) >= int(n) else _sk.srht_bits(int(seed) + 2, int(n), int(s))
    return int(_kr.preconditioned_gd(X, y, feature_bits=bits, s_bits=s_bits, eps=1e-300, max_iter=int(max_iter)).ops)
