"""Facts 4.1–4.4 of Sec 4.1 and the cited matrix-multiplication fact of Sec 4.7 (spec §4.1).  The facts
paper 001 states too (§4) are declared once, in :mod:`properties.toolkit.facts`."""

from __future__ import annotations

import itertools

import numpy as np
from flint import fmpq
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from mpmath import mp

from oracle import linalg
from oracle.attention_optimization import classical_matmul
from oracle.ball import exact, rational_matrix
from oracle.linalg import diag, dot, entrywise, exp_entrywise, norm_inf, ones

from ..toolkit import ClaimSet, facts, float_outcome
from ..toolkit.strategies import dims, elements, scalars, vectors
from .strategies import loewner_pairs, vec_pairs_mixed, vecs

__all__ = ["claims"]

claims = ClaimSet("attention_optimization")

# --- Fact 4.1 (identities) -------------------------------------------------------------------

claims.identity("attention_optimization.fact4.1.p1", "⟨u∘v, w⟩ = ⟨u∘w, v⟩", hypotheses="u, v, w ∈ Rⁿ", instances=lambda: vecs(3),
                fields=("u", "v", "w"), sides=lambda u, v, w: (dot(entrywise(u, v), w), dot(entrywise(u, w), v)))

claims.identity("attention_optimization.fact4.1.p2", "⟨u∘v, w⟩ = ⟨u∘v∘w, 1_n⟩ = uᵀdiag(v)w", hypotheses="u, v, w ∈ Rⁿ",
                instances=lambda: vecs(3), fields=("u", "v", "w"),
                sides=lambda u, v, w: (mp.matrix([dot(entrywise(u, v), w)] * 2),
                                       mp.matrix([dot(entrywise(entrywise(u, v), w), ones(u.rows)),
                                                  (u.T * diag(v) * w)[0]])))

claims.identity("attention_optimization.fact4.1.p3", "⟨u∘v∘w∘z, 1_n⟩ = uᵀdiag(v∘w)z", hypotheses="u, v, w, z ∈ Rⁿ",
                instances=lambda: vecs(4), fields=("u", "v", "w", "z"),
                sides=lambda u, v, w, z: (dot(entrywise(entrywise(entrywise(u, v), w), z), ones(u.rows)),
                                          (u.T * diag(entrywise(v, w)) * z)[0]))

facts.entrywise_commutes(claims, "attention_optimization.fact4.1.p4", "u∘v = v∘u = diag(u)v = diag(v)u",
                         instances=lambda: vecs(2), fields=("u", "v"))

claims.identity("attention_optimization.fact4.1.p5", "uᵀ(v∘w) = vᵀ(u∘w) = wᵀ(u∘v) = uᵀdiag(v)w = vᵀdiag(u)w = wᵀdiag(u)v",
                hypotheses="u, v, w ∈ Rⁿ", instances=lambda: vecs(3), fields=("u", "v", "w"),
                sides=lambda u, v, w: (mp.matrix([dot(u, entrywise(v, w))] * 5),
                                       mp.matrix([dot(v, entrywise(u, w)), dot(w, entrywise(u, v)),
                                                  (u.T * diag(v) * w)[0], (v.T * diag(u) * w)[0],
                                                  (w.T * diag(u) * v)[0]])))

facts.diag_product(claims, "attention_optimization.fact4.1.p6", "diag(u)diag(v)1_n = diag(u)v", instances=lambda: vecs(2),
                   fields=("u", "v"))

def _fact4_1_p7_objects(uvw, ab) -> dict:
    """The objects of fact4.1.p7 by name, exactly: u, v, w ∈ Rⁿ and a, b ∈ R."""
    u, v, w = (rational_matrix(t) for t in uvw)
    return {"u": u, "v": v, "w": w, "a": exact(ab[0]), "b": exact(ab[1])}


claims.identity("attention_optimization.fact4.1.p7", "a⟨w, v⟩ + b⟨u, v⟩ = ⟨aw + bu, v⟩", hypotheses="a, b ∈ R; u, v, w ∈ Rⁿ",
                instances=lambda: st.tuples(vecs(3), vectors(st.just(2))), fields=("(u, v, w)", "(a, b)"),
                to_statement=_fact4_1_p7_objects,
                sides=lambda uvw, ab: (ab[0] * dot(uvw[2], uvw[1]) + ab[1] * dot(uvw[0], uvw[1]),
                                       dot(uvw[2] * ab[0] + uvw[0] * ab[1], uvw[1])))

# --- Fact 4.2 (inequalities) -----------------------------------------------------------------

facts.entrywise_norm(claims, "attention_optimization.fact4.2.p1", "‖x∘y‖₂ ≤ ‖x‖_∞‖y‖₂", instances=vec_pairs_mixed,
                      fields=("x", "y"))

facts.inf_and_two_norms(claims, "attention_optimization.fact4.2.p2", "‖x‖_∞ ≤ ‖x‖₂ ≤ √n‖x‖_∞", instances=vec_pairs_mixed,
                         fields=("x", "unused"))

