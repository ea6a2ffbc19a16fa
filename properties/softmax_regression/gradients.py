"""§5 of paper 001: softmax facts (Lemma 5.2), the rewrite of L_exp, and the gradient and Hessian
pieces (Lemmas 5.6–5.15), each closed form against numerical differentiation (oracle.derivatives);
the paper's own Hessian kernel B_paper is lem5.15.paperB.  (lem5.8, a Lipschitz bound, is in
:mod:`~properties.softmax_regression.lipschitz`.)"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import derivatives, linalg
from oracle import softmax_regression as S
from oracle.linalg import diag, dot, entrywise, exp_entrywise, norm2, ones, stack

from ..toolkit import ClaimSet, eq, le, to_oracle, worst
from ..toolkit.strategies import dims, matrices, vectors
from .common import columns, loewner_chain, on_simplex
from .strategies import ON_SIMPLEX, derivative_problems, f_instances, fb_pairs, int_b, ints

__all__ = ["claims", "lem5_2_basic", "lem5_2_bf_ff", "lem5_2_bf_ff_repair", "lem5_2_diag_f", "lem5_2_diag_ff"]

claims = ClaimSet("softmax_regression")

_PROBLEM = ("A", "b", "w", "x")
"""The fields of a :func:`~properties.softmax_regression.strategies.problems` draw."""


def _without_w(A, b, _w, x) -> dict:
    """lem5.15.paperB's objects A, b, x (L_exp has no w; the draw's w = 1_n is not part of the statement)."""
    return {"A": A, "b": b, "x": x}

# -- Lemma 5.2: facts about f = softmax(Ax) --------------------------------------------------------


@claims.check("softmax_regression.lem5.2.basic",
              "f(x) ≥ 0, ⟨f(x), 1_n⟩ = 1, ‖f(x)‖₁ = 1, ‖f(x)‖_∞ ≤ ‖f(x)‖₂ ≤ ‖f(x)‖₁ ≤ 1",
              hypotheses="A ∈ R^{n×d}, x ∈ R^d", instances=f_instances, fields=("A", "x", "b"))
def lem5_2_basic(inst):
    A, x, _ = to_oracle(inst)
    fv = lambda: S.f(A, x)  # noqa: E731
    return worst(
        le(lambda: (-min(fv()), mp.mpf(0))),
        eq(lambda: (mp.fsum(fv()), mp.mpf(1))),
        eq(lambda: (mp.norm(fv(), 1), mp.mpf(1))),
        le(lambda: (mp.norm(fv(), mp.inf), norm2(fv()))),
        le(lambda: (norm2(fv()), mp.norm(fv(), 1))),
        le(lambda: (mp.norm(fv(), 1), mp.mpf(1))),
    )


_BF_HYP = "f = f(x) on the simplex; any b (here b ≥ 0, ‖b‖₁ ≤ 1)"


def _bf_instances():
    """(p, b) with f = p/Σp: small integer p and b on the ‖b‖₁ ≤ 1 simplex, or :func:`fb_pairs`."""
    return st.one_of(dims(1, 6).flatmap(lambda n: st.tuples(ints((n,), 0, 3), int_b(n))), fb_pairs())


def _bf_chain(inst, middle):
    """Lemma 5.2's chain 0 ⪯ (b∘f)(b∘f)ᵀ ⪯ middle(f, ‖b‖_∞²) ⪯ ‖b‖_∞² I_n on one (p, b), f = p/Σp."""
    p, b = to_oracle(inst)
    f = lambda: on_simplex(p)  # noqa: E731
    binf2 = lambda: mp.norm(b, mp.inf) ** 2  # noqa: E731
    return loewner_chain(lambda: mp.zeros(p.rows, p.rows), lambda: entrywise(b, f()) * entrywise(b, f()).T,
                         lambda: middle(f(), binf2()), lambda: mp.eye(p.rows) * binf2())


