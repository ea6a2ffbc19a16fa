"""The pruning baselines exactly as ``spec/pruning_baselines.md`` describes them (XW orientation:
W ∈ R^{d_in×d_out}, the layer computes X W; row i belongs to input feature i), and their use on
attention (W_Q and W_K pruned separately at the same ρ with the same calibration X, spec §0).

- Wanda (§1): S[i, o] = |W[i, o]|·‖X[:, i]‖₂; per output column prune the k(ρ, d_in) smallest, stable.
- SparseGPT (§2, unstructured, mode "exact", B = B_s = 128, p = 0.01): H = 2XᵀX, dead inputs fixed,
  H_λ = H + p·mean(diag H)·I, U = upper Cholesky factor of H_λ⁻¹, per block the mask of the
  k(ρ, block size·d_out) smallest w²/U_ii² (stable over the out-then-in flattening), the OBS sweep with
  lazy batch updates.
- Magnitude pruning of the fused W (sanity baseline): the round(ρd²) smallest |W_ij| zeroed.
"""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from .._validation import check_int, check_real  # noqa: E402
from ..results import Status  # noqa: E402
from ._gd import binarize  # noqa: E402
from ._validate import float_matrix  # noqa: E402

__all__ = [
    "SparseGPTResult",
    "count_pruned",
    "magnitude",
    "prune_qk",
    "pruned_weight",
    "sparsegpt",
    "sparsegpt_flops",
    "wanda",
]


def count_pruned(rho, G: int) -> int:
    """k(ρ, G) = floor(ρ·G + 1e-9) (baselines spec §0, the count rule)."""
    return int(math.floor(check_real("rho", rho, lo=0, hi=1) * G + 1e-9))


def _layer(W, X):
    W = float_matrix("W", W)
    X = float_matrix("X", X)
    if X.shape[1] != W.shape[0]:
        raise ValueError(f"X.shape={X.shape} must have d_in = W.shape[0] = {W.shape[0]} columns")
    return W, X


@partial(jax.jit, static_argnames="k")
def _wanda(W, X, k):
    c = jnp.sqrt(jnp.sum(X * X, axis=0))
    S = jnp.abs(W) * c[:, None]
    order = jnp.argsort(S, axis=0, stable=True)  # per output column, ascending, lower i first
    ranks = jnp.argsort(order, axis=0, stable=True)
    mask = ranks < k
    return jnp.where(mask, 0.0, W), mask


