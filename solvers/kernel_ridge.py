"""Section L of paper 004: polynomial-sketch features of the attention kernel and the preconditioned
solvers (JAX, float64).

Spec: ``spec/attention_kernel_regression.md`` (``alg.8``, ``alg.Wg``, ``alg.7``, ``alg.7R``,
``def.Q``, ``def.statdim``).  Data follows Section L: ``X ∈ R^{d×n}``, columns are the points,
``K = exp(XᵀX)`` entrywise.

=================================  ===========================================  ==============
function                           what                                         spec
=================================  ===========================================  ==============
:func:`tensor_sketch`              ``𝒵(S, T, X)``: Algorithm 8 on every column    alg.8, def.Z
:func:`feature_bits`,              ``W_g(X) = [1ᵀ; Z₁/√1!; …; Z_q/√q!]``          alg.Wg
:func:`attention_features`
:func:`taylor_degree`,             q from r and the tolerance τ; rows per degree  alg.Wg steps 2, 4
:func:`feature_rows`
:func:`kernel_matvec`              ``K v`` in column blocks (K never formed)
:func:`kernel_ridge_solve`         ``(K + λI)x = y`` by ridge-preconditioned       alg.7R
                                   Richardson
:func:`preconditioned_gd`          Algorithm 7 exactly as stated (it fails; the    alg.7
                                   harness shows how)
=================================  ===========================================  ==============

The base sketches come from the public API of :mod:`solvers.sketches` (SRHT ``T: R^d → R^m`` and
TensorSRHT ``S: R^m × R^m → R^m``); their random bits are returned so that the oracle can rebuild
every feature exactly.  Costs: Algorithm 8 on n points is ``n·(d' log d' + (⌊log₂p⌋ + popcount(p) − 1)
·2m' log m')`` butterfly operations (``m' = next_pow2(m)``), reported as ``ops``; Algorithm 7R's
setup is ``O(n m² + m³)`` and each iteration one blocked kernel product (``O(n² d)`` time, ``O(n·block)``
memory) plus the Woodbury preconditioner (``O(n m)``).  Memory is ``O(n·m)`` (the features).
"""

from __future__ import annotations

import math
from functools import partial
from numbers import Integral, Real
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import sketches as sk
from .newton import Status

__all__ = [
    "EXP_LIMIT",
    "Alg7Result",
    "Features",
    "RidgeResult",
    "Sketched",
    "Status",
    "attention_features",
    "estimate_statistical_dimension",
    "feature_bits",
    "feature_rows",
    "kernel_matvec",
    "kernel_ridge_solve",
    "preconditioned_gd",
    "richardson_cap",
    "taylor_degree",
    "taylor_tail",
    "tensor_sketch",
]

EXP_LIMIT = 700.0
"""Largest admissible ``max_i ‖x_i‖²``: ``e^{⟨x_i, x_j⟩}`` must stay finite in float64."""

_MAX_DEGREE = 200
_EXACT_STATDIM_MAX = 1024  # n up to which kernel_ridge_solve computes s_λ(K) exactly (an n×n eigenproblem)


# ----------------------------------------------------------------------------- validation


def _data(X, name="X"):
    X = sk.check_input(X, name, ndims=(2,))
    r2 = float(jnp.max(jnp.sum(X * X, axis=0)))
    if r2 > EXP_LIMIT:
        raise ValueError(f"max_i ‖x_i‖² = {r2:.4g} of {name} must be <= {EXP_LIMIT} (e^⟨x_i,x_j⟩ overflows)")
    return X


def _vector(y, n, name="y"):
    y = sk.check_input(y, name, ndims=(1,))
    if y.shape[0] != n:
        raise ValueError(f"{name}.shape={y.shape} must be ({n},): one entry per column of X")
    return y


def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name}={value!r} must be a finite number > 0")
    return float(value)


def _fraction(value, name, upper):
    value = _positive(value, name)
    if value >= upper:
        raise ValueError(f"{name}={value!r} must be < {upper}")
    return value


def _int(value, name, minimum, maximum=None):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise ValueError(f"{name}={value!r} must be an int")
    value = int(value)
    if value < minimum or (maximum is not None and value > maximum):
        hi = "" if maximum is None else f" and <= {maximum}"
        raise ValueError(f"{name}={value} must be >= {minimum}{hi}")
    return value


# ----------------------------------------------------------------------------- degree and rows (alg.Wg)


