"""Claims of Section L of paper 004 (attention-kernel regression): polynomial-sketch features
(Algorithm 8), the preconditioned solver (Algorithm 7) and its ridge repair (Algorithm 7R),
Theorems L.1–L.8 and Theorem 1.6.  Spec: shared/spec/attention_kernel_regression.md."""

from __future__ import annotations

from ..contract import AdapterSet
from ..toolkit import ClaimSet

__all__ = ["adapters", "claims"]

claims = ClaimSet("attention_kernel_regression")
adapters = AdapterSet()
