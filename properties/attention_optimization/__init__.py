"""Claims of "A Fast Optimization View: Reformulating Single Layer Attention in LLM Based on Tensor
and SVM Trick, and Solving It in Matrix Multiplication Time" (Gao, Song, Wang, Yin 2023; paper 003).

Spec: ``shared/spec/attention_optimization.md``.  Section modules: ``facts`` (Facts 4.1–4.4, Sec 4.7),
``gradients`` (reformulations, Lemmas 5.1–5.5), ``hessians`` (Lemmas 7.x, 10.1 p1–p2, 10.2, 11.x),
``lipschitz`` (Sections 8 and 12, Lemma 10.1 Part 5), ``psd`` (Lemmas 6.1, 9.x, 10.1 p3–p4, the Sec 3
chain), ``sketching`` (Section 13), ``newton`` (Section 14, Theorem 1.3, running times); ``adapters``
holds this paper's functions of the adapter contract.
"""

from ..paper import Paper
from . import adapters, facts, gradients, hessians, lipschitz, newton, psd, sketching

__all__ = ["PAPER"]

PAPER = Paper(
    name="attention_optimization",
    title="A Fast Optimization View: Reformulating Single Layer Attention in LLM Based on Tensor and SVM Trick, "
          "and Solving It in Matrix Multiplication Time",
    number="003", authors=("Gao", "Song", "Wang", "Yin"), year=2023, arxiv="2309.07418",
    sections=(facts.claims, gradients.claims, hessians.claims, lipschitz.claims, psd.claims, sketching.claims,
              newton.claims),
    adapters=(adapters.ADAPTERS,),
)
