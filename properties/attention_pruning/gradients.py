"""Appendix B (gradient lemmas B.8–B.15), Appendix C (matrix form C.2–C.4) and Theorem 5.3 (the
closed-form gradient) of paper 000, spec §5.2–5.3.

Every left-hand side is a derivation-independent derivative: the 50-digit numerical Jacobian
(:mod:`oracle.derivatives`) of the object as a function of vec M, never a formula of the paper.
The loss is Def 3.2 with the causal mask or Def 1.2 without (the instance's flag); M is unrestricted.
"""

from __future__ import annotations

from mpmath import mp

from oracle import attention_pruning as O
from oracle import derivatives, linalg

from ..toolkit import ClaimSet
from .strategies import INSTANCE_FIELDS, pruning_instances

__all__ = ["B1", "B2", "claims", "jacobian_in_M", "mask_of", "numerical_gradient"]

claims = ClaimSet("attention_pruning")

HYP = "X ∈ R^{n×d}, W, M ∈ R^{d×d} (M unrestricted), λ ≥ 0, M_c causal (Def 3.1) or 1_{n×n}"


def _small():
    return pruning_instances(max_n=3, max_d=2, mask="any")


def mask_of(X, causal):
    return O.causal_mask(X.rows) if causal else None


def jacobian_in_M(F, M):
    """J[r, a·d + b] = ∂ vec(F(M))_r / ∂M_ab (numerical, derivation-independent)."""
    d = M.rows
    return derivatives.jacobian(lambda m: linalg.vec(F(linalg.unvec(m, d, d))), linalg.vec(M))


def _dS(X, W, i0, j0, i1, j1):
    """The lemma's ∂S_{i0,j0}/∂M_{i1,j1} = W_{i1,j1} X_{i0,i1} X_{j0,j1} (Lemma B.8)."""
    return W[i1, j1] * X[i0, i1] * X[j0, j1]


def _formula_jacobian(n, d, entry):
    """The n²×d² matrix [entry(i0, j0, i1, j1)] laid out like :func:`jacobian_in_M`."""
    return mp.matrix([[entry(i0, j0, i1, j1) for i1 in range(d) for j1 in range(d)]
                      for i0 in range(n) for j0 in range(n)])


def _lemB8(X, W, M, lam, causal):
    n, d = X.rows, X.cols
    return (jacobian_in_M(lambda m: O.scores_S(X, W, m), M),
            _formula_jacobian(n, d, lambda i0, j0, i1, j1: _dS(X, W, i0, j0, i1, j1)))


def _u(X, W, m, Mc):
    S = O.scores_S(X, W, m)
    return mp.matrix([[mp.exp(S[i, j]) * (1 if Mc is None else Mc[i, j]) for j in range(S.cols)]
                      for i in range(S.rows)])


def _lemB9(X, W, M, lam, causal):
    n, d, Mc = X.rows, X.cols, mask_of(X, causal)
    u = _u(X, W, M, Mc)
    return (jacobian_in_M(lambda m: _u(X, W, m, Mc), M),
            _formula_jacobian(n, d, lambda i0, j0, i1, j1: u[i0, j0] * _dS(X, W, i0, j0, i1, j1)))


def _lemB10(X, W, M, lam, causal):
    n, d, Mc = X.rows, X.cols, mask_of(X, causal)
    u = _u(X, W, M, Mc)

    def alpha(m):
        um = _u(X, W, m, Mc)
        return mp.matrix([mp.fsum(um[i, j] for j in range(n)) for i in range(n)])

    J = jacobian_in_M(alpha, M)
    F = mp.matrix([[mp.fsum(u[i0, j] * _dS(X, W, i0, j, i1, j1) for j in range(n)) for i1 in range(d) for j1 in range(d)]
                   for i0 in range(n)])
    return J, F


def _df(X, W, ft, i0, j0, i1, j1):
    """Lemma B.11's ∂f̃_{i0,j0}/∂M_{i1,j1} = f̃_{i0j0}W_{i1j1}X_{i0i1}X_{j0j1} − f̃_{i0j0}⟨f̃_{i0}, W_{i1j1}X_{i0i1}X_{*,j1}⟩."""
    n = X.rows
    return ft[i0, j0] * _dS(X, W, i0, j0, i1, j1) - ft[i0, j0] * mp.fsum(
        ft[i0, j] * _dS(X, W, i0, j, i1, j1) for j in range(n))


