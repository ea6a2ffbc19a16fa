"""Pruning-mask optimisation of paper 000 (spec attention_pruning.md §2–3): the loss of Def 1.2/3.2, its
closed-form gradient (Thm 5.3), Algorithm 1 (GD with fixed η < 1/L), the momentum-0.9 variant of the
experiments (alg.gd_momentum), and the binarisation at ratio ρ (alg.binarize).

Nothing larger than n×n or d×d is formed: S = (X(M∘W))Xᵀ (n×d then n×n), ∇ = W∘(Xᵀ(pX)) (n×d then
d×d).  The softmax is the stable masked one: masked logits are −∞ and each row's maximum over its
allowed entries is subtracted (exact; the diagonal is always allowed under M_c).

Nothing returns NaN or inf: the loss is not homogeneous in X (X enters the logits), so a loss,
gradient or trajectory that overflows raises ``ValueError`` naming the overflow; sizes (``steps``,
``n``, ``d`` of the FLOP count) are checked against this machine's memory before allocating;
``causal`` must be a bool.
"""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from .._validation import check_bool, check_int, check_real, is_finite  # noqa: E402
from ..memory import check_fits  # noqa: E402
from ..results import Status  # noqa: E402
from ._validate import finite, float_matrix, square_like  # noqa: E402

__all__ = [
    "GDResult",
    "binarize",
    "binarize_count",
    "final_iterate",
    "gd_trace",
    "gradient",
    "iteration_flops",
    "local_lipschitz",
    "loss",
    "prune",
    "relative_error",
    "run_gd",
    "theorem_lipschitz",
]


def _softmax(S, causal: bool):
    if causal:
        n = S.shape[0]
        allowed = jnp.tril(jnp.ones((n, n), dtype=bool))
        S = jnp.where(allowed, S, -jnp.inf)
    S = S - jnp.max(S, axis=1, keepdims=True)
    E = jnp.exp(S)
    return E / jnp.sum(E, axis=1, keepdims=True)


def _attn(X, Wm, causal):
    return _softmax((X @ Wm) @ X.T, causal)


@partial(jax.jit, static_argnames="causal")
def _loss_grad(X, W, M, f, lam, causal):
    ft = _attn(X, M * W, causal)
    c = ft - f
    p1 = ft * c
    p = p1 - jnp.sum(p1, axis=1, keepdims=True) * ft  # p1 − diag(p1 1_n) f̃ (Def C.1)
    G = W * (X.T @ (p @ X)) + lam * M  # Thm 5.3
    L = 0.5 * jnp.sum(c * c) + 0.5 * lam * jnp.sum(M * M)
    return L, G


_attn_jit = jax.jit(_attn, static_argnames="causal")


def _problem(X, W, M, lam):
    X, W = square_like(X, W)
    M = float_matrix("M", M, shape=W.shape)
    return X, W, M, check_real("lam", lam, lo=0)


def loss(X, W, M, lam, *, causal: bool = False) -> float:
    """L(M) = ½‖D̃⁻¹Ã − D⁻¹A‖_F² + (λ/2)‖M‖_F² (Def 1.2; Def 3.2 when ``causal``)."""
    X, W, M, lam = _problem(X, W, M, lam)
    causal = check_bool("causal", causal)
    f = finite("f = softmax(XWXᵀ)", _attn_jit(X, W, causal=causal), X)
    return float(finite("L(M)", _loss_grad(X, W, M, f, lam, causal)[0], X))


def gradient(X, W, M, lam, *, causal: bool = False) -> np.ndarray:
    """∇_M L(M) = W∘(Xᵀp(M)X) + λM (Thm 5.3), shape (d, d)."""
    X, W, M, lam = _problem(X, W, M, lam)
    causal = check_bool("causal", causal)
    f = finite("f = softmax(XWXᵀ)", _attn_jit(X, W, causal=causal), X)
    return np.asarray(finite("∇L(M)", _loss_grad(X, W, M, f, lam, causal)[1], X))


