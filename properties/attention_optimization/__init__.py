"""Claims of "A Fast Optimization View: Reformulating Single Layer Attention in LLM Based on Tensor
and SVM Trick, and Solving It in Matrix Multiplication Time" (Gao, Song, Wang, Yin 2023; paper 003).

Spec: ``shared/spec/attention_optimization.md``.  Section modules: ``facts`` (Facts 4.1–4.4, Sec 4.7),
``gradients`` (reformulations, Lemmas 5.1–5.5), ``hessians`` (Lemmas 7.x, 10.1 p1–p2, 10.2, 11.x),
``lipschitz`` (Sections 8 and 12, Lemma 10.1 Part 5), ``psd`` (Lemmas 6.1, 9.x, 10.1 p3–p4, the Sec 3
chain), ``sketching`` (Section 13), ``newton`` (Section 14, Theorem 1.3, running times); ``adapters``
holds this paper's functions of the adapter contract.
"""

from ..paper import Paper
from ..toolkit.provenance import Convention
from . import adapters, certificates, facts, gradients, hessians, lipschitz, newton, psd, sketching

__all__ = ["PAPER"]

PAPER = Paper(
    name="attention_optimization",
    title="A Fast Optimization View: Reformulating Single Layer Attention in LLM Based on Tensor and SVM Trick, "
          "and Solving It in Matrix Multiplication Time",
    number="003", authors=("Gao", "Song", "Wang", "Yin"), year=2023, arxiv="2309.07418",
    sections=(facts.claims, gradients.claims, hessians.claims, lipschitz.claims, psd.claims, sketching.claims,
              newton.claims),
    adapters=(adapters.ADAPTERS,),
    certificates=(certificates.CERTIFIERS,),
    conventions=(
        Convention("sigma_min", "§9 (Lemma 9.1): “Let σ_min be the smallest singular value”; for the n×d² block 𝖠_{j0} "
                   "(rank ≤ d) that is the d²-th, 0 when d ≥ 2", alternatives=(
                       ("smallest nonzero singular value", "σ_+(𝖠_{j0}), the smallest nonzero singular value: the only "
                        "reading under which Lemma 9.1's hypotheses can hold for d ≥ 2"),)),
        Convention("loss_half", "Def 1.2 poses L(X,Y) = ‖D(X)⁻¹exp(A1XA2ᵀ)A3Y − B‖_F² (no ½); the per-entry losses "
                   "the Hessian lemmas differentiate (Defs 4.7, 4.13, displays lost) are ½c², as the coefficients of "
                   "the printed B(x) require (spec def.loss): the harness's L_half", alternatives=(
                       ("no ½", "the per-entry loss c² of Def 1.2 without ½: every Hessian twice as large"),)),
        Convention("reg_x", "Lemma 9.1: “min_{j1} w_{j1,j1} ≥ …” (the display of H_reg,x is lost)",
                   harness="spec def.reg_x reading (b): H_reg,x,{j0,i0} = 𝖠_{j0}ᵀW𝖠_{j0}", alternatives=(
                       ("w²", "spec def.reg_x reading (a): 𝖠_{j0}ᵀW²𝖠_{j0}, Lemma 9.1's conditions read on w²"),)),
        Convention("norms", "§4: ‖·‖ the spectral norm of a matrix, ‖·‖₂ of a vector, ‖·‖_F Frobenius"),
        Convention("probability", "Theorem 1.3, §13: “with probability 1 − δ”: over TensorSRHT's randomness",
                   harness="seeded trials judged by a binomial rule"),
        Convention("log_base", "not fixed by the paper (T = log(‖z_0 − z*‖₂/ε))", harness="log₂, rounded up"),
        Convention("constants", "R ≥ 4 (Lemma 8.5), C_0 = 30R⁸ (Lemma 9.1); M of the form n^{O(1)}e^{O(R²)}",
                   harness="each claim states its radii and constants (R drawn in [4, 10]); O(·) times judged by "
                   "operation counts"),
    ),
)
