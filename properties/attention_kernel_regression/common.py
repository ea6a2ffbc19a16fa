"""Helpers shared by the section modules of paper 004: the working precision an ill-conditioned
instance needs, exact products and ranks, κ with the paper's σ_min, and the exact residuals of
the regression problems.

Ill-conditioned instances are judged at a working precision raised by the digits the conditioning
costs (:func:`boost`), so "equal" means equal to 40+ digits after that loss.  σ_min is the paper's
``min_{‖x‖=1}‖Mx‖`` (0 for a wide matrix; exactly 0 for an exactly rank-deficient one, decided
over the rationals).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from mpmath import mp

from oracle import attention_kernel_regression as O
from oracle import linalg, to_mp

from ..toolkit import Outcome
from ..toolkit.strategies import log10_cond

__all__ = [
    "boost",
    "cond_digits",
    "exact_product",
    "fails_infinitely",
    "fraction",
    "kappa_paper",
    "odd_residual_and_opt",
    "orth",
    "power_residual",
    "trivially_true",
    "unit",
    "with_note",
]

def boost(digits: float):
    """Work at the current precision plus ``digits`` (the digits a conditioning costs, e.g.
    ``2 * cond_digits(A)``; at most 300 counted) and 10 more."""
    extra = int(min(max(digits, 0.0), 300.0)) + 10
    return mp.workdps(mp.dps + extra)


def cond_digits(A) -> float:
    """The decimal digits κ(A) costs, with one to spare: log10 κ(A) + 1, estimated in float64 by the
    toolkit's ``log10_cond`` capped at 299 (so at most 300, and 300 for a singular A).  It only
    chooses a working precision (:func:`boost`) or words a note, never a verdict; ``A`` is a float64
    array or the exact mpmath image of one."""
    return log10_cond(A, max_value=299.0) + 1.0


def exact_product(A, B):
    """AB of two float64 matrices as rows of Fractions (exact)."""
    FA = [[Fraction(float(v)) for v in row] for row in np.asarray(A, dtype=np.float64)]
    FB = [[Fraction(float(v)) for v in row] for row in np.asarray(B, dtype=np.float64)]
    return [[sum((FA[i][k] * FB[k][j] for k in range(len(FB))), Fraction(0)) for j in range(len(FB[0]))]
            for i in range(len(FA))]


def fraction(q: Fraction):
    """A rational as an mpf at the current precision (correctly rounded)."""
    return mp.mpf(q.numerator) / q.denominator


def kappa_paper(M, rank: int):
    """κ with the paper's σ_min: ∞ for a wide or rank-deficient matrix, σ_1/σ_c otherwise."""
    if M.rows < M.cols or rank < M.cols:
        return mp.inf
    s = linalg.singular_values(M)
    return s[0] / s[-1]


def unit(v):
    return v / linalg.norm2(v)


def orth(G):
    """An orthonormal basis (mpmath QR) of the columns of a full-column-rank mp matrix."""
    Q, _ = mp.qr(G, mode="skinny")
    return Q


def fails_infinitely(measured, note: str) -> Outcome:
    """The claim fails with an infinite side (σ_min = 0 where the statement needs it positive)."""
    return Outcome(False, math.inf, float(measured), math.inf, None, note)


def trivially_true(note: str) -> Outcome:
    """The claim holds on this instance because its bound is ∞."""
    return Outcome(True, 0.0, 0.0, math.inf, None, note)


def with_note(out: Outcome, note: str) -> Outcome:
    return Outcome(out.holds, out.ratio, out.measured, out.bound, out.digits, note)


def _col(v):
    return v if isinstance(v, mp.matrix) else to_mp(np.asarray(v, dtype=np.float64))


def power_residual(g: O.ExactGram, x, j: int, b):
    """‖(AᵀA)^j x − b‖ at the current precision from exact Gram data (b ∈ R^d)."""
    G, _, _ = g.mp()
    y = _col(x)
    for _ in range(j):
        y = G * y
    return linalg.norm2(y - _col(b))


def odd_residual_and_opt(g: O.ExactGram, x, j: int):
    """(‖A(AᵀA)^j x − b‖, OPT = ‖(I − P_A)b‖) at the current precision from exact Gram data."""
    G, c, bb = g.mp()
    y = _col(x)
    for _ in range(j):
        y = G * y
    r2 = (y.T * G * y)[0] - 2 * (y.T * c)[0] + bb
    xs = linalg.solve(G, c)
    opt2 = bb - (xs.T * c)[0]
    return mp.sqrt(max(r2, mp.mpf(0))), mp.sqrt(max(opt2, mp.mpf(0)))
