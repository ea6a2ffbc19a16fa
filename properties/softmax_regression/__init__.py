"""Claims of "Attention Scheme Inspired Softmax Regression" (Deng, Li, Song 2023; paper 001).

Spec: shared/spec/softmax_regression.md.  One module per section group of the paper:
:mod:`.facts` (§4), :mod:`.gradients` (§5), :mod:`.hessian_bounds` (§6), :mod:`.lipschitz` (§7 and
the Lipschitz statements of §5, §8), :mod:`.newton` (§8–9); :mod:`.strategies` draws the instances
and :mod:`.adapters` holds the adapter functions with their tolerance rules.  The oracle judges at
50+ digits from the exact float64 instance (oracle.softmax_regression; derivatives by numerical
differentiation, never the paper's closed forms, which are themselves claims: lem5.6.part5,
lem5.13, lem5.15.paperB).  The claims about the algorithm (lem8.5, lem8.7, lem8.8,
thm9.1.accuracy, thm9.1.time) call the implementation under judgement through its adapters.
"""

from ..paper import Paper
from ..toolkit.provenance import Convention
from . import adapters, certificates, facts, gradients, hessian_bounds, lipschitz, newton

__all__ = ["PAPER"]

PAPER = Paper(
    name="softmax_regression", title="Attention Scheme Inspired Softmax Regression", number="001",
    authors=("Deng", "Li", "Song"), year=2023, arxiv="2304.10411",
    sections=(facts.claims, gradients.claims, hessian_bounds.claims, lipschitz.claims, newton.claims),
    adapters=(adapters.ADAPTERS,),
    certificates=(certificates.CERTIFIERS,),
    conventions=(
        Convention("sigma_min", "§6.2 (Lemma 6.3): “σ_min(A) the minimum singular value of A”", harness="σ_d(A) for "
                   "A ∈ R^{n×d} of full column rank, the only A the harness draws where σ_min enters"),
        Convention("norms", "§4.1: ‖U‖ the spectral norm; ‖u‖₁, ‖u‖₂, ‖u‖_∞ the vector norms"),
        Convention("loss_half", "§5.1: L_exp(x) = 0.5·‖f(x) − b‖₂²; Def 4.8's L_reg display is lost (spec def.L_reg: "
                   "0.5‖WAx‖₂²)"),
        Convention("probability", "Theorem 9.1 “with probability 1 − δ”: over the sparsifier's sampling (Lemma 8.5), "
                   "a union bound over the T iterations", harness="Lemma 8.5 by seeded trials; the accuracy claim "
                   "with a deterministic H̃ meeting Definition 8.4 at every step"),
        Convention("log_base", "not fixed by the paper (Theorem 9.1: T = log(‖x_0 − x*‖₂/ε))", harness="log₂, rounded "
                   "up (spec thm9.1.iters)", alternatives=(
                       ("natural log", "T = ⌈ln(r_0/ε)⌉: too few iterations for the proof's 0.4 contraction"),)),
        Convention("constants", "Lemma 8.10: M ≤ β^{-2}n^{1.5}exp(O(R²)) (its exponent constant is not recovered)",
                   harness="the Hessian-Lipschitz constant M = 22‖A‖³ (derived.M22, verified); the paper's M makes "
                   "the start condition M·r_0 ≤ 0.1l unusably small"),
    ),
)
