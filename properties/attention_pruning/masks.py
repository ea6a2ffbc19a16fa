"""Adapter checks of paper 000's masks: the binarisation (spec def.binarize), Wanda and SparseGPT
(``docs/pruning_baselines.md``), each judged exactly against the oracle's mask
(:mod:`oracle.pruning_baselines`): the count, which entries, and the order of ties.

The rounding and tie rules are stated once, in the oracle (``COUNT_RULE``, ``BINARIZE_COUNT_RULE``,
``TIE_RULE``); the contract's rows quote them.  Every discrete edge of those rules is a fixed corner judged
at every profile: equal scores split by the boundary, ρ·size = ½ (halves up), the 10⁻⁹ guard (15/22·22
is 14.999999999999998 in float64), ρ ∈ {0, 1}; so are the magnitudes up to the valid range and sizes
crossing 7, 8, 9, 16, 17, 32, 33, 64, 65 (numpy's default argsort is a stable insertion sort up to 16
entries, an unstable one beyond).
"""

from __future__ import annotations

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from mpmath import mp

from oracle import linalg, pruning_baselines, to_mp
from oracle.pruning_baselines import BINARIZE_COUNT_RULE, COUNT_RULE, TIE_RULE

from ..contract import AdapterSet, U, output, within
from ..toolkit import require
from ..toolkit.strategies import dims, elements, scalars, with_corners

__all__ = ["ADAPTERS", "WANDA_RANGE"]

ADAPTERS = AdapterSet()

_RANGE_EXPONENT = 100
WANDA_RANGE = 10.0**_RANGE_EXPONENT
"""The valid range of Wanda's and SparseGPT's inputs: entries of W and X are 0 or of magnitude in
[1/WANDA_RANGE, WANDA_RANGE] (a float64 score |W_io|·‖X[:, i]‖₂ then neither overflows nor underflows)."""


def _exact(got, want, what: str, note: str):
    """The outcome of an exact rule: the number of entries of ``got`` that differ from ``want`` (tolerance 0)."""
    wrong = int(np.sum(got != want))
    return within(wrong, 0, f"{wrong} of {got.size} entries differ from the oracle's {what}; {note}", expected=want)


@st.composite
def _tied_scores(draw):
    """Edge cases: repeated values (the tie rule), ρ ∈ {0, ½, 1}, one row or column."""
    d1, d2 = draw(dims(1, 5), label="rows"), draw(dims(1, 5), label="cols")
    vals = st.one_of(st.sampled_from([0.0, 0.5, 1.0]), scalars(-2.0, 2.0))  # repeated values test the ties
    S = draw(hnp.arrays(np.float64, (d1, d2), elements=vals), label="scores")
    rho = draw(st.one_of(st.sampled_from([0.0, 0.5, 1.0]), scalars(0.0, 1.0)), label="rho")
    return S, rho


@st.composite
def _distinct_scores(draw):
    """Scores where the rule and its neighbours (the largest zeroed, |score| ranked, a count off by one)
    differ: at least 3 distinct values, 0 < k < d1·d2, ρ not a multiple of 1/(d1d2) half the time."""
    d1, d2 = draw(dims(1, 4), label="rows"), draw(dims(3, 5), label="cols")
    S = draw(hnp.arrays(np.float64, (d1, d2), elements=scalars(-2.0, 2.0), unique=True), label="scores")
    k = draw(st.integers(1, d1 * d2 - 1), label="k")
    shift = draw(st.sampled_from([0.0, 0.25, -0.25]), label="rho offset")  # ρ·size rounds to k either way
    return S, (k + shift) / (d1 * d2)


def _scores():
    return with_corners(_distinct_scores(), _tied_scores(), weight=0.3)


def _binarize_targets(inst):
    """Entries where the mask differs from the masks of its neighbours: |score| ranked, the largest zeroed."""
    S, rho = inst
    k = pruning_baselines.binarize_count(rho, S.size)
    return {"entries apart from the |score| mask": float(np.sum(_np_binarize(S, k) != _np_binarize(np.abs(S), k))),
            "min(k, size − k)": float(min(k, S.size - k))}


def _np_binarize(S, k):
    """float64 stand-in of alg.binarize for search targets only (verdicts use the oracle's)."""
    out = np.ones(S.size)
    out[np.argsort(S.reshape(-1), kind="stable")[:k]] = 0.0
    return out.reshape(S.shape)