@claims.check("softmax_regression.lem5.2.bf_ff", "0 ⪯ (b∘f)(b∘f)ᵀ ⪯ ‖b‖_∞² ffᵀ ⪯ ‖b‖_∞² I_n",
              hypotheses=_BF_HYP, expected="falsified", instances=_bf_instances, **ON_SIMPLEX,
              notes="FAILS in the middle link (spec: f = (½,½), b = (1,0), λ_min = −0.1545); the outer chain "
                    "0 ⪯ (b∘f)(b∘f)ᵀ ⪯ ‖b‖_∞² I_n holds (tight).", conventions=("norms",))
def lem5_2_bf_ff(inst):
    return _bf_chain(inst, lambda f, binf2: f * f.T * binf2)


@claims.check("softmax_regression.lem5.2.bf_ff", "0 ⪯ (b∘f)(b∘f)ᵀ ⪯ ‖b‖_∞²‖f‖₂² I_n ⪯ ‖b‖_∞² I_n",
              hypotheses=_BF_HYP, repair=True, instances=_bf_instances, **ON_SIMPLEX,
              notes="The spec's outer chain (§5.1) with the middle link corrected as fact4.5.p5's repair: "
                    "(b∘f)(b∘f)ᵀ ⪯ ‖b∘f‖₂² I_n ⪯ ‖b‖_∞²‖f‖₂² I_n, and ‖f‖₂ ≤ ‖f‖₁ = 1.")
def lem5_2_bf_ff_repair(inst):
    return _bf_chain(inst, lambda f, binf2: mp.eye(f.rows) * (binf2 * dot(f, f)))


claims.loewner("softmax_regression.lem5.2.diag_bb", "diag(b∘b) ⪯ ‖b‖_∞² I_n", hypotheses="b ∈ Rⁿ",
               instances=fb_pairs, **ON_SIMPLEX,
               sides=lambda _, b: (diag(entrywise(b, b)), mp.eye(b.rows) * mp.norm(b, mp.inf) ** 2))


@claims.check("softmax_regression.lem5.2.diag_f", "0 ⪯ diag(f) ⪯ ‖f‖_∞ I_n ⪯ ‖f‖₂ I_n",
              hypotheses="f = f(x) on the simplex", instances=fb_pairs, **ON_SIMPLEX)
def lem5_2_diag_f(inst):
    p, _ = to_oracle(inst)
    f, eye = lambda: on_simplex(p), mp.eye(p.rows)  # noqa: E731
    return loewner_chain(lambda: mp.zeros(p.rows, p.rows), lambda: diag(f()), lambda: eye * mp.norm(f(), mp.inf),
                         lambda: eye * norm2(f()))


@claims.check("softmax_regression.lem5.2.diag_ff", "0 ⪯ diag(f∘f) ⪯ ‖f‖_∞² I_n ⪯ ‖f‖₂ I_n",
              hypotheses="f = f(x) on the simplex", instances=fb_pairs, **ON_SIMPLEX)
def lem5_2_diag_ff(inst):
    p, _ = to_oracle(inst)
    f, eye = lambda: on_simplex(p), mp.eye(p.rows)  # noqa: E731
    return loewner_chain(lambda: mp.zeros(p.rows, p.rows), lambda: diag(entrywise(f(), f())),
                         lambda: eye * mp.norm(f(), mp.inf) ** 2, lambda: eye * norm2(f()))


def _rewrite_sides(A, x, b):
    direct = exp_entrywise(A * x) / S.alpha(A, x) - b
    fb, cv, lhs = S.f(A, x) - b, S.c(A, b, x), S.L_exp(A, b, x)
    return mp.matrix([lhs] * 3), mp.matrix([dot(direct, direct) / 2, dot(fb, fb) / 2, dot(cv, cv) / 2])


claims.identity("softmax_regression.lem5.rewrite",
                "L_exp(x) = 0.5‖α(x)⁻¹exp(Ax) − b‖₂² = 0.5‖f(x) − b‖₂² = 0.5‖c(x)‖₂²",
                hypotheses="A ∈ R^{n×d}, b ∈ Rⁿ, x ∈ R^d", instances=f_instances, fields=("A", "x", "b"), sides=_rewrite_sides,
                notes="α⁻¹exp(Ax) formed directly, f by the stable softmax.")

