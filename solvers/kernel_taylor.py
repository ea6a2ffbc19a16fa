"""Section L of paper 004, the kernel's exact Taylor side (JAX, float64): the input rules of
:mod:`solvers.kernel_ridge`, the degree q and rows per degree of alg.Wg, the exact features Φ of the
degree-q Taylor kernel ``Q_q`` (``ΦᵀΦ = Q_q``, def.Q) and the ridge solve in feature space.

Spec: ``spec/attention_kernel_regression.md`` (``def.Q``, ``alg.Wg``, ``alg.7`` in its ridge form).
Data follows Section L: ``X ∈ R^{d×n}``, columns are the points.  :func:`feature_ridge_solve` solves
``(ΦᵀΦ + λI)α = y`` through one m×m Cholesky and iterative refinement at ``O(n·m)`` per step (for
``Φ = W_g`` of :func:`solvers.kernel_ridge.attention_features` it is alg.7R's first iterate).
:func:`taylor_ridge_solve` applies it to the exact features of ``Q_q`` with ``‖K − Q_q‖ ≤ ελ/2``, which
guarantees ``‖(K + λI)α − y‖ ≤ ε‖y‖`` against the exact kernel ``K = exp(XᵀX)`` (no sketch; feasible
while ``M = C(d+q, q)`` is small, i.e. small d).  Everything is re-exported by
:mod:`solvers.kernel_ridge`.
"""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._validation import check_array, check_int, check_positive, check_real, check_unit
from .memory import check_fits
from .results import Status

__all__ = [
    "EXP_LIMIT",
    "MAX_DEGREE",
    "FeatureRidgeResult",
    "check_data",
    "check_vector",
    "feature_ridge_solve",
    "feature_rows",
    "refine_ridge",
    "ridge_inverse",
    "scale_back",
    "taylor_degree",
    "taylor_features",
    "taylor_ridge_solve",
    "taylor_tail",
    "unit_rhs",
]

EXP_LIMIT = 700.0
"""Largest admissible ``max_i ‖x_i‖²``: ``e^{⟨x_i, x_j⟩}`` must stay finite in float64."""

MAX_DEGREE = 200


# ----------------------------------------------------------------------------- validation


def check_data(X, name="X"):
    X = check_array(name, X, ndim=2)
    r2 = float(jnp.max(jnp.sum(X * X, axis=0)))
    if r2 > EXP_LIMIT:
        raise ValueError(f"max_i ‖x_i‖² = {r2:.4g} of {name} must be <= {EXP_LIMIT} (e^⟨x_i,x_j⟩ overflows)")
    return X


def check_vector(y, n, name="y"):
    y = check_array(name, y, ndim=1)
    if y.shape[0] != n:
        raise ValueError(f"{name}.shape={y.shape} must be ({n},): one entry per column of X")
    return y


def unit_rhs(y, name="y"):
    """``(y/s, s)`` with ``s`` the power of two such that ``max_i |y_i|/s ∈ [1, 2)``, or ValueError when y = 0.

    The ridge system is linear in y and its residual rule ``‖r‖ ≤ ε‖y‖`` is relative, so a solver may solve for
    ``y/s`` and return ``s·x`` (:func:`scale_back`).  It must: float64 norms square their entries, so ‖y‖ and
    ‖r‖ overflow from entries near 1e154 and underflow (XLA's CPU backend flushes subnormals to zero) from
    entries near 1e-154, which stopped the loop on a residual flushed to 0 and refused a nonzero y.  s is
    found on the host (numpy keeps subnormals) and is a power of two, so ``y/s`` and ``s·x`` are exact unless
    an entry is below 2⁻¹⁰²² times s.
    """
    host = np.asarray(y, dtype=np.float64)
    peak = float(np.max(np.abs(host)))
    if peak == 0:
        raise ValueError(f"{name} must be nonzero (the residual rule is relative to ‖{name}‖)")
    scale = math.ldexp(1.0, math.frexp(peak)[1] - 1)
    return jnp.asarray(host / scale), scale


def scale_back(x, scale: float, name="y") -> jax.Array:
    """``scale·x`` on the host (numpy keeps subnormal entries), the solution for the right-hand side ``scale·(y/s)``
    of :func:`unit_rhs`; ValueError when a finite x overflows float64 there (no solution of that size is
    representable).  A non-finite x stays so: the solver's status reports it."""
    host = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore"):
        out = host * scale
    if np.all(np.isfinite(host)) and not np.all(np.isfinite(out)):
        raise ValueError(f"the solution for {name} (max |{name}_i| ≈ {scale:.3g}) overflows float64: scale {name} down")
    return jnp.asarray(out)


