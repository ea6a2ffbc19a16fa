"""Claims of Section L of paper 004 (attention-kernel regression): polynomial-sketch features
(Algorithm 8), the preconditioned solver (Algorithm 7) and its ridge repair (Algorithm 7R),
Theorems L.1–L.8 and Theorem 1.6.  Spec: shared/spec/attention_kernel_regression.md.

The claims live in ``section_l_sketch`` (Algorithm 8, W_g: Theorems L.1, L.5, L.6, L.8, Lemma L.2) and
``section_l_solver`` (Algorithm 7, Theorem L.3 / 1.6 and its sub-claims, alg7R.conv); the adapter
checks in ``section_l_adapters``.  This module gathers them into ``claims`` and ``adapters``.
"""

from __future__ import annotations

from ..contract import AdapterSet
from ..toolkit import ClaimSet
from . import section_l_adapters, section_l_sketch, section_l_solver

__all__ = ["adapters", "claims"]

claims = ClaimSet("attention_kernel_regression")
claims.claims.extend([*section_l_sketch.claims, *section_l_solver.claims])
adapters = AdapterSet()
adapters.adapters.extend(section_l_adapters.adapters)
