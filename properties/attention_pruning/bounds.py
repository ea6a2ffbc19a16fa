"""Appendix D of paper 000 (spec §5.4): bounds on M, M_c, f̃, c, B1, B2, the Jacobian of f̃ and the
gradient, under Assumption D.1 (R := max(‖X‖_F, ‖W‖_F, 1)(1 + 10⁻⁹), the smallest admissible R > 1)
and M ∈ [0,1]^{d×d}; causal or not (the instance's flag).
"""

from __future__ import annotations

from mpmath import mp

from oracle import attention_pruning as O
from oracle import linalg

from ..toolkit import ClaimSet, worst_pair
from .gradients import B1, B2, jacobian_in_M, mask_of, numerical_gradient
from .strategies import INSTANCE_FIELDS, pruning_instances

__all__ = ["claims"]

claims = ClaimSet("attention_pruning")

HYP = ("Assumption D.1: ‖X‖_F, ‖W‖_F ≤ R, R > 1 (R := max(‖X‖_F, ‖W‖_F, 1)(1 + 1e-9)); M ∈ [0,1]^{d×d}; "
       "λ ≥ 0; M_c causal or 1_{n×n}")


def _inst():
    return pruning_instances(max_n=6, max_d=5)


def _parts(X, W, M, causal):
    Mc = mask_of(X, causal)
    ft = O.f_tilde(X, W, M, Mc)
    return Mc, ft, ft - O.attention(X, W, Mc)


def _rows(A):
    return [A[i, :] for i in range(A.rows)]


claims.inequality("attention_pruning.lemD2.a", "‖M‖_F ≤ d", hypotheses=HYP, instances=_inst, fields=INSTANCE_FIELDS,
                  sides=lambda X, W, M, lam, causal: (linalg.norm2(M), mp.mpf(M.rows)),
                  provenance="D",
                  source=("spec §5.4 lemD2.a: Lemma D.2's display is lost (“For M, we have”); the proof says it follows from the "
                          "Frobenius norm with entries at most 1"))
claims.inequality("attention_pruning.lemD2.b", "‖M_c‖_F ≤ n (exact value √(n(n+1)/2))", hypotheses="n ≥ 1",
                  instances=_inst, fields=INSTANCE_FIELDS,
                  sides=lambda X, W, M, lam, causal: (linalg.norm2(O.causal_mask(X.rows)), mp.mpf(X.rows)),
                  provenance="D",
                  source="spec §5.4 lemD2.b: Lemma D.2's display for M_c is lost; the proof as for part (a)")


def _D3p1(X, W, M, lam, causal):
    _, ft, _ = _parts(X, W, M, causal)
    n = X.rows
    return worst_pair((linalg.norm2(ft), mp.sqrt(n)), (max(ft), mp.mpf(1)), (-min(ft), mp.mpf(0)),
                      (max(linalg.norm2(r) for r in _rows(ft)), mp.mpf(1)))


claims.inequality("attention_pruning.lemD3.p1", "‖f̃(M)‖_F ≤ √n; also 0 ≤ f̃_ij ≤ 1 and ‖f̃_i‖₂ ≤ 1", hypotheses=HYP,
                  instances=_inst, fields=INSTANCE_FIELDS, sides=_D3p1,
                  notes="The proof's step 'f̃ ≤ f̃²' is reversed (false at f̃ = 1/2); the lemma itself is judged.",
                  provenance="D",
                  source=("spec §5.4 lemD3.p1: Lemma D.3's displays are lost; Part 1's proof (“each entry in f̃(M) present a "
                          "probability”) fixes the bound"))
claims.inequality("attention_pruning.lemD3.p2", "‖c(M)‖_F ≤ 2√n", hypotheses=HYP, instances=_inst, fields=INSTANCE_FIELDS,
                  sides=lambda X, W, M, lam, causal: (linalg.norm2(_parts(X, W, M, causal)[2]), 2 * mp.sqrt(X.rows)),
                  provenance="D", source="spec §5.4 lemD3.p2: Part 2's display is lost; its proof follows from Part 1")
claims.inequality("attention_pruning.lemD3.p3", "‖f̃(M)∘c(M)‖_F ≤ 2√n", hypotheses=HYP, instances=_inst, fields=INSTANCE_FIELDS,
                  sides=lambda X, W, M, lam, causal: (linalg.norm2(linalg.entrywise(*_parts(X, W, M, causal)[1:])),
                                                      2 * mp.sqrt(X.rows)),
                  provenance="D",
                  source="spec §5.4 lemD3.p3: Part 3's display is lost; its proof uses 0 ≤ f̃ ≤ 1 and Part 2")
