"""The registry of paper 000's certifiers, ``CERTIFIERS``, which :mod:`.certificates` and
:mod:`.certificates_experiment` both register into; :mod:`.certificates` imports
:mod:`.certificates_experiment`, so that importing it (as :func:`properties.registry.certifiers` does)
registers every certifier of the paper.
"""

from __future__ import annotations

from ..evidence import Certifiers

__all__ = ["CERTIFIERS"]

CERTIFIERS = Certifiers("attention_pruning")
