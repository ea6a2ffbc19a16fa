"""Claims of Appendices J–K of paper 004 and their informal Theorems 1.4 and 1.5: Algorithm 5 (even
powers (AᵀA)^j) and Algorithm 6 (odd powers A(AᵀA)^j).

Lemma J.1's induction and Theorem J.2 are judged on chains of exact stages that meet each stage's
tolerance with equality in an adversarial direction (spec T5); the running time in j on the
iteration counts Algorithm 5 reports (``even_powers_iterations``); the guarantees on the
implementation's output (``even_powers``, ``odd_powers``).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import attention_kernel_regression as O
from oracle import linalg, to_mp

from ..contract import output
from ..toolkit import ClaimSet, le
from ..toolkit.strategies import dims, scalars, vectors
from .common import boost, cond_digits, unit, with_note
from .costs import algorithm_time, with_time
from .regression import psd_trial
from .strategies import chain_instances

__all__ = ["SWEEP_STAGES", "claims", "iteration_bound", "lemJ_1_p5", "thm1_4", "thmK_1", "thmK_1_repair",
           "thmK_1_typo_corrected"]

claims = ClaimSet("attention_kernel_regression")


_CHAIN_FIELDS = ("A", "b", "j", "ε_final", "mode", "directions")
"""The names of a :func:`~.strategies.chain_instances` instance (ε_final: the ε of ε_k = ε·0.5^{j−k})."""


def _direction(mode, bprev, v, Q, E):
    if mode == "aligned":
        return unit(bprev)
    if mode in ("top", "bottom"):
        pick = max if mode == "top" else min
        return Q[:, pick(range(E.rows), key=lambda k: E[k])]
    return unit(v) if linalg.norm2(v) > 0 else unit(bprev)


def _chain(A, b, j, eps, mode, dirs, schedule):
    """b_k, k = 0..j, each stage meeting its tolerance with equality (spec T5), and ε_k = ε·0.5^{j−k}.

    ``schedule="proof"``: stage k error 0.1·ε_k·κ^{−2(k−1)}‖b_{k−1}‖ (eq. 61); ``"paper"``: alg.5 as
    written, tolerance ε_k/κ^{2k}; ``"corrected"``: the spec's corrected tolerance
    η_k = ε·2^{−(j−k+2)}/κ^{2(k−1)}.  Returns (b_0..b_j, ε_1..ε_j, AᵀA, σ_min(A)).
    """
    G = A.T * A
    E, Q = mp.eigsy(linalg.symmetric_part(G))
    lam = sorted(E[i] for i in range(E.rows))
    kappa = mp.sqrt(lam[-1] / lam[0])
    bs, epss = [b], []
    for k in range(1, j + 1):
        ek = eps * mp.mpf(0.5) ** (j - k)
        if schedule == "proof":
            tol = mp.mpf(0.1) * ek * kappa ** (-2 * (k - 1))
        elif schedule == "corrected":
            tol = eps * mp.mpf(2) ** (-(j - k + 2)) / kappa ** (2 * (k - 1))
        else:
            tol = ek / kappa ** (2 * k)
        u = _direction(mode, bs[-1], to_mp(dirs[k - 1]), Q, E)
        bs.append(linalg.solve(G, bs[-1] + u * (tol * linalg.norm2(bs[-1]))))
        epss.append(ek)
    return bs, epss, G, mp.sqrt(lam[0])


def _j1_p1(A, b, j, eps, mode, dirs):
    with boost((2 * j + 2) * cond_digits(A)):
        bs, epss, G, _ = _chain(A, b, j, eps, mode, dirs, "proof")
        pairs = [(linalg.norm2(O.psd_power(A, k) * bs[k] - bs[0]), epss[k - 1] * linalg.norm2(bs[0]))
                 for k in range(1, j + 1)]
        return max(pairs, key=lambda mb: mb[0] / mb[1])


claims.inequality("attention_kernel_regression.lemJ.1.p1", "induction step of alg.5: ‖(AᵀA)^{k+1}b_{k+1} − b₀‖ ≤ ε_{k+1}‖b₀‖",
                  hypotheses="eq. 61 for every stage (‖AᵀAb_k − b_{k−1}‖ = 0.1ε_kκ^{−2(k−1)}‖b_{k−1}‖, met with "
                             "equality along b_{k−1}, the top or bottom eigenvector, or a drawn direction), ε_k = "
                             "ε·0.5^{j−k} (ε_k ≤ 0.5ε_{k+1}), j ≤ 5, κ ≤ 100",
                  instances=chain_instances, sides=_j1_p1, fields=_CHAIN_FIELDS,
                  notes="Spec: HOLDS under eq. 61 (worst 0.196, proof bound 0.7). Judged at the worst stage k.",
                  provenance="R")


def _j1_p2(A, b, j, eps, mode, dirs):
    with boost((2 * j + 2) * cond_digits(A)):
        bs, _, _, smin = _chain(A, b, j, eps, mode, dirs, "proof")
        return max(((linalg.norm2(bs[k]), 2 * smin ** (-2 * k) * linalg.norm2(bs[0])) for k in range(1, j + 1)),
                   key=lambda mb: mb[0] / mb[1])


claims.inequality("attention_kernel_regression.lemJ.1.p2", "induction step of alg.5: ‖b_{k+1}‖ ≤ 2σ_min(A)^{−2(k+1)}‖b₀‖",
                  hypotheses="as lemJ.1.p1", instances=chain_instances, sides=_j1_p2, fields=_CHAIN_FIELDS,
                  notes="Exact form ‖b_k‖ ≤ (1+ε_k)σ_min^{−2k}‖b₀‖. Judged at the worst stage k.",
                  provenance="R", conventions=("sigma_min",))


def _j1_p3(j, eps):
    ek = [eps * mp.mpf(0.5) ** (j - k) for k in range(1, j + 1)]
    return max(((ek[k + 1], ek[k] / 2) for k in range(j - 1)), key=lambda mb: mb[0] / mb[1])


def _j1_p3_reading(j, eps):
    ek = [eps * mp.mpf(0.5) ** (j - k) for k in range(1, j + 1)]
    return max(((ek[k], ek[k + 1] / 2) for k in range(j - 1)), key=lambda mb: mb[0] / mb[1])


claims.inequality("attention_kernel_regression.lemJ.1.p3", "ε_{k+1} ≤ 0.5·ε_k (Lemma J.1, third bullet)",
                  hypotheses="alg.5's tolerances ε_k = ε_final·0.5^{j−k}, k = 1..j, j ≥ 2, ε_final ∈ (0, 0.1)",
                  expected="falsified", instances=lambda: st.tuples(dims(2, 12), scalars(1e-6, 0.099)), fields=("j", "ε_final"),
                  sides=_j1_p3,
                  notes="Alg.5 sets ε_{k+1} = 2ε_k (ratio 4 to the stated bound); the proof of part 1 uses "
                        "ε_k ≤ 0.5ε_{k+1}, the reverse, which alg.5 satisfies.",
                  provenance="R", basis="proof step",
                  basis_note=("Lemma J.1's third bullet (ε_{k+1} ≤ 0.5ε_k) is an induction hypothesis on tolerances the "
                              "user picks; what fails is the proof of Theorem J.2 choosing ε_k = ε_final·0.5^{j−k}, so "
                              "ε_{k+1} = 2ε_k. The proof of Part 1 needs ε_k ≤ 0.5ε_{k+1}, which that schedule meets "
                              "(repair): the lemma and the theorem are inconsistent in the direction of the schedule, not "
                              "refuted."))


claims.inequality("attention_kernel_regression.lemJ.1.p3", "ε_k ≤ 0.5·ε_{k+1} (tolerances double towards the last stage)",
                  hypotheses="alg.5's tolerances ε_k = ε_final·0.5^{j−k}, k = 1..j, j ≥ 2, ε_final ∈ (0, 0.1)",
                  instances=lambda: st.tuples(dims(2, 12), scalars(1e-6, 0.099)), repair=True, fields=("j", "ε_final"),
                  sides=_j1_p3_reading,
                  notes="The spec's sensible reading (Lemma J.1 part 3): the direction the proof of part 1 uses and "
                        "alg.5 meets (with equality: ε_{k+1} = 2ε_k), so it is judged as arithmetic on alg.5's "
                        "schedule; whether that schedule makes the chain work is lemJ.1.p1 and thmJ.2.")


@functools.cache
def _iteration_instance(kappa: float = 100.0, n: int = 64, d: int = 3):
    """The fixed instance of the iteration-count sweeps: A ∈ R^{64×3} with κ = 100, b ∈ R^3."""
    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.standard_normal((n, d)))
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return (Q * np.geomspace(1.0, 1.0 / kappa, d)) @ V.T, rng.standard_normal(d)


def iteration_bound(impl, j):
    """Algorithm 5's own worst-case iteration bound Σ_k T₂(k) for j stages (ε = 1e-2, δ = 0.05)."""
    A, b = _iteration_instance()
    return output(impl.even_powers_iterations(A.copy(), b.copy(), j, 1e-2, 0.05, 0), "even_powers_iterations",
                  shape=(2,))[1]