# ----------------------------------------------------------------------------- degree and rows (alg.Wg)


def taylor_tail(r: float, n: int, q: int) -> float:
    """``n · Σ_{l>q} r^{2l}/l!`` (def.Q), summed in log space in float64."""
    r = check_real("r", r, lo=0)
    n = check_int("n", n, lo=1)
    q = check_int("q", q, lo=0, hi=MAX_DEGREE)
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
    tau = check_positive("tau", tau)
    for q in range(MAX_DEGREE + 1):
        if taylor_tail(r, n, q) <= tau:
            return q
    raise ValueError(f"tau={tau!r} needs a degree above {MAX_DEGREE} for r={r}, n={n}")


def feature_rows(s_lambda: float, q: int, eps: float, *, c_w: float = 4.0, min_rows: int = 1) -> tuple[int, ...]:
    """Rows per degree of the ridge form of alg.Wg: ``m_l = ⌈c_w · s_λ · l² / ε²⌉``, l = 1..q.

    ``c_w = 4`` is the spec's tested constant; ``min_rows`` is a floor per degree.
    """
    s_lambda = check_positive("s_lambda", s_lambda)
    q = check_int("q", q, lo=0, hi=MAX_DEGREE)
    eps = check_positive("eps", eps)
    c_w = check_positive("c_w", c_w)
    min_rows = check_int("min_rows", min_rows, lo=1)
    return tuple(max(min_rows, math.ceil(c_w * s_lambda * l * l / eps**2)) for l in range(1, q + 1))


# ----------------------------------------------------------------------------- exact Taylor features of Q_q


def _monomial_tree(d, q):
    """Per degree l = 1..q: for every multi-index α (|α| = l, indices sorted) its parent of degree
    l − 1, the appended coordinate k and the factor ``1/√(α_k)`` (so that ``φ_α = x^α/√(α!)``)."""
    levels, last, power = [], np.zeros(1, np.int64), [np.zeros(d, np.int64)]
    for _ in range(q):
        parent, var, coef, new_last, new_power = [], [], [], [], []
        for j, (k0, a) in enumerate(zip(last, power)):
            for k in range(int(k0), d):
                b = a.copy()
                b[k] += 1
                parent.append(j), var.append(k), coef.append(1.0 / math.sqrt(b[k]))
                new_last.append(k), new_power.append(b)
        levels.append((np.asarray(parent), np.asarray(var), np.asarray(coef)))
        last, power = np.asarray(new_last), new_power
    return levels


def taylor_features(X, q: int, *, max_features: int = 4096) -> jax.Array:
    """Exact features ``Φ ∈ R^{M×n}``, ``M = C(d+q, q)``, of the degree-q Taylor kernel (def.Q):
    ``Φ_α(x) = x^α/√(α!)`` for every multi-index ``|α| ≤ q``, so ``ΦᵀΦ = Σ_{l≤q} (XᵀX)^{∘l}/l! = Q_q``
    (multinomial theorem; id.tensor_gram, id.taylor).  No sketch, no randomness; ``O(n·M)`` time and
    memory.  ``M > max_features`` raises ValueError (large d: use Algorithm 8's sketch instead)."""
    X = check_data(X)
    d, n = X.shape
    q = check_int("q", q, lo=0, hi=MAX_DEGREE)
    max_features = check_int("max_features", max_features, lo=1)
    M = math.comb(d + q, q)
    if M > max_features:
        raise ValueError(f"q={q} with d={d} needs C(d+q, q) = {M} Taylor features, more than max_features={max_features}")
    check_fits(16 * M * n, "the Taylor features Φ (M × n, twice)", q=q, d=d, n=n)
    return _taylor_features(X, q)


@partial(jax.jit, static_argnames=("q",))
def _taylor_features(X, q):
    blocks = [jnp.ones((1, X.shape[1]), X.dtype)]
    for parent, var, coef in _monomial_tree(X.shape[0], q):
        blocks.append(blocks[-1][parent] * X[var] * jnp.asarray(coef, X.dtype)[:, None])
    return jnp.concatenate(blocks, axis=0)


# ----------------------------------------------------------------------------- ridge in feature space


