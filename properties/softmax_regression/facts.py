"""§4 of paper 001: Facts 4.2–4.6 (vector identities, norm and Loewner facts, derivative rules) and
Lemma 4.9 (derivatives of L_reg).  Derivatives by numerical differentiation (oracle.derivatives).
The facts paper 003 states too (§4.1) are declared once, in :mod:`properties.toolkit.facts`."""

from __future__ import annotations

from hypothesis import strategies as st
from mpmath import mp

from oracle import derivatives, linalg
from oracle import softmax_regression as S
from oracle.linalg import diag, dot, entrywise, exp_entrywise, norm2, ones, stack

from ..toolkit import ClaimSet, facts, worst_pair
from ..toolkit.strategies import dims, matrices, vectors
from .strategies import close_pairs, ints, loewner_pair_objects, loewner_pairs, problems, vector_pairs, vector_triples

__all__ = ["claims"]

claims = ClaimSet("softmax_regression")

# -- Fact 4.2: vector identities ----------------------------------------------------------------

claims.identity("softmax_regression.fact4.2.p1", "⟨u, v⟩ = ⟨u ∘ v, 1_n⟩", hypotheses="u, v ∈ Rⁿ",
                instances=vector_triples, fields=("u", "v", "w"),
                sides=lambda u, v, w: (dot(u, v), dot(entrywise(u, v), ones(u.rows))))

claims.identity("softmax_regression.fact4.2.p2", "⟨u ∘ v, w⟩ = ⟨u ∘ v ∘ w, 1_n⟩", hypotheses="u, v, w ∈ Rⁿ",
                instances=vector_triples, fields=("u", "v", "w"),
                sides=lambda u, v, w: (dot(entrywise(u, v), w), dot(entrywise(entrywise(u, v), w), ones(u.rows))))

facts.entrywise_commutes(claims, "softmax_regression.fact4.2.p3", "u ∘ v = v ∘ u = diag(u) v = diag(v) u",
                         instances=vector_triples, fields=("u", "v", "w"))

claims.identity("softmax_regression.fact4.2.p4", "uᵀ(v ∘ w) = vᵀ(u ∘ w) = wᵀ(u ∘ v)", hypotheses="u, v, w ∈ Rⁿ",
                instances=vector_triples, fields=("u", "v", "w"),
                sides=lambda u, v, w: (mp.matrix([dot(u, entrywise(v, w))] * 2),
                                       mp.matrix([dot(v, entrywise(u, w)), dot(w, entrywise(u, v))])))

claims.identity("softmax_regression.fact4.2.p5", "uᵀ diag(v) w = vᵀ diag(u) w = uᵀ diag(w) v",
                hypotheses="u, v, w ∈ Rⁿ", instances=vector_triples, fields=("u", "v", "w"),
                sides=lambda u, v, w: (mp.matrix([(u.T * diag(v) * w)[0]] * 2),
                                       mp.matrix([(v.T * diag(u) * w)[0], (u.T * diag(w) * v)[0]])))

facts.diag_product(claims, "softmax_regression.fact4.2.p6", "diag(u) diag(v) 1_n = diag(u) v", instances=vector_triples,
                   fields=("u", "v", "w"))

# -- Fact 4.3: norms ----------------------------------------------------------------------------

claims.inequality("softmax_regression.fact4.3.p1", "⟨u, v⟩ ≤ ‖u‖₂‖v‖₂", hypotheses="u, v ∈ Rⁿ",
                  instances=vector_pairs, fields=("u", "v"),
                  sides=lambda u, v: (dot(u, v), norm2(u) * norm2(v)))

facts.entrywise_norm(claims, "softmax_regression.fact4.3.p2", "‖u ∘ v‖₂ ≤ ‖u‖_∞‖v‖₂", instances=vector_pairs,
                     fields=("u", "v"))

facts.inf_and_two_norms(claims, "softmax_regression.fact4.3.p3", "‖u‖_∞ ≤ ‖u‖₂ ≤ √n‖u‖_∞", instances=vector_pairs,
                        fields=("u", "v"))