SWEEP_STAGES = (2, 4, 8, 16)
_ITER_HYP = ("alg.5 as implemented (schedule 'paper'); n = 64, d = 3, κ = 100, ε = 1e-2, δ = 0.05; per-iteration "
             "cost O(nd + d³) is fixed, so the iteration count carries the dependence on k: the count judged is the "
             "algorithm's own worst-case bound Σ_k T₂(k), T₂(k) = ⌈ln(κ(R̃)/η_k)/ln(1/c₂)⌉ (float64 cannot run the "
             "exact-arithmetic iterations for η_k below 1e-16), for j = 2, 4, 8, 16")

claims.running_time("attention_kernel_regression.lemJ.1.p4",
                    "time through stage k+1: C·(nd + d³)·(k+1)·log(κ/ε_{k+1})·log(1/δ_{k+1})",
                    uses=("even_powers_iterations",), sizes=SWEEP_STAGES, count=iteration_bound,
                    claimed=lambda j: j * math.log(100 / 1e-2) * math.log(j / 0.05),
                    hypotheses=_ITER_HYP, expected="falsified",
                    notes="Stage k needs Θ(k log κ) iterations (tolerance ε_k/κ^{2k}), so the total is Θ(j² log κ): "
                          "fitted exponent ≈ 1.9 against the claimed linear-in-k form (exponent ≈ 1.2 on this grid "
                          "with its log(k/δ)).",
                    provenance="R", conventions=("constants", "log_base", "kappa"), basis="evidence",
                    basis_note=("A least-squares log-log exponent of Algorithm 5's worst-case iteration counts over j = 2, "
                                "4, 8, 16 (n = 64, d = 3, κ = 100, ε = 1e-2, δ = 0.05), against the claimed form's "
                                "exponent on the same grid with 0.2 allowed: a fit over four sizes, not a proof. The Θ(k "
                                "log κ) iterations per stage (tolerance ε_k/κ^{2k}) explain the measured 1.66."))