# -- Lemma 5.6: first derivatives -----------------------------------------------------------------

_AX = "A ∈ R^{n×d}, x ∈ R^d"

claims.identity("softmax_regression.lem5.6.part1", "∂exp(Ax)/∂x_i = exp(Ax)∘A_{*,i}", hypotheses=_AX,
                instances=derivative_problems, fields=_PROBLEM,
                sides=lambda A, _b, _w, x: (stack(*columns(derivatives.jacobian(lambda z: exp_entrywise(A * z), x))),
                                            stack(*[entrywise(exp_entrywise(A * x), a) for a in columns(A)])))

claims.identity("softmax_regression.lem5.6.part2", "∂α(x)/∂x_i = ⟨exp(Ax), A_{*,i}⟩", hypotheses=_AX,
                instances=derivative_problems, fields=_PROBLEM,
                sides=lambda A, _b, _w, x: (derivatives.gradient(lambda z: S.alpha(A, z), x),
                                            mp.matrix([dot(exp_entrywise(A * x), a) for a in columns(A)])))

claims.identity("softmax_regression.lem5.6.part3", "∂α(x)⁻¹/∂x_i = −α(x)⁻¹⟨f(x), A_{*,i}⟩", hypotheses=_AX,
                instances=derivative_problems, fields=_PROBLEM,
                sides=lambda A, _b, _w, x: (derivatives.gradient(lambda z: 1 / S.alpha(A, z), x),
                                            mp.matrix([-dot(S.f(A, x), a) / S.alpha(A, x) for a in columns(A)])))


def _df(f, A):
    """∂f/∂x_i = f∘A_{*,i} − ⟨f, A_{*,i}⟩f for each column (lem5.6.part4's closed form)."""
    return [entrywise(f, a) - f * dot(f, a) for a in columns(A)]


claims.identity("softmax_regression.lem5.6.part4", "∂f(x)/∂x_i = f(x)∘A_{*,i} − ⟨f(x), A_{*,i}⟩f(x)",
                hypotheses=_AX, instances=derivative_problems, fields=_PROBLEM,
                sides=lambda A, _b, _w, x: (stack(*columns(derivatives.jacobian(lambda z: S.f(A, z), x))),
                                            stack(*_df(S.f(A, x), A))))


def _lem5_6_part5_sides(A, b, _w, x):
    f = S.f(A, x)
    c = f - b
    closed = mp.matrix([dot(c, entrywise(f, a)) - dot(c, f) * dot(f, a) for a in columns(A)])
    return stack(derivatives.gradient(lambda z: S.L_exp(A, b, z), x), S.g_closed(A, b, x)), stack(closed, closed)


claims.identity("softmax_regression.lem5.6.part5",
                "∂L_exp(x)/∂x_i = ⟨c(x), f(x)∘A_{*,i}⟩ − ⟨c(x), f(x)⟩⟨f(x), A_{*,i}⟩ (= def.g)",
                hypotheses="A ∈ R^{n×d}, b ∈ Rⁿ, x ∈ R^d", instances=derivative_problems, fields=_PROBLEM,
                sides=_lem5_6_part5_sides,
                notes="Judges the spec's sign of g (def.g) against numerical differentiation of L_exp; the "
                      "adapter softmax_gradient then judges the solver against the numerical gradient too.")

# -- Lemmas 5.9–5.14: second derivatives ----------------------------------------------------------


def _hess_stack(fn, x, k):
    """Numerical Hessians of the k scalar components of fn, stacked."""
    return stack(*[derivatives.hessian(lambda z, r=r: fn(z)[r], x) for r in range(k)])