def relative_error(X, W, W_pruned, *, causal: bool = True) -> float:
    """‖f̃ − f‖_F/‖f‖_F with f = softmax(XWXᵀ), f̃ = softmax(X W_pruned Xᵀ) (spec def.rel_error)."""
    X, W = square_like(X, W)
    Wp = float_matrix("W_pruned", W_pruned, shape=W.shape)
    causal = check_bool("causal", causal)
    f = finite("f = softmax(XWXᵀ)", _attn_jit(X, W, causal=causal), X)
    g = finite("f̃ = softmax(X W_pruned Xᵀ)", _attn_jit(X, Wp, causal=causal), X)
    return float(jnp.linalg.norm(g - f) / jnp.linalg.norm(f))


class GDResult(NamedTuple):
    """Result of :func:`run_gd`.

    **Fields:** ``M`` the last iterate (d, d); ``status`` ``Status.CONVERGED`` when all the steps
    asked for were taken, ``Status.NONFINITE`` when an iterate overflowed (a step size too large for
    this loss: the result then holds the trajectory up to the last iterate whose loss and min f̃ are
    finite); ``losses`` L(M_t) for t = 0, …, T (length T + 1); ``min_f`` min_{ij} f̃(M_t)_{ij} over
    the allowed entries, for t = 0, …, T (the δ of the hypotheses along the trajectory); ``eta``,
    ``momentum``; ``steps`` the T updates taken (fewer than asked when ``status`` is
    ``Status.NONFINITE``).
    """

    M: np.ndarray
    status: Status
    losses: np.ndarray
    min_f: np.ndarray
    eta: float
    momentum: float
    steps: int


@partial(jax.jit, static_argnames=("causal", "steps"))
def _gd(X, W, M0, lam, eta, beta, causal, steps):
    f = _attn(X, W, causal)
    n = X.shape[0]
    allowed = jnp.tril(jnp.ones((n, n), dtype=bool)) if causal else jnp.ones((n, n), dtype=bool)

    def stats(M):
        ft = _attn(X, M * W, causal)
        return jnp.min(jnp.where(allowed, ft, jnp.inf))

    def step(carry, _):
        M, V = carry
        L, G = _loss_grad(X, W, M, f, lam, causal)
        mf = stats(M)
        V = beta * V + G  # heavy ball (alg.gd_momentum); beta = 0 is Algorithm 1
        return (M - eta * V, V), (L, mf)

    (M, _), (Ls, mfs) = jax.lax.scan(step, (M0, jnp.zeros_like(M0)), None, length=steps)
    L_T, _ = _loss_grad(X, W, M, f, lam, causal)
    return M, jnp.append(Ls, L_T), jnp.append(mfs, stats(M))


def run_gd(X, W, lam, eta, steps, *, M0=None, causal: bool = False, momentum: float = 0.0) -> GDResult:
    """Algorithm 1 (spec alg.gd): M_{t+1} = M_t − η∇L(M_t) for ``steps`` steps from M0 (default
    1_{d×d}); with ``momentum`` β > 0 the heavy-ball variant V ← βV + ∇L(M), M ← M − ηV
    (alg.gd_momentum, β = 0.9 in the experiments).  No projection onto [0, 1]^{d×d} (spec note).
    An iterate that overflows is reported by ``Status.NONFINITE`` (:class:`GDResult`); ValueError
    when the start M0 itself overflows (X too large)."""
    X, W = square_like(X, W)
    M0 = np.ones_like(W) if M0 is None else float_matrix("M0", M0, shape=W.shape)
    lam = check_real("lam", lam, lo=0)
    eta = check_real("eta", eta, lo=0)
    if eta == 0:
        raise ValueError("eta=0.0 must be > 0")
    beta = check_real("momentum", momentum, lo=0, hi=1, hi_open=True)
    steps = check_int("steps", steps, lo=0)
    check_fits(16 * (steps + 1), "the loss and min f̃ histories", steps=steps)
    causal = check_bool("causal", causal)
    out = _gd(X, W, M0, lam, eta, beta, causal, steps)
    status = Status.CONVERGED
    if not is_finite(out):
        ok = np.isfinite(np.asarray(out[1])) & np.isfinite(np.asarray(out[2]))
        steps, status = (int(np.argmin(ok)) if not ok.all() else steps) - 1, Status.NONFINITE
        if steps >= 0:  # rerun to the last iterate whose loss and min f̃ are finite
            out = _gd(X, W, M0, lam, eta, beta, causal, steps)
    M, Ls, mfs = finite(f"a GD iterate (eta={eta!r}, momentum={beta!r}, steps={max(steps, 0)})", out, X)  # M0 overflows
    return GDResult(np.asarray(M), status, np.asarray(Ls), np.asarray(mfs), eta, beta, steps)


