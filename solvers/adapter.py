"""The adapter of ``solvers`` for the validator: numpy arrays in, numpy arrays or floats out.

``python -m properties validate solvers.adapter`` checks every function here against the oracle,
through the same path as any outside implementation (DESIGN principle 7).  Names and signatures
are the public contract listed in README.
"""

from __future__ import annotations

import numpy as np

from . import linalg


def spectral_norm(A):
    return linalg.spectral_norm(A)


def sigma_min(A):
    return linalg.sigma_min(A)


def condition_number(A):
    return linalg.condition_number(A)


def lstsq(A, b):
    return np.asarray(linalg.lstsq(A, b))


def kron(x, y):
    return np.asarray(linalg.kron(x, y))


# ----------------------------------------------------------------------------- attention_kernel_regression
# Sketches (bits + apply; the validator rebuilds each matrix from its bits) and Algorithms 1–6.

from . import regression as _reg  # noqa: E402
from . import sketches as _sk  # noqa: E402


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


# --- softmax regression (paper 001; spec/softmax_regression.md) ----------------------------------

def _softmax_module():
    from . import softmax_regression

    return softmax_regression


def softmax_loss(A, b, w, x):
    """L(x) = ½‖softmax(Ax) − b‖² + ½‖diag(w)Ax‖²."""
    return float(_softmax_module().loss(A, b, w, x))


def softmax_gradient(A, b, w, x):
    """∇L(x), shape (d,)."""
    return np.asarray(_softmax_module().gradient(A, b, w, x))


def softmax_hessian(A, b, w, x):
    """∇²L(x) = Aᵀ(B(x) + W²)A, shape (d, d)."""
    return np.asarray(_softmax_module().hessian(A, b, w, x))


def softmax_solve(A, b, w):
    """The minimiser x* of L by exact Newton, run to the float64 noise floor (tol = 0, fixed budget)."""
    return np.asarray(_softmax_module().exact_newton(A, b, w, tol=0.0, max_iter=60).x)


def softmax_newton_step(A, b, w, x, H_tilde):
    """One approximate-Newton update x − H̃⁻¹∇L(x) with a given approximate Hessian H̃ (d, d)."""
    g = np.asarray(_softmax_module().gradient(A, b, w, x))  # validates A, b, w, x
    H = np.asarray(H_tilde, dtype=np.float64)
    d = g.shape[0]
    if H.shape != (d, d) or not np.all(np.isfinite(H)):
        raise ValueError(f"H_tilde (shape={H.shape}) must be a finite ({d}, {d}) array")
    return np.asarray(x, dtype=np.float64) - np.linalg.solve(H, g)


def softmax_sparsify(A, D, eps0, delta, seed):
    """alg.sparsify (spec §3.1): D̃ (n,) from exact leverage scores of D^{1/2}A, seeded."""
    return np.asarray(_softmax_module().sparsify(A, D, eps0=eps0, delta=delta, seed=int(seed)))


def softmax_iteration_flops(n, d, *, eps0=0.01, delta=0.01):
    """XLA FLOPs of one approximate-Newton iteration of the solver on a dense n × d problem."""
    return _softmax_module().iteration_flops(n, d, eps0=eps0, delta=delta)
