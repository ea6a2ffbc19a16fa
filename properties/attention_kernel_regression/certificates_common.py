"""What paper 004's certificate modules share: the registry ``CERTIFIERS`` each of them
registers into, and the exact premise they have in common (the ball helpers live in :mod:`oracle.ball`).

:mod:`.certificates` imports every certificate module, so that importing it (as
:func:`properties.registry.certifiers` does) registers every certifier of the paper.
"""

from __future__ import annotations

from flint import fmpq_mat

from oracle import ball

from ..evidence import Certifiers, Fact

__all__ = ["CERTIFIERS", "psd_fact"]

CERTIFIERS = Certifiers("attention_kernel_regression")


def psd_fact(S: fmpq_mat, what: str) -> Fact:
    """The premise ``what``: the rational symmetric ``S`` is positive semidefinite, decided exactly."""
    return Fact(what, "exact rational LDLᵀ", ball.positive_semidefinite_exact(S))
