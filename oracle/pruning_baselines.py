"""mpmath references of the pruning baselines (spec ``shared/spec/pruning_baselines.md``) and of the
mask binarisation of paper 000 (spec attention_pruning.md, def.binarize), at the working precision.

XW orientation throughout (baselines spec §0): W ∈ R^{d_in×d_out}, the layer computes X W, row i of W
belongs to input feature i.  Inputs are ``mp.matrix``; masks are returned as lists of lists of bools
(True = pruned).  SparseGPT here is the *slow* reference of spec §2.5: for each input row i it
inverts H_λ[i:, i:] explicitly and applies the OBS step, with the mask chosen per block of B rows from
the saliency w²/[(H_λ[i:, i:])⁻¹]₀₀ (= w²/U_ii², spec §2.3), never from a Cholesky factor.
"""

from __future__ import annotations

import math

from mpmath import mp

from .attention_pruning import check_ratio
from .precision import check_mp

__all__ = ["BINARIZE_COUNT_RULE", "COUNT_RULE", "TIE_RULE", "binarize_count", "binarize_mask", "count_pruned",
           "sparsegpt", "wanda"]

COUNT_RULE = ("k(ρ, G) = ⌊ρ·G + 10⁻⁹⌋ entries pruned in a group of G (rounded down; the 10⁻⁹ guards a float product "
              "that misses an integer from below: 15/22·22 = 14.999999999999998 gives 15, int(ρ·G) gives 14)")
"""The count rule of Wanda and SparseGPT (baselines spec §0), stated once: :func:`count_pruned` computes it and
the adapter contract (``docs/contract.md``) quotes this text."""

BINARIZE_COUNT_RULE = ("k = ⌊ρ·size + ½ + 10⁻⁹⌋ entries zeroed: ρ·size rounded to the nearest integer with halves "
                       "rounded up (ρ·size = 2.5 gives 3; Python's round and numpy's rint round halves to even and "
                       "give 2), the 10⁻⁹ guarding float products as in the count rule")
"""The count rule of the binarisation (spec def.binarize, "k := round(ρd²)", read with halves up), stated once:
:func:`binarize_count` computes it and the adapter contract quotes this text."""

TIE_RULE = ("equal scores: the lower index is pruned first (a stable ascending sort; numpy's default argsort "
            "is not stable)")
"""The tie rule of every mask (:func:`binarize_mask`: the row-major flattened index; :func:`wanda`: the input
index i within a column; :func:`sparsegpt`: output o, then input i), stated once."""


def count_pruned(rho, G: int) -> int:
    """k(ρ, G) of :data:`COUNT_RULE`: ⌊ρ·G + 10⁻⁹⌋, the number of entries a group of G prunes (baselines
    spec §0)."""
    rho = check_ratio(rho)
    return int(math.floor(rho * G + 1e-9))


def binarize_count(rho, size: int) -> int:
    """k of :data:`BINARIZE_COUNT_RULE`: ⌊ρ·size + ½ + 10⁻⁹⌋ zeros of the binarised mask (spec def.binarize's
    round(ρd²), halves rounded up, not to even)."""
    rho = check_ratio(rho)
    return int(math.floor(rho * size + 0.5 + 1e-9))


def _stable_smallest(scores, k):
    """Indices of the k smallest scores, ties to the lower index (:data:`TIE_RULE`)."""
    order = sorted(range(len(scores)), key=lambda i: (scores[i], i))
    return set(order[:k])


def binarize_mask(scores, rho):
    """M_bin ∈ {0,1}^{d×d} (as an mp.matrix): exactly k (:data:`BINARIZE_COUNT_RULE`) zeros at the smallest scores,
    ties broken by the row-major flattened index (spec def.binarize)."""
    check_mp(scores, "scores", ndim=2)
    d1, d2 = scores.rows, scores.cols
    flat = [scores[i, j] for i in range(d1) for j in range(d2)]
    zero = _stable_smallest(flat, binarize_count(rho, d1 * d2))
    return mp.matrix([[mp.mpf(0) if i * d2 + j in zero else mp.mpf(1) for j in range(d2)] for i in range(d1)])


