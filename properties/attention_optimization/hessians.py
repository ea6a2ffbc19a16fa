"""Hessian identities: Lemma 7.1 and the paper's kernel of Def 7.3 / Lemma 7.4 (x), Lemmas 10.1 and 10.2
(y), Lemma 11.1 and the paper's kernel of Def 11.3 / Lemma 11.4 (mixed) — spec §4.7, §4.10, §4.11.
Every left side is a numerical derivative of the loss at 50+ digits (``oracle.derivatives``)."""

from __future__ import annotations

from mpmath import mp

from oracle import attention_optimization as O
from oracle import derivatives, linalg
from oracle.linalg import diag, dot, entrywise, stack

from ..toolkit import ClaimSet
from .gradients import point
from .strategies import ATTENTION_FIELDS, attention_instances

__all__ = ["claims"]

claims = ClaimSet("attention_optimization")

_DERIV = ("A1, A2, A3 ∈ R^{n×d}, X, Y ∈ R^{d×d}, B ∈ R^{n×d}, n ≤ 3, d ≤ 2, entries ≤ 2; L_half = ½L (spec "
          "def.loss); derivatives of the loss by numerical differentiation (mpmath.diff)")


def _fn(sides):
    return lambda *args: sides(point(*args))


def _fvc(p, j0=None, i0=None):
    j0 = p.j0 if j0 is None else j0
    i0 = p.i0 if i0 is None else i0
    return (O.f_row(p.A1, p.A2, p.x, j0), O.h_col(p.A3, p.y, i0), O.c_entry(p.A1, p.A2, p.A3, p.B, p.x, p.y, j0, i0))


def _x_hessian_entry(Ai, Al, f, v, c):
    """Spec lem7.1: (A_iᵀ(diag f − ffᵀ)v)(A_lᵀ(diag f − ffᵀ)v) + c·[⟨f∘v, A_i∘A_l⟩ − ⟨f,A_l⟩⟨f∘v,A_i⟩
    − ⟨f,A_i⟩⟨f∘v,A_l⟩ − γ⟨f,A_i∘A_l⟩ + 2γ⟨f,A_i⟩⟨f,A_l⟩], γ = ⟨f, v⟩."""
    g = dot(f, v)
    fv = entrywise(f, v)
    ti = dot(fv, Ai) - dot(f, Ai) * g
    tl = dot(fv, Al) - dot(f, Al) * g
    return ti * tl + c * (dot(fv, entrywise(Ai, Al)) - dot(f, Al) * dot(fv, Ai) - dot(f, Ai) * dot(fv, Al)
                          - g * dot(f, entrywise(Ai, Al)) + 2 * g * dot(f, Ai) * dot(f, Al))


def _x_hessian_entry_block(p):
    return derivatives.hessian(lambda z: O.L_entry(p.A1, p.A2, p.A3, p.B, z, p.y, p.j0, p.i0), p.x)


def _lem7_1(p):
    f, v, c = _fvc(p)
    k = p.K.cols
    return _x_hessian_entry_block(p), mp.matrix([[_x_hessian_entry(p.K[:, i], p.K[:, l], f, v, c) for l in range(k)]
                                                 for i in range(k)])


claims.identity("attention_optimization.lem7.1",
                "∂²L_{j0,i0}/∂x_i∂x_l = (A_iᵀ(diag f − ffᵀ)v)(A_lᵀ(diag f − ffᵀ)v) + c[⟨f∘v, A_i∘A_l⟩ − "
                "⟨f,A_l⟩⟨f∘v,A_i⟩ − ⟨f,A_i⟩⟨f∘v,A_l⟩ − γ⟨f,A_i∘A_l⟩ + 2γ⟨f,A_i⟩⟨f,A_l⟩] for all i, l ∈ [d²]",
                hypotheses=_DERIV + "; j0, i0 drawn, every (i, l) judged", instances=attention_instances, fields=ATTENTION_FIELDS,
                sides=_fn(_lem7_1))

