"""Adapter functions of paper 000 (attention-weight pruning; spec/attention_pruning.md and
spec/pruning_baselines.md).  XW orientation for the baselines: W ∈ R^{d_in×d_out}, the layer is X W."""

from __future__ import annotations

import functools
import os

import numpy as np

from .. import attention_pruning as _P

__all__ = [
    "attention_pruning_bert_attention",
    "attention_pruning_bert_encode",
    "attention_pruning_binarize",
    "attention_pruning_gd_step",
    "attention_pruning_gd_trace",
    "attention_pruning_gradient",
    "attention_pruning_iteration_flops",
    "attention_pruning_loss",
    "attention_pruning_prune",
    "attention_pruning_prune_batch",
    "attention_pruning_relative_error",
    "attention_pruning_relative_error_batch",
    "attention_pruning_sparsegpt",
    "attention_pruning_wanda",
]


def _flag(causal):
    """``causal`` as the solvers take it: a 0-d bool array (how a flag may arrive) read as its bool; any
    other value passed on unchanged, so the solvers refuse a truthy string or number (ValueError)."""
    if isinstance(causal, np.ndarray) and causal.shape == () and causal.dtype == np.bool_:
        return bool(causal)
    return causal


def attention_pruning_loss(X, W, M, lam, causal):
    """L(M) of Def 1.2 (causal=False) or Def 3.2 (causal=True)."""
    return _P.loss(X, W, M, lam, causal=_flag(causal))


def attention_pruning_gradient(X, W, M, lam, causal):
    """∇_M L(M) = W∘(Xᵀp(M)X) + λM (Thm 5.3), shape (d, d)."""
    return _P.gradient(X, W, M, lam, causal=_flag(causal))


def attention_pruning_gd_step(X, W, M, lam, eta, causal):
    """One step of Algorithm 1: M − η∇L(M)."""
    return _P.final_iterate(_P.run_gd(X, W, lam, eta, 1, M0=M, causal=_flag(causal)))


def attention_pruning_gd_trace(X, W, lam, eta, steps, M0, causal):
    """Algorithm 1 from M0: per iterate t = 0..steps the row (½‖c(M_t)‖_F², min_ij f̃(M_t)_ij); shape (steps+1, 2)."""
    return _P.gd_trace(X, W, lam, eta, int(steps), M0, causal=_flag(causal))


def attention_pruning_binarize(scores, rho):
    """M_bin: 0 at the round(ρd²) smallest scores (stable ties by flattened index), 1 elsewhere."""
    return _P.binarize(scores, rho)


def attention_pruning_prune(X, W, lam, rho, causal, score="M", steps=300):
    """The experiments' method: momentum-0.9 GD (η = 1/L_loc, M0 = 1) then binarisation by ``score``;
    returns the pruned weight M_bin∘W."""
    M_bin_W, result = _P.prune(X, W, lam, rho, causal=_flag(causal), score=score, steps=int(steps))[1:]
    _P.final_iterate(result)  # ValueError when the run overflowed
    return M_bin_W


def attention_pruning_relative_error(X, W, W_pruned, causal):
    """‖f̃ − f‖_F/‖f‖_F for the pruned weight (spec def.rel_error)."""
    return _P.relative_error(X, W, W_pruned, causal=_flag(causal))


def attention_pruning_wanda(W, X, rho):
    """Wanda-pruned W̃ (XW orientation, per-output groups)."""
    return _P.wanda(W, X, rho)[0]


def attention_pruning_sparsegpt(W, X, rho):
    """SparseGPT-pruned W̃ (XW orientation, exact mode, B = 128, p = 0.01)."""
    return _P.pruned_weight(_P.sparsegpt(W, X, rho))


def attention_pruning_iteration_flops(n, d):
    """FLOPs of one GD iteration (loss and gradient, causal) on an n×d problem (XLA cost analysis)."""
    return float(np.float64(_P.iteration_flops(int(n), int(d))))


# -- hooks of the real-model experiment (properties/attention_pruning/real_model.py); not judged by the oracle --

@functools.lru_cache(maxsize=2)
def _bert(model_dir: str):
    return _P.load_bert(model_dir), _P.WordPiece(os.path.join(model_dir, "vocab.txt"))


def attention_pruning_bert_encode(model_dir, sentences, W=None, u=None):
    """The BERT encoder of ``model_dir`` on ``sentences`` (its own WordPiece vocabulary, one padded batch):
    (states (layers + 1, B, T, d), valid (B, T), embeddings (B, d)); ``W``, ``u`` replace the attention
    logits by bilinear forms (solvers.attention_pruning.bert_forward)."""
    bert, tok = _bert(str(model_dir))
    ids, valid = _P.pad_batch([tok.encode(s) for s in sentences])
    states, emb = _P.bert_forward(bert, ids, valid, W=W, u=u)
    return states, valid, emb


def attention_pruning_bert_attention(model_dir, layer):
    """(W_Q, W_K (d, d) XW orientation, W (heads, d, d) = W_Q^h W_K^hᵀ/√d_h, u (heads, d)) of ``layer``."""
    return _P.bert_bilinear(_bert(str(model_dir))[0], int(layer))


def attention_pruning_prune_batch(Xs, valid, W, lam, rhos, steps=300):
    """Momentum GD on the loss summed over padded sequences, binarised at every ρ by both scores:
    {(score, ρ): M_bin∘W} (solvers.attention_pruning.prune_batch)."""
    return _P.prune_batch(Xs, valid, W, lam, tuple(rhos), steps=int(steps))[0]


def attention_pruning_relative_error_batch(Xs, valid, W, W_pruned):
    """Relative attention error pooled over padded sequences, non-causal; a stack (k, d, d) of pruned
    weights gives k errors."""
    return _P.batch_relative_error(Xs, valid, W, W_pruned)
