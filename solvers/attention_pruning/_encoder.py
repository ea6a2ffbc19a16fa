"""A BERT encoder (the MiniLM-L6 sentence encoder of spec §4.2's real-model substitute) in JAX, float64:
weights read from a ``model.safetensors`` with safetensors' numpy API, the forward pass of Hugging Face's
``BertModel`` (embeddings + LayerNorm; per layer self-attention, output dense + residual + LayerNorm,
GELU (erf) feed-forward + residual + LayerNorm; eps from ``config.json``), mean pooling over the real
tokens and L2 normalisation (the sentence-transformers head).

The attention logits of head h can be replaced by a bilinear form: q_h k_hᵀ/√d_h equals
X W_h Xᵀ + 1(X u_h)ᵀ plus a term constant along each row (which the softmax cancels), with
W_h = W_Q^h W_K^hᵀ/√d_h and u_h = W_K^h b_Q^h/√d_h (XW orientation, W_Q = query.weight ᵀ).  A pruned
W̃_h enters as X W̃_h Xᵀ + 1(X u_h)ᵀ: the key-bias term is kept unpruned for every method.
"""

from __future__ import annotations

import json
import math
import os
from functools import partial
from typing import NamedTuple

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

__all__ = ["Bert", "bert_bilinear", "bert_forward", "load_bert", "pad_batch"]


class Bert(NamedTuple):
    """Weights (float64 numpy, XW orientation: every dense weight is stored in×out) and the shape."""

    params: dict
    layers: int
    heads: int
    hidden: int
    eps: float


def load_bert(model_dir: str) -> Bert:
    """Read ``config.json`` and ``model.safetensors`` (safetensors.numpy) of a BertModel directory."""
    from safetensors.numpy import load_file

    cfg_path, w_path = os.path.join(model_dir, "config.json"), os.path.join(model_dir, "model.safetensors")
    for p in (cfg_path, w_path):
        if not os.path.isfile(p):
            raise ValueError(f"model_dir={model_dir!r} must contain {os.path.basename(p)}")
    with open(cfg_path, encoding="utf-8") as fh:
        cfg = json.load(fh)
    if cfg.get("hidden_act", "gelu") != "gelu" or cfg.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(f"model_dir={model_dir!r} must hold a BERT with GELU and absolute positions")
    raw = load_file(w_path)
    params = {}
    for k, v in raw.items():
        k = k.removeprefix("bert.")
        if k.endswith("position_ids"):
            continue
        a = np.asarray(v, dtype=np.float64)
        params[k] = a.T if (k.endswith(".weight") and a.ndim == 2 and "embeddings" not in k) else a
    L, H, D = int(cfg["num_hidden_layers"]), int(cfg["num_attention_heads"]), int(cfg["hidden_size"])
    if D % H:
        raise ValueError(f"hidden_size={D} must be a multiple of num_attention_heads={H}")
    return Bert(params, L, H, D, float(cfg["layer_norm_eps"]))