claims.inequality("attention_optimization.fact4.2.p3", "‖exp(x)‖_∞ ≤ exp(‖x‖₂)", hypotheses="x ∈ Rⁿ", instances=vec_pairs_mixed,
                  fields=("x", "unused"), sides=lambda x, _: (norm_inf(exp_entrywise(x)), mp.exp(linalg.norm2(x))))

claims.inequality("attention_optimization.fact4.2.p4", "‖αx‖₂ ≤ |α|‖x‖₂", hypotheses="α ∈ R, x ∈ Rⁿ",
                  instances=lambda: st.tuples(vectors(dims(1, 8)), scalars(-10.0, 10.0)), fields=("x", "α"),
                  sides=lambda x, a: (linalg.norm2(x * a), abs(a) * linalg.norm2(x)),
                  notes="Holds with equality (ratio 1 on every nonzero instance).")


def _exp_lipschitz_instances():
    """((x, y), s): x, y ∈ Rⁿ (up to 3 in magnitude, sometimes y a tiny perturbation of x) and a slack
    s ≥ 0; R := max(‖x‖₂, ‖y‖₂) + s is formed in the check, so the hypothesis holds exactly."""

    def build(n):
        near = st.tuples(vectors(st.just(n), max_abs=3.0), vectors(st.just(n), max_abs=1e-3)).map(lambda p: (p[0], p[0] + p[1]))
        return st.tuples(st.one_of(st.tuples(vectors(st.just(n), max_abs=3.0), vectors(st.just(n), max_abs=3.0)), near),
                         st.one_of(st.just(0.0), scalars(0.0, 3.0)))

    return dims(1, 6).flatmap(build)


def _fact4_2_p5_objects(xy, s) -> dict:
    """x, y and the slack s of R = max(‖x‖₂, ‖y‖₂) + s, exactly (R itself is irrational in general)."""
    return {"x": rational_matrix(xy[0]), "y": rational_matrix(xy[1]), "s": exact(s)}


def _fact4_2_p5(xy, s):
    x, y = xy
    R = max(linalg.norm2(x), linalg.norm2(y)) + s
    return linalg.norm2(exp_entrywise(x) - exp_entrywise(y)), mp.exp(R) * linalg.norm2(x - y)


claims.inequality("attention_optimization.fact4.2.p5", "if ‖x‖₂, ‖y‖₂ ≤ R then ‖exp(x) − exp(y)‖₂ ≤ e^R‖x − y‖₂",
                  hypotheses="x, y ∈ Rⁿ, R ≥ max(‖x‖₂, ‖y‖₂)", instances=_exp_lipschitz_instances, sides=_fact4_2_p5,
                  fields=("(x, y)", "s"), to_statement=_fact4_2_p5_objects)

# --- Fact 4.3 (Loewner order ⇒ norm) ---------------------------------------------------------


def _loewner_norm_instances():
    """(S, α, G): the check forms Y = (S + Sᵀ)/2 and X := αY − GGᵀ, so X ⪯ αY holds exactly; X is as
    often indefinite or negative definite as not (G may have no columns)."""

    def build(n):
        return st.tuples(hnp.arrays(np.float64, (n, n), elements=elements()), scalars(1e-3, 10.0),
                         dims(0, n).flatmap(lambda r: hnp.arrays(np.float64, (n, r), elements=elements())))

    return dims(1, 4).flatmap(build).map(lambda t: (t[0], t[1], t[2] if t[2].size else np.zeros((t[0].shape[0], 1))))


def _fact4_3_objects(S, alpha, G) -> dict:
    """The statement's X, Y, α of a :func:`_loewner_norm_instances` draw, exactly: Y = (S + Sᵀ)/2, X = αY − GGᵀ."""
    S, G, a = rational_matrix(S), rational_matrix(G), exact(alpha)
    Y = (S + S.transpose()) * fmpq(1, 2)
    return {"X": Y * a - G * G.transpose(), "Y": Y, "α": a}


def _fact4_3(S, alpha, G):
    Y = linalg.sym(S)
    X = Y * alpha - G * G.T  # X ⪯ αY exactly (αY − X = GGᵀ ⪰ 0)
    return linalg.spectral_norm(X), alpha * linalg.spectral_norm(Y)


claims.inequality("attention_optimization.fact4.3.loewner_norm", "if X ⪯ αY then ‖X‖ ≤ α‖Y‖",
                  hypotheses="X, Y ∈ Rⁿˣⁿ symmetric, α > 0, X ⪯ αY (Loewner order); ‖·‖ spectral",
                  expected="falsified", instances=_loewner_norm_instances, sides=_fact4_3,
                  fields=("S", "α", "G"), to_statement=_fact4_3_objects,
                  notes="FAILS as the spec says: nothing bounds X from below (X = −10·I₂, Y = I₂, α = 1 gives "
                        "10 > 1); the search finds such an X = αY − GGᵀ at once.  The correct version needs "
                        "0 ⪯ X ⪯ αY.", conventions=("norms",))


