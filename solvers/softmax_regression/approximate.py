"""Approximate Newton with a leverage-score-sampled Hessian (the paper's Algorithm 1) and alg.sparsify.

Spec ``spec/softmax_regression.md`` §3.1 (``alg.sparsify``) and §3.2 (``alg.newton``; claim ids
``thm9.1.*``, ``lem8.5``, ``def8.4``, prefix ``softmax_regression.``).  Leverage scores of W A
(exact, or sketched as Drineas, Magdon-Ismail, Mahoney, Woodruff 2012), their upper bounds for
D^{1/2} A, the sampling plan, the sampled Hessian, and the solver on top of the shared Newton
step of :mod:`.exact`.

Randomness: ``key`` is a ``jax.random`` key or an int seed (:func:`solvers.sketches.as_key`), the
convention of every randomised solver of the project.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._validation import check_array, check_int, check_unit
from ..memory import check_fits
from ..sketches import as_key
from .exact import NewtonResult, direction_and_step, newton_loop, newton_loop_fused, prepare_solve
from .objective import (
    kernel_parts,
    newton_state,
    rank2_from,
    rank2_term,
    symmetrize,
    weighted_gram,
)

__all__ = [
    "approximate_newton",
    "iteration_flops",
    "reference_leverage",
    "sample_size",
    "sampled_hessian",
    "sampling_plan",
    "sketched_leverage",
    "sketched_leverage_raw",
    "sparsify",
]


# --- alg.sparsify pieces -------------------------------------------------------------------


@jax.jit
def reference_leverage(A, w2):
    """Leverage scores τ_i(WA) of Y₀ = W A (exact, via the Cholesky factor of AᵀW²A)."""
    G = symmetrize(weighted_gram(A, w2))
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


def sketched_leverage_raw(A, w2, key, *, m: int, k: int):
    """Unscaled estimates τ̃_i ≈ τ_i(WA), in O(nnz(A)·k + m d² + d³).

    1. CountSketch S (m × n; row h_i, sign σ_i of column i, spec def.countsketch of attention_kernel_regression.md): S W A as a
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


def sketched_leverage(A, w2, key):
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
    tau, ok = sketched_leverage_raw(A, w2, key, m=m, k=_JL_COLS)
    return jnp.minimum(1.0, _LEVERAGE_SAFETY * tau), ok


@jax.jit
def sampling_plan(b, w2, u, tau_ref, s, key):
    """Diagonal D_t = W² + B_diag(x_t) (alg.newton step b) and its leverage-score sample.

    Upper bounds of the leverage scores of D^{1/2}A: with ρ_i = D_i / w_i² > 0 and
    ρ_min = min ρ, AᵀDA ⪰ ρ_min AᵀW²A gives τ_i(D^{1/2}A) ≤ (ρ_i/ρ_min) τ_i(WA).
    p_i = min(1, s·bound_i) (alg.sparsify step 3); kept rows get weight D_i/p_i (step 4).
    If some D_i ≤ 0 (outside the theory) every row is kept (p = 1): D̃ = D exactly.
    """
    bdiag, f, v, kappa1 = kernel_parts(u, b)
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
    """As :func:`sampling_plan`, but rows with D_i ≤ 0 or w_i = 0 are kept exactly (p_i = 1,
    weight D_i) instead of forcing p = 1 on every row; the other rows are sampled with
    p_i = min(1, s (ρ_i / ρ₊) τ_i), ρ₊ = min ρ over those rows.  Used by
    ``leverage="sketch"``.  Inside the theory (w_i² ≥ 4, so D > 0) it equals
    :func:`sampling_plan`.  Outside it (weak regularisation: a few rows under the peaks of b
    have D_i < 0) the sampled part approximates Aᵀ D₊ A over the positive rows; the bound uses
    τ(WA) rather than τ over the positive rows only, which differ by the few dropped rows
    (a heuristic there, as the whole method is outside its theory; Newton's safeguard covers it).
    """
    bdiag, f, v, kappa1 = kernel_parts(u, b)
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
def sampled_hessian(A, keep, weights, f, v, kappa1, *, capacity: int, rank2: bool):
    """Aᵀ D̃ A (+ the exact rank-2 part if ``rank2``).

    ``capacity == n``: all rows, no gather.  Otherwise the kept rows are gathered into a buffer
    of static size ``capacity`` (padding rows get weight 0), so the cost is O(capacity · d²).
    """
    n = A.shape[0]
    if capacity == n:
        H = weighted_gram(A, weights)
    else:
        (idx,) = jnp.nonzero(keep, size=capacity, fill_value=0)
        valid = jnp.arange(capacity) < jnp.sum(keep)
        H = weighted_gram(A[idx], jnp.where(valid, weights[idx], 0.0))
    if rank2:
        H = H + rank2_term(A, f, v, kappa1)
    return symmetrize(H)


