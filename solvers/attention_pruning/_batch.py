"""The pruning loss over several calibration sequences at once (the real-model experiment, spec §4.2):
L(M) = Σ_b ½‖f̃_b(M) − f_b‖_F² + (λ/2)‖M‖_F², f_b = softmax(X_b W X_bᵀ) non-causal (a bidirectional
encoder) over the valid keys of sequence b, the rows of padded queries left out.  Its gradient is the
sum of Thm 5.3's per sequence, W∘(Σ_b X_bᵀ p_b X_b) + λM; the method is the experiments' momentum-0.9
GD with η = 1/L_loc from M0 = 1, then binarisation at ρ (as :func:`prune` for one sequence).
"""

from __future__ import annotations

from functools import partial

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from .._validation import check_int, check_real  # noqa: E402
from ..memory import check_fits  # noqa: E402
from ._gd import binarize  # noqa: E402
from ._validate import finite, float_matrix  # noqa: E402

__all__ = ["batch_relative_error", "prune_batch"]


def _attn(Xs, Wm, valid):
    S = jnp.einsum("bti,ij,bsj->bts", Xs, Wm, Xs)
    S = jnp.where(valid[:, None, :], S, -jnp.inf)
    S = S - jnp.max(S, axis=2, keepdims=True)
    E = jnp.exp(S)
    return E / jnp.sum(E, axis=2, keepdims=True) * valid[:, :, None]


def _loss_grad(Xs, W, M, f, lam, valid):
    ft = _attn(Xs, M * W, valid)
    c = ft - f
    p1 = ft * c
    p = p1 - jnp.sum(p1, axis=2, keepdims=True) * ft
    G = W * jnp.einsum("bti,bts,bsj->ij", Xs, p, Xs) + lam * M
    return 0.5 * jnp.sum(c * c) + 0.5 * lam * jnp.sum(M * M), G


@partial(jax.jit, static_argnames=("steps", "iters"))
def _prune(Xs, W, valid, lam, steps, iters):
    f = _attn(Xs, W, valid)
    ones = jnp.ones_like(W)

    def grad_rec(Mv):
        return _loss_grad(Xs, W, Mv, f, 0.0, valid)[1]

    def power(_, v):
        hv = jax.jvp(grad_rec, (ones,), (v,))[1]
        nrm = jnp.linalg.norm(hv)
        return jnp.where(nrm > 0, hv / jnp.where(nrm > 0, nrm, 1.0), v)

    v0 = ones / W.shape[0] + 1e-3 * jnp.arange(W.size, dtype=W.dtype).reshape(W.shape) / W.size
    v = jax.lax.fori_loop(0, iters, power, v0 / jnp.linalg.norm(v0))
    L_loc = jnp.linalg.norm(jax.jvp(grad_rec, (ones,), (v,))[1]) + lam
    eta = jnp.where(L_loc > 0, 1.0 / L_loc, 1.0)

    def step(carry, _):
        M, V = carry
        L, G = _loss_grad(Xs, W, M, f, lam, valid)
        V = 0.9 * V + G
        return (M - eta * V, V), L

    (M, _), losses = jax.lax.scan(step, (ones, jnp.zeros_like(W)), None, length=steps)
    return M, losses, eta


def _batch(Xs, valid, W):
    if isinstance(Xs, np.ma.MaskedArray) and np.ma.is_masked(Xs):
        raise ValueError("Xs must not be a masked array with masked entries (their values would be used)")
    Xs = np.asarray(Xs, dtype=np.float64)
    valid = np.asarray(valid, dtype=bool)
    if Xs.ndim != 3 or Xs.size == 0:
        raise ValueError(f"Xs.shape={Xs.shape} must be a nonempty (B, T, d) array")
    if valid.shape != Xs.shape[:2] or not np.all(valid[:, 0]):
        raise ValueError(f"valid.shape={valid.shape} must be {Xs.shape[:2]} with valid[:, 0] all True")
    if not np.all(np.isfinite(Xs)):
        raise ValueError("Xs must be finite (it holds NaN or inf)")
    W = float_matrix("W", W, shape=(Xs.shape[2], Xs.shape[2]))
    return Xs, valid, W


def prune_batch(Xs, valid, W, lam, rhos, *, steps: int = 300, iters: int = 30) -> tuple[dict, np.ndarray]:
    """Momentum-0.9 GD on the multi-sequence loss (module docstring), η = 1/L_loc with L_loc = λ + the
    Hessian's largest |eigenvalue| at M = 1 (``iters`` power steps of exact HVPs), then binarisation of
    the one learned M at every ρ by both scores.

    **Arguments:** ``Xs`` (B, T, d), ``valid`` (B, T) bool (False = padding), ``W`` (d, d), ``lam`` ≥ 0,
    ``rhos`` a tuple of ratios in [0, 1].
    **Returns:** ({(score, ρ): M_bin∘W} for score "M" (the learned mask) and "MW" (|M∘W|);
    the losses L(M_t), t < steps)."""
    rhos = tuple(check_real("rho", r, lo=0, hi=1) for r in rhos)
    Xs, valid, W = _batch(Xs, valid, W)
    lam = check_real("lam", lam, lo=0)
    steps = check_int("steps", steps, lo=1)
    check_fits(8 * steps, "the loss history", steps=steps)
    M, losses, _ = finite(f"a GD iterate (steps={steps})", _prune(Xs, W, valid, lam, steps, check_int("iters", iters, lo=1)),
                          Xs)
    M = np.asarray(M)
    out = {(score, r): binarize(s, r) * W for score, s in (("M", M), ("MW", np.abs(M * W))) for r in rhos}
    return out, np.asarray(losses)


_attn_jit = jax.jit(_attn)


def batch_relative_error(Xs, valid, W, W_pruned):
    """(Σ_b ‖f̃_b − f_b‖_F²)^{1/2} / (Σ_b ‖f_b‖_F²)^{1/2} over the valid rows and keys (non-causal);
    ``W_pruned`` (d, d) gives a float, a stack (k, d, d) k floats (f computed once)."""
    Xs, valid, W = _batch(Xs, valid, W)
    stack = np.asarray(W_pruned, dtype=np.float64)
    single = stack.ndim == 2
    stack = stack[None] if single else stack
    if stack.ndim != 3:
        raise ValueError(f"W_pruned.shape={stack.shape} must be (d, d) or (k, d, d)")
    Wps = [float_matrix("W_pruned", Wp, shape=W.shape) for Wp in stack]
    f = _attn_jit(Xs, W, valid)
    nf = jnp.linalg.norm(finite("f = softmax(X_b W X_bᵀ)", f, Xs))
    out = [float(jnp.linalg.norm(finite("f̃ = softmax(X_b W_pruned X_bᵀ)", _attn_jit(Xs, Wp, valid), Xs) - f) / nf)
           for Wp in Wps]
    return out[0] if single else out
