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
from . import adapters, facts, gradients, hessian_bounds, lipschitz, newton

__all__ = ["PAPER"]

PAPER = Paper(
    name="softmax_regression", title="Attention Scheme Inspired Softmax Regression", number="001",
    authors=("Deng", "Li", "Song"), year=2023, arxiv="2304.10411",
    sections=(facts.claims, gradients.claims, hessian_bounds.claims, lipschitz.claims, newton.claims),
    adapters=(adapters.ADAPTERS,),
)
