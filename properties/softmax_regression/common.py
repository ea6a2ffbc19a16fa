"""Objects several sections of paper 001 judge with (spec/softmax_regression.md §1–2)."""

from __future__ import annotations

from mpmath import mp

from oracle import derivatives
from oracle import softmax_regression as S

from ..toolkit import loewner, worst

__all__ = ["FB_HYP", "columns", "grad_exp", "loewner_chain", "on_simplex"]

FB_HYP = "f = f(x) on the probability simplex, b ≥ 0_n, ‖b‖₁ ≤ 1"


def on_simplex(p):
    """The point p/Σp of the probability simplex for a drawn p ≥ 0 (an mp column; e_1 when p = 0)."""
    s = mp.fsum(p)
    if s == 0:
        return mp.matrix([1] + [0] * (p.rows - 1))
    return p / s


def columns(A):
    """A_{*,1}, …, A_{*,d}."""
    return [A[:, i] for i in range(A.cols)]


def grad_exp(A, b, z):
    """∇L_exp(z) by numerical differentiation (ground truth, never the closed form def.g)."""
    return derivatives.gradient(lambda v: S.L_exp(A, b, v), z)


def loewner_chain(*links):
    """Judge X_0 ⪯ X_1 ⪯ … ⪯ X_k, each ``links[i]`` a thunk returning X_i: every link judged by
    :func:`~properties.toolkit.loewner`, the first failing (else the tightest) reported."""
    return worst(*(loewner(lo, hi) for lo, hi in zip(links, links[1:])))