def _lemB11(X, W, M, lam, causal):
    n, d, Mc = X.rows, X.cols, mask_of(X, causal)
    ft = O.f_tilde(X, W, M, Mc)
    return (jacobian_in_M(lambda m: O.f_tilde(X, W, m, Mc), M),
            _formula_jacobian(n, d, lambda *ix: _df(X, W, ft, *ix)))


def _lemB12(X, W, M, lam, causal):
    Mc = mask_of(X, causal)
    return (jacobian_in_M(lambda m: O.unit_c(X, W, m, Mc), M), jacobian_in_M(lambda m: O.f_tilde(X, W, m, Mc), M))


def B1(X, W, ft, c, i0, j0, i1, j1):
    """B1(M) = c_{i0,j0} f̃_{i0,j0} W_{i1,j1} X_{i0,i1} X_{j0,j1} (spec def.B)."""
    return c[i0, j0] * ft[i0, j0] * _dS(X, W, i0, j0, i1, j1)


def B2(X, W, ft, c, i0, j0, i1, j1):
    """B2(M) = −c_{i0,j0} f̃_{i0,j0} ⟨f̃_{i0}, W_{i1,j1} X_{i0,i1} X_{*,j1}⟩ (spec def.B)."""
    return -c[i0, j0] * ft[i0, j0] * mp.fsum(ft[i0, j] * _dS(X, W, i0, j, i1, j1) for j in range(X.rows))


def _sum_B(X, W, M, Mc, parts):
    n, d = X.rows, X.cols
    ft = O.f_tilde(X, W, M, Mc)
    c = ft - O.attention(X, W, Mc)
    return mp.matrix([[mp.fsum(part(X, W, ft, c, i0, j0, i1, j1) for part in parts for i0 in range(n) for j0 in range(n))
                       for j1 in range(d)] for i1 in range(d)])


def numerical_gradient(X, W, M, lam, Mc, *, rec=True, reg=True):
    """∇ of L_rec (``rec``) + L_reg (``reg``) at M by 50-digit numerical differentiation in vec M."""

    def f(m):
        Mm = linalg.unvec(m, M.rows, M.cols)
        out = O.loss(X, W, Mm, 0, Mc) if rec else mp.mpf(0)
        return out + (mp.mpf(lam) / 2 * mp.fsum(v * v for v in Mm) if reg else 0)

    return linalg.unvec(derivatives.gradient(f, linalg.vec(M)), M.rows, M.cols)


def _lemB13(X, W, M, lam, causal):
    Mc = mask_of(X, causal)
    return numerical_gradient(X, W, M, lam, Mc, reg=False), _sum_B(X, W, M, Mc, (B1, B2))


def _lemB14(X, W, M, lam, causal):
    return numerical_gradient(X, W, M, lam, None, rec=False), M * lam


def _lemB15(X, W, M, lam, causal):
    Mc = mask_of(X, causal)
    return numerical_gradient(X, W, M, lam, Mc), _sum_B(X, W, M, Mc, (B1, B2)) + M * lam


_CASES = [
    ("attention_pruning.lemB8", "∂S(M)_{i0,*}/∂M_{i1,j1} = W_{i1,j1}X_{i0,i1}X_{*,j1} ∈ Rⁿ", _lemB8),
    ("attention_pruning.lemB9", "∂ũ(M)_{i0}/∂M_{i1,j1} = ũ(M)_{i0} ∘ (W_{i1,j1}X_{i0,i1}X_{*,j1})", _lemB9),
    ("attention_pruning.lemB10", "∂α̃(M)_{i0}/∂M_{i1,j1} = ⟨ũ(M)_{i0}, W_{i1,j1}X_{i0,i1}X_{*,j1}⟩", _lemB10),
    ("attention_pruning.lemB11", "∂f̃(M)_{i0,j0}/∂M_{i1,j1} = f̃_{i0,j0}W_{i1,j1}X_{i0,i1}X_{j0,j1} − "
     "f̃_{i0,j0}⟨f̃_{i0}, W_{i1,j1}X_{i0,i1}X_{*,j1}⟩", _lemB11),
    ("attention_pruning.lemB12", "∂c(M)_{i0,j0}/∂M_{i1,j1} = ∂f̃(M)_{i0,j0}/∂M_{i1,j1}", _lemB12),
    ("attention_pruning.lemB13", "∂L_rec/∂M_{i1,j1} = Σ_{i0,j0∈[n]}(B1(M) + B2(M))", _lemB13),
    ("attention_pruning.lemB14", "∂L_reg/∂M_{i1,j1} = λM_{i1,j1}", _lemB14),
    ("attention_pruning.lemB15", "∂L/∂M_{i1,j1} = Σ_{i0,j0}(B1 + B2) + B3, B3 = λM_{i1,j1}", _lemB15),
]