_ITER_REPAIR = ("Derived (spec alg.5, 'worst-case GD iteration count'): stage i stops after T₂(i) = "
                "⌈ln(κ(R̃)/η_i)/ln(1/c₂)⌉ iterations with η_i = ε_i/κ^{2i} = ε_final·0.5^{k−i}/κ^{2i}, i.e. "
                "ln κ(R̃) + 2i·ln κ + (k − i)·ln 2 + ln(1/ε_final) over ln(1/c₂); summed over i ≤ k: "
                "Θ(k²·log κ + k² + k·log(1/ε_final)) iterations of cost O(nd + d³).")

claims.running_time("attention_kernel_regression.lemJ.1.p4",
                    "time through stage k: O((nd + d³)·(k²·log κ + k² + k·log(1/ε_final))) for the "
                    "GD iterations (plus one preconditioner per stage)",
                    uses=("even_powers_iterations",), sizes=SWEEP_STAGES, count=iteration_bound,
                    claimed=lambda j: j * j * math.log(100) + j * j + j * math.log(1 / 1e-2),
                    hypotheses=_ITER_HYP, repair=True, notes=_ITER_REPAIR)


@claims.trial("attention_kernel_regression.lemJ.1.p5", "the failure probability through stage k+1 is at most δ₁ + … + δ_{k+1}",
              hypotheses="alg.5 as implemented with δ_k = δ/k (union bound: Σδ_k = δ·H_j); j = 2, δ = 0.05, so the "
                         "final guarantee of part 1 may fail w.p. ≤ 0.075; A ∈ R^{8192×2} with κ⁸·1e-16 ≤ 1e-3·ε",
              delta=0.075, trials=50, uses=("even_powers",),
              notes="As a union bound it holds; alg.5's δ_k = δ/k sums to δ·H_j > δ (j ≥ 2), the proof of J.2 uses "
                    "δ/j.",
              provenance="R", conventions=("probability",))