claims.inequality("softmax_regression.fact4.3.p4", "‖u‖₂ ≤ ‖u‖₁ ≤ √n‖u‖₂", hypotheses="u ∈ Rⁿ",
                  instances=vector_pairs, fields=("u", "v"),
                  sides=lambda u, _: worst_pair((norm2(u), mp.norm(u, 1)), (mp.norm(u, 1), mp.sqrt(u.rows) * norm2(u))))

claims.inequality("softmax_regression.fact4.3.p5", "‖exp(u)‖_∞ ≤ exp(‖u‖_∞) ≤ exp(‖u‖₂)", hypotheses="u ∈ Rⁿ",
                  instances=vector_pairs, fields=("u", "v"),
                  sides=lambda u, _: worst_pair((max(mp.exp(x) for x in u), mp.exp(mp.norm(u, mp.inf))),
                                                (mp.exp(mp.norm(u, mp.inf)), mp.exp(norm2(u)))))

claims.identity("softmax_regression.fact4.3.p6", "‖αu‖₂ = |α|‖u‖₂", hypotheses="α ∈ R, u ∈ Rⁿ",
                instances=lambda: st.tuples(vectors(dims(1, 8)), vectors(st.just(1))), fields=("u", "α"),
                sides=lambda u, a: (norm2(u * a[0]), abs(a[0]) * norm2(u)))

claims.inequality("softmax_regression.fact4.3.p7", "‖u − v‖_∞ ≤ 0.01 ⇒ ‖exp(u) − exp(v)‖₂ ≤ ‖exp(u)‖₂ · 2‖u − v‖_∞",
                  hypotheses="u, v ∈ Rⁿ with ‖u − v‖_∞ ≤ 0.01", instances=close_pairs, fields=("u", "v"),
                  sides=lambda u, v: (norm2(exp_entrywise(u) - exp_entrywise(v)),
                                      norm2(exp_entrywise(u)) * 2 * mp.norm(u - v, mp.inf)))

# -- Facts 4.4, 4.5: spectral norm and Loewner order ---------------------------------------------

claims.inequality(
    "softmax_regression.fact4.4.p1", "U ⪯ αV ⇒ ‖U‖ ≤ α‖V‖",
    hypotheses="U, V symmetric n×n with U ⪯ αV (no other hypothesis survives)", expected="falsified",
    instances=loewner_pairs,
    sides=lambda G, H, t, a: (linalg.spectral_norm(G * G.T * a - H * H.T * t), a * linalg.spectral_norm(G * G.T)),
    fields=("G", "H", "t", "α"), to_statement=loewner_pair_objects,
    notes="FAILS as stated (spec: U = −2I, V = I, α = 1). The search finds indefinite U = αV − P with "
          "‖U‖ = ‖P‖ − … > α‖V‖; the corrected version (0 ⪯ U, α ≥ 0) holds. Instance (G, H, t, α): "
          "V = GGᵀ, P = t·HHᵀ.", conventions=("norms",))


def _psd_under(G, H, t, a):
    """U = α·G(s·HHᵀ/‖HHᵀ‖)Gᵀ with s = 1/(1 + t) ∈ (0, 1]: 0 ⪯ U ⪯ αV for V = GGᵀ exactly, and every PSD
    U ⪯ αV has this form (U = αV^{1/2}CV^{1/2}, 0 ⪯ C ⪯ I, V^{1/2} = G·orthogonal)."""
    K = H * H.T
    nK = linalg.spectral_norm(K)
    U = G * (K * (1 / ((1 + t) * nK))) * G.T * a if nK != 0 else mp.zeros(G.rows, G.rows)
    return linalg.spectral_norm(U), a * linalg.spectral_norm(G * G.T)


claims.inequality(
    "softmax_regression.fact4.4.p1", "0 ⪯ U ⪯ αV, α ≥ 0 ⇒ ‖U‖ ≤ α‖V‖", hypotheses="U, V symmetric n×n, 0 ⪯ U ⪯ αV",
    instances=loewner_pairs, sides=_psd_under, repair=True, fields=("G", "H", "t", "α"),
    notes="The spec's correct version (§4.4): ‖U‖ = λ_max(U) ≤ λ_max(αV) = α‖V‖ since 0 ⪯ U ⪯ αV.")