def _lem5_9_sides(A, _b, _w, x):
    e = exp_entrywise(A * x)
    d = A.cols
    closed = stack(*[mp.matrix([A[k, i] * A[k, j] * e[k] for i in range(d) for j in range(d)]) for k in range(A.rows)])
    return _hess_stack(lambda z: exp_entrywise(A * z), x, A.rows), closed


claims.identity("softmax_regression.lem5.9", "∂²exp(Ax)/∂x_i∂x_j = A_{*,i}∘A_{*,j}∘exp(Ax)",
                hypotheses="A ∈ R^{n×d}, x ∈ R^d (i = j included)", instances=derivative_problems, fields=_PROBLEM,
                sides=_lem5_9_sides, max_examples=15)

claims.identity("softmax_regression.lem5.10", "∂²α(x)/∂x_i∂x_j = ⟨exp(Ax), A_{*,i}∘A_{*,j}⟩", hypotheses=_AX,
                instances=derivative_problems, fields=_PROBLEM,
                sides=lambda A, _b, _w, x: (derivatives.hessian(lambda z: S.alpha(A, z), x),
                                            mp.matrix([[dot(exp_entrywise(A * x), entrywise(ci, cj)) for cj in columns(A)]
                                                       for ci in columns(A)])))


def _lem5_11_sides(A, _b, _w, x):
    f, al, C = S.f(A, x), S.alpha(A, x), columns(A)
    closed = mp.matrix([[(2 * dot(f, ci) * dot(f, cj) - dot(f, entrywise(ci, cj))) / al for cj in C] for ci in C])
    return derivatives.hessian(lambda z: 1 / S.alpha(A, z), x), closed


claims.identity("softmax_regression.lem5.11",
                "∂²α(x)⁻¹/∂x_i∂x_j = α⁻¹(2⟨f, A_{*,i}⟩⟨f, A_{*,j}⟩ − ⟨f, A_{*,i}∘A_{*,j}⟩)", hypotheses=_AX,
                instances=derivative_problems, fields=_PROBLEM, sides=_lem5_11_sides)


def _d2f(f, ci, cj):
    """lem5.12's closed form of ∂²f/∂x_i∂x_j."""
    return (entrywise(entrywise(ci, cj), f) - entrywise(cj, f) * dot(f, ci) - entrywise(ci, f) * dot(f, cj)
            - f * dot(f, entrywise(ci, cj)) + f * (2 * dot(f, ci) * dot(f, cj)))


def _lem5_12_sides(A, _b, _w, x):
    f, C, d = S.f(A, x), columns(A), A.cols
    closed = stack(*[mp.matrix([_d2f(f, C[i], C[j])[k] for i in range(d) for j in range(d)]) for k in range(A.rows)])
    return _hess_stack(lambda z: S.f(A, z), x, A.rows), closed


claims.identity("softmax_regression.lem5.12",
                "∂²f/∂x_i∂x_j = A_{*,i}∘A_{*,j}∘f − ⟨f,A_{*,i}⟩A_{*,j}∘f − ⟨f,A_{*,j}⟩A_{*,i}∘f − "
                "⟨f, A_{*,i}∘A_{*,j}⟩f + 2⟨f,A_{*,i}⟩⟨f,A_{*,j}⟩f",
                hypotheses=_AX, instances=derivative_problems, fields=_PROBLEM, sides=_lem5_12_sides, max_examples=15)


def _lem5_13_sides(A, b, _w, x):
    """Numerical Hessian = middle form = AᵀBA (stacked)."""
    f = S.f(A, x)
    c, C, df = f - b, columns(A), _df(f, A)
    mid = mp.matrix([[dot(df[i], df[j]) + dot(c, _d2f(f, C[i], C[j])) for j in range(A.cols)] for i in range(A.cols)])
    H = derivatives.hessian(lambda z: S.L_exp(A, b, z), x)
    return stack(H, H), stack(mid, A.T * S.B(f, b) * A)