def _binarize_corners():
    """The discrete edges of the rule: a tie split by the boundary, ρ·size = ½ and 2½ (halves up: 1 and 3,
    not 0 and 2), ρ·size = 7.5 from 7.5/11 (7.499999999999999 in float64: the guard), ρ ∈ {0, 1}, negative
    scores (ranked by value, not |value|)."""
    return [(np.zeros((1, 4)), 0.5), (np.ones((2, 2)), 0.25), (np.array([[2.0, 1.0, 1.0, 1.0, 0.0]]), 0.5),
            (np.array([[3.0]]), 0.5), (np.array([[5.0, 4.0, 3.0, 2.0, 1.0]]), 0.5),
            (np.arange(11.0)[::-1].reshape(1, 11), 7.5 / 11), (np.array([[1.0, -1.0], [0.5, 2.0]]), 0.0),
            (np.array([[1.0, -1.0], [0.5, 2.0]]), 1.0), (np.array([[-3.0, 1.0, 2.0]]), 1 / 3)]


def _binarize_magnitudes():
    """Scores up to ±1.8e308, subnormal ones (5e-324), and ties among them: a rule that normalises or shifts
    the scores (S/max|S|, S − min S) loses their order."""
    huge, tiny = 1.7976931348623157e308, 5e-324
    return [(np.array([[huge, -huge, tiny, -tiny, 0.0]]), 0.4), (np.array([[1e300, 1e300, -1e300], [1e-300, 0.0, 3.0]]),
                                                                 0.5),
            (np.array([[tiny, tiny, 2 * tiny, 0.0]]), 0.5), (np.array([[12.0, 11.0, 10.5, 1e5, -1e5]]), 0.6)]


def _binarize_sizes():
    """One row of n = 7 … 65 scores with ties (n mod 3 repeats), and square d × d of d = 8, 9, 17, at ρ = ½."""
    rows = [((np.arange(n) * 7 % 5).astype(np.float64).reshape(1, n), 0.5) for n in (7, 8, 9, 16, 17, 32, 33, 64, 65)]
    return rows + [((np.arange(d * d) % 3).astype(np.float64).reshape(d, d), 0.5) for d in (8, 9, 17)]


@ADAPTERS("attention_pruning_binarize", signature="attention_pruning_binarize(scores: (d1, d2), rho: float) -> (d1, d2)",
          doc="0/1 mask: 0 at the k smallest scores, 1 elsewhere (spec def.binarize)",
          tolerance=f"exact: the oracle's mask; {BINARIZE_COUNT_RULE}; {TIE_RULE} (ties: the lower row-major index "
                    f"first)", strategy=_scores, targets=_binarize_targets, corners=_binarize_corners,
          magnitude_corners=_binarize_magnitudes, size_corners=_binarize_sizes)
def _binarize(inst, fn):
    S, rho = inst
    got = output(fn(S.copy(), rho), "attention_pruning_binarize", shape=S.shape)
    want = pruning_baselines.binarize_mask(to_mp(S), rho)
    want = np.array([[float(want[i, j]) for j in range(S.shape[1])] for i in range(S.shape[0])])
    k = pruning_baselines.binarize_count(rho, S.size)
    return _exact(got, want, "mask", f"k = {k} zeros expected, {int(np.sum(got == 0))} returned")


def _layers():
    """(W, X, ρ) for the layer baselines: mostly instances separating the rules (:func:`_separating_layers`),
    with weight 0.25 the edge cases (:func:`_edge_layers`)."""
    return with_corners(_separating_layers(), _edge_layers(), weight=0.25)


@st.composite
def _separating_layers(draw):
    """(W (d_in×d_out), X (n×d_in), ρ) on which Wanda's rule and its plausible neighbours (‖X_i‖² for
    ‖X_i‖, |W| alone, groups per input row) give different masks: d_in ≥ 3, columns of X with distinct
    nonzero norms 10^(j/4) (j distinct integers in [−4, 4]), entries of W of magnitude 10^[−1.5, 0],
    0 < k(ρ, d_in) < d_in, and (rejection) Wanda's mask differs from both neighbours' on the instance."""
    d_in, d_out, n = draw(dims(3, 5), label="d_in"), draw(dims(1, 4), label="d_out"), draw(dims(1, 6), label="n")
    entries = st.tuples(st.sampled_from([1.0, -1.0]), scalars(-1.5, 0.0)).map(lambda t: t[0] * 10.0 ** t[1])
    W = draw(hnp.arrays(np.float64, (d_in, d_out), elements=entries), label="W")
    G = draw(hnp.arrays(np.float64, (n, d_in), elements=entries), label="X directions")
    j = draw(st.lists(st.integers(-4, 4), min_size=d_in, max_size=d_in, unique=True), label="log10 norms ×4")
    X = G / np.linalg.norm(G, axis=0) * 10.0 ** (np.array(j) / 4)
    k = draw(st.integers(1, d_in - 1), label="k")
    inst = W, X, (k + draw(st.sampled_from([0.0, 0.5]), label="rho offset")) / d_in
    assume(all(v > 0 for v in _layer_targets(inst).values()))  # both neighbours' masks differ from Wanda's
    return inst