@partial(jax.jit, static_argnames=("n", "m"))
def _wanda_nm(W, X, n, m):
    c = jnp.sqrt(jnp.sum(X * X, axis=0))
    S = (jnp.abs(W) * c[:, None]).reshape(W.shape[0] // m, m, W.shape[1])  # groups of m consecutive inputs
    ranks = jnp.argsort(jnp.argsort(S, axis=1, stable=True), axis=1, stable=True)
    mask = (ranks < n).reshape(W.shape)
    return jnp.where(mask, 0.0, W), mask


def _nm(nm, rho, d_in: int, blocksize: int | None = None) -> tuple[int, int]:
    """(N, M) of an N:M pattern: 0 < N < M, ρ = N/M, M dividing d_in (and the block size)."""
    if not (isinstance(nm, tuple) and len(nm) == 2 and all(isinstance(v, (int, np.integer)) for v in nm)
            and 0 < nm[0] < nm[1]):
        raise ValueError(f"nm={nm!r} must be a pair of integers (N, M) with 0 < N < M")
    n, m = int(nm[0]), int(nm[1])
    if abs(check_real("rho", rho, lo=0, hi=1) - n / m) > 1e-12:
        raise ValueError(f"rho={rho!r} must be N/M = {n / m:g} for nm={nm!r} (spec §1.4, §2.7)")
    if d_in % m or (blocksize is not None and blocksize % m):
        raise ValueError(f"nm={nm!r}: M must divide d_in = {d_in}" + (f" and blocksize = {blocksize}" if blocksize else ""))
    return n, m


def wanda(W, X, rho, *, nm: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Wanda (spec §1.1–1.5), no weight update: unstructured (per output, the k(ρ, d_in) smallest scores),
    or N:M with ``nm`` = (N, M) (§1.4: per output and group of M consecutive inputs the N smallest, stable;
    ρ must be N/M).  Returns (W̃, mask) with mask True = pruned."""
    W, X = _layer(W, X)
    if nm is None:
        Wt, mask = _wanda(W, X, count_pruned(rho, W.shape[0]))
    else:
        Wt, mask = _wanda_nm(W, X, *_nm(nm, rho, W.shape[0]))
    return np.asarray(Wt), np.asarray(mask)


class SparseGPTResult(NamedTuple):
    """``W`` the pruned weight W̃ (exact zeros on the mask); ``status`` ``Status.CONVERGED``, or
    ``Status.NOT_POSITIVE_DEFINITE`` when the damped Hessian's factorisation failed for every p < 1
    (spec §2.4; then nothing is pruned: ``W`` is the input, ``mask`` all False, ``loss`` 0);
    ``mask`` True = pruned; ``loss`` Σ e²/2 (spec §2.5: = ‖XΔ‖_F² + (λ/2)‖Δ‖_F² with H = 2XᵀX);
    ``percdamp`` the p used (the last p tried when the factorisation failed)."""

    W: np.ndarray
    status: Status
    mask: np.ndarray
    loss: float
    percdamp: float


def _inverse_factor(H):
    """U upper with UᵀU = H⁻¹: L = chol(H), G = H⁻¹ by two triangular solves, symmetrised, U = chol(G)ᵀ."""
    L = jnp.linalg.cholesky(H)
    eye = jnp.eye(H.shape[0], dtype=H.dtype)
    Linv = jax.scipy.linalg.solve_triangular(L, eye, lower=True)
    G = Linv.T @ Linv
    G = (G + G.T) / 2
    return jnp.linalg.cholesky(G).T


@partial(jax.jit, static_argnames=("rho", "blocksize", "nm"))
def _sparsegpt(W, X, percdamp, rho, blocksize, nm=None):
    d_in, d_out = W.shape
    H = 2.0 * (X.T @ X)
    dead = jnp.diag(H) == 0
    H = H + jnp.diag(jnp.where(dead, 1.0, 0.0))
    W = jnp.where(dead[:, None], 0.0, W)
    H = H + percdamp * jnp.mean(jnp.diag(H)) * jnp.eye(d_in, dtype=H.dtype)
    U = _inverse_factor(H)
    Ud = jnp.diag(U)
    masks, loss = [], 0.0
    for i1 in range(0, d_in, blocksize):
        i2 = min(i1 + blocksize, d_in)
        b = i2 - i1
        Wb = W[i1:i2]
        Ub = U[i1:i2, i1:i2]
        if nm is None:
            scores = (Wb * Wb / (Ud[i1:i2] ** 2)[:, None]).T.reshape(-1)  # canonical: output o, then input i
            k = int(math.floor(rho * b * d_out + 1e-9))
            order = jnp.argsort(scores, stable=True)
            flat = jnp.zeros(b * d_out, dtype=bool).at[order[:k]].set(True)
            Mb = flat.reshape(d_out, b).T
        else:
            Mb = jnp.zeros((b, d_out), dtype=bool)  # chosen group by group inside the sweep (§2.7)

        def row(j, carry, Ub=Ub, Ud=Ud[i1:i2]):
            Wb, E, Mb = carry
            if nm is not None:  # at the first row of each group: per output the N smallest w²/U_ii², current W
                n_, m_ = nm
                start = (j // m_) * m_
                G = jax.lax.dynamic_slice_in_dim(Wb, start, m_, axis=0)
                s = G * G / (jax.lax.dynamic_slice_in_dim(Ud, start, m_) ** 2)[:, None]
                ranks = jnp.argsort(jnp.argsort(s, axis=0, stable=True), axis=0, stable=True)
                Mb = jnp.where(j % m_ == 0, jax.lax.dynamic_update_slice_in_dim(Mb, ranks < n_, start, axis=0), Mb)
            e = jnp.where(Mb[j], Wb[j] / Ub[j, j], 0.0)
            Wb = Wb - jnp.outer(Ub[j], e)  # U upper: rows < j untouched (U[j, :j] = 0)
            Wb = Wb.at[j].set(jnp.where(Mb[j], 0.0, Wb[j]))
            return Wb, E.at[j].set(e), Mb

        Wb, E, Mb = jax.lax.fori_loop(0, b, row, (Wb, jnp.zeros_like(Wb), Mb))
        W = W.at[i1:i2].set(Wb)
        if i2 < d_in:
            W = W.at[i2:].add(-(U[i1:i2, i2:].T @ E))  # lazy batch update (spec §2.5 step 4)
        masks.append(Mb)
        loss = loss + 0.5 * jnp.sum(E * E)
    return W, jnp.concatenate(masks, axis=0), loss, U


def _check_gram_fits(X) -> None:
    """ValueError when the layer Hessian 2XᵀX overflows float64: its largest entry is a diagonal one
    (|2XᵀX|_ij ≤ 2‖X_:i‖‖X_:j‖), 2‖X_:j‖², computed from the column norms without overflow."""
    X = np.asarray(X, dtype=np.float64)
    top = np.max(np.abs(X), axis=0)
    scale = np.where(top > 0, top, 1.0)
    norms = top * np.linalg.norm(X / scale, axis=0)  # scaled: no overflow before the check
    j = int(np.argmax(norms))
    if not norms[j] <= math.sqrt(np.finfo(np.float64).max / 2):
        raise ValueError(f"X: the layer Hessian 2XᵀX overflows float64 (column {j} has ‖X[:, {j}]‖ = "
                         f"{float(norms[j]):.3g}, so 2‖X[:, {j}]‖² > {np.finfo(np.float64).max:.3g}): scale X down")


def sparsegpt(W, X, rho, *, blocksize: int = 128, percdamp: float = 0.01,
              nm: tuple[int, int] | None = None) -> SparseGPTResult:
    """SparseGPT, mode "exact" (spec §2.1–2.6) with the optional dampening retry of §2.4 (p ← p + 0.01
    while the factorisation fails; once p ≥ 1 the result's status is ``Status.NOT_POSITIVE_DEFINITE``
    and nothing is pruned): unstructured, or N:M with ``nm`` = (N, M) (§2.7:
    at each group's first row, per output the N smallest w²/U_ii² of the M rows, from the current
    updated W, stable; ρ must be N/M, M must divide d_in and the block size)."""
    W, X = _layer(W, X)
    rho = check_real("rho", rho, lo=0, hi=1)
    blocksize = check_int("blocksize", blocksize, lo=1)
    nm = None if nm is None else _nm(nm, rho, W.shape[0], blocksize)
    p = check_real("percdamp", percdamp, lo=0, hi=1, hi_open=True)
    _check_gram_fits(X)
    tried = p
    while p < 1:
        Wt, mask, loss, U = _sparsegpt(W, X, p, rho, blocksize, nm)
        if bool(jnp.all(jnp.isfinite(U))) and bool(jnp.all(jnp.diag(U) > 0)) and bool(jnp.all(jnp.isfinite(Wt))):
            return SparseGPTResult(np.asarray(Wt), Status.CONVERGED, np.asarray(mask), float(loss), p)
        tried, p = p, p + 0.01
    return SparseGPTResult(np.array(W), Status.NOT_POSITIVE_DEFINITE, np.zeros(W.shape, dtype=bool), 0.0, tried)


def pruned_weight(result: SparseGPTResult) -> np.ndarray:
    """``result.W`` when SparseGPT pruned; ValueError when its damped Hessian factorisation failed
    (``Status.NOT_POSITIVE_DEFINITE``), for callers that need a pruned weight."""
    if result.status is not Status.CONVERGED:
        raise ValueError(f"SparseGPT: the damped Hessian factorisation failed up to p = 1 "
                         f"(status {result.status.value}, last p = {result.percdamp:.2f})")
    return result.W


def sparsegpt_flops(n: int, d: int) -> float:
    """FLOPs of SparseGPT on one d×d weight with n calibration rows (XLA cost analysis)."""
    n, d = check_int("n", n, lo=1), check_int("d", d, lo=1)
    fn = jax.jit(partial(_sparsegpt.__wrapped__, rho=0.5, blocksize=128))
    cost = fn.lower(jnp.ones((d, d)), jnp.ones((n, d)), 0.01).cost_analysis()
    return float((cost[0] if isinstance(cost, (list, tuple)) else cost)["flops"])


def magnitude(W, rho) -> np.ndarray:
    """Magnitude pruning of the fused W: the round(ρd²) smallest |W_ij| set to 0 (stable ties)."""
    W = float_matrix("W", W)
    return binarize(np.abs(W), rho) * W


def prune_qk(W_Q, W_K, X, rho, method: str) -> np.ndarray:
    """W̃ = W̃_Q W̃_Kᵀ with W̃_Q, W̃_K pruned separately by ``method`` ("wanda" or "sparsegpt") at the
    same ρ and calibration X (baselines spec §0, attention use); the product is generally dense."""
    if method == "wanda":
        return wanda(W_Q, X, rho)[0] @ wanda(W_K, X, rho)[0].T
    if method == "sparsegpt":
        return pruned_weight(sparsegpt(W_Q, X, rho)) @ pruned_weight(sparsegpt(W_K, X, rho)).T
    raise ValueError(f"method={method!r} must be 'wanda' or 'sparsegpt'")