def wanda(W, X, rho):
    """Wanda (spec §1): S[i, o] = |W[i, o]|·‖X[:, i]‖₂; in each output column o prune the k(ρ, d_in)
    smallest (stable: lower i first).  Returns (W̃, mask)."""
    check_mp(W, "W", ndim=2)
    check_mp(X, "X", ndim=2)
    d_in, d_out = W.rows, W.cols
    if X.cols != d_in:
        raise ValueError(f"X must have d_in = {d_in} columns, got {X.cols}")
    c = [mp.sqrt(mp.fsum(X[t, i] ** 2 for t in range(X.rows))) for i in range(d_in)]
    k = count_pruned(rho, d_in)
    mask = [[False] * d_out for _ in range(d_in)]
    for o in range(d_out):
        for i in _stable_smallest([abs(W[i, o]) * c[i] for i in range(d_in)], k):
            mask[i][o] = True
    Wt = mp.matrix([[mp.mpf(0) if mask[i][o] else W[i, o] for o in range(d_out)] for i in range(d_in)])
    return Wt, mask


def sparsegpt(W, X, rho, *, blocksize: int = 128, percdamp=0.01):
    """SparseGPT, unstructured, mode "exact" (spec §2.1–2.6), by the slow explicit-inverse OBS sweep.

    H = 2XᵀX; dead inputs (H_ii = 0) get H_ii = 1 and W[i, :] = 0; H_λ = H + p·mean(diag H)·I.  For
    each block [i1, i2) of ``blocksize`` rows the mask is the k(ρ, (i2−i1)·d_out) smallest saliencies
    w²/[(H_λ[i:, i:])⁻¹]₀₀ of the current W (ties: stable over the canonical flattening, output o
    then input i); then for each row i and each pruned entry (i, o), the OBS step on the inputs not
    yet processed, W[i:, o] += δ with δ = −(ŵ_i/[H_F⁻¹]₀₀)·[H_F⁻¹]₀,: (F = {i, …, d_in − 1}), and
    W̃[i, o] := 0 exactly.

    Returns (W̃, mask, loss) with loss = Σ_i Σ_o e_o²/2 in the normalisation of spec §2.5
    (e_o = ŵ_i/U_ii, U_ii² = [H_F⁻¹]₀₀).
    """
    check_mp(W, "W", ndim=2)
    check_mp(X, "X", ndim=2)
    d_in, d_out = W.rows, W.cols
    if X.cols != d_in:
        raise ValueError(f"X must have d_in = {d_in} columns, got {X.cols}")
    if int(blocksize) != blocksize or blocksize < 1:
        raise ValueError(f"blocksize={blocksize!r} must be a positive integer")
    H = (X.T * X) * 2
    W = W.copy()
    for i in range(d_in):
        if H[i, i] == 0:
            H[i, i] = mp.mpf(1)
            for o in range(d_out):
                W[i, o] = mp.mpf(0)
    damp = mp.mpf(percdamp) * mp.fsum(H[i, i] for i in range(d_in)) / d_in
    for i in range(d_in):
        H[i, i] += damp
    inverses = [mp.inverse(H[i:, i:]) for i in range(d_in)]  # [H_F_i]⁻¹ for F_i = {i, …, d_in − 1}
    mask = [[False] * d_out for _ in range(d_in)]
    loss = mp.mpf(0)
    for i1 in range(0, d_in, blocksize):
        i2 = min(i1 + blocksize, d_in)
        flat = [(W[i, o] ** 2 / inverses[i][0, 0], o * (i2 - i1) + (i - i1), i, o)
                for o in range(d_out) for i in range(i1, i2)]
        k = count_pruned(rho, (i2 - i1) * d_out)
        for _, _, i, o in sorted(flat, key=lambda t: (t[0], t[1]))[:k]:
            mask[i][o] = True
        for i in range(i1, i2):
            Hinv = inverses[i]
            for o in range(d_out):
                if not mask[i][o]:
                    continue
                e = W[i, o] / Hinv[0, 0]
                loss += W[i, o] ** 2 / Hinv[0, 0] / 2
                for r in range(i, d_in):
                    W[r, o] -= e * Hinv[0, r - i]
                W[i, o] = mp.mpf(0)
    return W, mask, loss