claims.identity("attention_optimization.lem7.4",
                "Def 7.3 + Lemma 7.4: ∇²_x L_{j0,i0} = 𝖠_{j0}ᵀ B_paper(x) 𝖠_{j0}, B_paper = (1−γ)c·diag(f∘v) − "
                "(2γ + c)((f∘v)fᵀ + f(f∘v)ᵀ) + (2γc + γ²)ffᵀ + (f∘v)(f∘v)ᵀ",
                hypotheses=_DERIV + "; j0, i0 drawn", expected="falsified", instances=attention_instances,
                fields=ATTENTION_FIELDS,
                sides=_fn(lambda p: (_x_hessian_entry_block(p), p.K.T * O.B_x_paper(*_fvc(p)) * p.K)),
                notes="The spec records FAILS: the true kernel is (f∘v)(f∘v)ᵀ − (γ + c)((f∘v)fᵀ + f(f∘v)ᵀ) + "
                      "(γ² + 2γc)ffᵀ + c·diag(f∘v) − γc·diag(f) (its form is what lem7.1 verifies entrywise); the "
                      "paper's coefficients of the (f∘v)fᵀ and diag terms are off by γ and γc.",
                conventions=("loss_half",), reading="½c² per entry")
claims.identity("attention_optimization.lem7.4",
                "∇²_x L_{j0,i0} = 𝖠_{j0}ᵀ B_true(x) 𝖠_{j0}, B_true = (f∘v)(f∘v)ᵀ − (γ + c)((f∘v)fᵀ + "
                "f(f∘v)ᵀ) + (γ² + 2γc)ffᵀ + c·diag(f∘v) − γc·diag(f)",
                hypotheses=_DERIV + "; j0, i0 drawn", instances=attention_instances, fields=ATTENTION_FIELDS, repair=True,
                sides=_fn(lambda p: (_x_hessian_entry_block(p), p.K.T * O.B_x_true(*_fvc(p)) * p.K)),
                notes="The spec's correct kernel (§4.7, def.B_x_true), the matrix form of lem7.1.")
claims.identity("attention_optimization.lem7.4",
                "Def 7.3 + Lemma 7.4: ∇²_x L_{j0,i0} = 𝖠_{j0}ᵀ B_paper(x) 𝖠_{j0}, B_paper = (1−γ)c·diag(f∘v) − "
                "(2γ + c)((f∘v)fᵀ + f(f∘v)ᵀ) + (2γc + γ²)ffᵀ + (f∘v)(f∘v)ᵀ",
                hypotheses=_DERIV.replace("L_half = ½L (spec def.loss)", "L_{j0,i0} = c² (Def 1.2, no ½)")
                + "; j0, i0 drawn", expected="falsified", instances=attention_instances, fields=ATTENTION_FIELDS,
                sides=_fn(lambda p: (2 * _x_hessian_entry_block(p), p.K.T * O.B_x_paper(*_fvc(p)) * p.K)),
                alternative=True, reading="no ½", conventions=("loss_half",), conventions_used={"loss_half": "no ½"},
                notes="The Hessian of c² is twice that of ½c²; B_paper matches neither (at the explicit instance of "
                      "spec lem7.4 it gives −3/8 against 1/8 with ½ and 1/4 without).")


def _y_hessian(p):
    return derivatives.hessian(lambda z: O.L_half(p.A1, p.A2, p.A3, p.B, p.x, z), p.y)


def _lem10_1_p1(p):
    Hn, d = _y_hessian(p), p.d
    S = O.softmax_matrix(p.A1, p.A2, p.X)
    blk = p.A3.T * S.T * S * p.A3
    return (stack(*[Hn[i0 * d:i0 * d + d, i0 * d:i0 * d + d] for i0 in range(d)]), stack(*[blk] * d))


