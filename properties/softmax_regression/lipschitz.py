"""§7 of paper 001 (and the Lipschitz statements of §5 and §8): Lipschitz bounds of exp(Ax), α, f,
c, the gradient (lem5.8, lem7.2) and the Hessian (lem7.1, lem7.3, derived.M22, lem8.10), and the
G-term bounds lem7.4–7.11.

β = min(α(x), α(y)) and R = max(‖A‖, ‖x‖₂, ‖y‖₂) (:func:`~properties.toolkit.radius`): the hardest
admissible values of the hypotheses.  Gradients and Hessians of L_exp by numerical differentiation
(∇²L_reg = AᵀW²A is constant and cancels from ∇²L(x) − ∇²L(y)).
"""

from __future__ import annotations

from mpmath import mp

from oracle import linalg
from oracle import softmax_regression as S
from oracle.linalg import exp_entrywise, norm2

from ..toolkit import ClaimSet, radius
from .common import grad_exp, on_simplex
from .strategies import lipschitz_instances, simplex_pair_objects, simplex_pairs

__all__ = ["claims"]

claims = ClaimSet("softmax_regression")

_PAIR = ("A", "b", "x", "y")
"""The fields of a :func:`~.strategies.lipschitz_instances` draw."""

_LIP_HYP = "‖A‖ ≤ R, ‖x‖₂ ≤ R, ‖y‖₂ ≤ R, α(x) ≥ β, α(y) ≥ β, b ≥ 0_n, ‖b‖₁ ≤ 1"


def _hessian_pairs():
    return lipschitz_instances(n_hi=5, d_hi=3)


def _Rf(A, x, y):
    """R_f = β⁻² n^{1.5} exp(3R²) (def.constants)."""
    return S.R_f(min(S.alpha(A, x), S.alpha(A, y)), A.rows, radius(A, x, y))


# -- Lemma 7.2 and Lemma 5.8: exp(Ax), α, f, c and the gradient -------------------------------------

claims.inequality("softmax_regression.lem7.2.part0", "‖exp(Ax)‖₂ ≤ √n exp(R²)", hypotheses=_LIP_HYP,
                  instances=lipschitz_instances, fields=_PAIR,
                  sides=lambda A, _b, x, y: (norm2(exp_entrywise(A * x)), mp.sqrt(A.rows) * mp.exp(radius(A, x, y) ** 2)))


def _c_part1(A, _b, x, y):
    R = radius(A, x, y)
    return 2 * mp.sqrt(A.rows) * R * mp.exp(R**2)


claims.lipschitz("softmax_regression.lem7.2.part1", "‖exp(Ax) − exp(Ay)‖₂ ≤ 2√n R exp(R²) ‖x − y‖₂",
                 hypotheses=_LIP_HYP, instances=lipschitz_instances, fields=_PAIR, value=lambda A, _b, z: exp_entrywise(A * z),
                 constant=_c_part1)

claims.inequality("softmax_regression.lem7.2.part2", "|α(x) − α(y)| ≤ √n ‖exp(Ax) − exp(Ay)‖₂",
                  hypotheses=_LIP_HYP, instances=lipschitz_instances, fields=_PAIR,
                  sides=lambda A, _b, x, y: (abs(S.alpha(A, x) - S.alpha(A, y)),
                                             mp.sqrt(A.rows) * norm2(exp_entrywise(A * x) - exp_entrywise(A * y))))


def _part3_sides(A, _b, x, y):
    ax, ay = S.alpha(A, x), S.alpha(A, y)
    return abs(1 / ax - 1 / ay), abs(ax - ay) / min(ax, ay) ** 2


claims.inequality("softmax_regression.lem7.2.part3", "|α(x)⁻¹ − α(y)⁻¹| ≤ β⁻² |α(x) − α(y)|",
                  hypotheses=_LIP_HYP, instances=lipschitz_instances, fields=_PAIR, sides=_part3_sides)

claims.lipschitz("softmax_regression.lem7.2.part4", "‖f(x) − f(y)‖₂ ≤ R_f ‖x − y‖₂, R_f = β⁻² n^{1.5} exp(3R²)",
                 hypotheses=_LIP_HYP, instances=lipschitz_instances, fields=_PAIR, value=lambda A, _b, z: S.f(A, z),
                 constant=lambda A, _b, x, y: _Rf(A, x, y))