def _layer_targets(inst):
    """Entries where Wanda's mask differs from those of ‖X_i‖² scores and of |W| alone (float64 stand-ins
    for search targets only)."""
    W, X, rho = inst
    k = pruning_baselines.count_pruned(rho, W.shape[0])
    c = np.linalg.norm(X, axis=0)[:, None]

    def mask(S):
        out = np.ones_like(S)
        for o in range(S.shape[1]):
            out[np.argsort(S[:, o], kind="stable")[:k], o] = 0.0
        return out

    wanda = mask(np.abs(W) * c)
    return {"entries apart from the ‖X_i‖² mask": float(np.sum(wanda != mask(np.abs(W) * c**2))),
            "entries apart from the |W| mask": float(np.sum(wanda != mask(np.abs(W))))}


@st.composite
def _edge_layers(draw):
    """(W (d_in×d_out), X (n×d_in), ρ); ρ·d_in often an integer (spec §3: fair sweeps); X has exact zero
    columns sometimes (dead inputs, spec §2.2)."""
    d_in, d_out, n = draw(dims(1, 5), label="d_in"), draw(dims(1, 5), label="d_out"), draw(dims(1, 7), label="n")
    W = draw(hnp.arrays(np.float64, (d_in, d_out), elements=scalars(-1.0, 1.0)), label="W")
    # entries 0 or of magnitude >= 1e-3 (toolkit elements): H = 2XᵀX must not underflow in float64
    X = draw(hnp.arrays(np.float64, (n, d_in), elements=elements(max_abs=2.0)), label="X")
    rho = draw(st.one_of(st.integers(0, d_in).map(lambda k: k / d_in), scalars(0.0, 1.0)), label="rho")
    return W, X, rho


def _distinct_layer(d_in, d_out=2, n=3):
    """(W, X) with distinct scores: X's column i of norm (i + 1)·√n, W_io = ±(1 + π·((7i + 3o) mod d_in)/1000)
    (no two products (i + 1)(1 + πj/1000) within a relative 1e-6 of each other)."""
    i, o = np.arange(d_in)[:, None], np.arange(d_out)[None, :]
    W = (1.0 + np.pi * ((i * 7 + o * 3) % d_in) / 1000) * np.where((i + o) % 2, -1.0, 1.0)
    return W, np.ones((n, 1)) * (np.arange(d_in) + 1.0)


def _wanda_corners():
    """The discrete edges: ties of equal |W_io| on identical columns of X split by the boundary (signs
    differ, so the pruned rows show), ρ·d_in = 1½ (rounded down: 1), the guard at d_in = 22 (ρ = 15/22),
    ρ ∈ {0, 1}, a dead input (an all-zero column of X), zeros of W."""
    ties = np.array([[1.0, 2.0], [-1.0, 2.0], [1.0, -2.0], [-1.0, -2.0]])
    W3, X3 = _distinct_layer(3)
    W22, X22 = _distinct_layer(22, 1)
    dead = np.array([[1.0, 0.5, 2.0], [3.0, 0.0, 1.0]])
    return [(ties, np.ones((2, 4)), 0.5), (ties, np.ones((1, 4)), 0.25), (W3, X3, 0.5), (W22, X22, 15 / 22),
            (W3, X3, 0.0), (W3, X3, 1.0), (np.array([[1.0], [0.5], [0.25]]), np.array([[2.0, 0.0, 1.0]]), 1 / 3),
            (np.array([[0.0, 1.0], [2.0, 0.0], [0.5, 3.0]]), dead, 2 / 3)]


def _wanda_magnitudes():
    """W and X entries at the ends of the valid range (1e±100), and columns of X whose norms differ by 1e100:
    a score computed as ‖X_i‖²·|W| or normalised by a global maximum changes order or overflows."""
    W, X = _distinct_layer(4)
    big, small = WANDA_RANGE, 1 / WANDA_RANGE
    spread = np.array([[small, 1.0, 30.0, big]])
    return [(W * big, X, 0.5), (W, X * big, 0.5), (W * small, X * small, 0.5), (W * big, X * small, 0.75),
            (np.array([[1.0], [1e-99], [1e99], [-1.0]]), spread, 0.5), (W * 12.0, X * 11.0, 0.25)]


