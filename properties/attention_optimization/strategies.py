"""Strategies of instances for the claims of paper 003 (spec ``attention_optimization.md`` §5).

Cheap float64 draws only; everything derived (norm scalings that make a hypothesis hold exactly,
PSD products) is formed by the checks in mpmath from the drawn factors.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..toolkit.strategies import dims, elements, matrices, vectors

__all__ = ["attention_instances", "loewner_pairs", "vec_pairs_mixed", "vecs"]


def vecs(k, max_n=8, max_abs=10.0):
    """k vectors of one length n ≤ max_n (entries up to max_abs; zeros are frequent after shrinking)."""
    return dims(1, max_n).flatmap(lambda n: st.tuples(*[vectors(n, max_abs=max_abs) for _ in range(k)]))


def _sparse_vectors(n, max_abs=10.0):
    """Vectors with many exact zeros (axis-aligned and one-sign vectors make the Loewner facts tight)."""
    return hnp.arrays(np.float64, (n,), elements=st.one_of(st.just(0.0), elements(max_abs=max_abs)))


def vec_pairs_mixed(max_n=6):
    """u, v ∈ Rⁿ, dense or sparse (n ≤ max_n)."""
    return dims(1, max_n).flatmap(
        lambda n: st.tuples(st.one_of(vectors(n), _sparse_vectors(n)), st.one_of(vectors(n), _sparse_vectors(n))))


def loewner_pairs():
    """u, v ∈ Rⁿ for the Loewner facts (n ≤ 4: each check takes eigen- and singular values at 50–400
    digits, and Hypothesis shrinks a counterexample through hundreds of calls)."""
    return vec_pairs_mixed(max_n=4)


def attention_instances(d_lo=1, d_hi=2, n_hi=3, B_square=False):
    """(A1, A2, A3, X, Y, B, j0, i0, i, l, i2): A1, A2, A3 ∈ R^{n×d}, X, Y ∈ R^{d×d}, B ∈ R^{n×d}
    (R^{n×n} if ``B_square``), indices j0 ∈ [n], i0 ∈ [d], i, l ∈ [d²], i2 ∈ [d] (entries ≤ 2 in
    magnitude, so exp stays moderate; n ≤ 3, d ≤ 2 keep d² ≤ 4 variables for numerical derivatives)."""
    def build(nd):
        n, d = nd
        m = lambda r, c: matrices(r, c, max_abs=2.0)
        return st.tuples(m(n, d), m(n, d), m(n, d), m(d, d), m(d, d), m(n, n if B_square else d),
                         st.integers(0, n - 1), st.integers(0, d - 1), st.integers(0, d * d - 1),
                         st.integers(0, d * d - 1), st.integers(0, d - 1))
    return st.tuples(dims(1, n_hi), dims(d_lo, d_hi)).flatmap(build)
