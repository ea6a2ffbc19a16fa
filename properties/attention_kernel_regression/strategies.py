"""Instances of paper 004's claims: Hypothesis strategies (small float64 data; anything derived is
formed exactly by the check) and the seeded instance builders of the statistical claims."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from ..toolkit.strategies import conditioned_matrices, dims, matrices, scalars, vectors

__all__ = [
    "N_ALG",
    "alg_instances",
    "chain_instances",
    "points",
    "rank_deficient",
    "reg_instance",
    "reg_matrix",
    "se_instance",
    "se_rows",
    "tall",
    "wide",
]


def tall(n_lo=1, n_hi=6, d_hi=4, cond=8.0):
    """Full-column-rank n×d matrices, n ∈ [n_lo, n_hi], d ≤ min(n, d_hi), κ up to 10**cond."""
    return dims(n_lo, n_hi).flatmap(
        lambda n: dims(1, min(n, d_hi)).flatmap(lambda d: conditioned_matrices(st.just(n), st.just(d),
                                                                                max_log10_cond=cond)))


def rank_deficient():
    """Exactly rank-deficient tall matrices: a duplicated (scaled by 2) or zero column."""
    def build(A_and_mode):
        A, mode = A_and_mode
        A = A.copy()
        if A.shape[1] >= 2:
            A[:, -1] = 2.0 * A[:, 0] if mode else 0.0
        else:
            A[:, 0] = 0.0
        return A
    return st.tuples(matrices(dims(2, 5), dims(1, 3), max_abs=10.0), st.booleans()).map(build).filter(
        lambda A: A.shape[0] >= A.shape[1])


def wide():
    return dims(1, 3).flatmap(lambda n: matrices(st.just(n), dims(n + 1, n + 3)))


def points():
    """X ∈ R^{d×n}, d ≤ 3, n ≤ 4, entries ≤ 2 in magnitude (the kernel identities)."""
    return dims(1, 3).flatmap(lambda d: matrices(st.just(d), dims(1, 4), max_abs=2.0))


def chain_instances(*, max_cond=2.0, n_hi=5, d_hi=3, j_hi=5, eps_max=0.1,
                    modes=("aligned", "top", "bottom", "random"), drawn_directions=True):
    """(A, b, j, ε, mode, directions) for alg.5's chain of stages (lemJ.1, thmJ.2): each stage's
    error points along b_{k−1}, the top or bottom eigenvector of AᵀA, or a drawn direction."""
    def build(A):
        d = A.shape[1]
        dirs = (st.lists(vectors(st.just(d), max_abs=1.0), min_size=j_hi, max_size=j_hi) if drawn_directions
                else st.just([np.zeros(d)] * j_hi))
        return st.tuples(st.just(A), vectors(st.just(d)), dims(1, j_hi), scalars(1e-3, eps_max), st.sampled_from(list(modes)),
                         dirs)
    return tall(n_lo=1, n_hi=n_hi, d_hi=d_hi, cond=max_cond).flatmap(build).filter(lambda t: np.any(t[1]))


def alg_instances(tall_b: bool, kappa_exp: int):
    """(A, b, ε, δ, seed) small enough that the sketch is the identity, with κ kept within float64
    reach (spec T4: κ^kappa_exp·1e-16 well below ε)."""
    def build(eps):
        lk = max(0.0, min(4.0, (14 + math.log10(eps)) / kappa_exp))
        return dims(1, 3).flatmap(lambda d: dims(d, 8).flatmap(lambda n: st.tuples(
            conditioned_matrices(n, d, max_log10_cond=lk), vectors(st.just(n if tall_b else d)), st.just(eps),
            scalars(0.01, 0.09), st.integers(0, 2**31 - 1))))
    return st.floats(-6, -1.05).map(lambda e: float(10.0**e)).flatmap(build).filter(lambda t: np.any(t[1]))


# ----------------------------------------------------------------------------- seeded instances

def se_rows(n: int, d: int, eps: float, delta: float) -> int:
    """m = ⌈ε^{-2} d ln(n/δ)⌉ (Lemma C.5 with C = 1)."""
    return int(math.ceil(d * math.log(n / delta) / eps**2))


def se_instance(seed: int):
    """A fixed hard data matrix for trial ``seed`` (n ∈ {300, 512}, d ∈ {2, 3}): coherent, spiky, or
    ill-conditioned Gaussian.  n = 300 exercises the SRHT's zero padding to 512."""
    rng = np.random.default_rng(10_000 + seed)
    n = (300, 512)[seed % 2]
    d = 2 + (seed // 2) % 2
    kind = seed % 3
    if kind == 0:  # coherent: A[:d] += 50 I (spec lemC.5 check)
        A = rng.standard_normal((n, d))
        A[:d] += 50 * np.eye(d)
    elif kind == 1:  # maximally coherent: columns are scaled standard basis vectors + tiny noise
        A = np.zeros((n, d))
        idx = rng.choice(n, d, replace=False)
        A[idx, np.arange(d)] = 10.0 ** rng.uniform(-2, 2, d)
        A += 1e-6 * rng.standard_normal((n, d))
    else:  # Gaussian with condition number up to 1e6
        Q, _ = np.linalg.qr(rng.standard_normal((n, d)))
        A = (Q * 10.0 ** -rng.uniform(0, 6, d)) @ np.linalg.qr(rng.standard_normal((d, d)))[0]
    return A, n, d


N_ALG = 8192
"""Rows of the statistical algorithm instances: every sketch is a real sketch (m < n)."""


def reg_matrix(rng, n, d, log10_kappa):
    Q, _ = np.linalg.qr(rng.standard_normal((n, d)))
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    s = 10.0 ** (rng.uniform(-1, 1) - log10_kappa * np.linspace(0, 1, d))
    A = (Q * s) @ V.T
    if rng.uniform() < 1 / 3:  # coherent rows: the sketch must mix them
        A[:d] += 5 * s[0] * np.eye(d)
    return A


def reg_instance(seed, *, max_log10_kappa, eps_range=(-6, -1), d_choices=(2,), tall_b=True):
    """(A ∈ R^{8192×d}, b, ε) of trial ``seed``: log10 κ(A) uniform up to max_log10_kappa(ε); a tall
    b = Ax + r with ‖r‖/‖Ax‖ = 10^U(−3, 1), or b ∈ R^d."""
    rng = np.random.default_rng(20_000 + seed)
    d = int(d_choices[seed % len(d_choices)])
    eps = float(10.0 ** rng.uniform(*eps_range))
    lk = float(rng.uniform(0, max_log10_kappa(eps)))
    A = reg_matrix(rng, N_ALG, d, lk)
    if tall_b:
        xt = rng.standard_normal(d)
        Ax = A @ xt
        r = rng.standard_normal(N_ALG)
        b = Ax + 10.0 ** rng.uniform(-3, 1) * np.linalg.norm(Ax) / np.linalg.norm(r) * r
    else:
        b = rng.standard_normal(d) * 10.0 ** rng.uniform(-2, 2)
    return A, b, eps