def final_iterate(result: GDResult) -> np.ndarray:
    """``result.M`` when every step asked for was taken; ValueError when an iterate overflowed
    (``Status.NONFINITE``), for callers that need the iterate of the full run."""
    if result.status is not Status.CONVERGED:
        raise ValueError(f"a GD iterate (eta={result.eta!r}, momentum={result.momentum!r}) is not finite in float64 "
                         f"after {result.steps} finite steps (status {result.status.value}): the step size is too "
                         f"large for this loss")
    return result.M


@partial(jax.jit, static_argnames=("causal", "steps"))
def _trace(X, W, M0, lam, eta, causal, steps):
    f = _attn(X, W, causal)
    n = X.shape[0]
    allowed = jnp.tril(jnp.ones((n, n), dtype=bool)) if causal else jnp.ones((n, n), dtype=bool)

    def stats(M):
        ft = _attn(X, M * W, causal)
        c = ft - f
        return jnp.stack([0.5 * jnp.sum(c * c), jnp.min(jnp.where(allowed, ft, jnp.inf))])

    def step(M, _):
        G = _loss_grad(X, W, M, f, lam, causal)[1]
        return M - eta * G, stats(M)

    M, rows = jax.lax.scan(step, M0, None, length=steps)
    return jnp.concatenate([rows, stats(M)[None]], axis=0)


def gd_trace(X, W, lam, eta, steps, M0, *, causal: bool = False) -> np.ndarray:
    """Algorithm 1 from M0 for ``steps`` steps, reporting per iterate t = 0..steps the pair
    (L_rec(M_t) = ½‖c(M_t)‖_F², min_ij f̃(M_t)_ij over the allowed entries): what the convergence
    theorems (Thm 4.1 and its corrected form) are stated in."""
    X, W = square_like(X, W)
    M0 = float_matrix("M0", M0, shape=W.shape)
    lam, eta = check_real("lam", lam, lo=0), check_real("eta", eta, lo=0)
    if eta == 0:
        raise ValueError("eta=0.0 must be > 0")
    steps = check_int("steps", steps, lo=0)
    # one compilation per power-of-two length (the rows past ``steps`` are computed and dropped)
    length = max(16, 1 << max(steps - 1, 0).bit_length())
    check_fits(16 * (length + 1), "the trace (two numbers per iterate, at the next power of two)", steps=steps)
    rows = np.asarray(_trace(X, W, M0, lam, eta, check_bool("causal", causal), length))[: steps + 1]
    return finite(f"the GD trace (eta={eta!r}, steps={steps})", rows, X)


def _frobenius(A) -> float:
    """‖A‖_F without an overflowing sum of squares (inf only when ‖A‖_F itself is beyond float64)."""
    with np.errstate(over="ignore"):
        direct = float(np.linalg.norm(A))
        top = float(np.max(np.abs(A)))
        return direct if math.isfinite(direct) else top * float(np.linalg.norm(A / top))


def theorem_lipschitz(X, W, lam) -> float:
    """L = 16 n^{2.5} d R⁶ + λ with R = max(‖X‖_F, ‖W‖_F, 1)(1 + 1e-9) (Thm 5.4, spec def.lipschitz_L)."""
    X, W = square_like(X, W)
    lam = check_real("lam", lam, lo=0)
    n, d = X.shape
    R = max(_frobenius(X), _frobenius(W), 1.0) * (1 + 1e-9)
    if not math.isfinite(R) or 6 * math.log2(R) + math.log2(16 * n ** 2.5 * d) >= 1024:
        raise ValueError(f"L = 16 n^2.5 d R⁶ + λ is not finite in float64: it overflows (R = {R:.3g})")
    return 16 * n ** 2.5 * d * R ** 6 + lam


@partial(jax.jit, static_argnames=("causal", "iters"))
def _power(X, W, f, M, causal, iters):
    def grad_rec(Mv):
        return _loss_grad(X, W, Mv, f, 0.0, causal)[1]

    def body(_, v):
        hv = jax.jvp(grad_rec, (M,), (v,))[1]
        nrm = jnp.linalg.norm(hv)
        return jnp.where(nrm > 0, hv / jnp.where(nrm > 0, nrm, 1.0), v)  # a zero Hessian keeps v

    v0 = jnp.ones_like(M) / M.shape[0] + 1e-3 * jnp.arange(M.size, dtype=M.dtype).reshape(M.shape) / M.size
    v = jax.lax.fori_loop(0, iters, body, v0 / jnp.linalg.norm(v0))
    return jnp.linalg.norm(jax.jvp(grad_rec, (M,), (v,))[1])


