"""Reformulation identities (spec §4.2) and the gradient identities of Lemmas 5.1, 5.2, 5.4 and 5.5
(spec §4.3–4.5); every derivative on a left side is taken by numerical differentiation at 50+ digits
(``oracle.derivatives``), never from a closed form."""

from __future__ import annotations

from types import SimpleNamespace

from mpmath import mp

from oracle import attention_optimization as O
from oracle import derivatives, linalg
from oracle.linalg import diag, dot, entrywise, exp_entrywise, stack

from ..toolkit import ClaimSet
from .strategies import ATTENTION_FIELDS, attention_instances

__all__ = ["claims", "point"]

claims = ClaimSet("attention_optimization")

_INST = ("A1, A2, A3 ∈ R^{n×d}, X, Y ∈ R^{d×d}, B ∈ R^{n×d}, n ≤ 3, d ≤ 2, entries ≤ 2; x = vec_row(X), y stacks "
         "Y's columns (y_{i0,i1} = Y[i1, i0])")


def point(A1, A2, A3, X, Y, B, j0, i0, i, l, i2):
    """The drawn instance (already in mpmath) with x, y, the block 𝖠_{j0}, its columns A_i, A_l
    (l moved off i when d > 1, for the l ≠ i parts), i1 = i mod d and i2 ≠ i0 when d > 1."""
    d = A1.cols
    if l == i and d > 1:
        l = (i + 1) % (d * d)
    if i2 == i0 and d > 1:
        i2 = (i0 + 1) % d
    K = O.kron_block(A1, A2, j0)
    return SimpleNamespace(A1=A1, A2=A2, A3=A3, X=X, Y=Y, B=B, x=linalg.vec(X), y=O.vec_cols(Y), j0=j0, i0=i0,
                           i=i, l=l, i1=i % d, i2=i2, d=d, n=A1.rows, K=K, Ai=K[:, i], Al=K[:, l])


def _fn(sides):
    """``sides(p)`` on the point of a drawn attention instance."""
    return lambda *args: sides(point(*args))


# --- §4.2 reformulations ---------------------------------------------------------------------

claims.identity("attention_optimization.sec1.loss_identity",
                "‖D(X)⁻¹exp(A1XA2ᵀ)A3Y − B‖_F² = Σ_{j0,i0}(⟨f(x)_{j0}, A3Y_{*,i0}⟩ − b_{j0,i0})²",
                hypotheses=_INST + "; left side by the matrix route (A1XA2ᵀ), right side by the Kronecker route "
                                   "(f from 𝖠_{j0} vec_row(X))",
                instances=attention_instances, fields=ATTENTION_FIELDS,
                sides=_fn(lambda p: (O.loss_matrix_form(p.A1, p.A2, p.A3, p.B, p.X, p.Y),
                                     mp.fsum(O.c_entry(p.A1, p.A2, p.A3, p.B, p.x, p.y, j0, i0) ** 2
                                             for j0 in range(p.n) for i0 in range(p.d)))))

claims.identity("attention_optimization.sec4.tensor_trick", "exp(𝖠_{j0} vec(X)) = row j0 of exp(A1XA2ᵀ), 𝖠 = A1 ⊗ A2",
                hypotheses="A1, A2 ∈ R^{n×d}, X ∈ R^{d×d}; vec row-major (spec §1: with column-major vec the "
                           "identity holds for Xᵀ instead); all rows j0 judged",
                instances=attention_instances, fields=ATTENTION_FIELDS,
                sides=_fn(lambda p: (stack(*[O.u_row(p.A1, p.A2, p.x, j0) for j0 in range(p.n)]),
                                     stack(*[exp_entrywise(p.A1 * p.X * p.A2.T)[j0, :].T for j0 in range(p.n)]))))


def _def1_4(p):
    def part1(j0):
        r = O.f_row(p.A1, p.A2, p.x, j0) - p.B[j0, :].T
        return dot(r, r)

    return O.multiple_softmax_loss(p.A1, p.A2, p.X, p.B), mp.fsum(part1(j0) for j0 in range(p.n))