def _fact4_3_repair(S, alpha, G):
    """Y = SSᵀ ⪰ 0 and X = α·S(GGᵀ/‖GGᵀ‖)Sᵀ: 0 ⪯ X ⪯ αY exactly, and every such X has this form."""
    Y = S * S.T
    K = G * G.T
    nK = linalg.spectral_norm(K)
    X = S * (K * (alpha / nK)) * S.T if nK != 0 else mp.zeros(S.rows, S.rows)
    return linalg.spectral_norm(X), alpha * linalg.spectral_norm(Y)


claims.inequality("attention_optimization.fact4.3.loewner_norm", "if 0 ⪯ X ⪯ αY then ‖X‖ ≤ α‖Y‖",
                  hypotheses="X, Y ∈ Rⁿˣⁿ symmetric, α > 0, 0 ⪯ X ⪯ αY; ‖·‖ spectral", instances=_loewner_norm_instances,
                  sides=_fact4_3_repair, repair=True, fields=("S", "α", "G"),
                  notes="The spec's correct version (§4.1): ‖X‖ = λ_max(X) ≤ λ_max(αY) = α‖Y‖.")

# --- Fact 4.4 (Loewner orders) ---------------------------------------------------------------

facts.outer_below_norm(claims, "attention_optimization.fact4.4.p1", "uuᵀ ⪯ ‖u‖₂²I", instances=loewner_pairs,
                       fields=("u", "unused"))
claims.loewner("attention_optimization.fact4.4.p2", "diag(u) ⪯ ‖u‖₂I", hypotheses="u ∈ Rⁿ", instances=loewner_pairs,
               fields=("u", "v"),
               sides=lambda u, _: (diag(u), mp.eye(u.rows) * linalg.norm2(u)))
facts.diag_square_below_norm(claims, "attention_optimization.fact4.4.p3", "diag(u∘u) ⪯ ‖u‖₂²I", instances=loewner_pairs,
                       fields=("u", "unused"))
facts.symmetric_outer_below(claims, "attention_optimization.fact4.4.p4", "uvᵀ + vuᵀ ⪯ uuᵀ + vvᵀ", instances=loewner_pairs,
                       fields=("u", "v"))
facts.symmetric_outer_above(claims, "attention_optimization.fact4.4.p5", "uvᵀ + vuᵀ ⪰ −(uuᵀ + vvᵀ)", instances=loewner_pairs,
                       fields=("u", "v"))
facts.scaled_outer_below(claims, "attention_optimization.fact4.4.p6", "(v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞² uuᵀ",
                         "(v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞²‖u‖₂² I", instances=loewner_pairs, fields=("u", "v"),
                         conventions=("norms",))
claims.loewner("attention_optimization.fact4.4.p7", "diag(u∘v) ⪯ ‖u‖₂‖v‖₂I", hypotheses="u, v ∈ Rⁿ", instances=loewner_pairs,
               fields=("u", "v"),
               sides=lambda u, v: (diag(entrywise(u, v)), mp.eye(u.rows) * (linalg.norm2(u) * linalg.norm2(v))))

# --- Sec 4.7 (cited): matrix-multiplication time is invariant under permuting the dimensions ---


@claims.check("attention_optimization.fact4.mm", "T_mat(a,b,c) = O(T_mat(a,c,b)) = O(T_mat(b,a,c))",
              hypotheses="a, b, c positive integers; T_mat(a,b,c) the cost of multiplying an a×b by a b×c matrix",
              instances=lambda: st.tuples(dims(1, 8), dims(1, 8), dims(1, 8)), max_examples=15,
              fields=("a", "b", "c"),
              notes="Measured on the one algorithm the harness runs: the textbook product, whose scalar "
                    "multiplications are counted as they execute (oracle.attention_optimization."
                    "classical_matmul).  The counts of all six orders of (a, b, c) agree exactly (constant 1 "
                    "in the O), and each product is checked against mpmath's.  The cited ω-exponent part "
                    "(fast matrix multiplication, tensor-rank symmetry) is not measurable here.",
              conventions=('constants',))
def fact4_mm(inst):
    """attention_optimization.fact4.mm: max over the orders of (a, b, c) of T / min of T ≤ 1."""
    counts = []
    for p, q, r in set(itertools.permutations(inst)):
        A = mp.matrix([[mp.mpf(i + 2 * j + 1) for j in range(q)] for i in range(p)])
        B = mp.matrix([[mp.mpf(3 * i - j) for j in range(r)] for i in range(q)])
        C, count = classical_matmul(A, B)
        if linalg.norm2(C - A * B) != 0:
            raise AssertionError(f"classical_matmul gave a wrong {p}x{q} by {q}x{r} product")
        counts.append(count)
    return float_outcome(max(counts) / min(counts), 1.0,
                         note=f"multiplications over the orders of {tuple(inst)}: {sorted(set(counts))}")
