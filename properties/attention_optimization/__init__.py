"""Claims of "A Fast Optimization View: Reformulating Single Layer Attention in LLM Based on Tensor
and SVM Trick, and Solving It in Matrix Multiplication Time" (Gao, Song, Wang, Yin 2023; paper 003).

Spec: ``shared/spec/attention_optimization.md``.  Section modules: ``facts`` (Facts 4.1–4.4, Sec 4.7),
``gradients`` (reformulations, Lemmas 5.1–5.5), ``hessians`` (Lemmas 7.x, 10.x, 11.x); ``adapters``
holds this paper's functions of the adapter contract.
"""

from . import facts, gradients, hessians
from .adapters import ADAPTERS as ADAPTERS

CLAIMS = (*facts.claims, *gradients.claims, *hessians.claims)

__all__ = ["ADAPTERS", "CLAIMS"]