claims.identity("attention_optimization.def1.4.row_decomposition",
                "Def 1.4: the multiple softmax regression loss ‖D(X)⁻¹exp(A1XA2ᵀ) − B‖_F² is the sum over j0 of the "
                "softmax regression losses ‖⟨exp(𝖠_{j0}x), 1⟩⁻¹exp(𝖠_{j0}x) − B[j0,:]ᵀ‖₂²",
                hypotheses="A1, A2 ∈ R^{n×d}, X ∈ R^{d×d}, B ∈ R^{n×n}, x = vec_row(X)",
                instances=lambda: attention_instances(B_square=True), fields=ATTENTION_FIELDS, sides=_fn(_def1_4))

# --- Lemma 5.1 (gradients in x) ------------------------------------------------------------


def _lem51(claim_id, statement, sides, *, l_ne_i=False):
    claims.identity(claim_id, statement,
                    hypotheses=_INST + "; j0, i0 and i, l ∈ [d²] drawn; A_i = column i of 𝖠_{j0}, f = f(x)_{j0}, "
                               "v = h(y)_{i0}; the left side by numerical differentiation (mpmath.diff)"
                               + ("; l ≠ i (d = 2; a drawn l = i is moved to i + 1 mod d²)" if l_ne_i else ""),
                    instances=(lambda: attention_instances(d_lo=2)) if l_ne_i else attention_instances,
                    fields=ATTENTION_FIELDS, sides=_fn(sides))


def _f(p):
    return O.f_row(p.A1, p.A2, p.x, p.j0)


def _v(p):
    return O.h_col(p.A3, p.y, p.i0)


_lem51("attention_optimization.lem5.1.p1", "∂u(x)_{j0}/∂x_i = u(x)_{j0} ∘ A_i",
       lambda p: (derivatives.jacobian(lambda z: O.u_row(p.A1, p.A2, z, p.j0), p.x)[:, p.i],
                  entrywise(O.u_row(p.A1, p.A2, p.x, p.j0), p.Ai)))
_lem51("attention_optimization.lem5.1.p2", "∂α(x)_{j0}/∂x_i = ⟨u(x)_{j0}, A_i⟩",
       lambda p: (derivatives.gradient(lambda z: O.alpha_row(p.A1, p.A2, z, p.j0), p.x)[p.i],
                  dot(O.u_row(p.A1, p.A2, p.x, p.j0), p.Ai)))
_lem51("attention_optimization.lem5.1.p3", "∂α(x)_{j0}⁻¹/∂x_i = −α(x)_{j0}⁻¹⟨f(x)_{j0}, A_i⟩",
       lambda p: (derivatives.gradient(lambda z: 1 / O.alpha_row(p.A1, p.A2, z, p.j0), p.x)[p.i],
                  -dot(_f(p), p.Ai) / O.alpha_row(p.A1, p.A2, p.x, p.j0)))
_lem51("attention_optimization.lem5.1.p4", "∂f(x)_{j0}/∂x_i = f∘A_i − ⟨f, A_i⟩f",
       lambda p: (derivatives.jacobian(lambda z: O.f_row(p.A1, p.A2, z, p.j0), p.x)[:, p.i],
                  entrywise(_f(p), p.Ai) - _f(p) * dot(_f(p), p.Ai)))


def _p5(p):
    f, v = _f(p), _v(p)
    g = derivatives.gradient(lambda z: O.c_entry(p.A1, p.A2, p.A3, p.B, z, p.y, p.j0, p.i0), p.x)[p.i]
    return (mp.matrix([g, g]), mp.matrix([dot(entrywise(f, p.Ai), v) - dot(f, p.Ai) * dot(f, v),
                                          (p.Ai.T * (diag(f) - f * f.T) * v)[0]]))


_lem51("attention_optimization.lem5.1.p5",
       "∂c(x,y)_{j0,i0}/∂x_i = ⟨f∘A_i, v⟩ − ⟨f, A_i⟩⟨f, v⟩ = A_iᵀ(diag f − ffᵀ)v", _p5)
