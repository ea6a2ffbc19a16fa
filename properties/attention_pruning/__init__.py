"""Claims of "Beyond Linear Approximations: A Novel Pruning Approach for Attention Matrix" (Liang,
Long, Shi, Song, Zhou; arXiv 2024, ICLR 2025; paper 000; spec ``shared/spec/attention_pruning.md``).

Modules by section group of the paper: ``facts`` (Facts A, E.1–E.2, F.1, F.3), ``gradients``
(Appendices B–C, Theorem 5.3), ``bounds`` (Appendix D), ``lipschitz`` (Appendix E), ``convergence``
(Appendix F, Lemma 5.5, Theorems 4.1 and 5.2), ``experiments`` (Section 6.1, the ``emp.*`` claims);
``adapters`` and ``masks`` (the binarisation, Wanda and SparseGPT) hold this paper's functions of the
adapter contract.
"""

from ..paper import Paper
from . import adapters, bounds, convergence, experiments, facts, gradients, lipschitz, masks

__all__ = ["PAPER"]

PAPER = Paper(
    name="attention_pruning", title="Beyond Linear Approximations: A Novel Pruning Approach for Attention Matrix",
    number="000", authors=("Liang", "Long", "Shi", "Song", "Zhou"), year=2024, arxiv="2410.11261",
    sections=(facts.claims, gradients.claims, bounds.claims, lipschitz.claims, convergence.claims, experiments.claims),
    adapters=(adapters.ADAPTERS, masks.ADAPTERS), experiment="properties.attention_pruning.experiments",
)
