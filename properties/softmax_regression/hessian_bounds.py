"""§6 of paper 001: bounds on the pieces of B(x) (Lemma 6.2) and positive definiteness of ∇²L
(Lemma 6.3).  ∇²L = numerical ∇²L_exp + AᵀW²A (oracle.softmax_regression.true_hessian)."""

from __future__ import annotations

from mpmath import mp

from oracle import linalg
from oracle import softmax_regression as S
from oracle.linalg import diag, dot, entrywise

from ..toolkit import ClaimSet, require, to_oracle
from .common import FB_HYP, loewner_chain, on_simplex
from .strategies import ON_SIMPLEX, fb_pairs, strongly_convex

__all__ = ["claims"]

claims = ClaimSet("softmax_regression")

_STRONGLY_CONVEX = ("A", "b", "l", "Δw²", "x", "y", "t")
"""The fields of a :func:`~.strategies.strongly_convex` draw: Δw² is the excess of w_i² over base + l/σ_min(A)²."""


def _between(inst, piece, lo, hi):
    """lo·I ⪯ piece(f, b) ⪯ hi·I over the simplex at the drawn (p, b) (both links judged)."""
    p, b = to_oracle(inst)
    return loewner_chain(lambda: mp.eye(p.rows) * lo, lambda: piece(on_simplex(p), b), lambda: mp.eye(p.rows) * hi)


@claims.check("softmax_regression.lem6.2.part1", "−2 I_n ⪯ B_rank^1 ⪯ 3 I_n, B_rank^1 = ⟨3f − 2b, f⟩ffᵀ",
              hypotheses=FB_HYP, instances=fb_pairs, **ON_SIMPLEX, notes="The upper bound is tight at f = e_1, b = 0.")
def _b_rank1(inst):
    return _between(inst, S.B_rank1, -2, 3)


@claims.check("softmax_regression.lem6.2.part2", "−5 I_n ⪯ B_rank^2 ⪯ 5 I_n, B_rank^2 = −vfᵀ − fvᵀ",
              hypotheses=FB_HYP, instances=fb_pairs, **ON_SIMPLEX)
def _b_rank2(inst):
    return _between(inst, S.B_rank2, -5, 5)


@claims.check("softmax_regression.lem6.2.part3", "−I_n ⪯ B_diag^1 ⪯ I_n, B_diag^1 = −⟨f − b, f⟩diag(f)",
              hypotheses=FB_HYP, instances=fb_pairs, **ON_SIMPLEX, notes="The lower bound is tight at f = e_1, b = 0.")
def _b_diag1(inst):
    return _between(inst, S.B_diag1, -1, 1)


@claims.check("softmax_regression.lem6.2.part4", "−(1/8) I_n ⪯ B_diag^2 ⪯ 2 I_n, B_diag^2 = diag((2f − b)∘f)",
              hypotheses=FB_HYP, instances=fb_pairs, **ON_SIMPLEX)
def _b_diag2(inst):
    return _between(inst, S.B_diag2, -mp.mpf(1) / 8, 2)

claims.inequality("softmax_regression.lem6.2.part5", "−4 I_n ⪯ B(x) (reading; the upper bound is not recovered)",
                  hypotheses="‖b‖₁ ≤ 1, ‖f(x)‖₁ ≤ 1 (f on the simplex), b ≥ 0", instances=fb_pairs, **ON_SIMPLEX,
                  sides=lambda p, b: (-linalg.eigvalsh(S.B(on_simplex(p), b))[0], mp.mpf(4)),
                  notes="Reading [I] of the spec: the constant 4 is the one lem6.3.part1 uses. True range ≈ "
                        "[−0.2405, 0.3082] (spec), so the ratio is far from tight.")


