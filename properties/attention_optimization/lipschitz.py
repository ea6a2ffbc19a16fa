"""Lipschitz and norm bounds of Sections 8 and 12 (spec §4.8, §4.12) and Lemma 10.1 Part 5.

Instances meet H8/H12 exactly: the data are drawn (spec §5, with its adversarial family) and R is the
smallest admissible radius of the drawn data and both points, at least 4 (``R ≥ 4`` of Lemma 8.5),
computed by :func:`oracle.attention_optimization_bounds.h12_radius`.  Hessians are numerical
derivatives of the loss (``oracle.attention_optimization``); where a claim is about the paper's H
(𝖠ᵀB_paper𝖠) both it and the true Hessian are judged, as the blocks of one block-diagonal matrix
whose spectral norm is the larger of the two.
"""

from __future__ import annotations

from mpmath import mp

from oracle import attention_optimization as O
from oracle import attention_optimization_bounds as OB
from oracle import linalg

from ..toolkit import ClaimSet, le, to_oracle, worst_pair
from .strategies import H12_FIELDS, h8_fields, h8_pairs, h12_instances

__all__ = ["claims", "radius_of"]

claims = ClaimSet("attention_optimization")

H8 = ("H8 (spec §4): R ≥ 4, ‖A1‖, ‖A2‖, ‖A3‖, max‖𝖠_{j0}‖, ‖x‖₂, ‖x̃‖₂ ≤ R, |b| ≤ R, ‖h(y)_{i0}‖₂ ≤ R²; "
      "R := max(4, the smallest radius the drawn data meet); n ≤ 3, d ≤ 2")
H12 = H8 + "; H12 adds ‖y_{i0}‖₂, ‖ỹ_{i0}‖₂ ≤ R"


def radius_of(A1, A2, A3, B, y, *xs, floor=4):
    """R := max(floor, h12_radius at each x of ``xs``) — the hardest admissible R of the instance."""
    return max([mp.mpf(floor)] + [OB.h12_radius(A1, A2, A3, B, x, y) for x in xs])


def _blockdiag(*Ms):
    r = sum(M.rows for M in Ms)
    c = sum(M.cols for M in Ms)
    out = mp.zeros(r, c)
    i = j = 0
    for M in Ms:
        out[i:i + M.rows, j:j + M.cols] = M
        i, j = i + M.rows, j + M.cols
    return out


def _x_pair(fn, const):
    """A Lipschitz claim in x: ``fn(A1, A2, A3, B, y, j0, i0, x)`` is F(x), ``const(n, d, R)`` the claimed L."""
    def value(A1, A2, A3, X, Y, B, j0, i0, z):
        return fn(A1, A2, A3, B, O.vec_cols(Y), j0, i0, z)

    def constant(A1, A2, A3, X, Y, B, j0, i0, x, xt):
        return const(A1.rows, A1.cols, radius_of(A1, A2, A3, B, O.vec_cols(Y), x, xt))

    return value, constant


def _fvc(A1, A2, A3, B, y, j0, i0, x):
    return O.f_row(A1, A2, x, j0), O.h_col(A3, y, i0), O.c_entry(A1, A2, A3, B, x, y, j0, i0)


def _H_entry_both(A1, A2, A3, B, y, j0, i0, x):
    K = O.kron_block(A1, A2, j0)
    return _blockdiag(O.hessian_entry_xx(A1, A2, A3, B, x, y, j0, i0), K.T * O.B_x_paper(*_fvc(A1, A2, A3, B, y, j0, i0, x)) * K)


def _H_both(A1, A2, A3, B, y, j0, i0, x):
    Hxx = O.hessian_xx(A1, A2, A3, B, x, y)
    return _blockdiag(Hxx, O.hessian_xx_paper(A1, A2, A3, B, x, y))


def _lip(claim_id, statement, fn, const, notes="", in_y=False, max_examples=None):
    value, constant = _x_pair(fn, const)
    claims.lipschitz(claim_id, statement, hypotheses=H12 if in_y else H8,
                     instances=lambda: h8_pairs(in_y=in_y), fields=h8_fields(in_y), value=value, constant=constant, notes=notes,
                     max_examples=max_examples)


# --- Lemma 8.1, 8.2 (Hessian in x) --------------------------------------------------------

