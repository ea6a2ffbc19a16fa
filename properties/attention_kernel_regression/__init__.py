"""Claims of "Solving Attention Kernel Regression Problem via Pre-conditioner" (Song, Yin, Zhang 2023;
paper 004).

Spec: ``shared/spec/attention_kernel_regression.md``.  Section modules: ``facts`` (Appendices A–B),
``sketching`` (C), ``linear_algebra_lemmas`` (D–E, Remark 3.1), ``regression`` (F–I, Algorithms 1–4),
``powers`` (J–K, Algorithms 5–6, Theorems 1.4–1.5), ``tensor_sketch`` (L: Algorithm 8, W_g,
Theorems L.1, L.5, L.6, L.8, Lemma L.2) and ``kernel_ridge`` (L: Algorithms 7 and 7R, Theorem L.3 /
1.6), ``identities`` (the derived identities the oracle relies on); ``strategies``, ``common`` and
``costs`` (running time from the implementation's operation counts) are shared by them; ``adapters``
and ``kernel_ridge_adapters`` hold this paper's functions of the adapter contract.  The oracle
(:mod:`oracle.attention_kernel_regression`) judges at 50+ digits from the exact float64 instance.
"""

from ..paper import Paper
from ..toolkit.provenance import Convention
from . import (
    adapters,
    certificates,
    certificates_sketch,
    certificates_statistics,
    facts,
    identities,
    kernel_ridge,
    kernel_ridge_adapters,
    linear_algebra_lemmas,
    powers,
    regression,
    sketching,
    tensor_sketch,
)

__all__ = ["PAPER"]

PAPER = Paper(
    name="attention_kernel_regression", title="Solving Attention Kernel Regression Problem via Pre-conditioner",
    number="004", authors=("Song", "Yin", "Zhang"), year=2023, arxiv="2308.14304",
    sections=(facts.claims, sketching.claims, linear_algebra_lemmas.claims, regression.claims, powers.claims,
              tensor_sketch.claims, kernel_ridge.claims, identities.claims),
    adapters=(adapters.ADAPTERS, kernel_ridge_adapters.ADAPTERS),
    certificates=(certificates.CERTIFIERS, certificates_sketch.CERTIFIERS, certificates_statistics.CERTIFIERS),
    conventions=(
        Convention("sigma_min", "§A.1: σ_min(A) = min_{‖x‖₂=1} ‖Ax‖₂ (so 0 for a wide A); the harness's default "
                   "throughout", alternatives=(
                       ("min(m,n)-th singular value", "σ_min(A) = σ_{min(m,n)}(A) for A ∈ R^{m×n}: agrees with the "
                        "paper's on square and tall matrices; the proof of Theorem L.3 (κ(RᵀS), eq. 79, eq. 86) "
                        "applies σ_min and κ to wide matrices as if it meant this"),)),
        Convention("kappa", "Def A.2: κ(A) := σ_max(A)/σ_min(A), with σ_min as in §A.1"),
        Convention("division_by_zero", "not fixed by the paper", harness="1/0 = +∞ (σ_min(A)^{-k} = ∞ and κ(A) = ∞ "
                   "when σ_min(A) = 0)", alternatives=(
                       ("undefined", "an expression with σ_min(A)^{-1} is undefined at σ_min(A) = 0, so a statement "
                        "containing it speaks only of A with σ_min(A) > 0"),)),
        Convention("pinv", "§A.1: A† the pseudo-inverse (Moore–Penrose), A⁻¹ the inverse of a square full-rank A"),
        Convention("norms", "§A.1: ‖A‖ = max_{‖x‖₂=1}‖Ax‖₂ (spectral), ‖x‖₂ Euclidean, ‖·‖_F Frobenius"),
        Convention("probability", "“with probability 1 − δ” (Defs C.3, C.4, Theorems J.2–L.8): over the "
                   "sketches' randomness (SRHT, OSNAP, TensorSRHT, Algorithm 8), for a fixed input",
                   harness="seeded trials of the sketches, judged by a binomial rule (a claim fails when its "
                   "failures exceed the 1e-6 upper quantile of Binomial(trials, δ)); 1/poly(n) read as a fixed δ "
                   "stated per claim"),
        Convention("constants", "not fixed by the paper (O, Θ, Θ̃, Ω̃ sizes and times)", harness="each claim "
                   "instantiates C·(expression) and states its C (spec T2); running times are judged by operation "
                   "counts and a fitted log-log exponent (+0.2 allowed)"),
        Convention("log_base", "not fixed by the paper", harness="natural log; iteration counts use explicit bases"),
    ),
)
