"""Certificates of paper 001's falsified claims and of their repairs' worst examples (issue 22): each
evaluator takes the statement's objects exactly (``fmpq``/``fmpq_mat``) and returns the
:class:`~properties.certify.Evidence` that the claim fails there (or that its repair holds strictly)."""

from __future__ import annotations

from oracle import ball

from ..certify import Certifiers, Evidence, Fact

__all__ = ["CERTIFIERS"]

CERTIFIERS = Certifiers("softmax_regression")


@CERTIFIERS.violation("softmax_regression.fact4.4.p1",
                      method="exact LDLᵀ of αV − U for the premise; ball eigenvalues for the norms")
def _fact4_4_p1(inst, hints):
    U, V, a = inst["U"], inst["V"], inst["α"]
    premise = Fact("U ⪯ αV (αV − U positive semidefinite)", "exact rational LDLᵀ",
                   ball.positive_semidefinite_exact(V * a - U))
    return Evidence("≤", ball.spectral_norm(U), ball.spectral_norm(V) * ball.matrix([[a]])[0, 0],
                    what="‖U‖₂ against α‖V‖₂", premises=[premise])