def lemJ_1_p5(seed, impl):
    return _even_trial(seed, impl, 2)


def _even_trial(seed, impl, j):
    return psd_trial(seed, impl, "even_powers", j, lambda eps: max(0.0, min(2.0, (13 + math.log10(eps)) / (2 * j + 2))),
                     eps_range=(-4, -1), extra=(j,))


def _j2_sides(A, b, j, eps, mode, dirs):
    with boost((2 * j + 2) * cond_digits(A)):
        bs, _, _, _ = _chain(A, b, j, eps, mode, dirs, "paper")
        return linalg.norm2(O.psd_power(A, j) * bs[j] - bs[0]), eps * linalg.norm2(bs[0])


claims.inequality("attention_kernel_regression.thmJ.2",
                  "Algorithm 5 runs in O((nd + d³)·j·log(κ/ε)·log²(jn/δ)) and outputs x' with "
                  "‖(AᵀA)^j x' − b‖ ≤ ε_final‖b‖ w.p. ≥ 1 − δ_final",
                  hypotheses="alg.5 as written (ε_k = ε·0.5^{j−k}, stage tolerance ε_k/κ^{2k}) with sub-solvers that "
                             "meet Lemma G.1's guarantee (with equality, in an adversarial direction: spec T5); A full "
                             "column rank, κ(A) ≤ 10, n ≤ 4, d ≤ 2, j ≤ 5, ε ∈ [1e-3, 0.1)",
                  expected="falsified", sides=_j2_sides, fields=_CHAIN_FIELDS,
                  instances=lambda: chain_instances(max_cond=1.0, n_hi=4, d_hi=2, eps_max=0.099,
                                                    modes=("aligned", "top", "bottom"), drawn_directions=False),
                  notes="Spec: alg.5 as written FAILS against a G.1-compliant sub-solver when κ < √10 (ratio 1.505 at "
                        "j = 2, κ = 1). With the corrected tolerances (spec alg.5) the theorem holds; the shipped "
                        "implementation (real alg.2 with a residual rule) meets the bound on random instances: see "
                        "thm1.4 (verified).",
                  provenance="R", conventions=("probability", "constants", "kappa"), basis="proof step",
                  basis_note=("Algorithm 5 is run with sub-solvers that meet Lemma G.1's guarantee with equality in an "
                              "adversarial direction (spec T5), not with Algorithm 2's randomised output. The proof uses "
                              "each stage only through that guarantee, so its tolerance schedule is refuted; the theorem "
                              "(\"there exists an algorithm\") is not: the shipped Algorithm 5 with the real Algorithm 2 "
                              "meets the bound (thm1.4, verified)."))

def _j2_corrected(A, b, j, eps, mode, dirs):
    with boost((2 * j + 2) * cond_digits(A)):
        bs, _, _, _ = _chain(A, b, j, eps, mode, dirs, "corrected")
        return linalg.norm2(O.psd_power(A, j) * bs[j] - bs[0]), eps * linalg.norm2(bs[0])


claims.inequality("attention_kernel_regression.thmJ.2",
                  "Algorithm 5 with the corrected tolerances (δ_k = δ_final/j, stage-k tolerance "
                  "η_k = ε_final·2^{−(j−k+2)}/κ(A)^{2(k−1)}) outputs x' with ‖(AᵀA)^j x' − b‖ ≤ "
                  "ε_final‖b‖ whenever every stage meets Lemma G.1's guarantee (so w.p. ≥ 1 − δ_final)",
                  hypotheses="as the claim: sub-solvers meeting their stage tolerance with equality in an adversarial "
                             "direction (spec T5), κ(A) ≤ 10, n ≤ 4, d ≤ 2, j ≤ 5, ε ∈ [1e-3, 0.1)", repair=True,
                  sides=_j2_corrected, fields=_CHAIN_FIELDS,
                  instances=lambda: chain_instances(max_cond=1.0, n_hi=4, d_hi=2, eps_max=0.099,
                                                    modes=("aligned", "top", "bottom"), drawn_directions=False),
                  notes="The spec's corrected alg.5 (derived proof): (AᵀA)^j b_j − b = Σ_k (AᵀA)^{k−1}(AᵀAb_k − b_{k−1}) "
                        "(telescoping), ‖b_{k−1}‖ ≤ (1+ε)σ_min^{−2(k−1)}‖b‖ by induction, so stage k contributes ≤ "
                        "κ^{2(k−1)}η_k(1+ε)‖b‖ = ε(1+ε)2^{−(j−k+2)}‖b‖, and the sum is < ε(1+ε)/2 ≤ ε; Σδ_k = δ.")

