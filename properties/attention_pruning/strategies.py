"""Hypothesis strategies of paper 000 (attention-weight pruning): cheap float64 draws only; the checks
form derived objects (f̃, c, p, …) in mpmath (DESIGN: draw cheap data in strategies).

Shapes follow spec §1: X ∈ R^{n×d}, W, M ∈ R^{d×d}, the causal flag selects M_c (Def 3.1) or 1_{n×n}.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..toolkit.strategies import dims, elements, matrices, scalars, vectors

__all__ = [
    "INSTANCE_FIELDS",
    "PAIR_FIELDS",
    "any_matrices",
    "pruning_instances",
    "pruning_pairs",
    "same_shape_pairs",
    "sparse_matrices",
    "unit_matrices",
    "vecs",
]


def vecs(k: int, max_n: int = 6):
    """k vectors u, v, w, … of one length n ≤ max_n (spec §5.1: sizes 1–6)."""
    return dims(1, max_n).flatmap(lambda n: st.tuples(*[vectors(st.just(n)) for _ in range(k)]))


def sparse_matrices(r: int, c: int):
    """r×c matrices with many exact zeros (aligned supports make the norm inequalities tight)."""
    return hnp.arrays(np.float64, (r, c), elements=st.one_of(st.just(0.0), elements()))


def any_matrices(r: int, c: int):
    return st.one_of(matrices(st.just(r), st.just(c)), sparse_matrices(r, c))


def same_shape_pairs(max_dim: int = 5):
    return st.tuples(dims(1, max_dim), dims(1, max_dim)).flatmap(
        lambda rc: st.tuples(any_matrices(*rc), any_matrices(*rc)))


def _snap(lo: float, hi: float):
    """Floats in [lo, hi], |v| < 1e-6 snapped to 0: a numerical derivative at a coordinate of 1e-308
    is taken with a step relative to it (mpmath.diff), which is not what the claims are about."""
    return scalars(lo, hi).map(lambda v: 0.0 if abs(v) < 1e-6 else v)


def unit_matrices(r: int, c: int):
    """Entries in [0, 1] (the theory's mask domain), with the endpoints 0 and 1 drawn often."""
    return hnp.arrays(np.float64, (r, c), elements=st.one_of(st.just(0.0), st.just(1.0), _snap(0.0, 1.0)))


INSTANCE_FIELDS = ("X", "W", "M", "λ", "causal")
"""The names of a :func:`pruning_instances` instance's elements (counterexamples and certificates name them)."""

PAIR_FIELDS = ("X", "W", "λ", "causal", "M", "M'")
"""The names of a :func:`pruning_pairs` instance's elements."""


@st.composite
def pruning_instances(draw, *, max_n: int = 4, max_d: int = 3, mask: str = "unit", lam_max: float = 3.0):
    """(X, W, M, λ, causal) for the loss of Def 3.2.

    ``mask``: "unit" draws M ∈ [0,1]^{d×d} (Appendices D–F), "any" M ∈ [−0.5, 1.5]^{d×d} (Appendix B:
    unrestricted M).  X and W are scaled by 10**s, s ∈ [−1, 0.5] (small and large logits).
    """
    n = draw(dims(1, max_n), label="n")
    d = draw(dims(1, max_d), label="d")
    sx = 10.0 ** draw(scalars(-1.0, 0.5), label="log10 scale X")
    sw = 10.0 ** draw(scalars(-1.0, 0.5), label="log10 scale W")
    X = draw(hnp.arrays(np.float64, (n, d), elements=_snap(-1.0, 1.0)), label="X") * sx
    W = draw(hnp.arrays(np.float64, (d, d), elements=_snap(-1.0, 1.0)), label="W") * sw
    if mask == "unit":
        M = draw(unit_matrices(d, d), label="M")
    else:
        M = draw(hnp.arrays(np.float64, (d, d), elements=_snap(-0.5, 1.5)), label="M")
    lam = draw(st.one_of(st.just(0.0), _snap(0.0, lam_max)), label="lambda")
    causal = draw(st.booleans(), label="causal")
    return X, W, M, lam, causal


@st.composite
def pruning_pairs(draw, *, max_n: int = 4, max_d: int = 3, lam_max: float = 3.0):
    """(X, W, λ, causal, M, M') with M, M' ∈ [0,1]^{d×d}: M' independent, or M plus a perturbation
    of size down to 1e-6 (clipped to the box), where Lipschitz constants are tightest."""
    X, W, M, lam, causal = draw(pruning_instances(max_n=max_n, max_d=max_d, lam_max=lam_max))
    d = W.shape[0]
    if draw(st.booleans(), label="near pair"):
        h = draw(hnp.arrays(np.float64, (d, d), elements=scalars(-1.0, 1.0)), label="direction")
        k = draw(scalars(1.0, 6.0), label="-log10 distance")
        M2 = np.clip(M + h * 10.0**-k, 0.0, 1.0)
    else:
        M2 = draw(unit_matrices(d, d), label="M'")
    return X, W, lam, causal, M, M2
