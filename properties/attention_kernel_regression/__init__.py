"""Claims of "Solving Attention Kernel Regression Problem via Pre-conditioner" (Song, Yin, Zhang 2023;
paper 004).

Spec: ``shared/spec/attention_kernel_regression.md``.  Section modules: ``facts`` (Appendices A–B),
``sketching`` (C), ``linear_algebra_lemmas`` (D–E, Remark 3.1), ``regression`` (F–I, Algorithms 1–4),
``powers`` (J–K, Algorithms 5–6, Theorems 1.4–1.5), ``section_l`` (L), ``identities`` (the derived
identities the oracle relies on); ``strategies``, ``common`` and ``costs`` (running time from the
implementation's operation counts) are shared by them; ``adapters`` holds this paper's functions of
the adapter contract.  The oracle (:mod:`oracle.attention_kernel_regression`) judges at 50+ digits
from the exact float64 instance.
"""

from . import facts, identities, linear_algebra_lemmas, powers, regression, section_l, sketching
from .adapters import ADAPTERS as _OWN

CLAIMS = (*facts.claims, *sketching.claims, *linear_algebra_lemmas.claims, *regression.claims, *powers.claims,
          *section_l.claims, *identities.claims)
ADAPTERS = (*_OWN, *section_l.adapters)

__all__ = ["ADAPTERS", "CLAIMS"]