_BOTH = ("Judged for the true Hessian (numerical) and the paper's 𝖠ᵀB_paper𝖠 at once (block-diagonal); the "
         "derived constant is astronomically loose (spec: ratios ~1e-69).")
_lip("attention_optimization.lem8.1.p1",
     "‖H_{j0,i0}(x) − H_{j0,i0}(x̃)‖ ≤ K₁‖x − x̃‖₂, K₁ = 9R²R_0 (derived), R_0 = n^{1.5}e^{10R²}",
     _H_entry_both, lambda n, d, R: OB.K1(n, R), notes=_BOTH, max_examples=15)
_lip("attention_optimization.lem8.1.p2", "‖H(x) − H(x̃)‖ ≤ nd·K₁‖x − x̃‖₂, H = Σ_{j0,i0} H_{j0,i0}", _H_both,
     lambda n, d, R: n * d * OB.K1(n, R), notes=_BOTH, max_examples=10)


def _G_all(A1, A2, A3, B, y, j0, i0, x):
    return _blockdiag(*O.G_nine(*_fvc(A1, A2, A3, B, y, j0, i0, x)))


_lip("attention_optimization.lem8.2",
     "for each k ≤ 9: ‖G_k(x) − G_k(x̃)‖ ≤ R_0‖x − x̃‖₂ (R_0 = n^{1.5}e^{10R²}, Def 8.6 derived)", _G_all,
     lambda n, d, R: OB.R0(n, R), notes="All nine G_k of Sec 8.2 at once (block-diagonal: the largest gap is judged).")

# Lemmas 8.7–8.15: one per G_k of Sec 8.2 (k = 1 … 9), in order.
_G_K_LEMMAS = ("attention_optimization.lem8.7", "attention_optimization.lem8.8", "attention_optimization.lem8.9",
               "attention_optimization.lem8.10", "attention_optimization.lem8.11", "attention_optimization.lem8.12",
               "attention_optimization.lem8.13", "attention_optimization.lem8.14", "attention_optimization.lem8.15")
for _k, _claim_id in enumerate(_G_K_LEMMAS):
    _lip(_claim_id, f"‖G{_k + 1}(x) − G{_k + 1}(x̃)‖ ≤ R_0‖x − x̃‖₂ (spec def.G_nine, derived R_0)",
         lambda A1, A2, A3, B, y, j0, i0, x, k=_k: O.G_nine(*_fvc(A1, A2, A3, B, y, j0, i0, x))[k],
         lambda n, d, R: OB.R0(n, R))

# --- Lemma 8.3, 8.4 (bounds at a point) ---------------------------------------------------


def _point(A1, A2, A3, X, Y, B, j0, i0):
    x, y = linalg.vec(X), O.vec_cols(Y)
    R = radius_of(A1, A2, A3, B, y, x)
    return x, y, R, _fvc(A1, A2, A3, B, y, j0, i0, x)


def _lem8_3(A1, A2, A3, X, Y, B, j0, i0):
    x, _, R, _ = _point(A1, A2, A3, X, Y, B, j0, i0)
    return mp.exp(-R ** 2), O.alpha_row(A1, A2, x, j0)


claims.inequality("attention_optimization.lem8.3", "β ≥ exp(−R²): α(x)_{j0} = ⟨u(x)_{j0}, 1_n⟩ ≥ exp(−R²)", hypotheses=H8,
                  instances=h12_instances, fields=H12_FIELDS,
                  sides=_lem8_3, notes="In fact α ≥ n·e^{−R²}; tight at n = 1, 𝖠_{j0}x = −R².")


def _lem8_4(part):
    def sides(A1, A2, A3, X, Y, B, j0, i0):
        x, _, R, (f, v, c) = _point(A1, A2, A3, X, Y, B, j0, i0)
        u = O.u_row(A1, A2, x, j0)
        a = mp.fsum(u)
        measured = (linalg.norm2(u), abs(a), 1 / abs(a), linalg.norm2(f), abs(linalg.dot(f, v)), abs(c))[part - 1]
        return measured, OB.lem8_4(A1.rows, R)[part - 1]
    return sides