class FeatureRidgeResult(NamedTuple):
    """The feature-space ridge solve: ``α``, why it stopped, refinement steps, the relative residual
    history of the *feature* system ``‖(ΦᵀΦ + λI)α_t − y‖/‖y‖``, ``s_λ(ΦᵀΦ)`` (from the m×m Gram),
    the Taylor degree (``-1`` when Φ is not the Taylor feature map) and the bound ``n·Σ_{l>q} r^{2l}/l!``
    on ``‖K − ΦᵀΦ‖`` (NaN when not Taylor)."""

    x: jax.Array
    status: Status
    iterations: int
    residuals: np.ndarray
    s_lambda: float
    q: int
    kernel_gap: float
    features: int


def ridge_inverse(W, lam):
    """``(solve, G)``: ``solve(v) = (WᵀW + λI)^{-1}v`` by one Cholesky factorisation of the smaller Gram
    matrix ``G`` (``WWᵀ`` by Woodbury when W (m×n) is wide, ``(WᵀW + λI)^{-1}v = (v − Wᵀ(λI_m + WWᵀ)^{-1}Wv)/λ``;
    else ``WᵀW``), and that ``G`` (its eigenvalues are the nonzero σ_i² of W).  Inside jit."""
    m, n = W.shape
    if m < n:
        G = W @ W.T
        L = jnp.linalg.cholesky(lam * jnp.eye(m, dtype=W.dtype) + G)

        def solve(v):  # w @ W is Wᵀw; XLA's CPU vector-matrix product is ~3× faster than W.T @ w
            return (v - jax.scipy.linalg.cho_solve((L, True), W @ v) @ W) / lam
    else:
        G = W.T @ W
        L = jnp.linalg.cholesky(lam * jnp.eye(n, dtype=W.dtype) + G)

        def solve(v):
            return jax.scipy.linalg.cho_solve((L, True), v)
    return solve, G


def refine_ridge(solve, kernel, y, lam, eps, max_iter: int):
    """Iterative refinement of ``(K + λI)x = y`` from x = 0 (alg.7R's loop): ``x ← x + solve(r)``,
    ``r = y − kernel(x) − λx``, while ``t < max_iter``, ``‖r‖/‖y‖ > eps`` and that ratio is finite.
    Returns ``(x, r, t, ‖r‖/‖y‖, history)`` (history[k] the ratio after k steps, NaN beyond t).  Inside jit."""
    ynorm = jnp.linalg.norm(y)
    hist0 = jnp.full((max_iter + 1,), jnp.nan, y.dtype).at[0].set(1.0)

    def cond(s):
        _, _, t, rel, _ = s
        return (t < max_iter) & (rel > eps) & jnp.isfinite(rel)

    def body(s):
        x, r, t, _, hist = s
        x = x + solve(r)
        r = y - kernel(x) - lam * x
        rel = jnp.linalg.norm(r) / ynorm
        return x, r, t + 1, rel, hist.at[t + 1].set(rel)

    return lax.while_loop(cond, body, (jnp.zeros_like(y), y, jnp.asarray(0), jnp.asarray(1.0, y.dtype), hist0))


@partial(jax.jit, static_argnames=("max_iter",))
def _feature_ridge(Phi, y, lam, eps, max_iter):
    """Iterative refinement with the exact inverse of ΦᵀΦ + λI (O(n·m) per step), and s_λ(ΦᵀΦ)."""
    solve, G = ridge_inverse(Phi, lam)
    ev = jnp.clip(jnp.linalg.eigvalsh(G), 0.0, None)
    s_lambda = jnp.sum(ev / (ev + lam))
    out = refine_ridge(solve, lambda x: (Phi @ x) @ Phi, y, lam, eps, max_iter)
    return (*out, s_lambda)


def _feature_result(Phi, y_unit, scale, lam, eps, max_iter, q, gap):
    """Solved for ``y/s`` (``y_unit``) and scaled back by s (:func:`unit_rhs`): the same result at every scale of y."""
    x, _, t, rel, hist, s_lambda = _feature_ridge(Phi, y_unit, lam, eps, max_iter)
    t, rel = int(t), float(rel)
    status = Status.CONVERGED if rel <= eps else (Status.NONFINITE if not math.isfinite(rel) else Status.MAX_ITERATIONS)
    return FeatureRidgeResult(scale_back(x, scale), status, t, np.asarray(hist)[: t + 1], float(s_lambda), q, gap,
                              int(Phi.shape[0]))


