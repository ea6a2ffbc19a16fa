"""Facts two papers state alike, each declared once: the vector facts of the entrywise product and the
Loewner facts of outer products that paper 001 (softmax_regression §4, Facts 4.2–4.5) and paper 003
(attention_optimization §4.1, Facts 4.1–4.4) both state.

Each function declares one fact on a paper's :class:`~properties.toolkit.ClaimSet`: its kind, its
hypotheses, its sides (written here, once) and its notes.  The paper passes what is its own: the
claim id, written in full (``"softmax_regression.fact4.5.p1"``), the statement in its own words, and
its strategy (the two papers draw differently, and a ledger entry is the record of those draws).  The
sides take the drawn vectors first and ignore any further ones, so a paper may draw more than a fact
reads (paper 001 draws triples for its Fact 4.2).
"""

from __future__ import annotations

from mpmath import mp

from oracle.linalg import diag, dot, entrywise, norm2, norm_inf, ones, stack

from .judge import worst_pair

__all__ = [
    "diag_product",
    "diag_square_below_norm",
    "entrywise_commutes",
    "entrywise_norm",
    "inf_and_two_norms",
    "outer_below_norm",
    "scaled_outer_below",
    "symmetric_outer_above",
    "symmetric_outer_below",
]


def entrywise_commutes(claims, claim_id: str, statement: str, *, instances, **options):
    """u ∘ v = v ∘ u = diag(u)v = diag(v)u (001 fact4.2.p3, 003 fact4.1.p4)."""
    return claims.identity(claim_id, statement, hypotheses="u, v ∈ Rⁿ", instances=instances, **options,
                           sides=lambda u, v, *_: (stack(*[entrywise(u, v)] * 3),
                                                   stack(entrywise(v, u), diag(u) * v, diag(v) * u)))


def diag_product(claims, claim_id: str, statement: str, *, instances, **options):
    """diag(u) diag(v) 1_n = diag(u) v (001 fact4.2.p6, 003 fact4.1.p6)."""
    return claims.identity(claim_id, statement, hypotheses="u, v ∈ Rⁿ", instances=instances, **options,
                           sides=lambda u, v, *_: (diag(u) * diag(v) * ones(u.rows), diag(u) * v))


def entrywise_norm(claims, claim_id: str, statement: str, *, instances, **options):
    """‖u ∘ v‖₂ ≤ ‖u‖_∞‖v‖₂ (001 fact4.3.p2, 003 fact4.2.p1)."""
    return claims.inequality(claim_id, statement, hypotheses="u, v ∈ Rⁿ", instances=instances, **options,
                             sides=lambda u, v, *_: (norm2(entrywise(u, v)), norm_inf(u) * norm2(v)))


def inf_and_two_norms(claims, claim_id: str, statement: str, *, instances, **options):
    """‖u‖_∞ ≤ ‖u‖₂ ≤ √n‖u‖_∞ (001 fact4.3.p3, 003 fact4.2.p2)."""
    return claims.inequality(claim_id, statement,
                             hypotheses="u ∈ Rⁿ (both inequalities; the worse of the two is judged)",
                             instances=instances, **options,
                             sides=lambda u, *_: worst_pair((norm_inf(u), norm2(u)),
                                                            (norm2(u), mp.sqrt(u.rows) * norm_inf(u))))


def outer_below_norm(claims, claim_id: str, statement: str, *, instances, **options):
    """uuᵀ ⪯ ‖u‖₂² I_n (001 fact4.5.p1, 003 fact4.4.p1)."""
    return claims.loewner(claim_id, statement, hypotheses="u ∈ Rⁿ", instances=instances, **options,
                          sides=lambda u, *_: (u * u.T, mp.eye(u.rows) * dot(u, u)))


def diag_square_below_norm(claims, claim_id: str, statement: str, *, instances, **options):
    """diag(u ∘ u) ⪯ ‖u‖₂² I_n (001 fact4.5.p2, 003 fact4.4.p3)."""
    return claims.loewner(claim_id, statement, hypotheses="u ∈ Rⁿ", instances=instances, **options,
                          sides=lambda u, *_: (diag(entrywise(u, u)), mp.eye(u.rows) * dot(u, u)))


def symmetric_outer_below(claims, claim_id: str, statement: str, *, instances, **options):
    """uvᵀ + vuᵀ ⪯ uuᵀ + vvᵀ (001 fact4.5.p3, 003 fact4.4.p4)."""
    return claims.loewner(claim_id, statement, hypotheses="u, v ∈ Rⁿ", instances=instances, **options,
                          sides=lambda u, v, *_: (u * v.T + v * u.T, u * u.T + v * v.T))


def symmetric_outer_above(claims, claim_id: str, statement: str, *, instances, **options):
    """uvᵀ + vuᵀ ⪰ −(uuᵀ + vvᵀ) (001 fact4.5.p4, 003 fact4.4.p5)."""
    return claims.loewner(claim_id, statement, hypotheses="u, v ∈ Rⁿ (judged as −(uuᵀ + vvᵀ) ⪯ uvᵀ + vuᵀ)",
                          instances=instances, **options, sides=lambda u, v, *_: (-(u * u.T + v * v.T), u * v.T + v * u.T))


def scaled_outer_below(claims, claim_id: str, statement: str, repaired: str, *, instances, **options):
    """(v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞² uuᵀ, false as stated, and its correct version (v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞²‖u‖₂² I_n
    (001 fact4.5.p5, 003 fact4.4.p6): the claim and its repair, declared with the one id."""
    outer = lambda u, v: entrywise(v, u) * entrywise(v, u).T  # noqa: E731
    claims.loewner(claim_id, statement, hypotheses="u, v ∈ Rⁿ", expected="falsified", instances=instances, **options,
                   sides=lambda u, v, *_: (outer(u, v), u * u.T * norm_inf(v) ** 2),
                   notes="FAILS as the spec says (u = (1, 1), v = (1, 0) or (1, −1)): the right side has rank one "
                         "along u, the left along v∘u, so any v not constant on the support of u breaks it.  The "
                         "correct version (v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞²‖u‖₂² I holds.")
    return claims.loewner(claim_id, repaired, hypotheses="u, v ∈ Rⁿ", instances=instances, **options, repair=True,
                          sides=lambda u, v, *_: (outer(u, v), mp.eye(u.rows) * (norm_inf(v) ** 2 * dot(u, u))),
                          notes="The spec's correct version: (v∘u)(v∘u)ᵀ ⪯ ‖v∘u‖₂² I (uuᵀ ⪯ ‖u‖₂² I) and "
                                "‖v∘u‖₂ ≤ ‖v‖_∞‖u‖₂; tight at u = v = e_1.")