_LEM8_4 = (  # (claim id, statement), in the order of the parts
    ("attention_optimization.lem8.4.p1", "‖u(x)_{j0}‖₂ ≤ √n·exp(R²)"),
    ("attention_optimization.lem8.4.p2", "|α(x)_{j0}| ≤ n·exp(R²)"),
    ("attention_optimization.lem8.4.p3", "|α(x)_{j0}|⁻¹ ≤ exp(R²)"),
    ("attention_optimization.lem8.4.p4", "‖f(x)_{j0}‖₂ ≤ 1"),
    ("attention_optimization.lem8.4.p5", "|γ_{j0}(x)| = |⟨f(x)_{j0}, v⟩| ≤ R²"),
    ("attention_optimization.lem8.4.p6", "|c(x,:)_{j0,i0}| ≤ 2R² (uses R ≥ 1)"),
)
for _p, (_claim_id, _s) in enumerate(_LEM8_4, start=1):
    claims.inequality(_claim_id, _s, hypotheses=H8, instances=h12_instances, fields=H12_FIELDS, sides=_lem8_4(_p))

# --- Lemma 8.5 (Lipschitz of the basic functions) -----------------------------------------

_B = lambda k: (lambda n, d, R: OB.lem8_5(n, R)[k])
_lip("attention_optimization.lem8.5.p1", "‖u(x)_{j0} − u(x̃)_{j0}‖₂ ≤ √n·exp(2R²)‖x − x̃‖₂",
     lambda A1, A2, A3, B, y, j0, i0, x: O.u_row(A1, A2, x, j0), _B(0))
_lip("attention_optimization.lem8.5.p2", "|α(x)_{j0}⁻¹ − α(x̃)_{j0}⁻¹| ≤ n·exp(4R²)‖x − x̃‖₂",
     lambda A1, A2, A3, B, y, j0, i0, x: 1 / O.alpha_row(A1, A2, x, j0), _B(1))
_lip("attention_optimization.lem8.5.p3", "‖f(x)_{j0} − f(x̃)_{j0}‖₂ ≤ n^{1.5}R·exp(6R²)‖x − x̃‖₂",
     lambda A1, A2, A3, B, y, j0, i0, x: O.f_row(A1, A2, x, j0), _B(2))
_lip("attention_optimization.lem8.5.p4", "|γ(x)_{j0} − γ(x̃)_{j0}| ≤ n^{1.5}exp(7R²)‖x − x̃‖₂",
     lambda A1, A2, A3, B, y, j0, i0, x: linalg.dot(O.f_row(A1, A2, x, j0), O.h_col(A3, y, i0)), _B(3))
_lip("attention_optimization.lem8.5.p5", "|c(x,:)_{j0,i0} − c(x̃,:)_{j0,i0}| ≤ n^{1.5}exp(7R²)‖x − x̃‖₂",
     lambda A1, A2, A3, B, y, j0, i0, x: O.c_entry(A1, A2, A3, B, x, y, j0, i0), _B(4))

# --- Lemma 10.1 Part 5 and its x-supplement -----------------------------------------------


def _Hyy(A1, A2, A3, B, x, y):
    return O.hessian_yy(A1, A2, A3, B, x, y)


def _lem10_1_p5(A1, A2, A3, X, Y, B, j0, i0, y, yt):
    x = linalg.vec(X)
    return _Hyy(A1, A2, A3, B, x, y), _Hyy(A1, A2, A3, B, x, yt)


claims.identity("attention_optimization.lem10.1.p5", "‖H_yy(y) − H_yy(ỹ)‖ = 0 (H_yy does not depend on y)", hypotheses=H12,
                instances=h8_pairs, fields=h8_fields(names=("y", "ỹ")), sides=_lem10_1_p5, max_examples=15,
                notes="Judged as the identity H_yy(x, y) = H_yy(x, ỹ) (both numerical); H_yy depends on x, see "
                      "lem10.1.p5_x.")
_lip("attention_optimization.lem10.1.p5_x", "‖H_yy(x) − H_yy(x̃)‖ ≤ 2n^{2.5}R³e^{6R²}‖x − x̃‖₂ (supplement, not in the paper)",
     lambda A1, A2, A3, B, y, j0, i0, x: _Hyy(A1, A2, A3, B, x, y), lambda n, d, R: OB.lem10_1_p5_x(n, R),
     max_examples=15)

# --- Section 12 (mixed Hessian) -----------------------------------------------------------