claims.identity("softmax_regression.lem5.13",
                "∂²L_exp/∂x_i∂x_j = ⟨∂f/∂x_i, ∂f/∂x_j⟩ + ⟨c, ∂²f/∂x_i∂x_j⟩ = A_{*,i}ᵀ B(x) A_{*,j}",
                hypotheses="A ∈ R^{n×d}, b ∈ Rⁿ, x ∈ R^d; B(x) as in def.B", instances=derivative_problems, fields=_PROBLEM,
                sides=_lem5_13_sides,
                notes="Judges the spec's B(x) (def.B) as the Hessian kernel against numerical differentiation; "
                      "the paper's own B (lem5.15.paperB) fails.")


def _b_paper_completed(fv, b):
    """lem5.15.paperB repaired: B_paper − 2(f∘f)fᵀ − 2f(f∘f)ᵀ."""
    ff = entrywise(fv, fv)
    return S.B_paper(fv, b) - (ff * fv.T + fv * ff.T) * 2


def _lem5_14_sides(A, f, c):
    """All six identities, all (i, j), stacked."""
    mats = [diag(entrywise(f, f)), f * entrywise(f, f).T, diag(entrywise(c, f)), f * entrywise(c, f).T,
            diag(f) * dot(c, f), f * f.T]
    lhs, rhs = [], []
    for ai in columns(A):
        for aj in columns(A):
            lhs += [dot(entrywise(f, ai), entrywise(f, aj)), dot(f, ai) * dot(f, entrywise(f, aj)),
                    dot(c, entrywise(entrywise(ai, aj), f)), dot(f, ai) * dot(c, entrywise(f, aj)),
                    dot(f, entrywise(ai, aj)) * dot(c, f), dot(f, ai) * dot(f, aj)]
            rhs += [(ai.T * M * aj)[0] for M in mats]
    return mp.matrix(lhs), mp.matrix(rhs)


claims.identity("softmax_regression.lem5.14",
                "⟨f∘A_i, f∘A_j⟩ = A_iᵀdiag(f∘f)A_j; ⟨f,A_i⟩⟨f, f∘A_j⟩ = A_iᵀf(f∘f)ᵀA_j; "
                "⟨c, A_i∘A_j∘f⟩ = A_iᵀdiag(c∘f)A_j; ⟨f,A_i⟩⟨c, f∘A_j⟩ = A_iᵀf(c∘f)ᵀA_j; "
                "⟨f, A_i∘A_j⟩⟨c,f⟩ = A_iᵀ⟨c,f⟩diag(f)A_j; ⟨f,A_i⟩⟨f,A_j⟩ = A_iᵀffᵀA_j",
                hypotheses="any vectors f, c ∈ Rⁿ and A ∈ R^{n×d}",
                instances=lambda: dims(1, 6).flatmap(lambda n: st.tuples(
                    matrices(st.just(n), dims(1, 4)), vectors(st.just(n)), vectors(st.just(n)))),
                fields=("A", "f", "c"),
                sides=_lem5_14_sides)

# -- Lemma 5.15 and B(x)1 = 0 ---------------------------------------------------------------------


def _decomp_sides(p, b):
    """Both decompositions and the rank bounds (σ₃ of each rank part = 0), stacked."""
    n = p.rows

    def sigma3(M):
        return linalg.singular_values(M)[2] if n >= 3 else mp.mpf(0)

    f = on_simplex(p)
    c = f - b
    B1_low = S.B1(f, b) - diag(entrywise(f, f))
    B2_low = S.B2(f, b) - (diag(entrywise(c, f)) - diag(f) * dot(c, f))
    lhs = stack(S.B1(f, b) + S.B2(f, b), S.B_rank(f, b) + S.B_diag(f, b),
                mp.matrix([sigma3(S.B_rank(f, b)), sigma3(B1_low), sigma3(B2_low)]))
    return lhs, stack(S.B(f, b), S.B(f, b), mp.matrix([0, 0, 0]))