_lem51("attention_optimization.lem5.1.p6", "∂L(x,y)_{j0,i0}/∂x_i = c(x,y)_{j0,i0}·(⟨f∘A_i, v⟩ − ⟨f, A_i⟩⟨f, v⟩)",
       lambda p: (derivatives.gradient(lambda z: O.L_entry(p.A1, p.A2, p.A3, p.B, z, p.y, p.j0, p.i0), p.x)[p.i],
                  O.c_entry(p.A1, p.A2, p.A3, p.B, p.x, p.y, p.j0, p.i0)
                  * (dot(entrywise(_f(p), p.Ai), _v(p)) - dot(_f(p), p.Ai) * dot(_f(p), _v(p)))))
_lem51("attention_optimization.lem5.1.p7", "∂⟨f, A_i⟩/∂x_i = ⟨f, A_i∘A_i⟩ − ⟨f, A_i⟩²",
       lambda p: (derivatives.gradient(lambda z: dot(O.f_row(p.A1, p.A2, z, p.j0), p.Ai), p.x)[p.i],
                  dot(_f(p), entrywise(p.Ai, p.Ai)) - dot(_f(p), p.Ai) ** 2))
_lem51("attention_optimization.lem5.1.p8", "∂⟨f, A_i⟩/∂x_l = ⟨f, A_i∘A_l⟩ − ⟨f, A_i⟩⟨f, A_l⟩ (l ≠ i)",
       lambda p: (derivatives.gradient(lambda z: dot(O.f_row(p.A1, p.A2, z, p.j0), p.Ai), p.x)[p.l],
                  dot(_f(p), entrywise(p.Ai, p.Al)) - dot(_f(p), p.Ai) * dot(_f(p), p.Al)), l_ne_i=True)
_lem51("attention_optimization.lem5.1.p9", "∂(f∘A_i)/∂x_i = f∘A_i∘A_i − ⟨f, A_i⟩ f∘A_i",
       lambda p: (derivatives.jacobian(lambda z: entrywise(O.f_row(p.A1, p.A2, z, p.j0), p.Ai), p.x)[:, p.i],
                  entrywise(entrywise(_f(p), p.Ai), p.Ai) - entrywise(_f(p), p.Ai) * dot(_f(p), p.Ai)))
_lem51("attention_optimization.lem5.1.p10", "∂(f∘A_i)/∂x_l = f∘A_i∘A_l − ⟨f, A_l⟩ f∘A_i (l ≠ i)",
       lambda p: (derivatives.jacobian(lambda z: entrywise(O.f_row(p.A1, p.A2, z, p.j0), p.Ai), p.x)[:, p.l],
                  entrywise(entrywise(_f(p), p.Ai), p.Al) - entrywise(_f(p), p.Ai) * dot(_f(p), p.Al)), l_ne_i=True)

# --- Lemma 5.2 (gradients in y) ------------------------------------------------------------


def _lem52(claim_id, statement, sides, scale=None, *, i2_ne_i0=False):
    claims.identity(claim_id, statement,
                    hypotheses=_INST + "; the left side by numerical differentiation in y"
                               + ("; i2 ≠ i0, so d = 2" if i2_ne_i0 else ""),
                    instances=(lambda: attention_instances(d_lo=2)) if i2_ne_i0 else attention_instances,
                    fields=ATTENTION_FIELDS,
                    sides=_fn(sides), scale=None if scale is None else _fn(scale))


def _dy(p, fn, k):
    return derivatives.gradient(fn, p.y)[k]


_lem52("attention_optimization.lem5.2.p1", "∂h(y)_{i0}/∂y_{i0,i1} = A3[:, i1]",
       lambda p: (derivatives.jacobian(lambda z: O.h_col(p.A3, z, p.i0), p.y)[:, p.i0 * p.d + p.i1], p.A3[:, p.i1]))
