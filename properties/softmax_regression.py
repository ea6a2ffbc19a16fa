"""Claims of "Attention Scheme Inspired Softmax Regression" (Deng, Li, Song 2023; paper 001).

Spec: shared/spec/softmax_regression.md.  Each check is named after its claim id; the oracle judges
at 50+ digits from the exact float64 instance.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import linalg, to_mp

from .compare import eq, le, loewner
from .registry import claim
from .strategies import dims, vectors

PAPER = "softmax_regression"


# ---------------------------------------------------------------------------------------------
# §4 preliminaries: Facts 4.1–4.6

def _vec_triples():
    """u, v, w ∈ Rⁿ of one length n ≤ 8, entries up to 10 in magnitude (spec: scales 0.01–10)."""
    return dims(1, 8).flatmap(lambda n: st.tuples(vectors(n), vectors(n), vectors(n)))


def _vec_pairs(max_abs=10.0):
    return dims(1, 8).flatmap(lambda n: st.tuples(vectors(n, max_abs=max_abs), vectors(n, max_abs=max_abs)))


def _diag(u):
    return mp.diag([u[i] for i in range(u.rows)])


def _had(u, v):
    return mp.matrix([u[i] * v[i] for i in range(u.rows)])


def _ones(n):
    return mp.matrix([mp.mpf(1)] * n)


def _dot(u, v):
    return mp.fsum(u[i] * v[i] for i in range(u.rows))


def _stack(*vs):
    """Several vectors stacked into one (the identities below compare several equalities at once)."""
    return mp.matrix([x for v in vs for x in v])


@claim("softmax_regression.fact4.2.p1", statement="⟨u, v⟩ = ⟨u ∘ v, 1_n⟩", hypotheses="u, v ∈ Rⁿ",
       expected="verified", strategy=_vec_triples)
def fact4_2_p1(inst):
    """softmax_regression.fact4.2.p1."""
    u, v, _ = map(to_mp, inst)
    return eq(lambda: (_dot(u, v), _dot(_had(u, v), _ones(u.rows))))


@claim("softmax_regression.fact4.2.p2", statement="⟨u ∘ v, w⟩ = ⟨u ∘ v ∘ w, 1_n⟩", hypotheses="u, v, w ∈ Rⁿ",
       expected="verified", strategy=_vec_triples)
def fact4_2_p2(inst):
    """softmax_regression.fact4.2.p2."""
    u, v, w = map(to_mp, inst)
    return eq(lambda: (_dot(_had(u, v), w), _dot(_had(_had(u, v), w), _ones(u.rows))))


@claim("softmax_regression.fact4.2.p3", statement="u ∘ v = v ∘ u = diag(u) v = diag(v) u",
       hypotheses="u, v ∈ Rⁿ", expected="verified", strategy=_vec_triples)
def fact4_2_p3(inst):
    """softmax_regression.fact4.2.p3 (the three equalities stacked into one vector identity)."""
    u, v, _ = map(to_mp, inst)
    return eq(lambda: (_stack(_had(u, v), _had(u, v), _had(u, v)), _stack(_had(v, u), _diag(u) * v, _diag(v) * u)))


@claim("softmax_regression.fact4.2.p4", statement="uᵀ(v ∘ w) = vᵀ(u ∘ w) = wᵀ(u ∘ v)",
       hypotheses="u, v, w ∈ Rⁿ", expected="verified", strategy=_vec_triples)
def fact4_2_p4(inst):
    """softmax_regression.fact4.2.p4."""
    u, v, w = map(to_mp, inst)

    def sides():
        a = _dot(u, _had(v, w))
        return mp.matrix([a, a]), mp.matrix([_dot(v, _had(u, w)), _dot(w, _had(u, v))])

    return eq(sides)


@claim("softmax_regression.fact4.2.p5", statement="uᵀ diag(v) w = vᵀ diag(u) w = uᵀ diag(w) v",
       hypotheses="u, v, w ∈ Rⁿ", expected="verified", strategy=_vec_triples)
def fact4_2_p5(inst):
    """softmax_regression.fact4.2.p5."""
    u, v, w = map(to_mp, inst)

    def sides():
        a = (u.T * _diag(v) * w)[0]
        return mp.matrix([a, a]), mp.matrix([(v.T * _diag(u) * w)[0], (u.T * _diag(w) * v)[0]])

    return eq(sides)


@claim("softmax_regression.fact4.2.p6", statement="diag(u) diag(v) 1_n = diag(u) v",
       hypotheses="u, v ∈ Rⁿ", expected="verified", strategy=_vec_triples)
def fact4_2_p6(inst):
    """softmax_regression.fact4.2.p6."""
    u, v, _ = map(to_mp, inst)
    return eq(lambda: (_diag(u) * _diag(v) * _ones(u.rows), _diag(u) * v))


@claim("softmax_regression.fact4.3.p1", statement="⟨u, v⟩ ≤ ‖u‖₂‖v‖₂", hypotheses="u, v ∈ Rⁿ",
       expected="verified", strategy=_vec_pairs)
def fact4_3_p1(inst):
    """softmax_regression.fact4.3.p1 (Cauchy–Schwarz)."""
    u, v = map(to_mp, inst)
    return le(lambda: (_dot(u, v), linalg.norm2(u) * linalg.norm2(v)))


@claim("softmax_regression.fact4.3.p2", statement="‖u ∘ v‖₂ ≤ ‖u‖_∞‖v‖₂", hypotheses="u, v ∈ Rⁿ",
       expected="verified", strategy=_vec_pairs)
def fact4_3_p2(inst):
    """softmax_regression.fact4.3.p2."""
    u, v = map(to_mp, inst)
    return le(lambda: (linalg.norm2(_had(u, v)), mp.norm(u, mp.inf) * linalg.norm2(v)))


@claim("softmax_regression.fact4.3.p3", statement="‖u‖_∞ ≤ ‖u‖₂ ≤ √n‖u‖_∞", hypotheses="u ∈ Rⁿ",
       expected="verified", strategy=_vec_pairs)
def fact4_3_p3(inst):
    """softmax_regression.fact4.3.p3: both inequalities, judged as max of the two ratios."""
    u = to_mp(inst[0])
    return le(lambda: _worst_pair((mp.norm(u, mp.inf), linalg.norm2(u)),
                                  (linalg.norm2(u), mp.sqrt(u.rows) * mp.norm(u, mp.inf))))


@claim("softmax_regression.fact4.3.p4", statement="‖u‖₂ ≤ ‖u‖₁ ≤ √n‖u‖₂", hypotheses="u ∈ Rⁿ",
       expected="verified", strategy=_vec_pairs)
def fact4_3_p4(inst):
    """softmax_regression.fact4.3.p4."""
    u = to_mp(inst[0])
    return le(lambda: _worst_pair((linalg.norm2(u), mp.norm(u, 1)),
                                  (mp.norm(u, 1), mp.sqrt(u.rows) * linalg.norm2(u))))


@claim("softmax_regression.fact4.3.p5", statement="‖exp(u)‖_∞ ≤ exp(‖u‖_∞) ≤ exp(‖u‖₂)", hypotheses="u ∈ Rⁿ",
       expected="verified", strategy=_vec_pairs)
def fact4_3_p5(inst):
    """softmax_regression.fact4.3.p5."""
    u = to_mp(inst[0])
    return le(lambda: _worst_pair((max(mp.exp(x) for x in u), mp.exp(mp.norm(u, mp.inf))),
                                  (mp.exp(mp.norm(u, mp.inf)), mp.exp(linalg.norm2(u)))))


@claim("softmax_regression.fact4.3.p6", statement="‖αu‖₂ = |α|‖u‖₂", hypotheses="α ∈ R, u ∈ Rⁿ",
       expected="verified", strategy=lambda: st.tuples(vectors(dims(1, 8)), vectors(1)))
def fact4_3_p6(inst):
    """softmax_regression.fact4.3.p6."""
    u, a = to_mp(inst[0]), to_mp(inst[1])[0]
    return eq(lambda: (linalg.norm2(u * a), abs(a) * linalg.norm2(u)))


def _close_pairs():
    """u, v with ‖u − v‖_∞ ≤ 0.01 exactly (v = u + t, |t_i| ≤ 0.01 rounded towards u)."""

    def build(n):
        return st.tuples(vectors(n, max_abs=10.0), vectors(n, max_abs=0.01))

    def fix(pair):
        u, t = pair
        v = u + t
        # keep the hypothesis exact after rounding: shrink any |v − u| that rounded above 0.01
        bad = np.abs(v - u) > 0.01
        v[bad] = u[bad]
        return u, v

    return dims(1, 8).flatmap(build).map(fix)


@claim("softmax_regression.fact4.3.p7", statement="‖u − v‖_∞ ≤ 0.01 ⇒ ‖exp(u) − exp(v)‖₂ ≤ ‖exp(u)‖₂ · 2‖u − v‖_∞",
       hypotheses="u, v ∈ Rⁿ with ‖u − v‖_∞ ≤ 0.01", expected="verified", strategy=_close_pairs)
def fact4_3_p7(inst):
    """softmax_regression.fact4.3.p7."""
    u, v = map(to_mp, inst)

    def sides():
        eu = mp.matrix([mp.exp(x) for x in u])
        ev = mp.matrix([mp.exp(x) for x in v])
        return linalg.norm2(eu - ev), linalg.norm2(eu) * 2 * mp.norm(u - v, mp.inf)

    return le(sides)


def _worst_pair(*pairs):
    """Of several (measured, bound) pairs, the one with the largest measured − bound."""
    return max(pairs, key=lambda mb: mb[0] - mb[1])