claims.identity("attention_optimization.lem10.1.p1", "H_{y,y,i0,i0} = A3ᵀB(x)A3 with B(x) = Σ_{j0} f(x)_{j0}f(x)_{j0}ᵀ (= SᵀS)",
                hypotheses=_DERIV + "; every diagonal block i0 judged (unregularised L_half)",
                instances=attention_instances, fields=ATTENTION_FIELDS, sides=_fn(_lem10_1_p1))


def _lem10_1_p2(p):
    Hn, d = _y_hessian(p), p.d
    off = stack(Hn[0:d, d:2 * d], Hn[d:2 * d, 0:d])
    return off, mp.zeros(off.rows, 1)


claims.identity("attention_optimization.lem10.1.p2", "H_{y,y,i1,i2} = 0 for i1 ≠ i2 (H_yy is block diagonal)",
                hypotheses=_DERIV + "; d = 2, both off-diagonal blocks judged",
                instances=lambda: attention_instances(d_lo=2), fields=ATTENTION_FIELDS, sides=_fn(_lem10_1_p2),
                scale=_fn(lambda p: linalg.frobenius(p.A3) ** 2 + 1))


def _y_entry_hessian(p):
    return derivatives.hessian(lambda z: O.L_entry(p.A1, p.A2, p.A3, p.B, p.x, z, p.j0, p.i0), p.y)


claims.identity("attention_optimization.lem10.2.p1", "∂²L_{j0,i0}/∂y_{i0,i1}² = ⟨f(x)_{j0}, A3[:, i1]⟩²",
                hypotheses=_DERIV + "; j0, i0, i1 drawn", instances=attention_instances, fields=ATTENTION_FIELDS,
                sides=_fn(lambda p: (_y_entry_hessian(p)[p.i0 * p.d + p.i1, p.i0 * p.d + p.i1],
                                     dot(_fvc(p)[0], p.A3[:, p.i1]) ** 2)))


def _lem10_2_p2(p):
    i2 = (p.i1 + 1) % p.d
    f = _fvc(p)[0]
    return (_y_entry_hessian(p)[p.i0 * p.d + p.i1, p.i0 * p.d + i2], dot(f, p.A3[:, p.i1]) * dot(f, p.A3[:, i2]))


claims.identity("attention_optimization.lem10.2.p2", "∂²L_{j0,i0}/∂y_{i0,i1}∂y_{i0,i2} = ⟨f, A3[:,i1]⟩⟨f, A3[:,i2]⟩ for i1 ≠ i2",
                hypotheses=_DERIV + "; d = 2, i2 ≠ i1", instances=lambda: attention_instances(d_lo=2), fields=ATTENTION_FIELDS,
                sides=_fn(_lem10_2_p2))


def _with_column(y, i0, yi, d):
    out = mp.matrix(y)
    for t in range(d):
        out[i0 * d + t] = yi[t]
    return out


def _mixed(p, loss):
    """∂²(loss)/∂x∂y_{i0}ᵀ by numerical differentiation, y_{i0} the i0-th column of Y."""
    yi = p.y[p.i0 * p.d:(p.i0 + 1) * p.d, 0]
    return derivatives.cross_hessian(lambda xx, yy: loss(xx, _with_column(p.y, p.i0, yy, p.d)), p.x, yi)


def _lem11_1(p):
    f, h, c = _fvc(p)
    Hn = _mixed(p, lambda xx, yy: O.L_entry(p.A1, p.A2, p.A3, p.B, xx, yy, p.j0, p.i0))
    return Hn, p.K.T * (diag(f) - f * f.T) * (h * f.T + mp.eye(p.n) * c) * p.A3


claims.identity("attention_optimization.lem11.1", "∂²L_{j0,i0}/∂x∂y_{i0}ᵀ = 𝖠_{j0}ᵀ(diag f − ffᵀ)(hfᵀ + c·I_n)A3",
                hypotheses=_DERIV + "; j0, i0 drawn", instances=attention_instances, fields=ATTENTION_FIELDS, sides=_fn(_lem11_1))