def sample_size(d: int, *, eps0: float, delta: float) -> float:
    """Oversampling factor s = 3 ln(2d/δ)/ε0² of ``alg.sparsify`` step 3 (spec §3.1).

    Row i of D^{1/2}A is kept with probability min(1, s τ_i); the expected number of kept rows
    is at most s·d.
    """
    d = check_int("d", d, lo=1)
    eps0 = check_unit("eps0", eps0)
    delta = check_unit("delta", delta)
    q = 2.0 * d / delta
    log_q = math.log(q) if q < math.inf else math.log(2.0 * d) - math.log(delta)  # delta subnormal
    s = 3.0 * log_q / eps0 ** 2 if eps0 ** 2 > 0 else math.inf
    if not math.isfinite(s):
        raise ValueError(f"eps0={eps0!r} must be large enough that s = 3 ln(2d/δ)/eps0² is finite in float64 "
                         f"(it overflows with d={d}, delta={delta!r})")
    return s


def approximate_newton(A, b, w, *, key, eps0: float = 0.01,
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
       (p_i ≥ min(1, s τ_i) is all it needs) and only cost rows; see ``sketched_leverage``.
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

    Randomness: ``key``, a ``jax.random`` key or an int seed (:func:`solvers.sketches.as_key`);
    iteration t uses ``fold_in(key, t)``, so results are reproducible.

    **Arguments:** as :func:`exact_newton`, plus ``key``, ``eps0`` ∈ (0, 1) (the
    paper's theory: (0, 0.1), Lemma 8.8 fixes 0.01), ``delta`` ∈ (0, 1) (total failure
    probability), ``rank2_correction``, ``leverage`` ∈ {"exact", "sketch"} (how τ(WA) is
    obtained, see step 3).  Cost per iteration beyond the sampled Gram matrix (O(k d²) for k
    kept rows, the kept rows are gathered): O(n d) (products with A, line search); with
    ``leverage="sketch"`` the loop makes two passes over A per iteration (:func:`~.exact.newton_loop_fused`).

    **Returns:** :class:`NewtonResult`; ``sample_sizes[t]`` = nnz(D̃_t).
    """
    A, b, w2, x, tol, max_iter = prepare_solve(A, b, w, x0, tol, max_iter, callback)
    key = as_key(key)
    eps0 = check_unit("eps0", eps0)
    delta = check_unit("delta", delta)
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
                    tau, ok = sketched_leverage(A, w2, jax.random.fold_in(key, 2 ** 32 - 1))
                else:
                    tau, ok = reference_leverage(A, w2)
                tau_ref = tau if bool(ok) else jnp.ones((n,), jnp.float64)
            else:
                tau_ref = jnp.ones((n,), jnp.float64)
        plan = _sampling_plan_split if leverage == "sketch" else sampling_plan
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
            H = sampled_hessian(A, keep, weights, f, v, kappa1, capacity=capacity,
                                 rank2=bool(rank2_correction))
        else:  # fused loop: Aᵀf, Aᵀv come with the gradient
            H = sampled_hessian(A, keep, weights, f, v, kappa1, capacity=capacity, rank2=False)
            if rank2_correction:
                H = H + rank2_from(af, av, kappa1)
        return H, k

    if leverage == "sketch":
        return newton_loop_fused(A, b, w2, x, tol, max_iter, callback, bool(safeguard), hess)
    return newton_loop(A, b, w2, x, tol, max_iter, callback, bool(safeguard), hess)


def sparsify(A, D, *, eps0: float, delta: float, key) -> np.ndarray:
    """alg.sparsify (spec §3.1) as the solver's approximate Newton runs it: exact leverage scores
    τ of D^{1/2}A, s = 3 ln(2d/δ)/ε0², p_i = min(1, s τ_i), row i kept with probability p_i
    (uniform draws from ``key``, a jax key or an int seed), D̃_i = D_i/p_i if kept else 0.
    Returns D̃ (n,) (adapter ``softmax_sparsify``; claim lem8.5).

    τ does not change when A or D is multiplied by a positive number, so A and D are first
    scaled by exact powers of two to max entry 1 (no overflow or underflow of AᵀDA for any
    finite input); D̃ uses the given D.
    """
    A = check_array("A", A, ndim=2)
    D = check_array("D", D, ndim=1)
    if D.shape != (A.shape[0],):
        raise ValueError(f"D (shape={tuple(D.shape)}) must have shape (n,)=({A.shape[0]},) to match A")
    if not np.all(np.asarray(D) > 0):  # numpy: XLA would flush a subnormal D_i to 0
        raise ValueError("D must be positive (every D_i > 0)")
    s = sample_size(A.shape[1], eps0=eps0, delta=delta)
    key = as_key(key)
    tau, ok = reference_leverage(_unit_scale(A), _unit_scale(D))
    if not bool(ok):
        raise ValueError("A must have full column rank (AᵀDA must be positive definite)")
    p = jnp.minimum(1.0, s * tau)
    keep = (jax.random.uniform(key, p.shape, dtype=jnp.float64) < p) | (p >= 1.0)
    return np.asarray(jnp.where(keep, D / p, 0.0))


def _unit_scale(M):
    """M·2^{−e} with 2^{e−1} ≤ max|M| < 2^e: an exact rescaling to max entry in [1/2, 1), in numpy
    (XLA on CPU flushes subnormal numbers to zero)."""
    host = np.asarray(M)
    top = float(np.max(np.abs(host)))
    if top == 0.0:
        return M
    return jnp.asarray(np.ldexp(host, -math.frexp(top)[1]))


def iteration_flops(n: int, d: int, *, eps0: float = 0.01, delta: float = 0.01) -> float:
    """FLOPs (XLA cost analysis of the lowered computation) of one approximate-Newton iteration
    of the solver on a dense n × d problem: leverage scores, gradient, D̃ sampling, AᵀD̃A plus the
    rank-2 part, the d × d solve and the line search."""
    n = check_int("n", n, lo=1)
    s = sample_size(d, eps0=eps0, delta=delta)
    check_fits(8 * (4 * n * d + 4 * n + 2 * d * d), "one iteration's n × d and d × d arrays", n=n, d=d)

    def one_iteration(A, b, w2, x, key):
        tau, _ = reference_leverage(A, w2)
        u, L0, g, _ = newton_state(A, b, w2, x)
        weights, keep, _, f, v, kappa1 = sampling_plan(b, w2, u, tau, s, key)
        H = sampled_hessian(A, keep, weights, f, v, kappa1, capacity=n, rank2=True)
        return direction_and_step(A, b, w2, x, u, L0, g, H, safeguard=True)[0]

    args = (jnp.ones((n, d)), jnp.full((n,), 1.0 / n), jnp.full((n,), 100.0), jnp.zeros((d,)),
            jax.random.PRNGKey(0))
    # XLA's HLO cost analysis of the lowered computation (the compiled one's differs by < 5% and
    # costs seconds of compilation per size)
    cost = jax.jit(one_iteration).lower(*args).cost_analysis()
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    return float(cost["flops"])