for _id, _statement, _sides in _CASES:
    claims.identity(_id, _statement, hypotheses=HYP, instances=_small, fields=INSTANCE_FIELDS, sides=_sides, max_examples=8,
                    notes="left side: 50-digit numerical derivative in M (oracle.derivatives); all (i0, j0, i1, j1) "
                          "entries stacked")


# -- Appendix C: matrix form ----------------------------------------------------------------------

def _lemC2(X, W, M, lam, causal):
    n, d, Mc = X.rows, X.cols, mask_of(X, causal)
    ft = O.f_tilde(X, W, M, Mc)
    c = ft - O.attention(X, W, Mc)
    blocks_formula, blocks_B = [], []
    for i0 in range(n):
        for j0 in range(n):
            blocks_formula.append(linalg.entrywise(W, X[i0, :].T * X[j0, :]) * (c[i0, j0] * ft[i0, j0]))
            blocks_B.append(mp.matrix([[B1(X, W, ft, c, i0, j0, i1, j1) for j1 in range(d)] for i1 in range(d)]))
    p1 = O.p_parts(X, W, M, Mc)[0]
    return (linalg.stack(*blocks_B, _sum_B(X, W, M, Mc, (B1,))),
            linalg.stack(*blocks_formula, linalg.entrywise(W, X.T * p1 * X)))


def _lemC3(X, W, M, lam, causal):
    Mc = mask_of(X, causal)
    p2 = O.p_parts(X, W, M, Mc)[1]
    return _sum_B(X, W, M, Mc, (B2,)), -linalg.entrywise(W, X.T * p2 * X)


claims.identity("attention_pruning.lemC2", "C1^{(i0,j0)} = c_{i0,j0}f̃_{i0,j0}·W∘(x_{i0}x_{j0}ᵀ), and C1(M) = "
                "Σ_{i0,j0}C1^{(i0,j0)} = W∘(Xᵀp1(M)X)", hypotheses=HYP,
                instances=lambda: pruning_instances(max_n=4, max_d=3, mask="any"), fields=INSTANCE_FIELDS, sides=_lemC2,
                notes="each block entrywise against B1 (spec def.B), and the sum against the matrix form",
                provenance="D",
                source=("spec §5.3 lemC2: Lemma C.2's display is lost (its proof's “Part 2. We further compute the summation of "
                        "C_1(M)” survives); the form is the one Theorem C.5's proof combines"))
claims.identity("attention_pruning.lemC3", "C2(M) = Σ C2^{(i0,j0)} = −W∘(Xᵀp2(M)X)", hypotheses=HYP,
                instances=lambda: pruning_instances(max_n=4, max_d=3, mask="any"), fields=INSTANCE_FIELDS, sides=_lemC3,
                provenance="D",
                source="spec §5.3 lemC3: Lemma C.3's display is lost (“Part 2. We further compute the summation of C_2”)")
claims.identity("attention_pruning.lemC4", "C3(M) = [B3]_{i1,j1} = λM", hypotheses=HYP,
                instances=_small, fields=INSTANCE_FIELDS, sides=_lemB14, max_examples=8,
                notes="C3 as the matrix of numerical partial derivatives of L_reg = (λ/2)‖M‖_F²",
                provenance="D",
                source="spec §5.3 lemC4: Lemma C.4's display is lost; C_3(M) = λM is the derivative of L_reg = (λ/2)‖M‖_F²")
claims.identity("attention_pruning.thm5.3", "∇_M L(M) = W∘(Xᵀp(M)X) + λM, p as in Def C.1", hypotheses=HYP + "; none else",
                instances=_small, fields=INSTANCE_FIELDS,
                sides=lambda X, W, M, lam, causal: (numerical_gradient(X, W, M, lam, mask_of(X, causal)),
                                                    O.gradient_closed_form(X, W, M, lam, mask_of(X, causal))),
                max_examples=10, notes="left: 50-digit numerical gradient of the loss; right: the paper's closed form",
                provenance="D",
                source=("spec §5.3 thm5.3: Theorem 5.3 = C.5's display is lost (the text names “the closed form of the "
                        "gradient”); its proof combines Lemmas B.15, C.2–C.4 and Definition C.1"))
