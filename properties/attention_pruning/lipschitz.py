"""Appendix E of paper 000 (spec §5.5): Lipschitz constants of f̃, c, p1, diag(p1 1_n), p2 and of ∇L
(Theorem 5.4 = Lemma E.8), with the constants of the proof chain (spec def.lipschitz_L,
:func:`oracle.attention_pruning.lipschitz_constants`), R the smallest admissible radius of
Assumption D.1 at the pair's data.  Pairs M, M' ∈ [0,1]^{d×d}, near (down to 1e-6) or far.
"""

from __future__ import annotations

from mpmath import mp

from oracle import attention_pruning as O
from oracle import linalg

from ..toolkit import ClaimSet
from .gradients import mask_of
from .strategies import PAIR_FIELDS, pruning_pairs

__all__ = ["claims"]

claims = ClaimSet("attention_pruning")

HYP = "Assumption D.1 (R := max(‖X‖_F, ‖W‖_F, 1)(1 + 1e-9)); M, M' ∈ [0,1]^{d×d}; λ ≥ 0; causal or not"


def _const(key, factor=1):
    def constant(X, W, lam, causal, M, M2):
        return O.lipschitz_constants(X.rows, X.cols, O.radius(X, W), lam)[key] * factor

    return constant


def _value(fn):
    """F(M) as a column (so the toolkit's norm of the difference is the Frobenius norm)."""
    return lambda X, W, lam, causal, z: linalg.vec(fn(X, W, lam, mask_of(X, causal), z))


def _p1(X, W, lam, Mc, M):
    return O.p_parts(X, W, M, Mc)[0]


def _diag_p1(X, W, lam, Mc, M):
    p1 = _p1(X, W, lam, Mc, M)
    return mp.matrix([mp.fsum(p1[i, j] for j in range(p1.cols)) for i in range(p1.rows)])


_CASES = [
    ("attention_pruning.lemE3", "‖f̃(M) − f̃(M')‖_F ≤ L_f‖M − M'‖_F with L_f = 2ndR³",
     lambda X, W, lam, Mc, M: O.f_tilde(X, W, M, Mc), "L_f"),
    ("attention_pruning.lemE4", "‖c(M) − c(M')‖_F ≤ L_f‖M − M'‖_F", lambda X, W, lam, Mc, M: O.unit_c(X, W, M, Mc), "L_f"),
    ("attention_pruning.lemE5", "‖p1(M) − p1(M')‖_F ≤ 3√n·L_f·‖M − M'‖_F", _p1, "L_p1"),
    ("attention_pruning.lemE6", "‖diag(p1(M)1_n) − diag(p1(M')1_n)‖_F ≤ 3n·L_f·‖M − M'‖_F", _diag_p1, "L_diag"),
    ("attention_pruning.lemE7", "‖p2(M) − p2(M')‖_F ≤ (3n^{1.5} + 2n)L_f‖M − M'‖_F",
     lambda X, W, lam, Mc, M: O.p_parts(X, W, M, Mc)[1], "L_p2"),
]

for _id, _statement, _fn, _key in _CASES:
    claims.lipschitz(_id, _statement, hypotheses=HYP, instances=pruning_pairs, fields=PAIR_FIELDS, value=_value(_fn),
                     constant=_const(_key))

claims.lipschitz("attention_pruning.thm5.4", "∇_M L is L-Lipschitz: ‖∇L(M) − ∇L(M')‖_F ≤ L‖M − M'‖_F with "
                 "L = 16n^{2.5}dR⁶ + λ (the constant of the proof chain E.3 → E.8; the paper's display is not recovered)",
                 hypotheses=HYP, instances=pruning_pairs, fields=PAIR_FIELDS,
                 value=_value(lambda X, W, lam, Mc, M: O.gradient_closed_form(X, W, M, lam, Mc)), constant=_const("L"),
                 notes="∇L by the closed form of Thm 5.3, which thm5.3 judges against 50-digit numerical gradients; "
                       "numerical gradients of near pairs would cost d² derivatives twice per example")