claims.lipschitz("softmax_regression.lem7.2.part5", "‖c(x) − c(y)‖₂ ≤ R_f ‖x − y‖₂", hypotheses=_LIP_HYP,
                 instances=lipschitz_instances, fields=_PAIR, value=lambda A, b, z: S.c(A, b, z),
                 constant=lambda A, _b, x, y: _Rf(A, x, y))

claims.lipschitz("softmax_regression.lem7.2.part6", "‖g(x) − g(y)‖₂ ≤ 16 R R_f ‖x − y‖₂ (g = ∇L_exp)",
                 hypotheses=_LIP_HYP, instances=lipschitz_instances, fields=_PAIR, value=grad_exp,
                 constant=lambda A, _b, x, y: S.lem726_bound(radius(A, x, y), _Rf(A, x, y)))


def _c_lem5_8(A, b, x, y):
    """(3R_∞ + 2) R R_f with R_∞ = max(‖c(x)‖, ‖c(y)‖), the tightest admissible."""
    rinf = max(norm2(S.c(A, b, x)), norm2(S.c(A, b, y)))
    return S.lem58_bound(rinf, radius(A, x, y), _Rf(A, x, y))


claims.lipschitz("softmax_regression.lem5.8", "‖g(x) − g(y)‖₂ ≤ (3R_∞ + 2) R R_f ‖x − y‖₂ (reading; g = ∇L_exp)",
                 hypotheses=_LIP_HYP + "; ‖f(x) − f(y)‖, ‖c(x) − c(y)‖ ≤ R_f‖x − y‖; R_∞ ∈ (0, 2] with "
                                       "‖c(x)‖, ‖c(y)‖ ≤ R_∞",
                 instances=lipschitz_instances, fields=_PAIR, value=grad_exp, constant=_c_lem5_8,
                 notes="R_∞ = max(‖c(x)‖, ‖c(y)‖) (the tightest admissible; ≤ 2 always), β = min α.")

# -- Lemmas 7.4–7.11: the G-terms of B(x) − B(y) (def.G) -------------------------------------------

_SIMPLEX_HYP = "f_x, f_y on the probability simplex, b ≥ 0, ‖b‖₁ ≤ 1"


def _g_sides(k, factor):
    """(‖G_{k+1}‖, factor(‖b‖₂)·‖f_x − f_y‖) with f_x = p/Σp, f_y = q/Σq."""

    def sides(p, q, b):
        fx, fy = on_simplex(p), on_simplex(q)
        return linalg.spectral_norm(S.G_terms(fx, fy, b)[k]), factor(norm2(b)) * norm2(fx - fy)

    return sides


# Lemmas 7.4–7.11, one row per G-term: (claim id, definition of G_{k+1}, the claimed factor of ‖Δf‖ as
# written, the same factor as a function of ‖b‖₂).
_G_TERM_BOUNDS = (
    ("softmax_regression.lem7.4", "G_1 = ‖f_x‖²f_xf_xᵀ − ‖f_y‖²f_yf_yᵀ", "4", lambda nb: 4),
    ("softmax_regression.lem7.5", "G_2 = ⟨f_x,b⟩f_xf_xᵀ − ⟨f_y,b⟩f_yf_yᵀ", "3‖b‖₂", lambda nb: 3 * nb),
    ("softmax_regression.lem7.6", "G_3 = ⟨f_x,f_x⟩diag(f_x) − ⟨f_y,f_y⟩diag(f_y)", "3", lambda nb: 3),
    ("softmax_regression.lem7.7", "G_4 = ⟨f_x,b⟩diag(f_x) − ⟨f_y,b⟩diag(f_y)", "2‖b‖₂", lambda nb: 2 * nb),
    ("softmax_regression.lem7.8", "G_5 = diag(f_x∘(f_x − b)) − diag(f_y∘(f_y − b))", "(2 + ‖b‖₂)", lambda nb: 2 + nb),
    ("softmax_regression.lem7.9", "G_6 = diag(f_x∘f_x) − diag(f_y∘f_y)", "2", lambda nb: 2),
    ("softmax_regression.lem7.10", "G_7 = f_x(f_x∘b)ᵀ − f_y(f_y∘b)ᵀ", "2‖b‖₂", lambda nb: 2 * nb),
    ("softmax_regression.lem7.11", "G_8 = (f_x∘b)f_xᵀ − (f_y∘b)f_yᵀ", "2‖b‖₂", lambda nb: 2 * nb),
)