claims.running_time("attention_kernel_regression.thmJ.2.time",
                    "Algorithm 5 runs in O((nd + d³)·(j²·log κ + j² + j·log(1/ε_final))) GD "
                    "time (plus j preconditioners)", uses=("even_powers_iterations",), sizes=SWEEP_STAGES,
                    count=iteration_bound, claimed=lambda j: j * j * math.log(100) + j * j + j * math.log(1 / 1e-2),
                    hypotheses=_ITER_HYP, repair=True,
                    notes=_ITER_REPAIR + " The stated j·log(κ/ε)·log²(jn/δ) holds only while j = O(log²(jn/δ)).")

claims.running_time("attention_kernel_regression.thmJ.2.time",
                    "Algorithm 5 runs in O((nd + d³)·j·log(κ/ε_final)·log²(jn/δ_final))",
                    uses=("even_powers_iterations",), sizes=SWEEP_STAGES, count=iteration_bound,
                    claimed=lambda j: j * math.log(100 / 1e-2) * math.log(j * 64 / 0.05) ** 2,
                    hypotheses=_ITER_HYP, expected="falsified",
                    notes="Spec: AMBIGUOUS ('holds only while j = O(log²(jn/δ))'). The harness reads the O(·) with "
                          "n, δ fixed and j growing: the iteration count is Θ(j² log κ) (stage tolerance ε_k/κ^{2k}), "
                          "fitted exponent ≈ 1.9 against ≈ 1.2 for j·log²(jn/δ) on the same grid, so the stated bound "
                          "fails for large j.",
                    provenance="R", conventions=("constants", "log_base", "kappa"), basis="evidence",
                    basis_note=("A least-squares log-log exponent in j of Algorithm 5's worst-case iteration counts over j "
                                "= 2, 4, 8, 16 (n = 64, d = 3, κ = 100, ε = 1e-2, δ = 0.05; n and δ fixed, j growing), "
                                "against j·log²(jn/δ)'s exponent on that grid with 0.2 allowed: a fit over four sizes, not "
                                "a proof."))


@claims.trial("attention_kernel_regression.thm1.4",
              "(informal J.2) there is an algorithm running in O((nd + d³)·j·log(κ/ε)·log²(jn/δ)) "
              "that outputs x' with ‖(AᵀA)^j x' − b‖ ≤ ε‖b‖ w.p. ≥ 1 − δ",
              hypotheses="the shipped alg.5 (schedule 'paper', real alg.2); A ∈ R^{8192×2} full column rank with "
                         "κ^{2j+2}·1e-16 ≤ 1e-3·ε; j ∈ {1, 2, 3}; ε = 10^U(−4,−1), δ = 0.05",
              delta=0.05, trials=50, uses=("even_powers", "even_powers_ops"),
              notes="The guarantee holds for the implementation (real alg.2 overshoots its tolerance). The running-time "
                    "part in j fails as for thmJ.2.time; here only the n-dependence is judged (exponent of the "
                    "operation counts).",
              provenance="R", conventions=("probability", "constants", "kappa"))
def thm1_4(seed, impl):
    return with_time(_even_trial(seed, impl, 1 + seed % 3), algorithm_time(impl, "even_powers"))


def _k1_instances():
    # one shape (the implementation compiles once) and few drawn numbers, so shrinking stays cheap:
    # A = diag(a), a_i ∈ [0.1, 10] (κ ≤ 100), the spec's counterexample family (A = 2I₃)
    return st.tuples(st.lists(scalars(0.1, 10.0), min_size=3, max_size=3).map(np.diag), vectors(st.just(3)), dims(0, 2),
                     scalars(1e-3, 0.099), st.integers(0, 2**31 - 1)).filter(lambda t: np.any(t[1]))