def _w_exact(A, l, extra, base):
    """w with w_i² = base + l/σ_min(A)² + extra_i at the working precision (the hypothesis, exactly)."""
    s = linalg.sigma_min(A)
    require(s > 0, "A must have full column rank")
    return mp.matrix([mp.sqrt(base + l / s**2 + extra[i]) for i in range(extra.rows)])


claims.inequality(
    "softmax_regression.lem6.3.part1", "w_i² ≥ 4 + l/σ_min(A)² ∀i ⇒ ∇²L(x) ⪰ l·I_d for all x",
    hypotheses="b ≥ 0, ‖b‖₁ ≤ 1, A of full column rank (n ≥ d), l > 0; x arbitrary",
    instances=strongly_convex, fields=_STRONGLY_CONVEX,
    sides=lambda A, b, l, extra, x, _y, _t: (l, linalg.eigvalsh(S.true_hessian(A, b, _w_exact(A, l, extra, 4), x))[0]),
    max_examples=20,
    notes="∇²L = (numerical ∇²L_exp) + AᵀW²A; ratio = l/λ_min(∇²L) (1 = tight; near 1 when σ_min is "
          "tiny, because the slack is σ_min²(4 + λ_min(B))).", conventions=("sigma_min",))


def _lem6_3_part2_sides(A, b, l, extra, x, _y, _t):
    """max |generalized eigenvalue of (∇²L_exp, AᵀW²A)| against 0.01."""
    w = _w_exact(A, l, extra, 100)
    ev = S.generalized_eigs(S.true_hessian_exp(A, b, x), A.T * diag(entrywise(w, w)) * A)
    return max(abs(ev[0]), abs(ev[-1])), mp.mpf("0.01")


claims.inequality(
    "softmax_regression.lem6.3.part2",
    "w_i² ≥ 100 + l/σ_min(A)² ∀i ⇒ (1 − 0.01)AᵀW²A ⪯ ∇²L(x) ⪯ (1 + 0.01)AᵀW²A (reading (b) of the spec)",
    hypotheses="b ≥ 0, ‖b‖₁ ≤ 1, A of full column rank, l > 0; x arbitrary", instances=strongly_convex, fields=_STRONGLY_CONVEX,
    sides=_lem6_3_part2_sides, max_examples=20,
    notes="AMBIGUOUS in the spec (conclusion not recovered). Reading (b) — the Hessian is within 1% of "
          "AᵀW²A — is judged here (measured: max |generalized eigenvalue of (∇²L_exp, AᵀW²A)| vs 0.01; "
          "spec: 0.307). Reading (a) ∇²L ⪰ lI follows from part1; reading (c) (dropping B_rank, "
          "Algorithm 1's D) fails at 0.01 (spec: 0.01098 at n = 2) and is not what this id judges.",
    conventions=("sigma_min",))


def _convex_sides(A, b, l, extra, x, y, t):
    w = _w_exact(A, l, extra, 4)
    dxy = x - y
    rhs = t * S.L(A, b, w, x) + (1 - t) * S.L(A, b, w, y) - l / 2 * t * (1 - t) * dot(dxy, dxy)
    return S.L(A, b, w, x * t + y * (1 - t)), rhs


def _convex_scale(A, b, l, extra, x, y, _t):
    w = _w_exact(A, l, extra, 4)
    return abs(S.L(A, b, w, x)) + abs(S.L(A, b, w, y))


claims.inequality(
    "softmax_regression.lem6.3.convex", "∇²L ≻ 0, so L is convex (strongly, with modulus l)",
    hypotheses="as lem6.3.part1: w_i² ≥ 4 + l/σ_min(A)², b ≥ 0, ‖b‖₁ ≤ 1, A full column rank",
    instances=strongly_convex, fields=_STRONGLY_CONVEX, sides=_convex_sides, scale=_convex_scale, max_examples=20,
    notes="Judged on L itself, not on its Hessian: L(tx + (1−t)y) ≤ tL(x) + (1−t)L(y) − "
          "(l/2)t(1−t)‖x − y‖².")