for _k, (_claim_id, _definition, _bound, _factor) in enumerate(_G_TERM_BOUNDS):
    claims.inequality(_claim_id,
                      f"{_definition}; ‖G_{_k + 1}‖ ≤ {_bound}‖Δf‖ (Δf = f(x) − f(y))",
                      hypotheses=_SIMPLEX_HYP, instances=simplex_pairs, sides=_g_sides(_k, _factor),
                      fields=("p", "q", "b"), to_statement=simplex_pair_objects)

# -- Lemmas 7.1, 7.3, 8.9, 8.10 and derived.M22: the Hessian ---------------------------------------


def _lem7_3_sides(A, b, x, y):
    G = S.G_terms(S.f(A, x), S.f(A, y), b)
    total = mp.fsum(abs(S.G_COEFFS[k]) * linalg.spectral_norm(G[k]) for k in range(8))
    return linalg.norm(S.true_hessian_exp(A, b, x) - S.true_hessian_exp(A, b, y)), radius(A, x, y) ** 2 * total


claims.inequality(
    "softmax_regression.lem7.3",
    "‖∇²L(x) − ∇²L(y)‖ ≤ R² Σ_{k=1}^{8} |coef_k| ‖G_k‖, all ‖G_k‖ = O(‖f(x) − f(y)‖)",
    hypotheses=_LIP_HYP, instances=_hessian_pairs, fields=_PAIR, sides=_lem7_3_sides, max_examples=20,
    notes="coef = (3, 2, 1, 1, 1, 1, 1, 1) from the true decomposition B(x) − B(y) = 3G_1 − 2G_2 − G_3 + "
          "G_4 + … + G_8 − 2G_9 − 2G_10 (def.G). The paper's 8-term decomposition is incomplete "
          "(G_9, G_10 missing; lem5.15.paperB), yet the bound with the measured ‖G_1‖ … ‖G_8‖ still "
          "holds on every instance searched (float64 exploration of 2·10⁵ simplex pairs: worst 0.49); "
          "with all 10 terms it is the triangle inequality. Left side from numerical Hessians.",
    conventions=('constants',))

claims.lipschitz("softmax_regression.lem7.1", "‖∇²L(x) − ∇²L(y)‖ ≤ β⁻² n^{1.5} exp(20R²) ‖x − y‖₂",
                 hypotheses=_LIP_HYP, instances=_hessian_pairs, fields=_PAIR, value=S.true_hessian_exp,
                 constant=lambda A, _b, x, y: S.M_lem71(min(S.alpha(A, x), S.alpha(A, y)), A.rows, radius(A, x, y)),
                 max_examples=20,
                 notes="β = min(α(x), α(y)), R = max(‖A‖, ‖x‖, ‖y‖). Holds but its proof is incomplete "
                       "(missing G_9, G_10, see lem5.15.paperB).")

claims.lipschitz("softmax_regression.derived.M22", "‖∇²L(x) − ∇²L(y)‖ ≤ 22 R³ ‖x − y‖₂ for all x, y",
                 hypotheses="‖A‖ ≤ R (R = ‖A‖ here), b ≥ 0, ‖b‖₁ ≤ 1; x, y arbitrary",
                 instances=lambda: lipschitz_instances(n_hi=5, d_hi=3, r_hi=1.0), fields=_PAIR, value=S.true_hessian_exp,
                 constant=lambda A, _b, _x, _y: S.M22(linalg.spectral_norm(A)), max_examples=20)

claims.inequality("softmax_regression.lem8.9", "α(x) ≥ β with β = exp(−R²)", hypotheses="‖A‖ ≤ R, ‖x‖₂ ≤ R",
                  instances=lipschitz_instances, fields=_PAIR,
                  sides=lambda A, _b, x, _y: (S.beta_paper(radius(A, x)), S.alpha(A, x)),
                  notes="ratio = e^{−R²}/α(x) ≤ 1/n; tight only for n = 1.")

claims.lipschitz("softmax_regression.lem8.10", "M ≤ n^{1.5} exp(22R²) (reading: lem7.1 with β⁻² ≤ e^{2R²})",
                 hypotheses=_LIP_HYP, instances=_hessian_pairs, fields=_PAIR, value=S.true_hessian_exp,
                 constant=lambda A, _b, x, y: S.M_lem810(A.rows, radius(A, x, y)), max_examples=20,
                 notes="Judged as ‖∇²L(x) − ∇²L(y)‖ ≤ n^{1.5}e^{22R²}‖x − y‖ (the exponent constant is a reading).")
