"""Solvers for regularised softmax regression (Deng, Li, Song 2023, arXiv:2304.10411).

Spec: ``spec/softmax_regression.md`` §2 (definitions ``def.*``) and §3 (``alg.sparsify``,
``alg.newton``, ``alg.exact_newton``).  All claim ids below carry the prefix
``softmax_regression.``.

The objective (``def.L``) is, with ``u = A x``, ``f = softmax(u)`` (``def.f``), ``c = f − b``
(``def.c``) and ``W = diag(w)``::

    L(x) = 0.5 ‖f − b‖² + 0.5 ‖W A x‖²

Closed forms used (``def.g``, ``def.grad_L``, ``def.B_rank_diag``, ``def.hessian_L``), with
``v = f ∘ (2f − b)`` and ``κ₁ = 3‖f‖² − 2⟨b, f⟩``::

    ∇L(x)  = Aᵀ( f∘c − ⟨c,f⟩ f + w²∘u )
    B(x)   = diag(v − ⟨c,f⟩ f) + κ₁ f fᵀ − v fᵀ − f vᵀ           (B_diag + B_rank)
    ∇²L(x) = Aᵀ diag(w² + v − ⟨c,f⟩ f) A + κ₁ (Aᵀf)(Aᵀf)ᵀ − (Aᵀv)(Aᵀf)ᵀ − (Aᵀf)(Aᵀv)ᵀ

so the Hessian costs one weighted Gram matrix, ``O(n d²)``, and never forms an ``n × n`` matrix.

Public functions accept numpy or JAX arrays, validate their arguments up front and raise
``ValueError`` in the form ``name=... must be ...``.  Everything is float64 (this module enables
``jax_enable_x64`` itself).  ``solvers`` never imports ``oracle``.

Implementation notes: compiled kernels are jitted at module level; the Newton loops are Python
loops around jitted steps (one host read of ``‖∇L‖`` per iteration).  XLA on CPU computes
``Aᵀ r`` much faster written as ``r @ A`` than as ``A.T @ r``, so the kernels use that form.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from numbers import Integral, Real
from typing import NamedTuple

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import threadpoolctl  # noqa: E402

__all__ = [
    "NewtonResult",
    "approximate_newton",
    "exact_newton",
    "gradient",
    "hessian",
    "hessian_kernel_B",
    "iteration_flops",
    "loss",
    "sample_size",
    "sparsify",
    "split_newton",
]

# Rows per chunk of the weighted Gram matrix Aᵀ diag(D) A (bounds the temporary D∘A).
_GRAM_CHUNK = 8192
# Dense B(x) is n × n; refuse absurd sizes.
_MAX_DENSE_N = 8192
# Safeguard for a Hessian (model) that is not numerically PD: shift past λ_min by this fraction of
# max|λ| (measured on family (b) of the benchmark, n = 2^12 … 2^20: 6-7 Newton steps instead of
# 7-11 with the earlier λ ↦ max(|λ|, 1e-10 max|λ|) rule; 0.003 and 0.01 are equal, 0.03 is worse).
_SHIFT = 0.01
# Armijo constant and maximal number of halvings of the safeguarded line search.
_ARMIJO_C = 1e-4
_MAX_HALVINGS = 40


class NewtonResult(NamedTuple):
    """Result of :func:`exact_newton` and :func:`approximate_newton`.

    **Fields:**

    - ``x``: the last iterate, a float64 numpy array of shape ``(d,)``.
    - ``iterations``: number of Newton updates performed.
    - ``grad_norm_history``: ``‖∇L(x_t)‖₂`` for ``t = 0, …, iterations`` (numpy, length
      ``iterations + 1``).
    - ``converged``: ``True`` iff the final gradient norm is ``≤ tol``.
    - ``sample_sizes``: number of rows of ``A`` used to build each Hessian (numpy int array,
      length ``iterations``); always ``n`` for exact Newton.
    """

    x: np.ndarray
    iterations: int
    grad_norm_history: np.ndarray
    converged: bool
    sample_sizes: np.ndarray


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _as_float_array(name: str, value, ndim: int, check_finite: bool = True) -> jax.Array:
    if isinstance(value, (jax.Array, np.ndarray)):
        arr = value
    else:
        try:
            arr = np.asarray(value)
        except Exception as exc:  # pragma: no cover - exotic inputs
            raise ValueError(f"{name}={value!r} must be an array of real numbers") from exc
    dtype = np.dtype(arr.dtype)
    if dtype.kind not in "fiu" or dtype == np.dtype(bool):
        raise ValueError(f"{name} (dtype={dtype}) must be an array of real numbers")
    if arr.ndim != ndim:
        raise ValueError(f"{name} (shape={tuple(arr.shape)}) must be {ndim}-dimensional")
    if arr.size == 0:
        raise ValueError(f"{name} (shape={tuple(arr.shape)}) must be non-empty")
    out = jnp.asarray(arr, dtype=jnp.float64)
    if check_finite and not bool(_all_finite(out)):
        raise ValueError(f"{name} must be finite (contains NaN or inf)")
    return out


@jax.jit
def _all_finite(a):
    return jnp.all(jnp.isfinite(a))


def _validate_problem(A, b, w, check_A_finite: bool = True):
    """Shapes, dtypes, non-emptiness and finiteness.  ``check_A_finite=False`` skips the
    finiteness pass over A for a caller that checks it in its own first pass."""
    A = _as_float_array("A", A, 2, check_finite=check_A_finite)
    n, d = A.shape
    b = _as_float_array("b", b, 1)
    if b.shape != (n,):
        raise ValueError(f"b (shape={tuple(b.shape)}) must have shape (n,)=({n},) to match A")
    w = _as_float_array("w", w, 1)
    if w.shape != (n,):
        raise ValueError(f"w (shape={tuple(w.shape)}) must have shape (n,)=({n},) to match A")
    return A, b, w


def _validate_x(x, d: int, name: str = "x"):
    x = _as_float_array(name, x, 1)
    if x.shape != (d,):
        raise ValueError(f"{name} (shape={tuple(x.shape)}) must have shape (d,)=({d},) to match A")
    return x


def _check_real(name, value, *, lo=None, hi=None, lo_open=True, hi_open=True):
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name}={value!r} must be a finite real number")
    if lo is not None and (value <= lo if lo_open else value < lo):
        raise ValueError(f"{name}={value!r} must be {'>' if lo_open else '>='} {lo}")
    if hi is not None and (value >= hi if hi_open else value > hi):
        raise ValueError(f"{name}={value!r} must be {'<' if hi_open else '<='} {hi}")
    return float(value)


def _check_int(name, value, *, lo):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < lo:
        raise ValueError(f"{name}={value!r} must be an integer >= {lo}")
    return int(value)


# --------------------------------------------------------------------------------------------
# Jitted kernels (u = A x throughout)
# --------------------------------------------------------------------------------------------


def _softmax(u):
    e = jnp.exp(u - jnp.max(u))
    return e / jnp.sum(e)


def _loss_u(u, b, w2):
    c = _softmax(u) - b
    return 0.5 * jnp.dot(c, c) + 0.5 * jnp.dot(w2, u * u)


def _grad_residual(u, b, w2):
    """r with ∇L = Aᵀ r: r = f∘c − ⟨c,f⟩ f + w²∘u (def.g, def.grad_L)."""
    f = _softmax(u)
    c = f - b
    return f * c - jnp.dot(c, f) * f + w2 * u


def _kernel_parts(u, b):
    """(B_diag vector, f, v, κ₁) of def.B_rank_diag."""
    f = _softmax(u)
    c = f - b
    v = f * (2.0 * f - b)
    bdiag = v - jnp.dot(c, f) * f
    kappa1 = 3.0 * jnp.dot(f, f) - 2.0 * jnp.dot(b, f)
    return bdiag, f, v, kappa1


def _weighted_gram(A, D):
    """Aᵀ diag(D) A, in row chunks so that no n × d temporary is formed for large n."""
    n, d = A.shape
    nfull = n // _GRAM_CHUNK
    if nfull < 2:
        return (D[:, None] * A).T @ A
    split = nfull * _GRAM_CHUNK
    Ac = A[:split].reshape(nfull, _GRAM_CHUNK, d)
    Dc = D[:split].reshape(nfull, _GRAM_CHUNK)

    def body(H, xs):
        a, dd = xs
        return H + (dd[:, None] * a).T @ a, None

    H, _ = jax.lax.scan(body, jnp.zeros((d, d), A.dtype), (Ac, Dc))
    if split < n:
        H = H + (D[split:, None] * A[split:]).T @ A[split:]
    return H


def _rank2_term(A, f, v, kappa1):
    """κ₁ (Aᵀf)(Aᵀf)ᵀ − (Aᵀv)(Aᵀf)ᵀ − (Aᵀf)(Aᵀv)ᵀ (Aᵀ B_rank A, def.B_rank_diag)."""
    FV = jnp.stack([f, v]) @ A
    af, av = FV[0], FV[1]
    return kappa1 * jnp.outer(af, af) - jnp.outer(av, af) - jnp.outer(af, av)


def _symmetrize(H):
    return 0.5 * (H + H.T)


@jax.jit
def _loss_kernel(A, b, w2, x):
    return _loss_u(A @ x, b, w2)


@jax.jit
def _gradient_kernel(A, b, w2, x):
    return _grad_residual(A @ x, b, w2) @ A


@jax.jit
def _hessian_from_u(A, b, w2, u):
    bdiag, f, v, kappa1 = _kernel_parts(u, b)
    H = _weighted_gram(A, w2 + bdiag) + _rank2_term(A, f, v, kappa1)
    return _symmetrize(H)


@jax.jit
def _hessian_kernel(A, b, w2, x):
    return _hessian_from_u(A, b, w2, A @ x)


@jax.jit
def _dense_B(A, b, x):
    bdiag, f, v, kappa1 = _kernel_parts(A @ x, b)
    return jnp.diag(bdiag) + kappa1 * jnp.outer(f, f) - jnp.outer(v, f) - jnp.outer(f, v)


@jax.jit
def _state(A, b, w2, x):
    """u = A x, L(x), ∇L(x), ‖∇L(x)‖."""
    u = A @ x
    g = _grad_residual(u, b, w2) @ A
    return u, _loss_u(u, b, w2), g, jnp.linalg.norm(g)


@jax.jit
def _state_fused(A, b, w2, u):
    """From u = A x: L(x), ∇L(x), ‖∇L(x)‖ and Aᵀf, Aᵀv (the rank-2 part of the Hessian), with
    one pass over A ([r; f; v] A)."""
    r = _grad_residual(u, b, w2)
    _, f, v, _ = _kernel_parts(u, b)
    P = jnp.stack([r, f, v]) @ A
    g = P[0]
    return _loss_u(u, b, w2), g, jnp.linalg.norm(g), P[1], P[2]


@jax.jit
def _rank2_from(af, av, kappa1):
    return kappa1 * jnp.outer(af, af) - jnp.outer(av, af) - jnp.outer(af, av)


@partial(jax.jit, static_argnames=("safeguard",))
def _direction_and_step(A, b, w2, x, u, L0, g, H, *, safeguard: bool):
    x_new, ok, _ = _direction_and_step_impl(A, b, w2, x, u, L0, g, H, safeguard=safeguard)
    return x_new, ok


def _direction_and_step_impl(A, b, w2, x, u, L0, g, H, *, safeguard: bool):
    """Solve H p = −g (safeguarded) and take a step.

    With ``safeguard``: the Newton direction if H is numerically PD (Cholesky succeeds), else
    the shifted direction p = −(H + μI)⁻¹ g with μ = −λ_min(H) + _SHIFT·max|λ(H)|
    (Levenberg–Marquardt shift just past the most negative eigenvalue: the form of a trust-region
    step, Moré–Sorensen; a descent direction); then
    a backtracking (halving) Armijo line search on L along p.  The full step is accepted when
    the predicted decrease −gᵀp is at the rounding level of L (near x*, where comparisons of L
    are meaningless).  Without ``safeguard``: the plain update x − H⁻¹g; ``ok`` is False if H is
    not numerically PD.
    Returns (x_new, ok, u_new) with u_new = u + t·Ap; :func:`_direction_and_step` returns
    (x_new, ok).
    """
    d = H.shape[0]
    eye = jnp.eye(d, dtype=H.dtype)

    def chol(mu):
        return jnp.linalg.cholesky(H + mu * eye)

    Lc = chol(0.0)
    pd = jnp.all(jnp.isfinite(Lc))

    def newton_dir(_):
        y = jax.scipy.linalg.solve_triangular(Lc, -g, lower=True)
        return jax.scipy.linalg.solve_triangular(Lc.T, y, lower=False)

    if not safeguard:
        p = newton_dir(None)
        return x + p, pd & jnp.all(jnp.isfinite(p)), u + A @ p

    def modified_dir(_):
        # H not numerically PD: shifted Newton, (H + μI) p = −g, μ = −λ_min + _SHIFT·max|λ|
        lam, V = jnp.linalg.eigh(H)
        return -(V @ ((V.T @ g) / _shifted_eigenvalues(jnp, lam)))

    p = jax.lax.cond(pd, newton_dir, modified_dir, None)
    return _armijo_step(A, b, w2, x, u, L0, g, p)


@jax.jit
def _armijo_step_jit(A, b, w2, x, u, L0, g, p):
    return _armijo_step(A, b, w2, x, u, L0, g, p)


def _host_direction(H, g, safeguard: bool):
    """The direction of :func:`_direction_and_step` computed on the host (LAPACK via scipy;
    XLA's CPU Cholesky/eigh of a d × d matrix are ~100× slower at d = 128).  Returns p, or
    None when H is not numerically PD and ``safeguard`` is False."""
    import scipy.linalg

    H = np.asarray(H)
    g = np.asarray(g)
    try:
        c = scipy.linalg.cho_factor(H, lower=True, check_finite=False)
        p = -scipy.linalg.cho_solve(c, g, check_finite=False)
        if np.all(np.isfinite(p)):
            return p
    except (np.linalg.LinAlgError, ValueError):
        pass
    if not safeguard:
        return None
    lam, V = np.linalg.eigh(H)
    return -(V @ ((V.T @ g) / _shifted_eigenvalues(np, lam)))


def _shifted_eigenvalues(xp, lam):
    """Eigenvalues of H + μI, μ = −λ_min + _SHIFT·max|λ| (floored at the smallest normal
    number so that H = 0 gives a huge but finite step that the line search cuts back)."""
    shift = xp.maximum(_SHIFT * xp.max(xp.abs(lam)), xp.finfo(xp.float64).tiny)
    return lam - xp.min(lam) + shift


def _armijo_step(A, b, w2, x, u, L0, g, p):
    """Backtracking Armijo line search along p (see :func:`_direction_and_step`)."""
    pd = jnp.all(jnp.isfinite(p))
    gtp = jnp.dot(g, p)
    Ap = A @ p
    noise = 64.0 * jnp.finfo(jnp.float64).eps * (jnp.abs(L0) + jnp.finfo(jnp.float64).tiny)

    def accept(t, Lt):
        armijo = Lt <= L0 + _ARMIJO_C * t * gtp
        tiny = (t == 1.0) & (-gtp <= noise) & jnp.isfinite(Lt)
        return (armijo & jnp.isfinite(Lt)) | tiny

    def ls_cond(state):
        t, Lt, k = state
        return (~accept(t, Lt)) & (k < _MAX_HALVINGS)

    def ls_body(state):
        t, _, k = state
        t = 0.5 * t
        return t, _loss_u(u + t * Ap, b, w2), k + 1

    t0 = jnp.ones(())
    t, Lt, _ = jax.lax.while_loop(ls_cond, ls_body, (t0, _loss_u(u + Ap, b, w2), jnp.zeros((), jnp.int32)))
    ok = pd & jnp.isfinite(gtp) & (gtp < 0) & accept(t, Lt)
    return jnp.where(ok, x + t * p, x), ok, jnp.where(ok, u + t * Ap, u)


# --- alg.sparsify pieces -------------------------------------------------------------------


@jax.jit
def _reference_leverage(A, w2):
    """Leverage scores τ_i(WA) of Y₀ = W A (exact, via the Cholesky factor of AᵀW²A)."""
    G = _symmetrize(_weighted_gram(A, w2))
    Lc = jnp.linalg.cholesky(G)
    Linv = jax.scipy.linalg.solve_triangular(Lc, jnp.eye(A.shape[1], dtype=A.dtype), lower=True)
    Z = A @ Linv.T  # row i: a_i L⁻ᵀ
    tau = w2 * jnp.sum(Z * Z, axis=1)
    return tau, jnp.all(jnp.isfinite(tau))


# Sketched leverage scores (Drineas, Magdon-Ismail, Mahoney, Woodruff 2012): CountSketch with
# _SKETCH_ROWS_PER_D · d rows, JL dimension _JL_COLS, and the safety factor applied to τ̃.
_SKETCH_ROWS_PER_D = 8
_JL_COLS = 32
_LEVERAGE_SAFETY = 2.0


@partial(jax.jit, static_argnames=("n", "m", "k", "d"))
def _sketch_bits(key, *, n: int, m: int, k: int, d: int):
    k1, k2, k3 = jax.random.split(key, 3)
    rows = jax.random.randint(k1, (n,), 0, m)
    signs = jax.random.rademacher(k2, (n,), dtype=jnp.float64)
    G = jax.random.normal(k3, (d, k), dtype=jnp.float64) / jnp.sqrt(jnp.asarray(k, jnp.float64))
    return rows, signs, G


@jax.jit
def _leverage_from_factor(A, w2, M):
    Z = A @ M
    tau = w2 * jnp.sum(Z * Z, axis=1)
    return tau, jnp.all(jnp.isfinite(tau))


def _sketched_leverage_raw(A, w2, key, *, m: int, k: int):
    """Unscaled estimates τ̃_i ≈ τ_i(WA), in O(nnz(A)·k + m d² + d³).

    1. CountSketch S (m × n; row h_i, sign σ_i of column i, spec def.countsketch): S W A as a
       sparse (CSR, nnz = n) times dense product, O(nnz(A)).  For m = O(d²/γ²) (in practice
       m = 8d suffices) S is a (1 ± γ) subspace embedding of range(WA), so with S W A = Q R:
       ‖y R⁻¹‖ ∈ [(1 + γ)⁻¹, (1 − γ)⁻¹] · ‖y (AᵀW²A)^{-1/2}‖ for y in the row space of WA.
    2. JL: τ̃_i = ‖w_i a_i R⁻¹ G‖², G ∈ R^{d×k} iid N(0, 1/k); τ̃_i / ‖w_i a_i R⁻¹‖² ~ χ²_k / k.
    The random bits come from ``key`` (jax.random), so the result is reproducible.
    Returns (τ̃, ok) with ok False if R is singular or anything is non-finite.
    """
    import scipy.linalg
    import scipy.sparse as sp

    n, d = A.shape
    rows, signs, G = _sketch_bits(key, n=n, m=m, k=k, d=d)
    data = np.asarray(signs) * np.sqrt(np.asarray(w2))
    S = sp.csr_matrix((data, (np.asarray(rows), np.arange(n))), shape=(m, n))
    SY = S @ np.asarray(A)
    # d × d work on the host: LAPACK via scipy is far faster here than XLA's CPU QR.
    R = scipy.linalg.qr(SY, mode="r", overwrite_a=True, check_finite=False)[0][:d]
    if not np.all(np.isfinite(R)) or not np.all(np.abs(np.diag(R)) > 0):
        return jnp.ones((n,), jnp.float64), jnp.asarray(False)
    M = scipy.linalg.solve_triangular(R, np.asarray(G), lower=False)  # R⁻¹ G (d × k)
    if not np.all(np.isfinite(M)):
        return jnp.ones((n,), jnp.float64), jnp.asarray(False)
    return _leverage_from_factor(A, w2, jnp.asarray(M))


def _sketched_leverage(A, w2, key):
    """Sketched leverage scores of WA scaled by the safety factor, capped at 1: (τ̂, ok).

    Over-estimates are harmless for the sampling guarantee (alg.sparsify / lem8.5 only needs
    p_i ≥ min(1, s τ_i)); they cost extra rows.  With S a (1 ± γ) embedding and the JL factor
    in [1 − γ', 1 + γ'], τ̃_i ≥ τ_i (1 − γ')/(1 + γ)²; the factor _LEVERAGE_SAFETY = 2 covers
    e.g. γ ≈ 0.1, γ' ≈ 0.4 (χ²₃₂/32 < 0.6 has probability ≈ 0.04 per row, so a few rows
    of a large problem may get τ̂_i somewhat below τ_i; the matrix-Chernoff bound then degrades
    gracefully, by the factor τ_i/τ̂_i on those rows' summands).
    """
    n, d = A.shape
    m = int(min(max(_SKETCH_ROWS_PER_D * d, d + 1), max(n, d + 1)))
    tau, ok = _sketched_leverage_raw(A, w2, key, m=m, k=_JL_COLS)
    return jnp.minimum(1.0, _LEVERAGE_SAFETY * tau), ok


@jax.jit
def _sampling_plan(b, w2, u, tau_ref, s, key):
    """Diagonal D_t = W² + B_diag(x_t) (alg.newton step b) and its leverage-score sample.

    Upper bounds of the leverage scores of D^{1/2}A: with ρ_i = D_i / w_i² > 0 and
    ρ_min = min ρ, AᵀDA ⪰ ρ_min AᵀW²A gives τ_i(D^{1/2}A) ≤ (ρ_i/ρ_min) τ_i(WA).
    p_i = min(1, s·bound_i) (alg.sparsify step 3); kept rows get weight D_i/p_i (step 4).
    If some D_i ≤ 0 (outside the theory) every row is kept (p = 1): D̃ = D exactly.
    """
    bdiag, f, v, kappa1 = _kernel_parts(u, b)
    D = w2 + bdiag
    positive = jnp.all(D > 0) & jnp.all(w2 > 0)
    rho = jnp.where(positive, D / jnp.where(w2 > 0, w2, 1.0), 1.0)
    bound = rho / jnp.min(rho) * tau_ref
    p = jnp.where(positive, jnp.minimum(1.0, s * bound), 1.0)
    keep = jax.random.uniform(key, p.shape, dtype=jnp.float64) < p
    keep = keep | (p >= 1.0)
    weights = jnp.where(keep, D / p, 0.0)
    return weights, keep, jnp.sum(keep), f, v, kappa1


@jax.jit
def _sampling_plan_split(b, w2, u, tau_ref, s, key):
    """As :func:`_sampling_plan`, but rows with D_i ≤ 0 or w_i = 0 are kept exactly (p_i = 1,
    weight D_i) instead of forcing p = 1 on every row; the other rows are sampled with
    p_i = min(1, s (ρ_i / ρ₊) τ_i), ρ₊ = min ρ over those rows.  Used by
    ``leverage="sketch"``.  Inside the theory (w_i² ≥ 4, so D > 0) it equals
    :func:`_sampling_plan`.  Outside it (weak regularisation: a few rows under the peaks of b
    have D_i < 0) the sampled part approximates Aᵀ D₊ A over the positive rows; the bound uses
    τ(WA) rather than τ over the positive rows only, which differ by the few dropped rows
    (a heuristic there, as the whole method is outside its theory; Newton's safeguard covers it).
    """
    bdiag, f, v, kappa1 = _kernel_parts(u, b)
    D = w2 + bdiag
    pos = (D > 0) & (w2 > 0)
    rho = jnp.where(pos, D / jnp.where(w2 > 0, w2, 1.0), jnp.inf)
    rho_min = jnp.min(rho)
    bound = jnp.where(pos, rho / jnp.where(jnp.isfinite(rho_min), rho_min, 1.0) * tau_ref, 1.0)
    p = jnp.where(pos, jnp.minimum(1.0, s * bound), 1.0)
    keep = jax.random.uniform(key, p.shape, dtype=jnp.float64) < p
    keep = keep | (p >= 1.0)
    weights = jnp.where(keep, D / p, 0.0)
    return weights, keep, jnp.sum(keep), f, v, kappa1


@partial(jax.jit, static_argnames=("capacity", "rank2"))
def _sampled_hessian(A, keep, weights, f, v, kappa1, *, capacity: int, rank2: bool):
    """Aᵀ D̃ A (+ the exact rank-2 part if ``rank2``).

    ``capacity == n``: all rows, no gather.  Otherwise the kept rows are gathered into a buffer
    of static size ``capacity`` (padding rows get weight 0), so the cost is O(capacity · d²).
    """
    n = A.shape[0]
    if capacity == n:
        H = _weighted_gram(A, weights)
    else:
        (idx,) = jnp.nonzero(keep, size=capacity, fill_value=0)
        valid = jnp.arange(capacity) < jnp.sum(keep)
        H = _weighted_gram(A[idx], jnp.where(valid, weights[idx], 0.0))
    if rank2:
        H = H + _rank2_term(A, f, v, kappa1)
    return _symmetrize(H)


# --- split-Hessian Newton (one pass over A per iteration) -----------------------------------

# Rows per block of the one-pass state kernel (a 2048 × d block stays in cache between its two
# uses) and of the set-up Gram kernel.
_PASS_BLOCK = 2048
_SETUP_BLOCK = 4096


def _blocked_scan(body, carry, arrays, block: int):
    """Run ``carry, out = body(carry, *block_slices)`` over consecutive row blocks of
    ``arrays`` (a scan over the full blocks, then one call on the remainder) and concatenate
    the per-row outputs (``out`` may be a tuple of per-row arrays)."""
    n = arrays[0].shape[0]
    nfull = n // block
    split = nfull * block
    outs = []
    if nfull:
        stacked = tuple(a[:split].reshape((nfull, block) + a.shape[1:]) for a in arrays)
        carry, out = jax.lax.scan(lambda c, xs: body(c, *xs), carry, stacked)
        outs.append(jax.tree_util.tree_map(lambda o: o.reshape((split,) + o.shape[2:]), out))
    if split < n:
        carry, out = body(carry, *(a[split:] for a in arrays))
        outs.append(out)
    if len(outs) == 1:
        return carry, outs[0]
    return carry, jax.tree_util.tree_map(lambda *o: jnp.concatenate(o), *outs)


def _state_block(x, carry, a, bk, wk):
    """One row block of the one-pass state (see :func:`_one_pass_state`)."""
    m, V = carry
    u = a @ x
    m_new = jnp.maximum(m, jnp.max(u))
    scale = jnp.exp(m - m_new)
    e = jnp.exp(u - m_new)
    V = V * jnp.stack([scale, scale * scale, scale, jnp.ones_like(scale)])[:, None]
    V = V + jnp.stack([e, e * e, bk * e, wk * u]) @ a
    return (m_new, V), u


def _state_carry0(d: int):
    return jnp.asarray(-jnp.inf, jnp.float64), jnp.zeros((4, d), jnp.float64)


def _finish_state(m, V, u, b, w2):
    """From the block sums: (u, L, ∇L, ‖∇L‖, Aᵀf, Aᵀv, κ₁, E), see :func:`_one_pass_state`."""
    e = jnp.exp(u - m)
    alpha = jnp.sum(e)
    f = e / alpha
    c = f - b
    cf = jnp.dot(c, f)
    L = 0.5 * jnp.dot(c, c) + 0.5 * jnp.dot(w2, u * u)
    at_ff = V[1] / (alpha * alpha)
    at_bf = V[2] / alpha
    af = V[0] / alpha
    g = at_ff - at_bf - cf * af + V[3]
    av = 2.0 * at_ff - at_bf
    kappa1 = 3.0 * jnp.dot(f, f) - 2.0 * jnp.dot(b, f)
    E = f * (2.0 * f - b) - cf * f
    return u, L, g, jnp.linalg.norm(g), af, av, kappa1, E


@jax.jit
def _one_pass_state(A, b, w2, x):
    """Everything an iteration needs at x, reading A once (row blocks, online softmax).

    Per block: u = a x, then [e; e²; b∘e; w²∘u]ᵀ-weighted row sums of a, with e = exp(u − m)
    for the running maximum m (earlier sums are rescaled when m grows, as in an online
    softmax).  With α = Σe, f = e/α: Aᵀ(f∘c) = Aᵀe²/α² − Aᵀ(b∘e)/α, Aᵀf = Aᵀe/α,
    Aᵀv = 2Aᵀe²/α² − Aᵀ(b∘e)/α (v = f∘(2f − b)), so the gradient (def.grad_L) and the rank-2
    part of the Hessian (def.B_rank_diag) come from one pass.
    Returns u, L, ∇L, ‖∇L‖, Aᵀf, Aᵀv, κ₁ and E = v − ⟨c,f⟩f (B_diag, the x-dependent diagonal).
    """
    (m, V), u = _blocked_scan(partial(_state_block, x), _state_carry0(A.shape[1]), (A, b, w2),
                              _PASS_BLOCK)
    return _finish_state(m, V, u, b, w2)


@partial(jax.jit, static_argnames=("gram_dtype",))
def _split_setup(A, b, w2, x, *, gram_dtype: str):
    """One pass over A for the set-up and the state at the start x.

    Returns G = AᵀW²A (the constant part of every Hessian) and the squared row norms ‖a_i‖²,
    both computed from the block cast to ``gram_dtype`` (G summed in float64 over blocks),
    whether both are finite, and :func:`_one_pass_state` at x from the same blocks.  A NaN or
    inf entry of A makes G non-finite (NaN·0 = NaN, inf² = inf on G's diagonal), so this
    doubles as the finiteness check of A."""
    d = A.shape[1]
    dt = jnp.dtype(gram_dtype)

    def body(carry, a, bk, wk):
        G, sc = carry
        a_low = a.astype(dt)
        G = G + ((a_low * wk.astype(dt)[:, None]).T @ a_low).astype(jnp.float64)
        sc, u = _state_block(x, sc, a, bk, wk)
        return (G, sc), (u, jnp.sum(a_low * a_low, axis=1).astype(jnp.float64))

    carry0 = (jnp.zeros((d, d), jnp.float64), _state_carry0(d))
    (G, (m, V)), (u, rn2) = _blocked_scan(body, carry0, (A, b, w2), _SETUP_BLOCK)
    finite = jnp.all(jnp.isfinite(G)) & jnp.all(jnp.isfinite(rn2))
    return _symmetrize(G), rn2, finite, _finish_state(m, V, u, b, w2)


@jax.jit
def _loss_along(u, Ap, t, b, w2):
    return _loss_u(u + t * Ap, b, w2)


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------


def loss(A, b, w, x) -> jax.Array:
    """Regularised softmax-regression loss L(x) (spec ``def.L``).

    L(x) = 0.5‖softmax(Ax) − b‖₂² + 0.5‖diag(w) A x‖₂², with the overflow-safe softmax of
    ``def.f`` (finite for any finite ``Ax``).

    **Arguments:** ``A`` (n, d); ``b`` (n,); ``w`` (n,); ``x`` (d,). Real, finite, non-empty.

    **Returns:** a float64 scalar (0-d JAX array).
    """
    A, b, w = _validate_problem(A, b, w)
    x = _validate_x(x, A.shape[1])
    return _loss_kernel(A, b, w * w, x)


def gradient(A, b, w, x) -> jax.Array:
    """Gradient ∇L(x) = Aᵀ(f∘c − ⟨c,f⟩f) + AᵀW²Ax (spec ``def.g``, ``def.grad_L``).

    **Arguments:** as :func:`loss`.

    **Returns:** float64 array of shape (d,).
    """
    A, b, w = _validate_problem(A, b, w)
    x = _validate_x(x, A.shape[1])
    return _gradient_kernel(A, b, w * w, x)


def hessian(A, b, w, x) -> jax.Array:
    """Hessian ∇²L(x) = Aᵀ(B(x) + W²)A (spec ``def.B``, ``def.hessian_L``).

    Built from the structure B = B_diag + B_rank (``def.B_rank_diag``): one weighted Gram
    matrix Aᵀ diag(w² + B_diag) A plus a rank-2 correction from Aᵀf and Aᵀv, cost O(n d²),
    memory O(n + d²) beyond A.  Never forms an n × n matrix.

    **Arguments:** as :func:`loss`.

    **Returns:** float64 symmetric array of shape (d, d).
    """
    A, b, w = _validate_problem(A, b, w)
    x = _validate_x(x, A.shape[1])
    return _hessian_kernel(A, b, w * w, x)


def hessian_kernel_B(A, b, x) -> jax.Array:
    """The n × n Hessian kernel B(x) of ``def.B`` (so that ∇²L_exp(x) = Aᵀ B(x) A).

    B(x) = ⟨3f − 2b, f⟩ f fᵀ − v fᵀ − f vᵀ + diag(v) − ⟨c, f⟩ diag(f), v = f∘(2f − b).
    Dense, O(n²) memory: for tests and small n only.

    **Arguments:** ``A`` (n, d) with n ≤ 8192; ``b`` (n,); ``x`` (d,).

    **Returns:** float64 array of shape (n, n).
    """
    A = _as_float_array("A", A, 2)
    n, d = A.shape
    if n > _MAX_DENSE_N:
        raise ValueError(f"A (n={n} rows) must have n <= {_MAX_DENSE_N} for the dense kernel B; "
                         "use hessian() for large n")
    b = _as_float_array("b", b, 1)
    if b.shape != (n,):
        raise ValueError(f"b (shape={tuple(b.shape)}) must have shape (n,)=({n},) to match A")
    x = _validate_x(x, d)
    return _dense_B(A, b, x)


def sample_size(d: int, *, eps0: float, delta: float) -> float:
    """Oversampling factor s = 3 ln(2d/δ)/ε0² of ``alg.sparsify`` step 3 (spec §3.1).

    Row i of D^{1/2}A is kept with probability min(1, s τ_i); the expected number of kept rows
    is at most s·d.
    """
    d = _check_int("d", d, lo=1)
    eps0 = _check_real("eps0", eps0, lo=0.0, hi=1.0)
    delta = _check_real("delta", delta, lo=0.0, hi=1.0)
    return 3.0 * math.log(2.0 * d / delta) / eps0 ** 2


def _prepare_solve(A, b, w, x0, tol, max_iter, callback, check_A_finite: bool = True):
    A, b, w = _validate_problem(A, b, w, check_A_finite)
    d = A.shape[1]
    x = jnp.zeros((d,), jnp.float64) if x0 is None else _validate_x(x0, d, "x0")
    tol = _check_real("tol", tol, lo=0.0, lo_open=False)
    max_iter = _check_int("max_iter", max_iter, lo=0)
    if callback is not None and not callable(callback):
        raise ValueError(f"callback={callback!r} must be callable or None")
    return A, b, w * w, x, tol, max_iter


def _result(x, it, history, tol, sizes) -> NewtonResult:
    """The :class:`NewtonResult` of a finished Newton loop."""
    return NewtonResult(
        x=np.asarray(x),
        iterations=it,
        grad_norm_history=np.asarray(history, dtype=np.float64),
        converged=bool(history[-1] <= tol),
        sample_sizes=np.asarray(sizes, dtype=np.int64),
    )


def _newton_loop(A, b, w2, x, tol, max_iter, callback, safeguard, hessian_fn):
    n = A.shape[0]
    u, L0, g, gn = _state(A, b, w2, x)
    history = [float(gn)]
    sizes: list[int] = []
    it = 0
    stop = bool(callback(np.asarray(x))) if callback is not None else False
    while not stop and history[-1] > tol and it < max_iter:
        H, k = hessian_fn(it, u)
        x_new, ok = _direction_and_step(A, b, w2, x, u, L0, g, H, safeguard=safeguard)
        if not bool(ok):
            break  # no acceptable step (non-PD without safeguard, or line search failure)
        it += 1
        sizes.append(k if k is not None else n)
        x = x_new
        u, L0, g, gn = _state(A, b, w2, x)
        history.append(float(gn))
        if callback is not None and bool(callback(np.asarray(x))):
            break
    return _result(x, it, history, tol, sizes)


def _newton_loop_fused(A, b, w2, x, tol, max_iter, callback, safeguard, hessian_fn):
    """:func:`_newton_loop` with two passes over A per iteration: [r; f; v] A (gradient and
    rank-2 part together) and A p (line search; u is carried as u + t·Ap); the d × d direction
    solve runs on the host (:func:`_host_direction`, same rule as :func:`_direction_and_step`).  u is recomputed
    exactly as A x every 8 iterations, so rounding drift of the carried u stays negligible.
    ``hessian_fn(t, u, af, av)`` returns (H, rows used)."""
    n = A.shape[0]
    u = A @ x
    L0, g, gn, af, av = _state_fused(A, b, w2, u)
    history = [float(gn)]
    sizes: list[int] = []
    it = 0
    stop = bool(callback(np.asarray(x))) if callback is not None else False
    while not stop and history[-1] > tol and it < max_iter:
        H, k = hessian_fn(it, u, af, av)
        p = _host_direction(H, g, safeguard)
        if p is None:
            break
        if safeguard:
            x_new, ok, u_new = _armijo_step_jit(A, b, w2, x, u, L0, g, jnp.asarray(p))
        else:
            p = jnp.asarray(p)
            x_new, ok, u_new = x + p, True, u + A @ p
        if not bool(ok):
            break
        it += 1
        sizes.append(k if k is not None else n)
        x = x_new
        u = A @ x if it % 8 == 0 else u_new
        L0, g, gn, af, av = _state_fused(A, b, w2, u)
        history.append(float(gn))
        if callback is not None and bool(callback(np.asarray(x))):
            break
    return _result(x, it, history, tol, sizes)


def exact_newton(A, b, w, *, x0=None, tol: float = 1e-10, max_iter: int = 100,
                 safeguard: bool = True,
                 callback: Callable[[np.ndarray], bool] | None = None) -> NewtonResult:
    """Exact (safeguarded) Newton method on L (spec ``alg.exact_newton``, ``def8.3.exact_newton``).

    x_{t+1} = x_t + s_t p_t with H(x_t) p_t = −∇L(x_t), H = Aᵀ(B(x_t) + W²)A formed
    in O(n d²) (see :func:`hessian`).  Safeguard (for instances outside the theory, e.g. weak
    regularisation where H is not PD): when the Cholesky factorisation of H fails, p_t is the
    shifted direction −(H + μI)⁻¹∇L, μ = −λ_min(H) + 0.01·max|λ(H)| (the form of a trust-region
    step), a descent direction; step s_t by halving from 1
    until the Armijo condition L(x + s p) ≤ L(x) + 1e-4 s ∇Lᵀp holds.  Under lem6.3.part1
    (w_i² ≥ 4 + l/σ_min(A)²) H ⪰ l I, so p_t is the Newton direction, and near x* the full step is taken, so the
    iteration is the plain Newton method with quadratic convergence.

    **Arguments:**

    - ``A`` (n, d), ``b`` (n,), ``w`` (n,): the instance (real, finite, non-empty).
    - ``x0``: start (d,), default zeros.
    - ``tol``: stop when ‖∇L(x_t)‖₂ ≤ tol (absolute; ``tol=0`` runs ``max_iter`` steps).
    - ``max_iter``: maximal number of Newton updates.
    - ``safeguard``: if False, take plain steps x − H⁻¹∇L and stop (``converged=False``) when H
      is not numerically PD.
    - ``callback``: called with the numpy iterate after every update (and on ``x0``); a true
      return value stops the iteration.

    **Returns:** :class:`NewtonResult`.
    """
    A, b, w2, x, tol, max_iter = _prepare_solve(A, b, w, x0, tol, max_iter, callback)

    def hess(_t, u):
        return _hessian_from_u(A, b, w2, u), None

    return _newton_loop(A, b, w2, x, tol, max_iter, callback, bool(safeguard), hess)


def approximate_newton(A, b, w, *, key=None, seed: int | None = None, eps0: float = 0.01,
                       delta: float = 0.01, x0=None, tol: float = 1e-10, max_iter: int = 100,
                       rank2_correction: bool = True, safeguard: bool = True,
                       leverage: str = "exact",
                       callback: Callable[[np.ndarray], bool] | None = None) -> NewtonResult:
    """Approximate Newton with a leverage-score-sampled Hessian (paper's Algorithm 1).

    Reading of spec ``alg.newton`` (§3.2, claim ids ``thm9.1.*``, ``lem8.5``, ``def8.4``):

    1. u = A x_t, f = softmax(u), c = f − b, v = f∘(2f − b).
    2. D_t = w∘w + (v − ⟨c,f⟩f) = W² + B_diag(x_t)  (step b).
    3. D̃_t = alg.sparsify(D_t, A, ε0, δ/T) (§3.1): row i kept with probability
       p_i = min(1, s τ̂_i), s = 3 ln(2dT/δ)/ε0² (see :func:`sample_size` with δ/T), weight
       D_i/p_i.  We take T = ``max_iter`` (the paper's T needs ‖x0 − x*‖, unknown in practice).
       The leverage scores of D_t^{1/2}A are replaced by the upper bounds
       τ̂_i = (ρ_i / min_j ρ_j) τ_i(WA), ρ = D_t / w² (valid because AᵀD_tA ⪰ min ρ · AᵀW²A);
       τ(WA) is computed once per solve: ``leverage="exact"`` (default) via a Cholesky factor
       of AᵀW²A, O(n d²); ``leverage="sketch"`` by the sketched estimate of Drineas,
       Magdon-Ismail, Mahoney, Woodruff (2012): a CountSketch S (8d rows) of WA, R from the QR
       of S W A, τ̃_i = ‖w_i a_i R⁻¹ G‖² with a d × 32 Gaussian G/√32, times a safety factor
       2 (capped at 1), in O(nnz(A)·32 + d³).  Over-estimates keep the sampling guarantee
       (p_i ≥ min(1, s τ_i) is all it needs) and only cost rows; see ``_sketched_leverage``.
       Randomness of the sketch: ``fold_in(key, 2³² − 1)``.
       Over-estimated leverage scores keep the matrix-Chernoff guarantee of ``lem8.5``; the
       expected sample size grows by at most max ρ / min ρ, which is ≤ 1.02 in the paper's
       regime w_i² ≥ 100 (lem6.3.part2).  If some D_i ≤ 0 or w_i = 0 (outside the theory)
       every row is kept (``leverage="sketch"``: only those rows are kept exactly, the others
       are still sampled, see ``_sampling_plan_split``).  When every p_i = 1 (always the case with the paper's ε0 = 0.01
       unless n ≳ s·d) the Hessian is formed without gathering rows.
    4. H̃_t = Aᵀ D̃_t A, plus (``rank2_correction=True``, spec step d, recommended) the exact
       rank-2 part κ₁(Aᵀf)(Aᵀf)ᵀ − (Aᵀv)(Aᵀf)ᵀ − (Aᵀf)(Aᵀv)ᵀ, κ₁ = 3‖f‖² − 2⟨b,f⟩.
    5. x_{t+1} = x_t − H̃_t⁻¹ ∇L(x_t) (full gradient).

    Stopping: ‖∇L(x_t)‖₂ ≤ ``tol`` or ``max_iter`` updates (``tol=0`` gives the paper's fixed
    count T = ``max_iter``).  Safeguard as in :func:`exact_newton` (modified eigenvalues when H̃_t
    is not PD, Armijo backtracking on L); inside the theory the full step is taken.

    Randomness: exactly one of ``key`` (a ``jax.random`` key) or ``seed`` (int); iteration t
    uses ``fold_in(key, t)``, so results are reproducible.

    **Arguments:** as :func:`exact_newton`, plus ``key``/``seed``, ``eps0`` ∈ (0, 1) (the
    paper's theory: (0, 0.1), Lemma 8.8 fixes 0.01), ``delta`` ∈ (0, 1) (total failure
    probability), ``rank2_correction``, ``leverage`` ∈ {"exact", "sketch"} (how τ(WA) is
    obtained, see step 3).  Cost per iteration beyond the sampled Gram matrix (O(k d²) for k
    kept rows, the kept rows are gathered): O(n d) (products with A, line search); with
    ``leverage="sketch"`` the loop makes two passes over A per iteration (``_newton_loop_fused``).

    **Returns:** :class:`NewtonResult`; ``sample_sizes[t]`` = nnz(D̃_t).
    """
    A, b, w2, x, tol, max_iter = _prepare_solve(A, b, w, x0, tol, max_iter, callback)
    if (key is None) == (seed is None):
        raise ValueError(f"key={key!r}, seed={seed!r}: exactly one of key and seed must be given")
    if seed is not None:
        seed = _check_int("seed", seed, lo=0)
        key = jax.random.PRNGKey(seed)
    else:
        try:
            jax.random.fold_in(key, 0)
        except Exception as exc:
            raise ValueError(f"key={key!r} must be a jax.random key (PRNGKey or key)") from exc
    eps0 = _check_real("eps0", eps0, lo=0.0, hi=1.0)
    delta = _check_real("delta", delta, lo=0.0, hi=1.0)
    if leverage not in ("exact", "sketch"):
        raise ValueError(f"leverage={leverage!r} must be 'exact' or 'sketch'")
    n, d = A.shape
    s = sample_size(d, eps0=eps0, delta=delta / max(1, max_iter))

    tau_ref = None
    cap = [0]

    def hess(t, u, af=None, av=None):
        nonlocal tau_ref
        if tau_ref is None:
            if bool(jnp.all(w2 > 0)):
                if leverage == "sketch":
                    tau, ok = _sketched_leverage(A, w2, jax.random.fold_in(key, 2 ** 32 - 1))
                else:
                    tau, ok = _reference_leverage(A, w2)
                tau_ref = tau if bool(ok) else jnp.ones((n,), jnp.float64)
            else:
                tau_ref = jnp.ones((n,), jnp.float64)
        plan = _sampling_plan_split if leverage == "sketch" else _sampling_plan
        weights, keep, count, f, v, kappa1 = plan(
            b, w2, u, tau_ref, s, jax.random.fold_in(key, t))
        k = int(count)
        if k == n:
            capacity = n
        elif leverage == "sketch":
            # sticky buffer size (one compilation while the count stays within [cap/2, cap]),
            # else 12.5% headroom rounded up to 1/16 of an octave
            if not (cap[0] // 2 <= k <= cap[0]):
                k2 = k + k // 8
                q = 1 << max(0, (k2 - 1).bit_length() - 4)
                cap[0] = min(n, -(-k2 // q) * q)
            capacity = cap[0]
        else:
            capacity = min(n, 1 << max(0, (k - 1).bit_length()))
        if af is None:
            H = _sampled_hessian(A, keep, weights, f, v, kappa1, capacity=capacity,
                                 rank2=bool(rank2_correction))
        else:  # fused loop: Aᵀf, Aᵀv come with the gradient
            H = _sampled_hessian(A, keep, weights, f, v, kappa1, capacity=capacity, rank2=False)
            if rank2_correction:
                H = H + _rank2_from(af, av, kappa1)
        return H, k

    if leverage == "sketch":
        return _newton_loop_fused(A, b, w2, x, tol, max_iter, callback, bool(safeguard), hess)
    return _newton_loop(A, b, w2, x, tol, max_iter, callback, bool(safeguard), hess)


def _split_hessian(G, A_host, rn2, E, af, av, kappa1, samples: int, rng):
    """H̃ = G + Aᵀ Ẽ A + rank-2 part (see :func:`split_newton`); returns (H̃, rows sampled)."""
    q = np.abs(E) * rn2
    total = float(q.sum())
    H = G.copy()
    k = 0
    if total > 0.0:
        # n ≤ samples: every row exactly (p = 1), no sampling noise on small problems
        p = np.minimum(1.0, (samples / total) * q) if q.shape[0] > samples else np.ones_like(q)
        idx = np.flatnonzero(rng.random(q.shape[0]) < p)
        k = int(idx.size)
        if k:
            a = A_host[idx]
            H += (a * (E[idx] / p[idx])[:, None]).T @ a
    H += kappa1 * np.outer(af, af) - np.outer(av, af) - np.outer(af, av)
    return 0.5 * (H + H.T), k


def _armijo_accepts(L0: float, Lt: float, gtp: float, t: float) -> bool:
    """The acceptance rule of :func:`_armijo_step`, on the host."""
    if not math.isfinite(Lt):
        return False
    noise = 64.0 * np.finfo(np.float64).eps * (abs(L0) + np.finfo(np.float64).tiny)
    return Lt <= L0 + _ARMIJO_C * t * gtp or (t == 1.0 and -gtp <= noise)


def _best_halving(u, Ap, b, w2, L0: float, gtp: float):
    """Line search of :func:`split_newton` after a rejected full step: t = 2^-k for the
    first k ≥ 1 that satisfies Armijo, then further halvings while L keeps decreasing
    (each trial is O(n) on u + t·Ap; the pass over A that follows is the expensive part, so
    the best point of the halving sequence is worth a few more trials).  None if no t works."""
    t, Lt = 1.0, None
    for _ in range(_MAX_HALVINGS):
        t *= 0.5
        Lt = float(_loss_along(u, Ap, t, b, w2))
        if _armijo_accepts(L0, Lt, gtp, t):
            break
    else:
        return None
    while t > 2.0 ** -_MAX_HALVINGS:
        L_half = float(_loss_along(u, Ap, 0.5 * t, b, w2))
        if not L_half < Lt:
            break
        t, Lt = 0.5 * t, L_half
    return t


def split_newton(A, b, w, *, seed: int, x0=None, tol: float = 1e-10, max_iter: int = 100,
                 samples: int | None = None, gram_dtype: str = "float64", safeguard: bool = True,
                 callback: Callable[[np.ndarray], bool] | None = None) -> NewtonResult:
    """Approximate Newton with a split Hessian and one pass over A per iteration.

    Not the paper's Algorithm 1 but the same idea (an approximate Hessian AᵀD̃A, exact gradient)
    with a different sparsifier, built for large n.  The Hessian (def.hessian_L) is

        ∇²L(x) = Aᵀ W² A + Aᵀ diag(E(x)) A + rank-2 part,   E = v − ⟨c,f⟩f  (B_diag)

    and the first term does not depend on x.  So:

    1. Set-up, once (in the same pass over A as the state at x0): G = AᵀW²A, accumulated per
       row block in ``gram_dtype`` ("float64", or "float32": about twice as fast; G then has
       relative error ~1e-7·√n per entry, which only changes the step, never the gradient, so
       the limit point is the same, but it needs κ(WA)² ≪ 1e7 to stay a good model) and the
       row norms ‖a_i‖² (used only for sampling probabilities).  This pass also checks that A
       is finite.
    2. Per iteration, H̃ = G + Aᵀ Ẽ A + the exact rank-2 part, where Ẽ samples E with
       probabilities p_i = min(1, ``samples``·q_i/Σq), q_i = |E_i|‖a_i‖², weights E_i/p_i
       (Horvitz–Thompson, so E[Ẽ] = AᵀEA; rows with p_i = 1, e.g. under the peaks of f or b,
       are exact; if n ≤ ``samples`` every row is).  E is concentrated where f is large, so
       few rows are drawn.
    3. Direction p = −H̃⁻¹∇L (Cholesky; if H̃ is not PD and ``safeguard``, the
       shifted direction of :func:`exact_newton`), full step tried first.
    4. One pass over A at x + p (:func:`_one_pass_state`) gives u = A(x + p), L, ∇L, Aᵀf, Aᵀv
       and E at the new point.  If the Armijo rule rejects the full step, the line search
       halves t on L(u + t·Ap) with Ap = A(x + p) − Ax (O(n) each, no pass over A) and one
       more pass is made at the accepted point.

    So an accepted full step costs one read of A (the other solvers read it two or three
    times) plus O(k d²) for the k sampled rows.  Randomness: ``seed`` (numpy PCG64), so runs are
    reproducible.

    **Arguments:** as :func:`exact_newton`, plus ``seed`` (int ≥ 0), ``samples`` (expected
    number of sampled rows of the E part, default 32d) and ``gram_dtype`` ("float64" or
    "float32").

    **Returns:** :class:`NewtonResult`; ``sample_sizes[t]`` = rows drawn for Ẽ at iteration t.
    """
    A, b, w2, x, tol, max_iter = _prepare_solve(A, b, w, x0, tol, max_iter, callback,
                                                 check_A_finite=False)
    seed = _check_int("seed", seed, lo=0)
    n, d = A.shape
    samples = 32 * d if samples is None else _check_int("samples", samples, lo=1)
    if gram_dtype not in ("float64", "float32"):
        raise ValueError(f"gram_dtype={gram_dtype!r} must be 'float64' or 'float32'")
    rng = np.random.default_rng(seed)
    G, rn2, finite, state = _split_setup(A, b, w2, x, gram_dtype=gram_dtype)
    if not bool(finite):
        if not bool(_all_finite(A)):
            raise ValueError("A must be finite (contains NaN or inf)")
        raise ValueError(f"A (max |A_ij| = {float(jnp.max(jnp.abs(A))):.3g}) must be small enough "
                         f"that AᵀW²A and the row norms are finite in gram_dtype={gram_dtype!r}")
    G, rn2, A_host = np.asarray(G), np.asarray(rn2), np.asarray(A)
    # The host work per iteration is d × d (or k × d for the k sampled rows): one BLAS thread.
    # A multi-threaded OpenBLAS pool left spinning competes with XLA's threads for the cores
    # during the passes over A (measured: 0.95-1.16 s instead of 0.77 s per solve at n = 2^18).
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        return _split_newton_loop(A, b, w2, x, tol, max_iter, callback, bool(safeguard),
                                  G, rn2, A_host, samples, rng, state)


def _split_newton_loop(A, b, w2, x, tol, max_iter, callback, safeguard, G, rn2, A_host,
                       samples, rng, state):
    history = [float(state[3])]
    sizes: list[int] = []
    it = 0
    stop = bool(callback(np.asarray(x))) if callback is not None else False
    while not stop and history[-1] > tol and it < max_iter:
        u, L0, g, _, af, av, kappa1, E = state
        H, k = _split_hessian(G, A_host, rn2, np.asarray(E), np.asarray(af), np.asarray(av),
                              float(kappa1), samples, rng)
        g_host = np.asarray(g)
        p = _host_direction(H, g_host, safeguard)
        if p is None:
            break
        gtp = float(g_host @ p)
        if safeguard and not (math.isfinite(gtp) and gtp < 0):
            break  # no descent direction (g = 0 to rounding)
        x_new = x + p
        new = _one_pass_state(A, b, w2, x_new)
        if safeguard and not _armijo_accepts(float(L0), float(new[1]), gtp, 1.0):
            Ap = new[0] - u
            t = _best_halving(u, Ap, b, w2, float(L0), gtp)
            if t is None:
                break
            x_new = x + t * p
            new = _one_pass_state(A, b, w2, x_new)
        it += 1
        sizes.append(k)
        x, state = x_new, new
        history.append(float(state[3]))
        if callback is not None and bool(callback(np.asarray(x))):
            break
    return _result(x, it, history, tol, sizes)


def sparsify(A, D, *, eps0: float, delta: float, seed: int) -> np.ndarray:
    """alg.sparsify (spec §3.1) as the solver's approximate Newton runs it: exact leverage scores
    τ of D^{1/2}A, s = 3 ln(2d/δ)/ε0², p_i = min(1, s τ_i), row i kept with probability p_i
    (uniform draws from PRNGKey(seed)), D̃_i = D_i/p_i if kept else 0.  Returns D̃ (n,)
    (adapter ``softmax_sparsify``; claim lem8.5)."""
    A = np.asarray(A, dtype=np.float64)
    D = np.asarray(D, dtype=np.float64)
    if A.ndim != 2 or D.shape != (A.shape[0],):
        raise ValueError(f"A (shape={A.shape}) must be (n, d) and D (shape={D.shape}) must be (n,)")
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(D)) and np.all(D > 0)):
        raise ValueError("A must be finite and D must be finite and positive")
    s = sample_size(A.shape[1], eps0=eps0, delta=delta)
    tau, ok = _reference_leverage(jnp.asarray(A), jnp.asarray(D))
    if not bool(ok):
        raise ValueError("A must have full column rank (AᵀDA must be positive definite)")
    p = jnp.minimum(1.0, s * tau)
    keep = (jax.random.uniform(jax.random.PRNGKey(int(seed)), p.shape, dtype=jnp.float64) < p) | (p >= 1.0)
    return np.asarray(jnp.where(keep, jnp.asarray(D) / p, 0.0))


def iteration_flops(n: int, d: int, *, eps0: float = 0.01, delta: float = 0.01) -> float:
    """FLOPs (XLA cost analysis of the lowered computation) of one approximate-Newton iteration
    of the solver on a dense n × d problem: leverage scores, gradient, D̃ sampling, AᵀD̃A plus the
    rank-2 part, the d × d solve and the line search."""
    s = sample_size(d, eps0=eps0, delta=delta)

    def one_iteration(A, b, w2, x, key):
        tau, _ = _reference_leverage(A, w2)
        u, L0, g, _ = _state(A, b, w2, x)
        weights, keep, _, f, v, kappa1 = _sampling_plan(b, w2, u, tau, s, key)
        H = _sampled_hessian(A, keep, weights, f, v, kappa1, capacity=n, rank2=True)
        return _direction_and_step(A, b, w2, x, u, L0, g, H, safeguard=True)[0]

    args = (jnp.ones((n, d)), jnp.full((n,), 1.0 / n), jnp.full((n,), 100.0), jnp.zeros((d,)),
            jax.random.PRNGKey(0))
    # XLA's HLO cost analysis of the lowered computation (the compiled one's differs by < 5% and
    # costs seconds of compilation per size)
    cost = jax.jit(one_iteration).lower(*args).cost_analysis()
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    return float(cost["flops"])