def taylor_tail(r: float, n: int, q: int) -> float:
    """``n · Σ_{l>q} r^{2l}/l!`` (def.Q), summed in log space in float64."""
    if isinstance(r, bool) or not isinstance(r, Real) or not math.isfinite(r) or r < 0:
        raise ValueError(f"r={r!r} must be a finite number >= 0")
    n = _int(n, "n", 1)
    q = _int(q, "q", 0, _MAX_DEGREE)
    mu = float(r) ** 2
    if mu == 0:
        return 0.0
    top = int(max(q + 2, 2 * mu + 60))
    logs = [l * math.log(mu) - math.lgamma(l + 1) for l in range(q + 1, top)]
    peak = max(logs)
    return n * math.exp(peak) * math.fsum(math.exp(v - peak) for v in logs)


def taylor_degree(r: float, n: int, tau: float) -> int:
    """The smallest q with ``n · Σ_{l>q} r^{2l}/l! ≤ τ`` (alg.Wg step 2; ``‖K − Q_q‖ ≤ τ``).

    Ridge form: ``τ = ελ/2``; the paper's form ``τ = (ε/2)·max(1, e^{r²})``.  The spec's closed form
    ``q = ⌈e²(r² + ln(n/ε'))⌉`` always suffices for ``τ = ε'/2`` (thmL.8.taylor); this returns the
    smallest such q, which is smaller.
    """
    tau = _positive(tau, "tau")
    for q in range(_MAX_DEGREE + 1):
        if taylor_tail(r, n, q) <= tau:
            return q
    raise ValueError(f"tau={tau!r} needs a degree above {_MAX_DEGREE} for r={r}, n={n}")


def feature_rows(s_lambda: float, q: int, eps: float, *, c_w: float = 4.0, min_rows: int = 1) -> tuple[int, ...]:
    """Rows per degree of the ridge form of alg.Wg: ``m_l = ⌈c_w · s_λ · l² / ε²⌉``, l = 1..q.

    ``c_w = 4`` is the spec's tested constant; ``min_rows`` is a floor per degree.
    """
    s_lambda = _positive(s_lambda, "s_lambda")
    q = _int(q, "q", 0, _MAX_DEGREE)
    eps = _positive(eps, "eps")
    c_w = _positive(c_w, "c_w")
    min_rows = _int(min_rows, "min_rows", 1)
    return tuple(max(min_rows, math.ceil(c_w * s_lambda * l * l / eps**2)) for l in range(1, q + 1))


# ----------------------------------------------------------------------------- Algorithm 8, W_g


class Sketched(NamedTuple):
    """``Z = 𝒵(S, T, X)`` and the butterfly/gather operation count of computing it."""

    Z: jax.Array
    ops: int


class Features(NamedTuple):
    """``W = W_g(X)`` (``1 + Σ rows`` by n), its degree, rows per degree, random bits and op count."""

    W: jax.Array
    q: int
    rows: tuple[int, ...]
    bits: tuple
    ops: int


def _schedule(p):
    L = p.bit_length() - 1
    return L, [i for i in range(L + 1) if (p >> i) & 1]


def _fwht_ops(length, cols):
    N = sk.next_pow2(length)
    return cols * N * max(1, int(math.log2(N)))


