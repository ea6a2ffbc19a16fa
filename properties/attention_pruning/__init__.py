"""Claims of "Beyond Linear Approximations: A Novel Pruning Approach for Attention Matrix" (Liang,
Long, Shi, Song, Zhou; ICLR 2025; paper 000; spec ``shared/spec/attention_pruning.md``).

Modules by section group of the paper: ``facts`` (Facts A, E.1–E.2, F.1, F.3).
"""

from . import adapters, bounds, convergence, experiments, facts, gradients, lipschitz

CLAIMS = (*facts.claims, *gradients.claims, *bounds.claims, *lipschitz.claims, *convergence.claims, *experiments.claims)
ADAPTERS = (*adapters.ADAPTERS,)

__all__ = ["ADAPTERS", "CLAIMS"]
