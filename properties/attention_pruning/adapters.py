"""Adapter checks of paper 000: the implementation's loss, gradient, GD step, relative error, pruning run
and counts against the oracle (:mod:`oracle.attention_pruning`), each with its tolerance rule; the masks
(binarisation, Wanda, SparseGPT) are judged in :mod:`.masks`.

Tolerance rules (u = 2⁻⁵³; the exact side is computed at 50 digits from the float64 inputs):
- Forward error of a softmax entry.  With s_max = max_ij (|X|·|M∘W|·|X|ᵀ)_ij over M and 1_{d×d}
  (the logits' absolute condition), a float64 f̃_ij is within η_f := 4(2d + n + 4)·u·(1 + s_max)
  of the exact one (logits' rounding γ_{2d}·s_max moves a softmax entry by ≤ 2 f̃_ij·γ_{2d}·s_max;
  the normalisation adds ≤ (n + 4)u).
- ``loss``: |L̂ − L| ≤ 2(2n·η_f·‖c‖_F + 2n²η_f²) + 4(n² + d²)·u·L (‖δc‖_F ≤ 2nη_f; the sums' rounding).
- ``gradient``: entrywise |Ĝ_ab − G_ab| ≤ 4[|W_ab|(8η_f·(|X|ᵀ1 1ᵀ|X|)_ab + 4n·u·(|X|ᵀ|p||X|)_ab) +
  2u(λ|M_ab| + |G_ab|)], judged in Frobenius norm (p's entries move by ≤ 8η_f).
- ``gd_step``: M − ηG with the gradient's rule times η, plus 2u(|M| + η|G|) entrywise.
- ``relative_error``: |r̂ − r| ≤ (2nη_f + r·nη_f)/‖f‖_F + 8n·u·r (η_f over W and W_pruned).
- ``prune``: exact: M_bin∘W for the 25-digit replay of the GD run, binarised by the oracle's rule
  (``oracle.pruning_baselines.BINARIZE_COUNT_RULE`` and ``TIE_RULE``).
- ``iteration_flops``: at least the four matrix products of a step (4nd² + 4n²d) and at most
  3·that + 64(n² + d²).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from mpmath import mp

from oracle import attention_pruning as O
from oracle import linalg, pruning_baselines, to_mp

from ..contract import AdapterSet, U, output, within
from ..toolkit import HypothesisUnmet, require
from ..toolkit.strategies import PATH_SIZES, dims, fixed_matrix, scalars, with_corners
from .strategies import pruning_instances

__all__ = ["ADAPTERS"]

ADAPTERS = AdapterSet()


def _abs(A):
    return mp.matrix([[abs(A[i, j]) for j in range(A.cols)] for i in range(A.rows)])


def _eta_f(X, W, M):
    n, d = X.rows, X.cols
    aX = _abs(X)
    smax = max(max(aX * _abs(linalg.entrywise(M, W)) * aX.T), max(aX * _abs(W) * aX.T))
    return 4 * (2 * d + n + 4) * U * (1 + smax)


def _corners():
    """Fixed corners judged after every search: logits X(M∘W)Xᵀ at 710 and beyond (a softmax without the
    row max-shift gives NaN), ties within a row, n = d = 1, causal and not, a zero W."""
    one = np.ones((1, 1))
    return [(one, np.array([[710.0]]), one, 0.0, False),
            (np.array([[1.0], [0.5]]), np.array([[710.0]]), one, 0.5, False),
            (np.array([[1.0], [1.0]]), np.array([[800.0]]), one, 0.0, True),
            (np.array([[1.0, 0.0], [0.0, -1.0]]), np.array([[-1e3, 2.0], [0.0, 1e3]]), np.array([[1.0, 0.0], [1.0, 1.0]]),
             1.0, False),
            (np.ones((2, 2)), np.zeros((2, 2)), np.ones((2, 2)), 0.0, False)]


def _magnitude_corners():
    """(X, W, M, λ, causal) with entries above 10 (X ~ 12: logits ~ 300), W at 1e150 and X at 1e-75 (logits of
    order 1 from a W whose squares overflow), W at 1e-150 (logits ~ 0: a uniform softmax), λ = 1e10 beside
    M of order 1 (the regulariser dominating)."""
    X, W, M = fixed_matrix(3, 2) * 0.5, fixed_matrix(2, 2) * 0.5, np.array([[1.0, 0.5], [0.25, 1.0]])
    return [(X + 12.0, W, M, 0.5, False), (X * 1e-75, W * 1e150, M, 0.5, True), (X, W * 1e-150, M, 0.0, False),
            (X, W, M, 1e10, True)]


def _size_corners(sizes=(7, 8, 9, 16, 17)):
    """n tokens crossing 7, 8, 9, 16, 17 at d = 2 (the oracle's n × n softmax at 50 digits; 32 and beyond cost
    the gradient's numerical derivatives seconds each), causal and not."""
    W, M = fixed_matrix(2, 2) * 0.5, np.array([[1.0, 0.5], [0.25, 1.0]])
    return [(fixed_matrix(n, 2) * 0.5, W, M, 0.5, n % 2 == 1) for n in sizes]


def _targets(inst):
    """max |X(M∘W)Xᵀ|, where exp overflows (709) and the max-shift matters."""
    X, W, M = inst[:3]
    return {"max|X(M∘W)Xᵀ|": float(np.abs(X @ (M * W) @ X.T).max())}


def _mc(causal, n):
    return O.causal_mask(n) if causal else None


@ADAPTERS("attention_pruning_loss", signature="attention_pruning_loss(X: (n, d), W: (d, d), M: (d, d), lam: float, "
          "causal: bool) -> float", doc="L(M) = ½‖D̃⁻¹Ã − D⁻¹A‖_F² + (λ/2)‖M‖_F² (Def 1.2 / Def 3.2 with M_c)",
          tolerance="|L̂ − L| ≤ 2(2nη_f‖c‖_F + 2n²η_f²) + 4(n² + d²)u·L, η_f = 4(2d + n + 4)u(1 + s_max)",
          strategy=lambda: pruning_instances(max_n=5, max_d=4, mask="any"), targets=_targets, corners=_corners,
          magnitude_corners=_magnitude_corners, size_corners=lambda: _size_corners((7, 8, 9, 16, 17, 32, 33)))
def _loss(inst, fn):
    X, W, M, lam, causal = inst
    got = float(output(fn(X.copy(), W.copy(), M.copy(), lam, causal), "attention_pruning_loss", shape=()))
    with mp.workdps(50):
        Xm, Wm, Mm = to_mp(X), to_mp(W), to_mp(M)
        n, d = X.shape
        Mc = _mc(causal, n)
        c = O.unit_c(Xm, Wm, Mm, Mc)
        L = O.loss(Xm, Wm, Mm, lam, Mc)
        ef = _eta_f(Xm, Wm, Mm)
        tol = 2 * (2 * n * ef * linalg.norm2(c) + 2 * n * n * ef ** 2) + 4 * (n * n + d * d) * U * L
        return within(abs(got - L), tol, f"got {got!r}, oracle {mp.nstr(L, 17)}")


def _gradient_tolerance(Xm, Wm, Mm, lam, Mc, G):
    n = Xm.rows
    ef = _eta_f(Xm, Wm, Mm)
    aX = _abs(Xm)
    p = O.p_parts(Xm, Wm, Mm, Mc)[2]
    ones = mp.ones(n, n)
    A1, A2 = aX.T * ones * aX, aX.T * _abs(p) * aX
    d = Wm.rows
    return mp.matrix([[4 * (abs(Wm[a, b]) * (8 * ef * A1[a, b] + 4 * n * U * A2[a, b])
                             + 2 * U * (mp.mpf(lam) * abs(Mm[a, b]) + abs(G[a, b]))) for b in range(d)]
                      for a in range(d)])


@ADAPTERS("attention_pruning_gradient", signature="attention_pruning_gradient(X, W, M, lam, causal) -> (d, d) array",
          doc="∇_M L(M) = W∘(Xᵀp(M)X) + λM (Thm 5.3); judged against the oracle's 50-digit numerical gradient",
          tolerance="‖Ĝ − G‖_F ≤ ‖T‖_F, T_ab = 4[|W_ab|(8η_f(|X|ᵀ11ᵀ|X|)_ab + 4nu(|X|ᵀ|p||X|)_ab) + 2u(λ|M_ab| + |G_ab|)]",
          strategy=lambda: pruning_instances(max_n=4, max_d=3, mask="any"), max_examples=15, targets=_targets,
          corners=_corners, magnitude_corners=_magnitude_corners, size_corners=_size_corners)
def _gradient(inst, fn):
    X, W, M, lam, causal = inst
    d = W.shape[0]
    got = output(fn(X.copy(), W.copy(), M.copy(), lam, causal), "attention_pruning_gradient", shape=(d, d))
    with mp.workdps(50):
        Xm, Wm, Mm = to_mp(X), to_mp(W), to_mp(M)
        Mc = _mc(causal, X.shape[0])
        G = O.gradient_numerical(Xm, Wm, Mm, lam, Mc)
        tol = _gradient_tolerance(Xm, Wm, Mm, lam, Mc, G)
        err = linalg.norm2(to_mp(got) - G)
        return within(err, linalg.norm2(tol), f"‖Ĝ − G‖_F = {mp.nstr(err, 5)}, ‖G‖_F = {mp.nstr(linalg.norm2(G), 5)}")


@st.composite
def _magnitude_step_instances(draw):
    """((X, W, M, λ, causal), η) of :func:`~.strategies.pruning_instances` at a magnitude corner: W scaled by
    10^[1, 154] (logits and gradients up to ~1e154), X by 10^-[100, 162] (logits that underflow, a uniform
    softmax), or M by 10^[1, 16] (a gradient λM far above the softmax part; the project's float64 GD gives
    NaN once M·W reaches ~1e30, a defect of solvers/attention_pruning, so the corner stops below it)."""
    X, W, M, lam, causal = draw(pruning_instances(max_n=4, max_d=3), label="instance")
    kind = draw(st.sampled_from(["W", "X", "M"]), label="scaled factor")
    if kind == "W":
        W = W * 10.0 ** draw(scalars(1.0, 154.0), label="log10 scale")
    elif kind == "X":
        X = X * 10.0 ** -draw(scalars(100.0, 162.0), label="-log10 scale")
    else:
        M = M * 10.0 ** draw(scalars(1.0, 16.0), label="log10 scale")
    return (X, W, M, lam, causal), draw(scalars(1e-3, 1.0), label="eta")


def _step_corners():
    """The fixed corners at η = 0.5, and λM of 1e10 and 1e16 (a gradient far above 1, where a step that clips
    or normalises the gradient departs from Algorithm 1's)."""
    X, W = np.array([[1.0], [0.5]]), np.array([[2.0]])
    return [(c, 0.5) for c in _corners()] + [((X, W, np.array([[1e10]]), 1.0, False), 0.5),
                                             ((np.eye(2), np.ones((2, 2)), np.full((2, 2), 1e16), 0.5, True), 0.25)]


def _step_instances():
    """GD-step instances mixed with weight 0.2 with the fixed corners and :func:`_magnitude_step_instances`."""
    plain = st.tuples(pruning_instances(max_n=4, max_d=3), scalars(1e-3, 1.0))
    corners = st.one_of(st.sampled_from([(c, 0.5) for c in _corners()]), _magnitude_step_instances())
    return with_corners(plain, corners, weight=0.2)


@ADAPTERS("attention_pruning_gd_step", signature="attention_pruning_gd_step(X, W, M, lam, eta, causal) -> (d, d) array",
          doc="one step of Algorithm 1: M − η∇L(M)",
          tolerance="entrywise η·T_ab (the gradient's rule) + 2u(|M_ab| + η|G_ab|), judged in Frobenius norm",
          strategy=_step_instances, corners=_step_corners, targets=lambda inst: _targets(inst[0]),
          magnitude_corners=lambda: [(c, 0.5) for c in _magnitude_corners()],
          size_corners=lambda: [(c, 0.5) for c in _size_corners()])
def _gd_step(inst, fn):
    (X, W, M, lam, causal), eta = inst
    d = W.shape[0]
    got = output(fn(X.copy(), W.copy(), M.copy(), lam, eta, causal), "attention_pruning_gd_step", shape=(d, d))
    with mp.workdps(50):
        Xm, Wm, Mm = to_mp(X), to_mp(W), to_mp(M)
        Mc = _mc(causal, X.shape[0])
        G = O.gradient_closed_form(Xm, Wm, Mm, lam, Mc)  # thm5.3 is judged against numerical derivatives
        e = mp.mpf(eta)
        exact = Mm - G * e
        T = _gradient_tolerance(Xm, Wm, Mm, lam, Mc, G) * e + (_abs(Mm) + _abs(G) * e) * (2 * U)
        err = linalg.norm2(to_mp(got) - exact)
        return within(err, linalg.norm2(T), f"‖M̂⁺ − M⁺‖_F = {mp.nstr(err, 5)}")


@ADAPTERS("attention_pruning_relative_error",
          signature="attention_pruning_relative_error(X, W, W_pruned, causal) -> float",
          doc="‖f̃ − f‖_F/‖f‖_F, f = softmax(XWXᵀ), f̃ = softmax(X W_pruned Xᵀ), same mask (spec def.rel_error)",
          tolerance="|r̂ − r| ≤ (2nη_f + r·nη_f)/‖f‖_F + 8n·u·r",
          strategy=lambda: pruning_instances(max_n=5, max_d=4, mask="any"), magnitude_corners=_magnitude_corners,
          size_corners=lambda: _size_corners((7, 8, 9, 16, 17, 32, 33)))
def _relative_error(inst, fn):
    X, W, M, _, causal = inst
    Wp = M * W
    got = float(output(fn(X.copy(), W.copy(), Wp.copy(), causal), "attention_pruning_relative_error", shape=()))
    with mp.workdps(50):
        Xm, Wm, Wpm = to_mp(X), to_mp(W), to_mp(Wp)
        n = X.shape[0]
        Mc = _mc(causal, n)
        r = O.relative_error(Xm, Wm, Wpm, Mc)
        ef = _eta_f(Xm, Wm, linalg.entrywise(to_mp(M), mp.ones(*W.shape)))
        nf = linalg.norm2(O.attention(Xm, Wm, Mc))
        tol = (2 * n * ef + r * n * ef) / nf + 8 * n * U * r
        return within(abs(got - r), tol, f"got {got!r}, oracle {mp.nstr(r, 17)}")


_PRUNE_STEPS = 25
_PRUNE_GAP = 1e-8
_PRUNE_BAND = 0.01


def _local_lipschitz(Xm, Wm, Mc):
    """λ_max of the Hessian of L_rec at M = 1_{d×d}.  There c = 0, so the Hessian is the Gauss–Newton
    JᵀJ exactly, J = ∂vec f̃/∂vec M with J[(i,j),(a,b)] = f_ij·W_ab·X_ia·(X_jb − Σ_k f_ik X_kb) (the
    softmax's Jacobian through S = X(M∘W)Xᵀ; masked entries have f_ij = 0): derived here, not Thm 5.3."""
    n, d = Xm.rows, Xm.cols
    f = O.attention(Xm, Wm, Mc)
    xbar = f * Xm  # row i: Σ_k f_ik X_k·
    J = mp.matrix(n * n, d * d)
    for i in range(n):
        for j in range(n):
            for a in range(d):
                for b in range(d):
                    J[i * n + j, a * d + b] = f[i, j] * Wm[a, b] * Xm[i, a] * (Xm[j, b] - xbar[i, b])
    return max(linalg.eigvalsh(J.T * J))


def _momentum_gd(Xm, Wm, lam, eta, Mc, steps):
    """alg.gd_momentum from M0 = 1_{d×d}: V ← 0.9V + ∇L(M), M ← M − ηV (the gradient in the closed form,
    which thm5.3 judges against numerical derivatives)."""
    d = Wm.rows
    M, V = mp.ones(d, d), mp.zeros(d, d)
    for _ in range(steps):
        V = V * mp.mpf("0.9") + O.gradient_closed_form(Xm, Wm, M, lam, Mc)
        M = M - V * eta
    return M


def _prune_scores(M, W, score):
    return M if score == "M" else _abs(linalg.entrywise(M, to_mp(W)))


def _boundary_gap(S, k):
    """The relative gap between the k-th and (k+1)-th smallest of the scores S (0 < k < size)."""
    flat = sorted(S[i, j] for i in range(S.rows) for j in range(S.cols))
    top = max(abs(flat[0]), abs(flat[-1]))
    return (flat[k] - flat[k - 1]) / top if top else mp.mpf(0)


def _prune_reference(X, W, lam, rho, causal, score):
    """The reference of one instance, computed once (the search's target and its check share it)."""
    key = (X.tobytes(), X.shape, W.tobytes(), W.shape, lam, rho, causal, score)
    if key not in _PRUNE_CACHE:
        _PRUNE_CACHE.clear()
        try:
            _PRUNE_CACHE[key] = _prune_masks(X, W, lam, rho, causal, score)
        except HypothesisUnmet as exc:
            _PRUNE_CACHE[key] = exc
    value = _PRUNE_CACHE[key]
    if isinstance(value, HypothesisUnmet):
        raise value
    return value


_PRUNE_CACHE: dict = {}


def _prune_masks(X, W, lam, rho, causal, score):
    """(the reference mask at η = 1/L_loc, the mask of the small-step limit, the mask of the other score) of
    alg.gd_momentum + alg.binarize; :class:`HypothesisUnmet` when the mask is not determined to float64's
    reach (a boundary gap below 1e-8 of the largest score) or depends on the step within the band
    [1/L_loc, 1/((1 − 0.05)L_loc)] an honest power-iteration estimate of λ_max (from below) may give."""
    with mp.workdps(25):
        Xm, Wm = to_mp(X), to_mp(W)
        Mc = _mc(causal, X.shape[0])
        L = _local_lipschitz(Xm, Wm, Mc) + lam
        require(L > 0, "L_loc > 0 (the loss depends on M)")
        k = pruning_baselines.binarize_count(rho, W.size)
        masks = []
        for eta in (1 / L, 1 / ((1 - mp.mpf(_PRUNE_BAND)) * L)):
            M = _momentum_gd(Xm, Wm, lam, eta, Mc, _PRUNE_STEPS)
            S = _prune_scores(M, W, score)
            require(_boundary_gap(S, k) >= _PRUNE_GAP, "saliency boundary gap >= 1e-8 (no near-tie)")
            masks.append(pruning_baselines.binarize_mask(S, rho))
            if len(masks) == 1:
                other = pruning_baselines.binarize_mask(_prune_scores(M, W, "MW" if score == "M" else "M"), rho)
        require(masks[0] == masks[1], f"the mask does not depend on the step within {_PRUNE_BAND:g} of 1/L_loc")
        small = pruning_baselines.binarize_mask(to_mp(np.abs(W)) if score == "MW" else _small_step_scores(Xm, Wm, Mc), rho)
        return masks[0], small, other


def _small_step_scores(Xm, Wm, Mc):
    """The η → 0 limit of the learned M's ranking: from M = (1 − ε)1 the first non-uniform move is
    ∝ −∇L_rec((1 − ε)1) ≈ εH·1, so small steps rank by H·1 (H the Hessian at 1)."""
    d = Wm.rows
    G = O.gradient_closed_form(Xm, Wm, mp.ones(d, d) * (1 - mp.mpf(10) ** -10), 0, Mc)
    return G * -1


@st.composite
def _prune_instances(draw):
    """(X, W, λ, ρ, causal, score) where the candidate rules differ: λ > 0 (else M never leaves 1_{d×d}),
    n ≥ 2 (one token: f̃ ≡ 1 and only λ moves M), d ≥ 2, 0 < round(ρd²) < d², entries of X and W of
    magnitude 0.1 … 1 (a zero entry ties scores); X and W scaled by 10**s, s ∈ [−1, 0.5], as
    :func:`pruning_instances`."""
    n, d = draw(dims(2, 4), label="n"), draw(dims(2, 3), label="d")
    entries = st.tuples(st.sampled_from([1.0, -1.0]), scalars(0.1, 1.0)).map(lambda t: t[0] * t[1])  # no zeros: ties
    X = draw(hnp.arrays(np.float64, (n, d), elements=entries), label="X") * 10.0 ** draw(
        scalars(-1.0, 0.5), label="log10 scale X")
    W = draw(hnp.arrays(np.float64, (d, d), elements=entries), label="W") * 10.0 ** draw(
        scalars(-1.0, 0.5), label="log10 scale W")
    lam = draw(scalars(0.05, 3.0), label="lambda")
    k = draw(st.integers(1, d * d - 1), label="k zeros")
    return X, W, lam, k / (d * d), draw(st.booleans(), label="causal"), draw(st.sampled_from(["M", "MW"]), label="score")


def _prune_targets(inst):
    """Entries where the reference mask differs from the masks of plausible neighbours (the small-step
    limit, i.e. η ≪ 1/L_loc such as 1/L; the other score; the largest scores zeroed): the search climbs
    towards instances that separate them."""
    try:
        want, small, other = _prune_reference(*inst)
    except HypothesisUnmet:
        return {}
    d = inst[1].shape[0]
    k = pruning_baselines.binarize_count(inst[3], d * d)
    cells = [(i, j) for i in range(d) for j in range(d)]
    return {"entries apart from the small-step mask": float(sum(want[c] != small[c] for c in cells)),
            "entries apart from the other score's mask": float(sum(want[c] != other[c] for c in cells)),
            "min(k, d² − k)": float(min(k, d * d - k))}


def _prune_magnitudes():
    """(X, W, λ, ρ, causal, score): W near 1e150 beside X near 1e-75 (logits of order 1; |M∘W| near 1e150, its
    squares overflow) and W near 1e-150 beside X near 1e75 (|M∘W| near 1e-150), entries above 10 (X ~ 12 with W
    ~ 0.01, W ~ 30) and λ = 1e3 (the regulariser dominating)."""
    X, W = fixed_matrix(3, 2) * 0.5, fixed_matrix(2, 2)[::-1] * 0.7
    return [(X * 1e-75, W * 1e150, 0.5, 0.5, False, "M"), (X * 1e-75, W * 1e150, 0.5, 0.5, False, "MW"),
            (X * 1e75, W * 1e-150, 0.5, 0.5, True, "MW"), (X * 12.0, W * 0.02, 0.5, 0.5, False, "M"),
            (X, W * 30.0, 0.5, 0.5, False, "MW"), (X, W, 1e3, 0.5, True, "M")]


def _prune_sizes():
    """n = 7 … 17 tokens at d = 2, then d = 3, 4, 5, 6, 8 at n = 3 (9, 16, 25, 36 and 64 mask entries: a sort
    changes path past 8, 16, 32 and 64).  n stops at 17 (the 25-digit reference costs about 1 s there and 4 s at
    n = 32); d stops at 8: at d = 9 (81 entries) the mask of every fixed instance tried changes within 1% of the step
    1/L_loc (outside the rule) and costs about 2 s."""
    W = fixed_matrix(2, 2)[::-1] * 0.7
    tokens = [(fixed_matrix(n, 2) * 0.5, W, 0.5, 0.5, n % 2 == 1, "M" if n % 2 else "MW") for n in (7, 8, 9, 16, 17)]
    scales = {3: (0.5, 0.7, 0.5), 4: (0.5, 0.7, 0.5), 5: (0.5, 0.3, 0.25), 6: (0.3, 0.5, 0.5), 8: (0.5, 0.7, 0.5)}
    return tokens + [(fixed_matrix(3, d) * sx, fixed_matrix(d, d)[::-1] * sw, 0.5, rho, d % 2 == 0, "MW" if d % 2 else "M")
                     for d, (sx, sw, rho) in scales.items()]


@ADAPTERS("attention_pruning_prune",
          signature="attention_pruning_prune(X, W, lam, rho, causal, score='M', steps=300) -> (d, d) array",
          doc="the experiments' method: momentum-0.9 GD on L (η = 1/L_loc, L_loc = λ + λ_max(∇²L_rec(1_{d×d})), "
              "M0 = 1), binarised at ρ by M or |M∘W|; returns M_bin∘W",
          tolerance=f"exact: M_bin∘W for the reference M after the given steps ({_PRUNE_STEPS} in the search) at "
                    f"η = 1/L_loc (50-digit λ_max); instances whose boundary score gap is < {_PRUNE_GAP:g} of the "
                    f"largest score, or whose mask changes for η up to 1/((1 − {_PRUNE_BAND:g})L_loc), skipped",
          strategy=_prune_instances, max_examples=10, targets=_prune_targets, magnitude_corners=_prune_magnitudes,
          size_corners=_prune_sizes)
def _prune(inst, fn):
    X, W, lam, rho, causal, score = inst
    want, small, other = _prune_reference(X, W, lam, rho, causal, score)
    got = output(fn(X.copy(), W.copy(), lam, rho, causal, score, _PRUNE_STEPS), "attention_pruning_prune",
                 shape=W.shape)
    d = W.shape[0]
    expect = np.array([[float(want[i, j]) * W[i, j] for j in range(d)] for i in range(d)])
    wrong = int(np.sum(got != expect))
    flat = [int(want[i, j]) for i in range(d) for j in range(d)]
    return within(wrong, 0, f"{wrong} entries differ from M_bin∘W; reference M_bin = {flat} (row-major), "
                  f"small-step mask {[int(small[i, j]) for i in range(d) for j in range(d)]}, other score's "
                  f"{[int(other[i, j]) for i in range(d) for j in range(d)]}")


@ADAPTERS("attention_pruning_iteration_flops", signature="attention_pruning_iteration_flops(n: int, d: int) -> float",
          doc="the operation count of one GD iteration (loss and gradient) as the implementation reports it",
          tolerance="4nd² + 4n²d ≤ flops ≤ 3(4nd² + 4n²d) + 64(n² + d²)",
          strategy=lambda: st.tuples(dims(1, 40), dims(1, 40)), max_examples=5,
          magnitude_corners=lambda: [(4096, 64)], size_corners=lambda: [(9, 2), (17, 3), (65, 8)])
def _iteration_flops(inst, fn):
    n, d = inst
    got = float(output(fn(n, d), "attention_pruning_iteration_flops", shape=()))
    lo = 4 * n * d * d + 4 * n * n * d
    hi = 3 * lo + 64 * (n * n + d * d)
    excess = max(lo - got, got - hi, 0.0)
    return within(excess, 0.0, f"flops {got} for n = {n}, d = {d}; allowed [{lo}, {hi}]")


@st.composite
def _trace_instances(draw):
    X, W, M, lam, causal = draw(pruning_instances(max_n=3, max_d=2))
    steps = draw(st.integers(0, 12), label="steps")
    t = draw(scalars(0.05, 1.0), label="eta·L")
    return X, W, M, lam, causal, steps, t


def _trace_magnitudes():
    """(X, W, M0, λ, causal, steps, ηL): entries above 10 (X ~ 12: logits ~ 300), M0 near 1e10 (logits near 1e10,
    past exp's overflow), W near 1e-150 (its squares underflow; a uniform softmax), λ = 1e10, and X, W scaled
    apart (1e-20 and 1e40: η = ηL/L near 2e-245, float64's smallest normals; 1e20 and 1e-40: η near 2e-125).  L
    grows as a high power of the radius ‖X‖²‖W‖, so η = ηL/L underflows to 0 (refused: η must be > 0) from
    W ~ 1e80 at X ~ 1e-40: that is where this function's valid range ends."""
    X, W, M = fixed_matrix(3, 2) * 0.5, fixed_matrix(2, 2) * 0.5, np.array([[1.0, 0.5], [0.25, 1.0]])
    return [(X + 12.0, W, M, 0.5, False, 5, 0.9), (X, W, M * 1e10, 0.5, False, 5, 0.9),
            (X, W * 1e-150, M, 0.0, False, 5, 0.9), (X, W, M, 1e10, True, 5, 0.9),
            (X * 1e-20, W * 1e40, M, 0.5, True, 5, 0.9), (X * 1e20, W * 1e-40, M, 0.5, True, 5, 0.9)]


def _trace_sizes():
    """n = 7 … 33 tokens at d = 2 (3 steps), then 16, 17, 32, 33, 64 and 65 steps at n = 3 (a trace of steps + 1
    rows); n stops at 33: the 50-digit softmax and gradient rule of every step cost about 1 s at n = 32 and 5 s
    at n = 64."""
    W, M = fixed_matrix(2, 2) * 0.5, np.array([[1.0, 0.5], [0.25, 1.0]])
    tokens = [(fixed_matrix(n, 2) * 0.5, W, M, 0.5, n % 2 == 1, 3, 0.9) for n in PATH_SIZES if n <= 33]
    return tokens + [(fixed_matrix(3, 2) * 0.5, W, M, 0.5, True, steps, 0.9) for steps in (16, 17, 32, 33, 64, 65)]


@ADAPTERS("attention_pruning_gd_trace",
          signature="attention_pruning_gd_trace(X, W, lam, eta, steps, M0, causal) -> (steps + 1, 2) array",
          doc="Algorithm 1 from M0; row t = (½‖c(M_t)‖_F², min_ij f̃(M_t)_ij over the allowed entries), t = 0..steps",
          tolerance="with η ≤ 1/L (Thm 5.4's L), the iterate error e_t ≤ Σ_s 2^{t−1−s}·(η‖T‖_F + 2u(‖M_s‖_F + η‖G_s‖_F)) "
                    "(T the gradient rule); row t within (‖c‖_F·L_f·e_t + the loss rule, L_f·e_t + η_f)",
          strategy=_trace_instances, max_examples=10, magnitude_corners=_trace_magnitudes, size_corners=_trace_sizes,
          instance_fields=("X", "W", "M0", "lam", "causal", "steps", "eta·L (η = eta·L/L, L of Thm 5.4)"))
def _gd_trace(inst, fn):
    X, W, M, lam, causal, steps, t = inst
    with mp.workdps(50):
        Xm, Wm, Mm = to_mp(X), to_mp(W), to_mp(M)
        n, d = X.shape
        Mc = _mc(causal, n)
        R = O.radius(Xm, Wm)
        consts = O.lipschitz_constants(n, d, R, lam)
        eta = float(mp.mpf(t) / consts["L"])
    got = output(fn(X.copy(), W.copy(), lam, eta, steps, M.copy(), causal), "attention_pruning_gd_trace",
                 shape=(steps + 1, 2))
    with mp.workdps(50):
        e = mp.mpf(0)
        worst = mp.mpf(0)
        rows = []

        def observe(k, Mk, ft, c):
            rows.append((mp.matrix(Mk), mp.matrix(ft), mp.matrix(c)))

        O.gd_trajectory(Xm, Wm, lam, eta, steps, Mm, Mc, observe=observe)
        for k, (Mk, ft, c) in enumerate(rows):
            ef = _eta_f(Xm, Wm, Mk)
            nc = linalg.norm2(c)
            Lrec = nc ** 2 / 2
            tol_L = consts["L_f"] * e * (nc + consts["L_f"] * e) + 2 * (2 * n * ef * nc + 2 * n * n * ef ** 2) \
                + 4 * (n * n + d * d) * U * Lrec
            allowed = [ft[i, j] for i in range(n) for j in range(n) if Mc is None or Mc[i, j] == 1]
            tol_f = consts["L_f"] * e + ef
            worst = max(worst, abs(mp.mpf(got[k, 0]) - Lrec) / tol_L if tol_L else mp.mpf(0),
                        abs(mp.mpf(got[k, 1]) - min(allowed)) / tol_f)
            G = O.gradient_closed_form(Xm, Wm, Mk, lam, Mc)
            T = _gradient_tolerance(Xm, Wm, Mk, lam, Mc, G)
            e = 2 * e + eta * linalg.norm2(T) + 2 * U * (linalg.norm2(Mk) + eta * linalg.norm2(G))
        return within(worst, 1, f"{steps} steps, η = {eta!r}")