def tensor_sketch(X, p: int, T_bits: dict, S_bits: dict, *, block: int = 4096) -> Sketched:
    """``𝒵(S, T, X) ∈ R^{m×n}`` (def.Z): Algorithm 8 (TensorSketchViaLimRand) on every column.

    **Arguments:** ``X`` (d, n); degree ``p ≥ 1``; ``T_bits`` an SRHT ``R^d → R^m``
    (:func:`solvers.sketches.srht_bits`); ``S_bits`` a TensorSRHT ``R^m × R^m → R^m``
    (:func:`solvers.sketches.tensor_srht_bits`; unused when p = 1); ``block`` columns per pass.

    **Returns:** :class:`Sketched` ``(Z, ops)``.  ``w₀ = Tx``; ``w_l = S(w_{l−1} ⊗ w_{l−1})``,
    l ≤ ⌊log₂p⌋; ``z = w_{i₀}``, then ``z = S(z ⊗ w_i)`` over the other set bits i of p.  One S and one
    T for all levels (limited randomness), applied to ``block`` columns at a time.
    """
    X = sk.check_input(X, "X", ndims=(2,))
    p = _int(p, "p", 1, _MAX_DEGREE)
    block = _int(block, "block", 1)
    d, n = X.shape
    if not isinstance(T_bits, dict) or int(np.asarray(T_bits.get("n", -1))) != d:
        raise ValueError(f"T_bits must be SRHT bits with n = d = {d} (from solvers.sketches.srht_bits)")
    m = int(np.asarray(T_bits["rows"]).shape[0])
    L, E = _schedule(p)
    products = L + len(E) - 1
    if products and (not isinstance(S_bits, dict) or int(np.asarray(S_bits.get("d1", -1))) != m
                     or int(np.asarray(S_bits.get("d2", -1))) != m or np.asarray(S_bits["rows1"]).shape != (m,)):
        raise ValueError(f"S_bits must be TensorSRHT bits R^{m} × R^{m} → R^{m} (from tensor_srht_bits(key, m, m, m))")
    parts = []
    for start in range(0, n, block):
        cols = X[:, start:start + block]
        w = [sk.srht_apply(T_bits, cols)]
        for _ in range(L):
            w.append(sk.tensor_srht_apply(S_bits, w[-1], w[-1]))
        z = w[E[0]]
        for i in E[1:]:
            z = sk.tensor_srht_apply(S_bits, z, w[i])
        parts.append(z)
    Z = parts[0] if len(parts) == 1 else jnp.concatenate(parts, axis=1)
    ops = _fwht_ops(d, n) + m * n + products * (2 * _fwht_ops(m, n) + 2 * m * n)
    return Sketched(Z, ops)


def feature_bits(key, d: int, rows) -> tuple:
    """Independent random bits ``(T_l, S_l)`` per degree l = 1..q (alg.Wg step 4): ``T_l`` an SRHT
    ``R^d → R^{m_l}``, ``S_l`` a TensorSRHT ``R^{m_l} × R^{m_l} → R^{m_l}``; ``rows = (m_1, …, m_q)``."""
    d = _int(d, "d", 1)
    rows = tuple(_int(m, f"rows[{i}]", 1) for i, m in enumerate(rows))
    keys = jax.random.split(sk.as_key(key), 2 * max(len(rows), 1))
    return tuple((sk.srht_bits(keys[2 * i], d, m), sk.tensor_srht_bits(keys[2 * i + 1], m, m, m))
                 for i, m in enumerate(rows))


def attention_features(X, bits, *, block: int = 4096) -> Features:
    """``W_g(X) = [1ᵀ; Z₁/√1!; …; Z_q/√q!]`` (alg.Wg step 5) with ``Z_l = 𝒵(S_l, T_l, X)`` for the
    bits of :func:`feature_bits`; ``W_gᵀW_g = Σ_l Z_lᵀZ_l/l!`` sketches the Taylor kernel ``Q_q``."""
    X = _data(X)
    n = X.shape[1]
    blocks, ops, rows = [jnp.ones((1, n), X.dtype)], 0, []
    for l, (T_bits, S_bits) in enumerate(bits, start=1):
        out = tensor_sketch(X, l, T_bits, S_bits, block=block)
        blocks.append(out.Z / math.sqrt(math.factorial(l)))
        ops += out.ops
        rows.append(out.Z.shape[0])
    return Features(jnp.concatenate(blocks, axis=0), len(rows), tuple(rows), tuple(bits), ops)


# ----------------------------------------------------------------------------- the kernel, never formed