def feature_ridge_solve(Phi, y, lam: float, *, eps: float = 1e-12, max_iter: int = 10) -> FeatureRidgeResult:
    """Solve the approximate-kernel ridge system ``(ΦᵀΦ + λI)α = y`` in feature space.

    **Arguments:** features ``Φ`` (m, n) (``W_g(X)`` of :func:`attention_features`, or
    :func:`taylor_features`); ``y`` (n,); ``λ > 0``; ``eps`` the target relative residual of the
    *feature* system; ``max_iter`` refinement steps.

    **Returns:** :class:`FeatureRidgeResult`.  One m×m Cholesky of ``λI + ΦΦᵀ`` (Woodbury; the n×n one
    when m ≥ n), ``O(n m² + m³)``, then iterative refinement ``α ← α + (ΦᵀΦ + λI)^{-1}(y − (ΦᵀΦ + λI)α)``
    at ``O(n·m)`` per step until ``eps``.  Memory ``O(n·m + m²)``; K is never formed.  This is the
    system Algorithm 7 solves (``W_gᵀW_g`` for K, spec alg.7), in ridge form; for ``Φ = W_g`` its
    solution is alg.7R's first iterate and its residual *against K* is only the sandwich's
    (alg7R.conv at t = 1), not ``ε‖y‖``.
    """
    Phi = check_array("Phi", Phi, ndim=2)
    y = check_array("y", y, ndim=1)
    if y.shape[0] != Phi.shape[1]:
        raise ValueError(f"y.shape={y.shape} must be ({Phi.shape[1]},): one entry per column of Phi")
    lam = check_positive("lam", lam)
    eps = check_unit("eps", eps)
    max_iter = check_int("max_iter", max_iter, lo=1, hi=1000)
    return _feature_result(Phi, *unit_rhs(y), lam, eps, max_iter, -1, float("nan"))


def taylor_ridge_solve(X, y, lam: float, *, eps: float = 1e-8, max_features: int = 4096,
                       max_iter: int = 10) -> FeatureRidgeResult:
    """Solve the kernel ridge system ``(K + λI)α = y``, ``K = exp(XᵀX)``, to ``‖(K+λI)α − y‖ ≤ ε‖y‖``
    without forming K: the feature-space ridge (:func:`feature_ridge_solve`) on the exact Taylor
    features Φ of ``Q_q`` (:func:`taylor_features`).

    **Arguments:** ``X`` (d, n); ``y`` (n,); ``λ > 0``; ``eps ∈ (0, 1)``; ``max_features`` the cap
    on ``M = C(d+q, q)``; ``max_iter`` refinement steps.

    **Guarantee** (def.Q): q is the smallest degree with ``n·Σ_{l>q} r^{2l}/l! ≤ ελ/2``, so
    ``‖K − Q_q‖ ≤ ελ/2`` (``r = max‖x_i‖``).  The feature system is solved to ``‖r_Q‖ ≤ ε‖y‖/4``; as
    ``Q_q ⪰ 0``, ``‖α‖ ≤ (‖y‖ + ‖r_Q‖)/λ``, hence ``‖(K+λI)α − y‖ ≤ ‖r_Q‖ + ‖K − Q_q‖‖α‖ ≤
    ε‖y‖(1/4 + (1 + ε/4)/2) < ε‖y‖`` (floating-point rounding aside).  Status ``CONVERGED`` means the
    feature system reached ``ε/4``.  Cost ``O(n·M)`` for Φ, ``O(nM² + M³)`` setup, ``O(n·M)`` per step;
    memory ``O(n·M)``.  Feasible for small d only (M grows as ``d^q/q!``); ``s_λ`` reported is
    ``s_λ(Q_q)``, with ``s_λ(Q_q) ≤ s_λ(K) ≤ s_λ(Q_q) + n·‖K − Q_q‖/λ`` (``K ⪰ Q_q``, Weyl).
    """
    X = check_data(X)
    n = X.shape[1]
    y = check_vector(y, n)
    lam = check_positive("lam", lam)
    eps = check_unit("eps", eps)
    max_iter = check_int("max_iter", max_iter, lo=1, hi=1000)
    y_unit, scale = unit_rhs(y)
    r = float(jnp.sqrt(jnp.max(jnp.sum(X * X, axis=0))))
    q = taylor_degree(r, n, eps * lam / 2)
    Phi = taylor_features(X, q, max_features=max_features)
    return _feature_result(Phi, y_unit, scale, lam, eps / 4, max_iter, q, taylor_tail(r, n, q))