def local_lipschitz(X, W, lam, *, causal: bool = True, iters: int = 50) -> float:
    """L_loc = λ + |λ|_max of the Hessian of L_rec at M = 1_{d×d}, by power iteration on exact
    Hessian-vector products (forward-over-reverse autodiff of the closed-form gradient); the
    experiments' step is η = 1/L_loc (spec alg.gd_momentum; the spec's finite-difference HVPs are
    replaced by exact ones)."""
    X, W = square_like(X, W)
    lam = check_real("lam", lam, lo=0)
    causal = check_bool("causal", causal)
    f = finite("f = softmax(XWXᵀ)", _attn_jit(X, W, causal=causal), X)
    return float(finite("L_loc", _power(X, W, f, jnp.ones_like(W), causal, check_int("iters", iters, lo=1)), X)) + lam


def binarize_count(rho, size: int) -> int:
    """k = round(ρ·size) entries zeroed, halves rounded up (spec def.binarize: exactly round(ρd²))."""
    return int(math.floor(check_real("rho", rho, lo=0, hi=1) * size + 0.5 + 1e-9))


def binarize(scores, rho) -> np.ndarray:
    """M_bin ∈ {0,1}^{d×d}: the k = round(ρd²) entries with the smallest score are 0, the rest 1;
    ties broken stably by the row-major flattened index (lower index zeroed first) (alg.binarize)."""
    S = float_matrix("scores", scores)
    k = binarize_count(rho, S.size)
    order = np.argsort(S.reshape(-1), kind="stable")
    out = np.ones(S.size)
    out[order[:k]] = 0.0
    return out.reshape(S.shape)


def prune(X, W, lam, rho, *, causal: bool = True, score: str = "M", steps: int = 1000, momentum: float = 0.9,
          eta: float | None = None, M0=None) -> tuple[np.ndarray, np.ndarray, GDResult]:
    """The method of the paper's experiments (spec §4.1): momentum GD on the loss of Def 3.2 from M0
    (default 1_{d×d}) with η = 1/L_loc (1 when L_loc = 0), then binarisation at ρ by ``score`` "M" (the learned mask,
    primary reading) or "MW" (|M∘W|, the alternative reading).  Returns (M_bin, M_bin∘W, GD result): check
    the GD result's ``status`` (``Status.NONFINITE``: M_bin is of the last finite iterate)."""
    if score not in ("M", "MW"):
        raise ValueError(f"score={score!r} must be 'M' or 'MW'")
    rho = check_real("rho", rho, lo=0, hi=1)
    X, W = square_like(X, W)
    if eta is None:
        L_loc = local_lipschitz(X, W, lam, causal=causal)
        eta = 1.0 / L_loc if L_loc > 0 else 1.0  # L_loc = 0: the loss is constant in M, any step is exact
    res = run_gd(X, W, lam, eta, steps, M0=M0, causal=causal, momentum=momentum)
    s = res.M if score == "M" else np.abs(res.M * W)
    Mb = binarize(s, rho)
    return Mb, Mb * W, res


def iteration_flops(n: int, d: int, *, causal: bool = True) -> float:
    """FLOPs of one GD iteration (loss and gradient) by XLA's cost analysis of the lowered step."""
    n, d = check_int("n", n, lo=1), check_int("d", d, lo=1)
    check_fits(8 * (4 * n * n + 3 * n * d + 3 * d * d), "one GD iteration's n × n and n × d arrays", n=n, d=d)
    nd, dd, nn = (jax.ShapeDtypeStruct(s, jnp.float64) for s in ((n, d), (d, d), (n, n)))
    cost = jax.jit(partial(_loss_grad.__wrapped__, causal=check_bool("causal", causal))).lower(nd, dd, dd, nn, 0.1)
    cost = cost.cost_analysis()
    if isinstance(cost, (list, tuple)):
        cost = cost[0]
    return float(cost["flops"])