def _z_pair(fn, const):
    """A Lipschitz claim in z = (x, y) (H12): ``fn(A1, A2, A3, B, j0, i0, x, y)``."""
    def split(A1, z):
        k = A1.cols ** 2
        return z[0:k, 0], z[k:2 * k, 0]

    def value(A1, A2, A3, X, Y, B, j0, i0, z):
        return fn(A1, A2, A3, B, j0, i0, *split(A1, z))

    def constant(A1, A2, A3, X, Y, B, j0, i0, z, zt):
        (x, y), (xt, yt) = split(A1, z), split(A1, zt)
        R = max(radius_of(A1, A2, A3, B, y, x), radius_of(A1, A2, A3, B, yt, xt))
        return const(A1.rows, A1.cols, R)

    return value, constant


def _lip_z(claim_id, statement, fn, const, notes="", max_examples=None):
    value, constant = _z_pair(fn, const)
    claims.lipschitz(claim_id, statement, hypotheses=H12, instances=lambda: h8_pairs(in_y=True), fields=h8_fields(True),
                     value=value, constant=constant, notes=notes, max_examples=max_examples)


_lip_z("attention_optimization.lem12.1",
       "‖H_xy(x,y) − H_xy(x̃,ỹ)‖ ≤ nd·R²·4R_1‖(x,y) − (x̃,ỹ)‖₂, R_1 = n^{1.5}e^{10R²} (derived)",
       lambda A1, A2, A3, B, j0, i0, x, y: _blockdiag(O.hessian_xy(A1, A2, A3, B, x, y),
                                                      O.hessian_xy_paper(A1, A2, A3, B, x, y)),
       lambda n, d, R: OB.lem12_1(n, d, R), notes=_BOTH, max_examples=10)


def _G4(A1, A2, A3, B, j0, i0, x, y):
    return O.G_xy_four(O.f_row(A1, A2, x, j0), O.h_col(A3, y, i0), O.c_entry(A1, A2, A3, B, x, y, j0, i0))


_PIECES = ("The assignment of B_xy's four pieces G1–G4 to Lemmas 12.5–12.7 is not recovered; here 12.5 is G1, "
           "12.6 is G2 and 12.7 the two c-terms G3, G4.")
_lip_z("attention_optimization.lem12.5", "‖G1(x,y) − G1(x̃,ỹ)‖ ≤ R²R_1‖(x,y) − (x̃,ỹ)‖₂, G1 = (f∘h)fᵀ",
       lambda *a: _G4(*a)[0], lambda n, d, R: R ** 2 * OB.R1(n, R), notes=_PIECES)
_lip_z("attention_optimization.lem12.6", "‖G2(x,y) − G2(x̃,ỹ)‖ ≤ R²R_1‖(x,y) − (x̃,ỹ)‖₂, G2 = −⟨f,h⟩ffᵀ",
       lambda *a: _G4(*a)[1], lambda n, d, R: R ** 2 * OB.R1(n, R), notes=_PIECES)
_lip_z("attention_optimization.lem12.7", "‖G_k(x,y) − G_k(x̃,ỹ)‖ ≤ R²R_1‖(x,y) − (x̃,ỹ)‖₂ for G3 = −c·diag(f), G4 = c·ffᵀ",
       lambda *a: _blockdiag(*_G4(*a)[2:]), lambda n, d, R: R ** 2 * OB.R1(n, R), notes=_PIECES)


def _lem12_3(A1, A2, A3, X, Y, B, j0, i0):
    x, _, R, (f, h, c) = _point(A1, A2, A3, X, Y, B, j0, i0)
    return worst_pair((linalg.norm2(h), R ** 2), (abs(c), 2 * R ** 2))


claims.inequality("attention_optimization.lem12.3", "‖h(y)_{i0}‖₂ ≤ R² and |c(x,y)_{j0,i0}| ≤ 2R²", hypotheses=H12,
                  instances=h12_instances, fields=H12_FIELDS, sides=_lem12_3)


@claims.check("attention_optimization.lem12.4", "‖h(y)_{i0} − h(ỹ)_{i0}‖₂ ≤ R‖y_{i0} − ỹ_{i0}‖₂",
              hypotheses=H12 + "; y, ỹ ∈ R^{d²} drawn near or far apart", instances=h8_pairs,
              fields=h8_fields(names=("y", "ỹ")),
              notes="Tight (ratio → 1 along the top right singular vector of A3 when ‖A3‖ = R).")