_lem52("attention_optimization.lem5.2.p2", "∂h(y)_{i0}/∂y_{i2,i1} = 0 for i2 ≠ i0",
       lambda p: (derivatives.jacobian(lambda z: O.h_col(p.A3, z, p.i0), p.y)[:, p.i2 * p.d + p.i1],
                  mp.zeros(p.n, 1)),
       scale=lambda p: linalg.frobenius(p.A3), i2_ne_i0=True)
_lem52("attention_optimization.lem5.2.p3", "∂c(x,y)_{j0,i0}/∂y_{i0,i1} = ⟨f(x)_{j0}, A3[:, i1]⟩",
       lambda p: (_dy(p, lambda z: O.c_entry(p.A1, p.A2, p.A3, p.B, p.x, z, p.j0, p.i0), p.i0 * p.d + p.i1),
                  dot(_f(p), p.A3[:, p.i1])))
_lem52("attention_optimization.lem5.2.p4", "∂c(x,y)_{j0,i0}/∂y_{i2,i1} = 0 for i2 ≠ i0",
       lambda p: (_dy(p, lambda z: O.c_entry(p.A1, p.A2, p.A3, p.B, p.x, z, p.j0, p.i0), p.i2 * p.d + p.i1),
                  mp.mpf(0)),
       scale=lambda p: linalg.frobenius(p.A3), i2_ne_i0=True)
_lem52("attention_optimization.lem5.2.p5", "∂L(x,y)_{j0,i0}/∂y_{i0,i1} = c(x,y)_{j0,i0}⟨f(x)_{j0}, A3[:, i1]⟩",
       lambda p: (_dy(p, lambda z: O.L_entry(p.A1, p.A2, p.A3, p.B, p.x, z, p.j0, p.i0), p.i0 * p.d + p.i1),
                  O.c_entry(p.A1, p.A2, p.A3, p.B, p.x, p.y, p.j0, p.i0) * dot(_f(p), p.A3[:, p.i1])))
_lem52("attention_optimization.lem5.2.p6", "∂L(x,y)_{j0,i0}/∂y_{i2,i1} = 0 for i2 ≠ i0",
       lambda p: (_dy(p, lambda z: O.L_entry(p.A1, p.A2, p.A3, p.B, p.x, z, p.j0, p.i0), p.i2 * p.d + p.i1),
                  mp.mpf(0)),
       scale=lambda p: abs(O.c_entry(p.A1, p.A2, p.A3, p.B, p.x, p.y, p.j0, p.i0)) * linalg.frobenius(p.A3) + 1,
       i2_ne_i0=True)

# --- Lemmas 5.4, 5.5 (matrix-view gradients) ---------------------------------------------

_DERIV = _INST + "; L_half = ½L (spec def.loss); derivatives by numerical differentiation (mpmath.diff)"

claims.identity("attention_optimization.lem5.4.grad_x_matrix",
                "∇_X L_half = A1ᵀQA2 with P = CHᵀ, Q = S∘P − diag((S∘P)1_n)S (tensor-trick gradient)",
                hypotheses=_DERIV, instances=attention_instances, fields=ATTENTION_FIELDS,
                sides=_fn(lambda p: (derivatives.gradient(lambda z: O.L_half(p.A1, p.A2, p.A3, p.B, z, p.y), p.x),
                                     linalg.vec(O.grad_x_matrix_form(p.A1, p.A2, p.A3, p.B, p.X, p.Y)))))

claims.identity("attention_optimization.lem5.5.grad_y_matrix",
                "∇_{y_{i0}} L_half = A3ᵀ q̃_{i0}, i.e. ∇_Y L_half = A3ᵀSᵀ(SA3Y − B)",
                hypotheses=_DERIV, instances=attention_instances, fields=ATTENTION_FIELDS,
                sides=_fn(lambda p: (derivatives.gradient(lambda z: O.L_half(p.A1, p.A2, p.A3, p.B, p.x, z), p.y),
                                     O.vec_cols(O.grad_y_matrix_form(p.A1, p.A2, p.A3, p.B, p.X, p.Y)))))