@partial(jax.jit, static_argnames=("block",))
def _kernel_matvec(X, v, block):
    d, n = X.shape
    nb = -(-n // block)
    Xp = jnp.pad(X, [(0, 0), (0, nb * block - n)])

    def rows(i):
        Xi = lax.dynamic_slice(Xp, (0, i * block), (d, block))
        return jnp.exp(Xi.T @ X) @ v

    return lax.map(rows, jnp.arange(nb)).reshape(-1)[:n]


def kernel_matvec(X, v, *, block: int = 512) -> jax.Array:
    """``K v`` with ``K = exp(XᵀX)``, one block of ``block`` rows of K at a time: ``O(n²d)`` time,
    ``O(n·block)`` memory; the n×n kernel is never formed."""
    X = _data(X)
    v = _vector(v, X.shape[1], "v")
    return _kernel_matvec(X, v, _int(block, "block", 1))


# ----------------------------------------------------------------------------- Algorithm 7R


class RidgeResult(NamedTuple):
    """Algorithm 7R's outcome: the solution, why it stopped, iterations, the relative residual
    history ``‖(K+λI)x_t − y‖/‖y‖`` (t = 0..iterations), the features' degree and rows, and the
    statistical dimension the rows were sized from."""

    x: jax.Array
    status: Status
    iterations: int
    residuals: np.ndarray
    q: int
    rows: tuple[int, ...]
    s_lambda: float
    features: Features


@partial(jax.jit, static_argnames=("max_iter", "block"))
def _richardson(X, W, y, lam, eps, max_iter, block):
    m, n = W.shape
    if m < n:  # Woodbury: one m×m Cholesky of λI + WWᵀ
        L = jnp.linalg.cholesky(lam * jnp.eye(m, dtype=W.dtype) + W @ W.T)

        def precondition(v):
            return (v - W.T @ jax.scipy.linalg.cho_solve((L, True), W @ v)) / lam
    else:  # m ≥ n: the n×n system WᵀW + λI is the smaller one
        L = jnp.linalg.cholesky(lam * jnp.eye(n, dtype=W.dtype) + W.T @ W)

        def precondition(v):
            return jax.scipy.linalg.cho_solve((L, True), v)

    ynorm = jnp.linalg.norm(y)
    hist0 = jnp.full((max_iter + 1,), jnp.nan, y.dtype).at[0].set(1.0)

    def cond(s):
        _, _, t, rel, _ = s
        return (t < max_iter) & (rel > eps) & jnp.isfinite(rel)

    def body(s):
        x, r, t, _, hist = s
        x = x + precondition(r)
        r = y - _kernel_matvec(X, x, block) - lam * x
        rel = jnp.linalg.norm(r) / ynorm
        return x, r, t + 1, rel, hist.at[t + 1].set(rel)

    x0 = jnp.zeros_like(y)
    return lax.while_loop(cond, body, (x0, y, jnp.asarray(0), jnp.asarray(1.0, y.dtype), hist0))


def richardson_cap(kernel_norm: float, lam: float, eps: float, eps0: float) -> int:
    """alg.7R step 4: ``T = ⌈ln(√(((1+ε₀)/(1−ε₀))(‖K‖+λ)/λ)/ε) / ln(1/c)⌉``, ``c = ε₀/(1−ε₀)``."""
    c = eps0 / (1 - eps0)
    lead = math.sqrt((1 + eps0) / (1 - eps0) * (kernel_norm + lam) / lam)
    return max(1, math.ceil(math.log(lead / eps) / math.log(1 / c)))


def estimate_statistical_dimension(X, lam: float, *, key, eps: float = 0.5, c_w: float = 1.0,
                                   start: float = 4.0, max_rows: int = 20_000) -> float:
    """``s_λ`` estimated from features: ``s_λ(WᵀW) = Σ σ_i²/(σ_i² + λ)`` over the singular values of a
    pilot ``W_g(X)`` (an m×m eigenproblem, never n×n), sized for a guess s that is doubled until the
    estimate is below half of it (a pilot with too few rows caps the estimate at its rank)."""
    X = _data(X)
    lam = _positive(lam, "lam")
    r = float(jnp.sqrt(jnp.max(jnp.sum(X * X, axis=0))))
    q = taylor_degree(r, X.shape[1], eps * lam / 2)
    s, est = float(start), float(start)
    for attempt in range(20):
        rows = tuple(sk.next_pow2(m) for m in feature_rows(s, q, eps, c_w=c_w))
        if sum(rows) > max_rows:
            break
        W = attention_features(X, feature_bits(jax.random.fold_in(sk.as_key(key), attempt), X.shape[0], rows)).W
        ev = jnp.clip(jnp.linalg.eigvalsh(W @ W.T if W.shape[0] <= W.shape[1] else W.T @ W), 0.0, None)
        est = float(jnp.sum(ev / (ev + lam)))
        if est <= s / 2:
            break
        s *= 2
    return est


def kernel_ridge_solve(X, y, lam: float, *, key, eps: float = 1e-8, eps0: float = 0.3, c_w: float = 4.0,
                       s_lambda: float | None = None, rows=None, max_iter: int | None = None,
                       block: int = 512) -> RidgeResult:
    """Solve the kernel ridge system ``(K + λI)x = y``, ``K = exp(XᵀX)``, by Algorithm 7R.

    **Arguments:** ``X`` (d, n); ``y`` (n,); ``λ > 0``; ``key``; ``eps`` the target relative
    residual ``‖(K+λI)x − y‖ ≤ ε‖y‖``; ``eps0 < 1/2`` the design sandwich accuracy of the features;
    ``c_w`` the row constant; ``s_lambda`` (else exact for n ≤ 1024, estimated by
    :func:`estimate_statistical_dimension` above) or explicit ``rows`` per degree; ``max_iter`` (default
    :func:`richardson_cap` with ``tr K ≥ ‖K‖``); ``block`` rows of K per pass.

    **Returns:** :class:`RidgeResult`.  Steps: q = the smallest degree with ``n·Σ_{l>q} r^{2l}/l! ≤
    ε₀λ/2``; ``W = W_g(X)`` with ``m_l = ⌈c_w s_λ l²/ε₀²⌉`` (rounded up to a power of two);
    preconditioner ``P = (WᵀW + λI)^{-1}`` by Woodbury through one m×m Cholesky (or the n×n one when m ≥ n, the smaller system);
    ``x_{t+1} = x_t + P(y − (K+λI)x_t)`` until the residual rule holds (``Status.CONVERGED``),
    ``max_iter`` (``MAX_ITERATIONS``) or a non-finite residual (``NONFINITE``).
    Under the sandwich ``(1±ε₀)(K+λI)`` the residual contracts by ``ε₀/(1−ε₀)`` per step in the
    P-norm (alg7R.conv).
    """
    X = _data(X)
    d, n = X.shape
    y = _vector(y, n)
    lam = _positive(lam, "lam")
    eps = _fraction(eps, "eps", 1.0)
    eps0 = _fraction(eps0, "eps0", 0.5)
    if float(jnp.linalg.norm(y)) == 0:
        raise ValueError("y must be nonzero (the residual rule is relative to ‖y‖)")
    r = float(jnp.sqrt(jnp.max(jnp.sum(X * X, axis=0))))
    k_main, k_pilot = jax.random.split(sk.as_key(key))
    q = taylor_degree(r, n, eps0 * lam / 2)
    if rows is None:
        if s_lambda is None and n <= _EXACT_STATDIM_MAX:  # small n: the exact s_λ costs less than a pilot
            ev = jnp.clip(jnp.linalg.eigvalsh(jnp.exp(X.T @ X)), 0.0, None)
            s_lambda = float(jnp.sum(ev / (ev + lam)))
        elif s_lambda is None:
            s_lambda = estimate_statistical_dimension(X, lam, key=k_pilot)
        # rounded up to powers of two: the FWHT pads to m' anyway, and few shapes compile
        rows = tuple(sk.next_pow2(m) for m in feature_rows(max(float(s_lambda), 1e-3), q, eps0, c_w=c_w))
    else:
        rows = tuple(_int(m, f"rows[{i}]", 1) for i, m in enumerate(rows))
        q = len(rows)
    feats = attention_features(X, feature_bits(k_main, d, rows))
    if max_iter is None:
        trace = float(jnp.sum(jnp.exp(jnp.sum(X * X, axis=0))))
        max_iter = richardson_cap(trace, lam, eps, eps0)
    max_iter = _int(max_iter, "max_iter", 1, 100_000)
    x, _, t, rel, hist = _richardson(X, feats.W, y, lam, eps, max_iter, _int(block, "block", 1))
    t, rel = int(t), float(rel)
    status = Status.CONVERGED if rel <= eps else (Status.NONFINITE if not math.isfinite(rel) else Status.MAX_ITERATIONS)
    return RidgeResult(x, status, t, np.asarray(hist)[: t + 1], q, tuple(rows),
                       float("nan") if s_lambda is None else float(s_lambda), feats)


# ----------------------------------------------------------------------------- Algorithm 7 as stated


class Alg7Result(NamedTuple):
    """Algorithm 7's outcome: ``x̂ = SᵀRz_t``, why it stopped, iterations, the final
    ``‖WᵀWx̂ − y‖`` (the loop's own test), the GD matrix ``Φ``, the singular values of ``SWᵀ`` and the
    operation count."""

    x: jax.Array
    status: Status
    iterations: int
    residual: float
    phi: jax.Array
    sigma: jax.Array
    ops: int


def _srht_transpose(bits, U, n):
    """``Sᵀ U`` for the SRHT ``S = P H D [I; 0]/√s`` (bits of :func:`solvers.sketches.srht_bits`):
    scatter the rows, one FWHT (H is symmetric), the signs, the first n coordinates."""
    signs = jnp.asarray(np.asarray(bits["signs"]), U.dtype)
    rows = jnp.asarray(np.asarray(bits["rows"]))
    full = jnp.zeros((signs.shape[0], U.shape[1]), U.dtype).at[rows].add(U)
    return (sk.fwht(full) * signs[:, None])[:n] / math.sqrt(rows.shape[0])


@partial(jax.jit, static_argnames=("max_iter",))
def _gd_loop(W, SR, phi, b, y, eps, max_iter):
    def residual(z):
        return jnp.linalg.norm(W.T @ (W @ (SR @ z)) - y)

    def cond(s):
        _, _, t, res = s
        return (t < max_iter) & (res >= eps) & jnp.isfinite(res)

    def body(s):
        z, _, t, _ = s
        z_new = z - phi.T @ (phi @ z - b)
        return z_new, z, t + 1, residual(z_new)

    z0 = jnp.zeros_like(b)
    return lax.while_loop(cond, body, (z0, z0, jnp.asarray(0), residual(z0)))


def preconditioned_gd(X, y, *, feature_bits, s_bits=None, eps: float, max_iter: int = 100) -> Alg7Result:
    """Algorithm 7 (PreconditionedGradientDescent) **exactly as stated** (spec alg.7).

    **Arguments:** ``X`` (d, n); ``y`` (n,); ``feature_bits`` the bits of ``W = W_g(X)``
    (:func:`feature_bits`; q = len, m = 1 + Σ rows); ``s_bits`` the SRHT ``S ∈ R^{s×n}``
    (:func:`solvers.sketches.srht_bits`), or None for ``S = I_n`` (spec §3: a sketch of ≥ n rows is
    the identity); the loop threshold ``eps`` (absolute, as stated); ``max_iter``.

    **Returns:** :class:`Alg7Result`.  ``S Wᵀ = UΣVᵀ`` (thin SVD), ``R = UΣ^{-2}``, ``z₀ = 0``; while
    ``‖WᵀWSᵀRz_t − y‖ ≥ ε``: ``z_{t+1} = z_t − Φᵀ(Φz_t − RᵀSy)``, ``Φ = RᵀSWᵀWSᵀR``; return
    ``x̂ = SᵀRz_t``.  A non-finite residual (the loop diverged) stops with ``Status.NONFINITE`` and the
    last finite iterate.  A numerically rank-deficient ``SWᵀ`` (Σ^{-2} undefined) raises ``ValueError``.
    """
    X = _data(X)
    d, n = X.shape
    y = _vector(y, n)
    eps = _positive(eps, "eps")
    max_iter = _int(max_iter, "max_iter", 1, 100_000)
    feats = attention_features(X, feature_bits)
    W = feats.W
    m = W.shape[0]
    if s_bits is None:
        SWt, Sy, transpose, s, ops_s = W.T, y, (lambda U: U), n, 0
    else:
        if not isinstance(s_bits, dict) or int(np.asarray(s_bits.get("n", -1))) != n:
            raise ValueError(f"s_bits must be SRHT bits with input dimension n = {n} (from srht_bits(key, n, s))")
        SWt, Sy = sk.srht_apply(s_bits, W.T), sk.srht_apply(s_bits, y)
        transpose = partial(_srht_transpose, s_bits, n=n)
        s, ops_s = int(np.asarray(s_bits["rows"]).shape[0]), _fwht_ops(n, m + 1)
    if s < m:
        raise ValueError(f"s={s} sketch rows must be >= m={m} rows of W (S Wᵀ must have full column rank)")
    U, sigma, _ = jnp.linalg.svd(SWt, full_matrices=False)
    if not float(sigma[-1]) > max(s, m) * 2.0**-52 * float(sigma[0]):
        raise ValueError(f"S Wᵀ is numerically rank-deficient (σ_min/σ_max = {float(sigma[-1] / sigma[0]):.3g}): "
                         "Algorithm 7's R = UΣ^{-2} is undefined (spec alg.7 defect (v))")
    R = U / sigma[None, :] ** 2
    SR = transpose(R)                                   # Sᵀ R, n × m
    WSR = W @ SR
    phi = WSR.T @ WSR                                   # Rᵀ S Wᵀ W Sᵀ R
    b = R.T @ Sy
    z, z_prev, t, res = _gd_loop(W, SR, phi, b, y, eps, max_iter)
    t, res = int(t), float(res)
    if not math.isfinite(res):
        status, z = Status.NONFINITE, z_prev
    else:
        status = Status.CONVERGED if res < eps else Status.MAX_ITERATIONS
    ops = feats.ops + ops_s + s * m * m + 2 * n * m * m + t * (2 * m * m + 4 * n * m)
    return Alg7Result(SR @ z, status, t, res, phi, sigma, ops)