claims.inequality("attention_pruning.lemD3.p4", "|c(M)_{i0,j0}| ≤ 1", hypotheses=HYP, instances=_inst, fields=INSTANCE_FIELDS,
                  sides=lambda X, W, M, lam, causal: (max(abs(v) for v in _parts(X, W, M, causal)[2]), mp.mpf(1)))
claims.inequality("attention_pruning.lemD3.p5", "|W_{i1,j1}| ≤ R", hypotheses=HYP, instances=_inst, fields=INSTANCE_FIELDS,
                  sides=lambda X, W, M, lam, causal: (O.max_abs(W), O.radius(X, W)),
                  provenance="D",
                  source="spec §5.4 lemD3.p5: Part 5's display is lost; its proof “follows from Assumption D.1 and Fact A.5”")
claims.inequality("attention_pruning.lemD3.p6", "|X_{i,j}| ≤ R", hypotheses=HYP, instances=_inst, fields=INSTANCE_FIELDS,
                  sides=lambda X, W, M, lam, causal: (O.max_abs(X), O.radius(X, W)),
                  provenance="D",
                  source="spec §5.4 lemD3.p6: Part 6's display is lost; its proof “follows from Assumption D.1 and Fact A.5”")
claims.inequality("attention_pruning.lemD3.p7", "0 ≤ f̃(M)_{i0,j0} ≤ 1", hypotheses=HYP, instances=_inst, fields=INSTANCE_FIELDS,
                  sides=lambda X, W, M, lam, causal: (lambda ft: worst_pair((max(ft), mp.mpf(1)), (-min(ft), mp.mpf(0))))(
                      _parts(X, W, M, causal)[1]))


def _B_max(X, W, M, causal, part):
    _, ft, c = _parts(X, W, M, causal)
    n, d = X.rows, X.cols
    return max(abs(part(X, W, ft, c, i0, j0, i1, j1)) for i0 in range(n) for j0 in range(n)
               for i1 in range(d) for j1 in range(d))


claims.inequality("attention_pruning.lemD3.p8", "|B1(M)| ≤ R³", hypotheses=HYP + "; every i0, j0 ∈ [n], i1, j1 ∈ [d]",
                  instances=_inst, fields=INSTANCE_FIELDS,
                  sides=lambda X, W, M, lam, causal: (_B_max(X, W, M, causal, B1), O.radius(X, W) ** 3))
claims.inequality("attention_pruning.lemD3.p9", "|B2(M)| ≤ R³", hypotheses=HYP + "; every i0, j0 ∈ [n], i1, j1 ∈ [d]",
                  instances=_inst, fields=INSTANCE_FIELDS,
                  sides=lambda X, W, M, lam, causal: (_B_max(X, W, M, causal, B2), O.radius(X, W) ** 3))


def _D3p10(X, W, M, lam, causal):
    _, ft, c = _parts(X, W, M, causal)
    p1 = linalg.entrywise(ft, c)
    n = X.rows
    return linalg.norm2(mp.matrix([mp.fsum(p1[i, j] for j in range(n)) for i in range(n)])), mp.mpf(2 * n)


claims.inequality("attention_pruning.lemD3.p10", "‖diag((f̃∘c)1_n)‖_F ≤ 2n", hypotheses=HYP, instances=_inst,
                  fields=INSTANCE_FIELDS, sides=_D3p10)


def _D4(X, W, M, lam, causal):
    Mc = mask_of(X, causal)
    J = jacobian_in_M(lambda m: O.f_tilde(X, W, m, Mc), M)
    R = O.radius(X, W)
    n, d = X.rows, X.cols
    return worst_pair((max(abs(v) for v in J), 2 * R ** 3), (linalg.norm2(J), 2 * n * d * R ** 3))


claims.inequality("attention_pruning.lemD4", "|∂f̃_{i0,j0}/∂M_{i1,j1}| ≤ 2R³; the Jacobian J ∈ R^{n²×d²} has ‖J‖_F ≤ 2ndR³",
                  hypotheses=HYP, instances=lambda: pruning_instances(max_n=3, max_d=2), fields=INSTANCE_FIELDS, sides=_D4,
                  max_examples=10,
                  notes="J is the 50-digit numerical Jacobian of M ↦ vec f̃(M)")
claims.inequality("attention_pruning.aux.grad_bound", "‖∇L(M)‖_F ≤ 3√n·R³ + λd", hypotheses=HYP,
                  instances=lambda: pruning_instances(max_n=4, max_d=3), fields=INSTANCE_FIELDS, max_examples=15,
                  sides=lambda X, W, M, lam, causal: (
                      linalg.norm2(numerical_gradient(X, W, M, lam, mask_of(X, causal))),
                      3 * mp.sqrt(X.rows) * O.radius(X, W) ** 3 + lam * X.cols),
                  notes="∇L is the 50-digit numerical gradient")