_K1_FIELDS = ("A", "b", "j", "ε_final", "seed")


def thmK_1(inst, impl):
    """Theorem K.1 (and its informal Theorem 1.5) as stated: ‖(AᵀA)^j x' − b‖ ≤ ε‖b‖ for the implementation's
    Algorithm 6 output x' (odd_powers), with the sensible reading's ratio in the note."""
    A, b, j, eps, seed = inst
    x = output(impl.odd_powers(A.copy(), b.copy(), j, eps, 0.05, seed), "odd_powers", shape=(A.shape[1],))
    Am, bm, xm = to_mp(A), to_mp(b), to_mp(x)

    def sides():
        with boost((2 * j + 2) * cond_digits(A)):
            return linalg.norm2(O.psd_power(Am, j) * xm - bm), mp.mpf(eps) * linalg.norm2(bm)

    out = le(sides)
    with boost((2 * j + 2) * cond_digits(A)):
        y = O.psd_power(Am, j) * xm
        sens = linalg.norm2(Am * y - bm) / ((1 + mp.mpf(eps)) * O.opt_attention(Am, bm, j) + eps * linalg.norm2(bm))
    return with_note(out, f"n = d = {A.shape[0]}, j = {j}: stated ratio {out.ratio:.3g}; sensible reading "
                          f"‖A(AᵀA)^j x' − b‖/((1+ε)OPT + ε‖b‖) = {mp.nstr(sens, 3)}")


_K1 = dict(hypotheses="square A (n = d = 3, the only case where the conclusion type-checks), A = diag(a), "
                      "a_i ∈ [0.1, 10]; b ∈ R^n; j ∈ {0, 1, 2}; ε ∈ [1e-3, 0.1); the shipped alg.6",
           expected="falsified", instances=_k1_instances, uses=("odd_powers",), fields=_K1_FIELDS,
           notes="Ill-typed for n ≠ d ((AᵀA)^j x' ∈ R^d, b ∈ R^n); checked where it type-checks (n = d) and false "
                 "there (A = 2I₃, j = 1: 0.5‖b‖). The proof shows ‖A(AᵀA)^j x' − b‖ ≤ (1+ε)OPT + ε‖b‖; its ratio is "
                 "in each note (≤ 1), and the adapter check of odd_powers judges that sensible form.")

def thmK_1_repair(inst, impl):
    """Theorem K.1 (and Theorem 1.5) in the sensible reading the proof shows: ‖A(AᵀA)^j x' − b‖ ≤ (1+ε)·OPT + ε‖b‖
    for the implementation's Algorithm 6 output x' (odd_powers), OPT = min_x ‖A(AᵀA)^j x − b‖."""
    A, b, j, eps, seed = inst
    x = output(impl.odd_powers(A.copy(), b.copy(), j, eps, 0.05, seed), "odd_powers", shape=(A.shape[1],))
    Am, bm, xm = to_mp(A), to_mp(b), to_mp(x)

    def sides():
        with boost((2 * j + 2) * cond_digits(A)):
            return (linalg.norm2(Am * (O.psd_power(Am, j) * xm) - bm),
                    (1 + mp.mpf(eps)) * O.opt_attention(Am, bm, j) + eps * linalg.norm2(bm))

    return le(sides)


_K1_SENSIBLE = dict(
    hypotheses="as the claim (n = d = 3, A = diag(a), a_i ∈ [0.1, 10], j ∈ {0, 1, 2}, ε ∈ [1e-3, 0.1), the shipped "
               "alg.6); OPT = min_x ‖A(AᵀA)^j x − b‖ = ‖(I − P_A)b‖", instances=_k1_instances, uses=("odd_powers",),
    repair=True, fields=_K1_FIELDS,
    notes="The spec's sensible reading (what the proof shows; HOLDS there, tight at 0.998). Judged on the "
          "implementation's output for this run's seed; the running time is as thmJ.2.time's repair.")