claims.inequality("softmax_regression.fact4.4.p2", "‖Uv‖₂ ≤ ‖U‖‖v‖₂", hypotheses="U ∈ R^{m×n}, v ∈ Rⁿ",
                  instances=lambda: st.tuples(dims(1, 5), dims(1, 5)).flatmap(
                      lambda mn: st.tuples(matrices(st.just(mn[0]), st.just(mn[1])), vectors(st.just(mn[1])))),
                  fields=("U", "v"), sides=lambda U, v: (norm2(U * v), linalg.spectral_norm(U) * norm2(v)))

facts.outer_below_norm(claims, "softmax_regression.fact4.5.p1", "uuᵀ ⪯ ‖u‖₂² I_n", instances=vector_pairs,
                       fields=("u", "v"))

facts.diag_square_below_norm(claims, "softmax_regression.fact4.5.p2", "diag(u∘u) ⪯ ‖u‖₂² I_n", instances=vector_pairs,
                             fields=("u", "v"))

facts.symmetric_outer_below(claims, "softmax_regression.fact4.5.p3", "uvᵀ + vuᵀ ⪯ uuᵀ + vvᵀ", instances=vector_pairs,
                            fields=("u", "v"))

facts.symmetric_outer_above(claims, "softmax_regression.fact4.5.p4", "uvᵀ + vuᵀ ⪰ −(uuᵀ + vvᵀ)", instances=vector_pairs,
                            fields=("u", "v"))

facts.scaled_outer_below(
    claims, "softmax_regression.fact4.5.p5", "(v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞² uuᵀ", "(v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞²‖u‖₂² I_n",
    instances=lambda: st.one_of(dims(1, 6).flatmap(lambda n: st.tuples(ints((n,)), ints((n,)))), vector_pairs()),
    fields=("u", "v"), conventions=("norms",))


# -- Fact 4.6 and Lemma 4.9: derivatives --------------------------------------------------------

def _fact4_6_sides(A, b, _w, x):
    """The four rules at h = α(x), k = ⟨a, x⟩ (a = b resized to d, plus ½), stacked."""
    a = mp.matrix([b[i % b.rows] + mp.mpf(0.5) for i in range(A.cols)])
    h = lambda z: S.alpha(A, z)  # noqa: E731
    k = lambda z: dot(a, z)  # noqa: E731
    hx, kx = h(x), k(x)
    gh, gk = derivatives.gradient(h, x), derivatives.gradient(k, x)
    lhs = stack(derivatives.gradient(lambda z: 1 / h(z), x), derivatives.gradient(lambda z: mp.exp(k(z)), x),
                derivatives.gradient(lambda z: h(z) * k(z), x), derivatives.gradient(lambda z: mp.log(h(z)), x))
    return lhs, stack(gh * (-1 / hx**2), gk * mp.exp(kx), gk * hx + gh * kx, gh / hx)


claims.identity(
    "softmax_regression.fact4.6",
    "derivative rules: chain rule, product rule, d(h⁻¹) = −h⁻²dh, d exp(h) = exp(h)dh",
    hypotheses="h, k: R^d → R differentiable (here h = α(x) = ⟨exp(Ax), 1⟩ > 0, k = ⟨a, x⟩)",
    instances=lambda: problems(n_hi=5, d_hi=3), sides=_fact4_6_sides, fields=("A", "b", "w", "x"),
    notes="Display not recovered; the rules are checked on the paper's own h = α(x) and a linear k, "
          "each side's gradient by numerical differentiation.")


def _lem4_9_sides(A, _b, w, x):
    W2 = diag(entrywise(w, w))
    Lr = lambda z: S.L_reg(A, w, z)  # noqa: E731
    return (stack(derivatives.gradient(Lr, x), derivatives.hessian(Lr, x)),
            stack(A.T * W2 * A * x, A.T * W2 * A))


claims.identity("softmax_regression.lem4.9", "∇L_reg(x) = AᵀW²Ax; ∇²L_reg(x) = AᵀW²A",
                hypotheses="A ∈ R^{n×d}, w ∈ Rⁿ, W = diag(w), x ∈ R^d", instances=lambda: problems(d_hi=3),
                sides=_lem4_9_sides, fields=("A", "b", "w", "x"))