def _wanda_sizes():
    """d_in = 7 … 65 (2 outputs, 3 tokens), each also with tied pairs of rows (equal |W| on identical columns
    of X: beyond 16 entries numpy's default argsort orders ties arbitrarily)."""
    out = []
    for d_in in (7, 8, 9, 16, 17, 32, 33, 64, 65):
        W, X = _distinct_layer(d_in)
        out.append((W, X, 0.5))
        out.append((np.repeat(W[: (d_in + 1) // 2], 2, axis=0)[:d_in] * np.where(np.arange(d_in) % 2, -1.0, 1.0)[:, None],
                    np.repeat(X[:, : (d_in + 1) // 2], 2, axis=1)[:, :d_in], 0.5))
    return out


def _float_tie(W, X, o, p, q) -> bool:
    """Whether entries (p, o) and (q, o) have the same float64 score under any deterministic evaluation:
    both zero (a zero weight or a dead input), or equal |W| on identical columns of X."""
    def zero(i):
        return W[i, o] == 0 or not np.any(X[:, i])

    return (zero(p) and zero(q)) or (abs(W[p, o]) == abs(W[q, o]) and np.array_equal(X[:, p], X[:, q]))


def _wanda_decided(W, X, mask) -> bool:
    """Whether the oracle's mask is what float64 scores give, whatever the order of the norm's sum: in every
    column each pruned score lies below each kept one by more than a relative 4(n + 2)u, or the two tie in
    float64 for certain (:func:`_float_tie`; the tie rule then decides)."""
    rel = 4 * (X.shape[0] + 2) * U
    with mp.workdps(50):
        c = [mp.sqrt(mp.fsum(mp.mpf(v) ** 2 for v in X[:, i])) for i in range(W.shape[0])]
        for o in range(W.shape[1]):
            s = [abs(mp.mpf(W[i, o])) * c[i] for i in range(W.shape[0])]
            pruned = [i for i in range(W.shape[0]) if mask[i][o]]
            kept = [i for i in range(W.shape[0]) if not mask[i][o]]
            if any(s[q] <= s[p] * (1 + rel) and not _float_tie(W, X, o, p, q) for p in pruned for q in kept):
                return False
    return True


@ADAPTERS("attention_pruning_wanda", signature="attention_pruning_wanda(W: (d_in, d_out), X: (n, d_in), rho) -> (d_in, d_out)",
          doc="Wanda (XW orientation): per output column, zero the k(ρ, d_in) smallest |W_io|·‖X[:, i]‖₂; no update",
          tolerance=f"exact: the oracle's W̃ (the same zeros; kept entries bit-identical); {COUNT_RULE}; {TIE_RULE} "
                    "(ties: the lower input index i first); instances whose boundary scores lie within a relative "
                    "4(n + 2)u without being computed from identical data are skipped; valid range: entries 0 or "
                    f"of magnitude in [1e-{_RANGE_EXPONENT}, 1e{_RANGE_EXPONENT}]",
          strategy=_layers, targets=_layer_targets, corners=_wanda_corners, magnitude_corners=_wanda_magnitudes,
          size_corners=_wanda_sizes)
def _wanda(inst, fn):
    W, X, rho = inst
    got = output(fn(W.copy(), X.copy(), rho), "attention_pruning_wanda", shape=W.shape)
    k = pruning_baselines.count_pruned(rho, W.shape[0])
    with mp.workdps(50):
        _, mask = pruning_baselines.wanda(to_mp(W), to_mp(X), rho)
    require(_wanda_decided(W, X, mask), "no near-tie of the scores at a column's boundary (float64 may swap it)")
    want = np.where(np.array(mask, dtype=bool), 0.0, W)
    zeros = [int(np.sum(got[:, o] == 0)) for o in range(W.shape[1])]
    return _exact(got, want, "W̃", f"k = {k} per column; zeros per column returned {zeros}, expected "
                  f"{[int(np.sum(want[:, o] == 0)) for o in range(W.shape[1])]}")


def _sparsegpt_hessian(X):
    """H_λ = 2XᵀX with dead inputs set to 1 and the damping 0.01·mean(diag H) (spec §2.2–2.4), 50 digits."""
    with mp.workdps(50):
        Xm = to_mp(X)
        H = Xm.T * Xm * 2
        d = X.shape[1]
        for i in range(d):
            if H[i, i] == 0:
                H[i, i] = mp.mpf(1)
        damp = mp.mpf(0.01) * mp.fsum(H[i, i] for i in range(d)) / d
        for i in range(d):
            H[i, i] += damp
        return H


def _sparsegpt_magnitudes():
    """W at 1e100 and 1e-100, X at 1e50 and 1e-50 (H = 2XᵀX at 1e±100), and a dead input."""
    W, X = _distinct_layer(4)
    return [(W * WANDA_RANGE, X, 0.5), (W / WANDA_RANGE, X, 0.5), (W, X * 1e50, 0.5), (W, X * 1e-50, 0.25),
            (W * 12.0, np.array([[11.0, 0.0, 13.0, 1.0], [-2.0, 0.0, 5.0, 3.0]]), 0.5)]


def _sparsegpt_sizes():
    """d_in = 7, 8, 9, 16, 17 (the oracle inverts d_in trailing blocks at 50 digits; 32 and beyond cost minutes)."""
    out = []
    for d_in in (7, 8, 9, 16, 17):
        W, _ = _distinct_layer(d_in, 1)
        X = np.vstack([np.eye(d_in), np.ones((1, d_in))]) * (np.arange(d_in) + 1.0)
        out.append((W, X, 0.5))
    return out


@ADAPTERS("attention_pruning_sparsegpt",
          signature="attention_pruning_sparsegpt(W: (d_in, d_out), X: (n, d_in), rho) -> (d_in, d_out)",
          doc="SparseGPT (XW orientation, unstructured, exact mode, B = 128, p = 0.01): mask by w²/U_ii², OBS updates",
          tolerance=f"the mask is the slow reference's exactly: its k(ρ, d_in·d_out) entries are 0 and no other entry "
                    f"farther from 0 than the error bound is ({COUNT_RULE}; instances with a saliency boundary gap < 1e-8 "
                    "skipped); ‖Ŵ − W̃‖_F ≤ 64·d²·u·κ(H_λ)·(‖W‖_F + ‖W̃‖_F)",
          strategy=_layers, targets=_layer_targets, magnitude_corners=_sparsegpt_magnitudes,
          size_corners=_sparsegpt_sizes)
def _sparsegpt(inst, fn):
    W, X, rho = inst
    got = output(fn(W.copy(), X.copy(), rho), "attention_pruning_sparsegpt", shape=W.shape)
    with mp.workdps(50):
        Wm = to_mp(W)
        ref, mask, _ = pruning_baselines.sparsegpt(Wm, to_mp(X), rho)
        H = _sparsegpt_hessian(X)
        d_in, d_out = W.shape
        sal = sorted(Wm[i, o] ** 2 / mp.inverse(H[i:, i:])[0, 0] for i in range(d_in) for o in range(d_out)
                     if Wm[i, o] != 0)
        k = pruning_baselines.count_pruned(rho, d_in * d_out) - sum(1 for v in W.reshape(-1) if v == 0)
        if 0 < k < len(sal):
            require(sal[k] - sal[k - 1] > mp.mpf(10) ** -8 * sal[k], "saliency boundary gap >= 1e-8 (no near-tie)")
        ev = linalg.eigvalsh(H)
        kappa = max(ev) / min(ev)
        tol = 64 * d_in ** 2 * U * kappa * (linalg.norm2(Wm) + linalg.norm2(ref))
        want = np.array([[float(ref[i, o]) for o in range(d_out)] for i in range(d_in)])
        pruned = np.array(mask, dtype=bool)
        wrong = pruned & (got != 0) | ~pruned & (got == 0) & (np.abs(want) > float(tol))
        if wrong.any():
            return within(int(wrong.sum()), 0, f"{int(wrong.sum())} entries off the reference mask (its "
                          f"{int(pruned.sum())} zeros, k = {pruning_baselines.count_pruned(rho, d_in * d_out)}): "
                          f"{int((pruned & (got != 0)).sum())} not 0, {int((~pruned & (got == 0)).sum())} zeroed "
                          f"but kept by the reference", expected=want)
        err = linalg.norm2(to_mp(got) - ref)
        return within(err, tol, f"‖Ŵ − W̃‖_F = {mp.nstr(err, 5)}, κ(H_λ) = {mp.nstr(kappa, 5)}", expected=want)