def pad_batch(seqs, *, length: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Token id lists → (ids (B, T) int, valid (B, T) bool), right-padded with id 0 to T = the longest
    (or ``length``)."""
    seqs = [list(s) for s in seqs]
    if not seqs or any(not s for s in seqs):
        raise ValueError("seqs must be a nonempty list of nonempty id sequences")
    T = max(map(len, seqs)) if length is None else int(length)
    if T < max(map(len, seqs)):
        raise ValueError(f"length={length!r} must be at least the longest sequence ({max(map(len, seqs))})")
    ids = np.zeros((len(seqs), T), dtype=np.int64)
    valid = np.zeros((len(seqs), T), dtype=bool)
    for b, s in enumerate(seqs):
        ids[b, : len(s)] = s
        valid[b, : len(s)] = True
    return ids, valid


def _row(v, x):
    """A (D,) vector shaped to broadcast over x (…, D) (explicit ranks: rank promotion raises)."""
    return v.reshape((1,) * (x.ndim - 1) + (-1,))


def _ln(x, g, b, eps):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + eps) * _row(g, x) + _row(b, x)


def bert_bilinear(bert: Bert, layer: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(W_Q, W_K, W, u) of ``layer``: W_Q, W_K (d, d) in XW orientation, W (H, d, d) with
    W_h = W_Q^h W_K^hᵀ/√d_h, u (H, d) with u_h = W_K^h b_Q^h/√d_h (module docstring)."""
    if not (isinstance(layer, (int, np.integer)) and 0 <= layer < bert.layers):
        raise ValueError(f"layer={layer!r} must be an integer in [0, {bert.layers})")
    p = bert.params
    pre = f"encoder.layer.{layer}.attention.self."
    WQ, WK, bQ = p[pre + "query.weight"], p[pre + "key.weight"], p[pre + "query.bias"]
    dh = bert.hidden // bert.heads
    W = np.stack([WQ[:, h * dh:(h + 1) * dh] @ WK[:, h * dh:(h + 1) * dh].T for h in range(bert.heads)]) / math.sqrt(dh)
    u = np.stack([WK[:, h * dh:(h + 1) * dh] @ bQ[h * dh:(h + 1) * dh] for h in range(bert.heads)]) / math.sqrt(dh)
    return WQ, WK, W, u


@partial(jax.jit, static_argnames=("layers", "heads", "eps", "bilinear"))
def _forward(p, ids, valid, Wb, ub, layers, heads, eps, bilinear):
    B, T = ids.shape
    x = p["embeddings.word_embeddings.weight"][ids] + p["embeddings.position_embeddings.weight"][:T][None] \
        + p["embeddings.token_type_embeddings.weight"][0][None, None]
    x = _ln(x, p["embeddings.LayerNorm.weight"], p["embeddings.LayerNorm.bias"], eps)
    D = x.shape[-1]
    dh = D // heads
    keys = valid[:, None, None, :]  # (B, 1, 1, T): padded keys get probability 0
    states = [x]
    for layer in range(layers):
        pre = f"encoder.layer.{layer}."

        def dense(v, name, pre=pre):
            out = v @ p[pre + name + ".weight"]
            return out + _row(p[pre + name + ".bias"], out)

        v = dense(x, "attention.self.value").reshape(B, T, heads, dh).transpose(0, 2, 1, 3)
        if bilinear:
            s = jnp.einsum("bti,hij,bsj->bhts", x, Wb[layer], x) + jnp.einsum("bsi,hi->bhs", x, ub[layer])[:, :, None, :]
        else:
            q = dense(x, "attention.self.query").reshape(B, T, heads, dh).transpose(0, 2, 1, 3)
            k = dense(x, "attention.self.key").reshape(B, T, heads, dh).transpose(0, 2, 1, 3)
            s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh)
        s = jnp.where(keys, s, -jnp.inf)
        s = s - jnp.max(s, axis=-1, keepdims=True)
        e = jnp.exp(s)
        a = e / jnp.sum(e, axis=-1, keepdims=True)
        ctx = (a @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
        h = _ln(dense(ctx, "attention.output.dense") + x, p[pre + "attention.output.LayerNorm.weight"],
                p[pre + "attention.output.LayerNorm.bias"], eps)
        m = jax.nn.gelu(dense(h, "intermediate.dense"), approximate=False)
        x = _ln(dense(m, "output.dense") + h, p[pre + "output.LayerNorm.weight"], p[pre + "output.LayerNorm.bias"], eps)
        states.append(x)
    w = valid[..., None].astype(x.dtype)
    pooled = jnp.sum(x * w, axis=1) / jnp.maximum(jnp.sum(w, axis=1), 1e-9)
    emb = pooled / jnp.maximum(jnp.linalg.norm(pooled, axis=-1, keepdims=True), 1e-12)
    return jnp.stack(states), emb


def bert_forward(bert: Bert, ids, valid, *, W=None, u=None) -> tuple[np.ndarray, np.ndarray]:
    """The encoder on a padded batch.

    **Arguments:** ``ids`` (B, T) token ids, ``valid`` (B, T) bool (False = padding); ``W`` (layers,
    heads, d, d) and ``u`` (layers, heads, d): the bilinear logits of the module docstring in place of
    q kᵀ/√d_h (both or neither).
    **Returns:** (states (layers + 1, B, T, d): states[l] is what enters layer l, states[-1] the last
    hidden state; embeddings (B, d): mean-pooled over the valid tokens, L2-normalised)."""
    ids = np.asarray(ids)
    valid = np.asarray(valid, dtype=bool)
    if ids.ndim != 2 or ids.shape != valid.shape or ids.size == 0:
        raise ValueError(f"ids.shape={ids.shape} and valid.shape={valid.shape} must be the same nonempty (B, T)")
    if not np.all(valid[:, 0]):
        raise ValueError("valid[:, 0] must be True (every sequence starts with a real token)")
    vocab, maxpos = bert.params["embeddings.word_embeddings.weight"].shape[0], \
        bert.params["embeddings.position_embeddings.weight"].shape[0]
    if ids.min() < 0 or ids.max() >= vocab:
        raise ValueError(f"ids must be in [0, {vocab})")
    if ids.shape[1] > maxpos:
        raise ValueError(f"ids.shape[1]={ids.shape[1]} must be at most {maxpos} positions")
    L, H, D = bert.layers, bert.heads, bert.hidden
    if (W is None) != (u is None):
        raise ValueError("W and u must be given together (or neither)")
    bilinear = W is not None
    if bilinear:
        W, u = np.asarray(W, dtype=np.float64), np.asarray(u, dtype=np.float64)
        if W.shape != (L, H, D, D) or u.shape != (L, H, D):
            raise ValueError(f"W.shape={W.shape}, u.shape={u.shape} must be {(L, H, D, D)}, {(L, H, D)}")
        if not (np.all(np.isfinite(W)) and np.all(np.isfinite(u))):
            raise ValueError("W and u must be finite (they hold NaN or inf)")
    else:
        W, u = np.zeros((L, H, 1, 1)), np.zeros((L, H, 1))
    states, emb = _forward(bert.params, jnp.asarray(ids), jnp.asarray(valid), W, u, L, H, bert.eps, bilinear)
    return np.asarray(states), np.asarray(emb)
