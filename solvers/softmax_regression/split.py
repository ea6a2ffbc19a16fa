"""Split-Hessian Newton for softmax regression: one pass over A per iteration.

Not the paper's Algorithm 1 but the same idea (an approximate Hessian AᵀD̃A, exact gradient) with
a different sparsifier, built for large n; see :func:`split_newton`.  Spec
``spec/softmax_regression.md`` §2 (``def.hessian_L``, ``def.B_rank_diag``).  The iteration is
:func:`solvers.newton.iterate`; every stop is a :class:`solvers.newton.Status`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from .._validation import all_finite, check_int
from ..newton import Step, iterate
from ..results import Status
from ..sketches import as_key
from .exact import ARMIJO_C, MAX_HALVINGS, NewtonResult, check_start, host_direction, prepare_solve
from .objective import loss_u, symmetrize

__all__ = ["one_pass_state", "split_newton"]

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
    """One row block of the one-pass state (see :func:`one_pass_state`)."""
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
    """From the block sums: (u, L, ∇L, ‖∇L‖, Aᵀf, Aᵀv, κ₁, E), see :func:`one_pass_state`."""
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
def one_pass_state(A, b, w2, x):
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
    whether both are finite, and :func:`one_pass_state` at x from the same blocks.  A NaN or
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
    return symmetrize(G), rn2, finite, _finish_state(m, V, u, b, w2)


@jax.jit
def _loss_along(u, Ap, t, b, w2):
    return loss_u(u + t * Ap, b, w2)


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
    """The acceptance rule of :func:`~.exact.armijo_step`, on the host."""
    if not math.isfinite(Lt):
        return False
    noise = 64.0 * np.finfo(np.float64).eps * (abs(L0) + np.finfo(np.float64).tiny)
    return Lt <= L0 + ARMIJO_C * t * gtp or (t == 1.0 and -gtp <= noise)


def _best_halving(u, Ap, b, w2, L0: float, gtp: float):
    """Line search of :func:`split_newton` after a rejected full step: t = 2^-k for the
    first k ≥ 1 that satisfies Armijo, then further halvings while L keeps decreasing
    (each trial is O(n) on u + t·Ap; the pass over A that follows is the expensive part, so
    the best point of the halving sequence is worth a few more trials).  None if no t works."""
    t, Lt = 1.0, None
    for _ in range(MAX_HALVINGS):
        t *= 0.5
        Lt = float(_loss_along(u, Ap, t, b, w2))
        if _armijo_accepts(L0, Lt, gtp, t):
            break
    else:
        return None
    while t > 2.0 ** -MAX_HALVINGS:
        L_half = float(_loss_along(u, Ap, 0.5 * t, b, w2))
        if not L_half < Lt:
            break
        t, Lt = 0.5 * t, L_half
    return t


def split_newton(A, b, w, *, key, x0=None, tol: float = 1e-10, max_iter: int = 100,
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
    4. One pass over A at x + p (:func:`one_pass_state`) gives u = A(x + p), L, ∇L, Aᵀf, Aᵀv
       and E at the new point.  If the Armijo rule rejects the full step, the line search
       halves t on L(u + t·Ap) with Ap = A(x + p) − Ax (O(n) each, no pass over A) and one
       more pass is made at the accepted point.

    So an accepted full step costs one read of A (the other solvers read it two or three
    times) plus O(k d²) for the k sampled rows.  Randomness: ``key`` (a ``jax.random`` key or an
    int seed, :func:`solvers.sketches.as_key`) seeds a numpy PCG64 generator with the key's
    data, so runs are reproducible and ``key=5`` equals ``key=jax.random.key(5)``.  The host
    work per iteration is d × d (or k × d for the k sampled rows); a benchmark that runs it
    next to XLA's threads may want one BLAS thread (``threadpoolctl``), which is its choice.

    **Arguments:** as :func:`exact_newton`, plus ``key``, ``samples`` (expected
    number of sampled rows of the E part, default 32d) and ``gram_dtype`` ("float64" or
    "float32").

    **Returns:** :class:`NewtonResult`; ``sample_sizes[t]`` = rows drawn for Ẽ at iteration t.
    """
    A, b, w2, x, tol, max_iter = prepare_solve(A, b, w, x0, tol, max_iter, callback,
                                                 check_A_finite=False)
    rng = np.random.default_rng(np.asarray(jax.random.key_data(as_key(key))))
    n, d = A.shape
    samples = 32 * d if samples is None else check_int("samples", samples, lo=1)
    if gram_dtype not in ("float64", "float32"):
        raise ValueError(f"gram_dtype={gram_dtype!r} must be 'float64' or 'float32'")
    G, rn2, finite, state0 = _split_setup(A, b, w2, x, gram_dtype=gram_dtype)
    if not bool(finite):
        if not bool(all_finite(A)):
            raise ValueError("A must be finite (contains NaN or inf)")
        raise ValueError(f"A (max |A_ij| = {float(jnp.max(jnp.abs(A))):.3g}) must be small enough "
                         f"that AᵀW²A and the row norms are finite in gram_dtype={gram_dtype!r}")
    check_start(state0[1], state0[3], state0[0], x)
    G, rn2, A_host = np.asarray(G), np.asarray(rn2), np.asarray(A)
    safeguard = bool(safeguard)

    def step(t, state):
        x, (u, L0, g, _, af, av, kappa1, E) = state
        H, k = _split_hessian(G, A_host, rn2, np.asarray(E), np.asarray(af), np.asarray(av),
                              float(kappa1), samples, rng)
        g_host = np.asarray(g)
        p = host_direction(H, g_host, safeguard)
        if p is None:
            return Status.NOT_POSITIVE_DEFINITE
        if not np.all(np.isfinite(p)):
            return Status.NONFINITE
        gtp = float(g_host @ p)
        if safeguard and not gtp < 0:
            return Status.STALLED  # no descent direction (g = 0 to rounding)
        x_new = x + p
        new = one_pass_state(A, b, w2, x_new)
        if safeguard and not _armijo_accepts(float(L0), float(new[1]), gtp, 1.0):
            t_step = _best_halving(u, new[0] - u, b, w2, float(L0), gtp)
            if t_step is None:
                return Status.STALLED
            x_new = x + t_step * p
            new = one_pass_state(A, b, w2, x_new)
        return Step((x_new, new), k)

    res = iterate(step, (x, state0), measure=lambda s: s[1][3], point=lambda s: np.asarray(s[0]),
                  tol=tol, max_iter=max_iter, callback=callback)
    return NewtonResult.of(res)