claims.identity("softmax_regression.lem5.15.decomp",
                "B = B_1 + B_2 = B_rank + B_diag with B_1 = diag(f∘f) + rank-≤2, B_2 = diagonal + rank-≤2, "
                "rank(B_rank) ≤ 2",
                hypotheses="f on the simplex, b ∈ Rⁿ (b ≥ 0, ‖b‖₁ ≤ 1)", instances=fb_pairs, **ON_SIMPLEX, sides=_decomp_sides)

claims.identity(
    "softmax_regression.lem5.15.paperB",
    "∇²L_exp(x) = Aᵀ B_paper(x) A with B_paper = ⟨3f − 2b, f⟩ffᵀ + (b∘f)fᵀ + f(b∘f)ᵀ − "
    "⟨f − b, f⟩diag(f) + diag((2f − b)∘f)",
    hypotheses="A ∈ R^{n×d}, b ∈ Rⁿ, x ∈ R^d", expected="falsified",
    instances=lambda: dims(1, 4).flatmap(lambda n: st.tuples(
        dims(1, 2).flatmap(lambda d: st.tuples(ints((n, d)), ints((d,)))), int_b(n))).map(
        lambda t: (t[0][0] / 2, t[1], np.ones(t[1].size), t[0][1] / 2)),
    fields=_PROBLEM, to_statement=_without_w,
    sides=lambda A, b, _w, x: (derivatives.hessian(lambda z: S.L_exp(A, b, z), x), A.T * S.B_paper(S.f(A, x), b) * A),
    notes="FAILS (spec: n = 2, f = (.3,.7), b = (1,0)): the paper's B, built from the eight G-terms, "
          "misses −2(f∘f)fᵀ − 2f(f∘f)ᵀ (+ the b∘f terms' sign); numerical ∇²L_exp disagrees.",
    conventions=("loss_half",),
    source=("spec §4.4 lem5.15.paperB: the paper's B(x) display (Lemma 5.15, §5.10) is lost; B_paper is assembled from "
            "the eight terms G_1…G_8 through which the §7 Lipschitz proof writes H(x) − H(y), with the coefficient "
            "pattern “3f − 2b”, “2f − b” the text keeps (the sign of the diag(f) term is not recovered)"))

claims.identity(
    "softmax_regression.lem5.15.paperB",
    "∇²L_exp(x) = Aᵀ(B_paper(x) − 2(f∘f)fᵀ − 2f(f∘f)ᵀ)A: B_paper completed by the two terms G_9, G_10",
    hypotheses="A ∈ R^{n×d}, b ∈ Rⁿ, x ∈ R^d", repair=True,
    instances=lambda: dims(1, 4).flatmap(lambda n: st.tuples(
        dims(1, 2).flatmap(lambda d: st.tuples(ints((n, d)), ints((d,)))), int_b(n))).map(
        lambda t: (t[0][0] / 2, t[1], np.ones(t[1].size), t[0][1] / 2)),
    fields=_PROBLEM, to_statement=_without_w,
    sides=lambda A, b, _w, x: (derivatives.hessian(lambda z: S.L_exp(A, b, z), x),
                               A.T * _b_paper_completed(S.f(A, x), b) * A),
    notes="The spec's correct version (§5.10, lem7.3): the least-squares fit of the ten terms gives "
          "coefficients (3, −2, −1, 1, 1, 1, 1, 1, −2, −2) with residual 3e-15, i.e. def.B = B_paper − "
          "2(f∘f)fᵀ − 2f(f∘f)ᵀ (expand −vfᵀ − fvᵀ, v = f∘(2f − b)).")

claims.identity("softmax_regression.prop.B_shift", "B(x)1_n = 0 for all x, b", hypotheses="f on the simplex, b ∈ Rⁿ",
                instances=fb_pairs, **ON_SIMPLEX,
                sides=lambda p, b: (S.B(on_simplex(p), b) * ones(p.rows), mp.matrix(p.rows, 1)),
                scale=lambda p, b: norm2(S.B(on_simplex(p), b)) * mp.sqrt(p.rows) + 1,
                notes="scale: ‖B‖·√n, the size of the terms that cancel.")
