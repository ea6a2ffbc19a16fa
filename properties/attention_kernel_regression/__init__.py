"""Claims of "Solving Attention Kernel Regression Problem via Pre-conditioner" (Song, Yin, Zhang 2023;
paper 004).

Spec: ``shared/spec/attention_kernel_regression.md``.  Section modules: ``facts`` (Appendices A–B),
``sketching`` (C), ``linear_algebra_lemmas`` (D–E, Remark 3.1), ``regression`` (F–I, Algorithms 1–4),
``powers`` (J–K, Algorithms 5–6, Theorems 1.4–1.5), ``section_l_sketch`` (L: Algorithm 8, W_g,
Theorems L.1, L.5, L.6, L.8, Lemma L.2) and ``section_l_solver`` (L: Algorithms 7 and 7R, Theorem L.3 /
1.6), ``identities`` (the derived identities the oracle relies on); ``strategies``, ``common`` and
``costs`` (running time from the implementation's operation counts) are shared by them; ``adapters``
and ``section_l_adapters`` hold this paper's functions of the adapter contract.  The oracle
(:mod:`oracle.attention_kernel_regression`) judges at 50+ digits from the exact float64 instance.
"""

from ..paper import Paper
from . import (
    adapters,
    facts,
    identities,
    linear_algebra_lemmas,
    powers,
    regression,
    section_l_adapters,
    section_l_sketch,
    section_l_solver,
    sketching,
)

__all__ = ["PAPER"]

PAPER = Paper(
    name="attention_kernel_regression", title="Solving Attention Kernel Regression Problem via Pre-conditioner",
    number="004", authors=("Song", "Yin", "Zhang"), year=2023, arxiv="2308.14304",
    sections=(facts.claims, sketching.claims, linear_algebra_lemmas.claims, regression.claims, powers.claims,
              section_l_sketch.claims, section_l_solver.claims, identities.claims),
    adapters=(adapters.ADAPTERS, section_l_adapters.adapters),
)
