"""What paper 004's certificate modules share (issue 22): the registry ``CERTIFIERS`` each of them
registers into, and the ball and exact-rational helpers they have in common.

:mod:`.certificates` imports every certificate module, so that importing it (as
:func:`properties.certify.certifiers` does) registers every certifier of the paper.
"""

from __future__ import annotations

from flint import arb, fmpq_mat

from oracle import ball

from ..evidence import Certifiers, Fact

__all__ = ["CERTIFIERS", "highest", "lowest", "psd_fact"]

CERTIFIERS = Certifiers("attention_kernel_regression")


def lowest(values: list[arb]) -> arb:
    """A ball enclosing the least of the reals enclosed by ``values``."""
    lo = min((v.lower() for v in values), key=lambda x: x.mid())
    hi = min((v.upper() for v in values), key=lambda x: x.mid())
    return lo.union(hi)


def highest(values: list[arb]) -> arb:
    """A ball enclosing the greatest of the reals enclosed by ``values``."""
    lo = max((v.lower() for v in values), key=lambda x: x.mid())
    hi = max((v.upper() for v in values), key=lambda x: x.mid())
    return lo.union(hi)


def psd_fact(S: fmpq_mat, what: str) -> Fact:
    """The premise ``what``: the rational symmetric ``S`` is positive semidefinite, decided exactly."""
    return Fact(what, "exact rational LDLᵀ", ball.positive_semidefinite_exact(S))