def _k1_tall_instances():
    # A = [diag(a); 0] (n = 4 > d = 3, full column rank), so range(A) misses e₄ and OPT = |b₄|
    return st.tuples(st.lists(scalars(0.1, 10.0), min_size=3, max_size=3).map(
        lambda a: np.vstack([np.diag(a), np.zeros((1, 3))])), vectors(st.just(4)), dims(0, 2), scalars(1e-3, 0.099))


def thmK_1_typo_corrected(inst):
    """Theorem K.1 (and Theorem 1.5) with the A the printed bound lacks: ‖A(AᵀA)^j x' − b‖ ≤ ε‖b‖.  No x' can
    meet it where OPT = min_x ‖A(AᵀA)^j x − b‖ exceeds ε‖b‖, so the measured side is OPT itself (a lower bound
    on every output's error) and the implementation is not called."""
    A, b, j, eps = inst
    Am, bm = to_mp(A), to_mp(b)

    def sides():
        with boost((2 * j + 2) * cond_digits(A)):
            return O.opt_attention(Am, bm, j), mp.mpf(eps) * linalg.norm2(bm)

    return le(sides)


_K1_TYPO = dict(
    hypotheses="tall A = [diag(a); 0] (n = 4 > d = 3), a_i ∈ [0.1, 10]; b ∈ R⁴; j ∈ {0, 1, 2}; ε ∈ [1e-3, 0.1); "
               "the output's error is at least OPT = min_x ‖A(AᵀA)^j x − b‖, which is judged",
    expected="falsified", instances=_k1_tall_instances, fields=("A", "b", "j", "ε_final"), alternative=True,
    reading="typo-corrected: A(AᵀA)^j x' against b (type-checks for every n)", provenance="R",
    conventions=("probability", "constants", "kappa"),
    notes="The form that type-checks for n ≠ d still fails: ε‖b‖ is below OPT whenever b has a component "
          "outside range(A) larger than ε‖b‖, whatever algorithm produced x'; only the proof's (1+ε)·OPT + ε‖b‖ "
          "holds (the repair).")


# Theorem K.1 and its informal Theorem 1.5 are one claim about Algorithm 6: the same two checks under both
# ids.  (id, the sensible reading, judged as the repair; the statement as written)
_K1_STATEMENTS = (
    ("attention_kernel_regression.thmK.1",
     "Algorithm 6 outputs x' with ‖A(AᵀA)^j x' − b‖ ≤ (1+ε_final)·OPT + ε_final‖b‖ w.p. ≥ 1 − δ_final",
     "Algorithm 6 runs in O((nd + d³)·j·log(κ/ε)·log²(jn/δ)) and outputs x' with ‖(AᵀA)^j x' − b‖ ≤ ε_final‖b‖ "
     "w.p. ≥ 1 − δ_final"),
    ("attention_kernel_regression.thm1.5",
     "(informal K.1, sensible reading) an algorithm outputs x' with ‖A(AᵀA)^j x' − b‖ ≤ (1+ε)·OPT + ε‖b‖ "
     "w.p. ≥ 1 − δ for eq. (2)",
     "(informal K.1) an algorithm outputs x' with ‖(AᵀA)^j x' − b‖ ≤ ε‖b‖ w.p. ≥ 1 − δ for eq. (2)"),
)


def _k1_claims(claim_id: str, sensible: str, stated: str) -> None:
    """Declare ``claim_id`` as stated (:func:`thmK_1`) and its sensible reading as the repair (:func:`thmK_1_repair`)."""

    @claims.check(claim_id, stated, **_K1, provenance="R", conventions=("probability", "constants", "kappa"),
                  reading="as printed: (AᵀA)^j x' against b (type-checks only for n = d)")
    def as_stated(inst, impl):
        return thmK_1(inst, impl)

    @claims.check(claim_id, stated.replace("‖(AᵀA)^j x' − b‖", "‖A(AᵀA)^j x' − b‖"), **_K1_TYPO)
    def typo_corrected(inst):
        return thmK_1_typo_corrected(inst)

    @claims.check(claim_id, sensible, **_K1_SENSIBLE)
    def sensible_reading(inst, impl):
        return thmK_1_repair(inst, impl)


for _claim_id, _sensible, _stated in _K1_STATEMENTS:
    _k1_claims(_claim_id, _sensible, _stated)