def _lem12_4(inst):
    A1, A2, A3, X, Y, B, j0, i0, y, yt = to_oracle(inst)
    d = A1.cols

    def sides():
        R = max(radius_of(A1, A2, A3, B, y, linalg.vec(X)), radius_of(A1, A2, A3, B, yt, linalg.vec(X)))
        gap = linalg.norm2(O.h_col(A3, y, i0) - O.h_col(A3, yt, i0))
        return gap, R * linalg.norm2(y[i0 * d:(i0 + 1) * d, 0] - yt[i0 * d:(i0 + 1) * d, 0])

    return le(sides)


def _lem12_8(bound):
    def sides(A1, A2, A3, X, Y, B, j0, i0):
        x, y, R, _ = _point(A1, A2, A3, X, Y, B, j0, i0)
        return linalg.spectral_norm(O.hessian_xy(A1, A2, A3, B, x, y)), bound(A1.rows, A1.cols, R)
    return sides


claims.inequality("attention_optimization.lem12.8", "‖H_xy(x,y)‖ ≤ nd·10R²", hypotheses=H12 + "; the search is run at n = 2",
                  expected="falsified", instances=lambda: h12_instances(n_lo=2, n_hi=2), fields=H12_FIELDS,
                  sides=_lem12_8(OB.lem12_8_paper),
                  notes="FAILS for R ≥ 5, as the spec records: on the family X = 0, A2 ∝ (1, −1), A3 = R·e₁, Y = R, "
                        "B = −R (n = 2, d = 1) ‖H_xy‖ = (√2/2)R²(R² + R), ratio (√2/40)(R² + R) = 1.061 at R = 5; the "
                        "search reaches it through the adversarial family of spec §5 with R drawn in [4, 10] (at "
                        "n = 2, where the family violates: at n = 3 it needs R > 10; the repair is judged for n ≤ 3).",
                  conventions=("loss_half", "norms", "constants"))
claims.inequality("attention_optimization.lem12.8", "‖H_xy(x,y)‖ ≤ n√d·R²(2R² + R)/2 (the spec's correct bound)", hypotheses=H12,
                  instances=h12_instances, fields=H12_FIELDS, sides=_lem12_8(OB.lem12_8_repair), repair=True,
                  notes="Uses ‖diag f − ffᵀ‖ ≤ ½ (tight) and |c| ≤ R² + R.")


def _lem12_10(bound):
    def sides(A1, A2, A3, X, Y, B, j0, i0):
        x, y, R, (f, h, c) = _point(A1, A2, A3, X, Y, B, j0, i0)
        return max(linalg.spectral_norm(G) for G in O.G_xy_four(f, h, c)), bound(R)
    return sides


claims.inequality("attention_optimization.lem12.10", "max_i ‖G_i(x,y)‖ ≤ R² for the four pieces of B_xy,paper", hypotheses=H12,
                  expected="falsified", instances=h12_instances, fields=H12_FIELDS, sides=_lem12_10(lambda R: R ** 2),
                  notes="FAILS for G3 = −c·diag(f) and G4 = c·ffᵀ, as the spec records: |c| reaches R² + R "
                        "(n = d = 1, A2 = A3 = [R], Y = [R], B = [−R]: 20 > 16 at R = 4).",
                  conventions=("loss_half", "constants"), provenance="R-partial",
                  source=("claims.tsv tags it R (the bound is printed in §3), but the G_i it bounds are restored: "
                          "§3: “we can decompose H_{x,y} into {G_i}_{i=1}^4 as described in Lemma 12.10 … max_{i∈[n]}‖G_i‖ "
                          "≤ R²”; Lemma 12.10's display is lost, and the G_i are taken as Def 11.3's four pieces (f∘h)fᵀ, "
                          "−⟨f,h⟩ffᵀ, −c·diag(f), c·ffᵀ, the four functions §12's introduction lists for its steps 1–4"))
claims.inequality("attention_optimization.lem12.10", "max_i ‖G_i(x,y)‖ ≤ R² + R (the spec's correct bound)", hypotheses=H12,
                  instances=h12_instances, fields=H12_FIELDS, sides=_lem12_10(lambda R: R ** 2 + R), repair=True)