def _lem11_4_sides(kernel):
    """Sides of Lemma 11.4 with the kernel ``kernel(f, h, c)`` (def.B_xy_paper or def.B_xy_true): H_{x,y_{i0}} =
    ∂²L_half/∂x∂y_{i0}ᵀ by numerical differentiation, and Σ_{j0} 𝖠_{j0}ᵀ kernel(f, h, c at j0) A3."""
    def sides(p):
        Hn = _mixed(p, lambda xx, yy: O.L_half(p.A1, p.A2, p.A3, p.B, xx, yy))
        total = mp.zeros(p.x.rows, p.d)
        for j0 in range(p.n):
            total += O.kron_block(p.A1, p.A2, j0).T * kernel(*_fvc(p, j0=j0)) * p.A3
        return Hn, total

    return sides


claims.identity("attention_optimization.lem11.4",
                "Def 11.3 + Lemma 11.4: H_{x,y_{i0}} = Σ_{j0} 𝖠_{j0}ᵀ B_xy,paper A3, B_xy,paper = (f∘h)fᵀ − ⟨f,h⟩ffᵀ "
                "− c·diag(f) + c·ffᵀ",
                hypotheses=_DERIV + "; i0 drawn; H_{x,y_{i0}} = ∂²L_half/∂x∂y_{i0}ᵀ", expected="falsified",
                instances=attention_instances, fields=ATTENTION_FIELDS, sides=_fn(_lem11_4_sides(O.B_xy_paper)),
                notes="The spec records FAILS: both c-terms have the wrong sign; the true kernel is "
                      "(diag f − ffᵀ)(hfᵀ + cI) (lem11.1, verified).",
                conventions=("loss_half",), reading="½c² per entry")


claims.identity("attention_optimization.lem11.4",
                "H_{x,y_{i0}} = Σ_{j0} 𝖠_{j0}ᵀ B_xy,true A3, B_xy,true = (diag f − ffᵀ)(hfᵀ + c·I_n) = "
                "(f∘h)fᵀ − ⟨f,h⟩ffᵀ + c·diag(f) − c·ffᵀ",
                hypotheses=_DERIV + "; i0 drawn; H_{x,y_{i0}} = ∂²L_half/∂x∂y_{i0}ᵀ", instances=attention_instances,
                fields=ATTENTION_FIELDS,
                sides=_fn(_lem11_4_sides(O.B_xy_true)), repair=True,
                notes="The spec's correct kernel (§4.11, def.B_xy_true): B_xy,paper with both c-terms' signs flipped.")


def _doubled(sides):
    """``sides`` with its left side (the Hessian of L_half) doubled: the Hessian of the loss without ½."""
    def doubled(p):
        hessian, kernel = sides(p)
        return 2 * hessian, kernel

    return doubled


claims.identity("attention_optimization.lem11.4",
                "Def 11.3 + Lemma 11.4: H_{x,y_{i0}} = Σ_{j0} 𝖠_{j0}ᵀ B_xy,paper A3, B_xy,paper = (f∘h)fᵀ − ⟨f,h⟩ffᵀ "
                "− c·diag(f) + c·ffᵀ",
                hypotheses=_DERIV.replace("L_half = ½L (spec def.loss)", "L = Σ c² (Def 1.2, no ½)")
                + "; i0 drawn; H_{x,y_{i0}} = ∂²L/∂x∂y_{i0}ᵀ", expected="falsified", instances=attention_instances,
                fields=ATTENTION_FIELDS, sides=_fn(_doubled(_lem11_4_sides(O.B_xy_paper))), alternative=True,
                reading="no ½", conventions=("loss_half",), conventions_used={"loss_half": "no ½"},
                notes="Without the ½ the mixed Hessian doubles; B_xy,paper's c-terms keep the wrong sign, so it "
                      "matches neither normalisation.")
