"""Bound constants and hypothesis quantities of paper 003 (spec ``attention_optimization.md`` §2
"Constants", §4.8–4.14): the constants of Sections 8, 9 and 12 as stated or derived (each function
names its claim), the radius R an instance meets hypotheses H8/H12 with, and the (l, M)-good
quantities of Section 14.  Pure mpmath on ``mp.matrix``; companion of :mod:`oracle.attention_optimization`.

Every argument is validated first (``ValueError`` naming it): ``n``, ``d`` ints ≥ 1; ``R`` a finite real
≥ 0 (an ``mpf``, int or float, computed as an ``mpf``, so R = 1e300 gives its huge bound, never
``OverflowError``); matrices and columns ``mp.matrix`` (numpy arrays are refused: convert with
``oracle.to_mp``).  No bound is NaN, inf, negative or complex.
"""

from __future__ import annotations

from mpmath import mp

from . import attention_optimization as O
from . import linalg
from .precision import check_int, check_mp

__all__ = [
    "C0", "K1", "R0", "R1", "approx_factor", "h8_radius", "h12_radius", "hessian_lipschitz_estimate",
    "lem8_4", "lem8_5", "lem9_2", "lem10_1_p5_x", "lem12_1", "lem12_8_paper", "lem12_8_repair",
    "local_min_strength", "sigma_min_blocks", "sigma_plus_blocks",
]


def _n(n, name="n"):
    return check_int(n, name, minimum=1)


def _R(R):
    R = check_mp(R, "R", ndim=0)
    if R < 0:
        raise ValueError(f"R={R} must be >= 0 (a radius)")
    return R


def R0(n, R):
    """Def 8.6 (value not recovered): the derived R_0 = n^{1.5}·exp(10R²), valid for all nine G_k."""
    n, R = _n(n), _R(R)
    return mp.mpf(n) ** mp.mpf(1.5) * mp.exp(10 * R ** 2)


R1 = R0
"""Lemma 12.1's R_1 = n^{1.5}·exp(10R²) (spec lem12.1)."""


def C0(R):
    """Lemma 9.1: C_0 = 30R⁸."""
    R = _R(R)
    return 30 * R ** 8


def K1(n, R):
    """Lemma 8.1 Part 1 (constant not recovered): the derived K₁ = 9R²R_0."""
    R = _R(R)
    return 9 * R ** 2 * R0(n, R)


def lem8_4(n, R):
    """Lemma 8.4 Parts 1–6: bounds on ‖u‖₂, |α|, |α|⁻¹, ‖f‖₂, |γ|, |c| (in that order)."""
    n, R = _n(n), _R(R)
    e = mp.exp(R ** 2)
    return (mp.sqrt(n) * e, n * e, e, mp.mpf(1), R ** 2, 2 * R ** 2)


def lem8_5(n, R):
    """Lemma 8.5 Parts 1–5: Lipschitz constants of u, α⁻¹, f, γ, c in x (in that order)."""
    n, R = _n(n), _R(R)
    n15 = mp.mpf(n) ** mp.mpf(1.5)
    return (mp.sqrt(n) * mp.exp(2 * R ** 2), n * mp.exp(4 * R ** 2), n15 * R * mp.exp(6 * R ** 2),
            n15 * mp.exp(7 * R ** 2), n15 * mp.exp(7 * R ** 2))


def lem9_2(R):
    """Lemma 9.2 Parts 1–4 (constants derived from the proof steps): ±B_diag¹ ⪯ 2R⁴(1+R²)I,
    ±B_rank¹ ⪯ 4R²(1+R⁴)I, ±B_rank² ⪯ 5R⁴I, 0 ⪯ B_rank³ ⪯ R⁴I."""
    R = _R(R)
    return (2 * R ** 4 * (1 + R ** 2), 4 * R ** 2 * (1 + R ** 4), 5 * R ** 4, R ** 4)


def lem10_1_p5_x(n, R):
    """Supplement to Lemma 10.1 Part 5: ‖H_yy(x) − H_yy(x̃)‖ ≤ 2n^{2.5}R³e^{6R²}‖x − x̃‖₂."""
    n, R = _n(n), _R(R)
    return 2 * mp.mpf(n) ** mp.mpf(2.5) * R ** 3 * mp.exp(6 * R ** 2)


def lem12_1(n, d, R):
    """Lemma 12.1 (constant not recovered): the derived nd·R²·4R_1."""
    n, d, R = _n(n), _n(d, "d"), _R(R)
    return n * d * R ** 2 * 4 * R1(n, R)


def lem12_8_paper(n, d, R):
    """Lemma 12.8 as stated: ‖H_xy‖ ≤ nd·10R²."""
    n, d, R = _n(n), _n(d, "d"), _R(R)
    return n * d * 10 * R ** 2


def lem12_8_repair(n, d, R):
    """The spec's correct bound for Lemma 12.8: n√d·R²(2R² + R)/2."""
    n, d, R = _n(n), _n(d, "d"), _R(R)
    return n * mp.sqrt(d) * R ** 2 * (2 * R ** 2 + R) / 2


def _col_norms(M):
    return [linalg.norm2(M[:, j]) for j in range(M.cols)]


def _data(A1, A2, A3, B, x, y):
    for name, M in (("A1", A1), ("A2", A2), ("A3", A3), ("B", B)):
        check_mp(M, name, ndim=2)
        if (M.rows, M.cols) != (A1.rows, A1.cols):
            raise ValueError(f"{name} is {M.rows}x{M.cols}, must be {A1.rows}x{A1.cols} like A1")
    for name, v in (("x", x), ("y", y)):
        check_mp(v, name, ndim=1)
        if v.rows != A1.cols ** 2:
            raise ValueError(f"{name} has {v.rows} entries, must have d² = {A1.cols ** 2}")


def h8_radius(A1, A2, A3, B, x, y):
    """The smallest R with which (A1, A2, A3, B, x, y) meet H8 (spec §4): max of ‖A1‖, ‖A2‖, ‖A3‖,
    max_{j0}‖𝖠_{j0}‖ (= ‖a_{j0}‖₂‖A2‖), ‖x‖₂, max|b|, and √‖h(y)_{i0}‖₂ (from ‖v‖₂ ≤ R²)."""
    _data(A1, A2, A3, B, x, y)
    d = A1.cols
    nA2 = linalg.spectral_norm(A2)
    H = A3 * O.unvec_cols(y, d)
    parts = [linalg.spectral_norm(A1), nA2, linalg.spectral_norm(A3), max(_col_norms(A1.T)) * nA2,
             linalg.norm2(x), max(abs(B[i, j]) for i in range(B.rows) for j in range(B.cols)),
             mp.sqrt(max(_col_norms(H)))]
    return max(parts)


def h12_radius(A1, A2, A3, B, x, y):
    """H12 = H8 plus ‖y_{i0}‖₂ ≤ R for every i0 (spec §4)."""
    _data(A1, A2, A3, B, x, y)
    return max(h8_radius(A1, A2, A3, B, x, y), max(_col_norms(O.unvec_cols(y, A1.cols))))


def _pair(A1, A2):
    check_mp(A1, "A1", ndim=2)
    check_mp(A2, "A2", ndim=2)
    if A2.cols != A1.cols:
        raise ValueError(f"A2 has {A2.cols} columns, must have d = {A1.cols} like A1")


def _square(H, name):
    check_mp(H, name, ndim=2)
    if H.rows != H.cols:
        raise ValueError(f"{name} is {H.rows}x{H.cols}, must be square")


def sigma_min_blocks(A1, A2):
    """σ_min(𝖠_min) = min_{j0} σ_min(𝖠_{j0}) with σ_min the d²-th singular value (0 for d ≥ 2, since
    rank 𝖠_{j0} ≤ d): Lemma 9.1's literal hypothesis quantity."""
    _pair(A1, A2)
    out = []
    for j0 in range(A1.rows):
        K = O.kron_block(A1, A2, j0)
        s = linalg.singular_values(K)
        out.append(s[-1] if len(s) == K.cols else mp.mpf(0))
    return min(out)


def sigma_plus_blocks(A1, A2):
    """min_{j0} of the smallest nonzero singular value of 𝖠_{j0} (the spec's nonzero-σ reading of
    Lemma 9.1); singular values below 10^{−(dps−10)}·‖𝖠_{j0}‖ count as zero."""
    _pair(A1, A2)
    out = []
    for j0 in range(A1.rows):
        s = linalg.singular_values(O.kron_block(A1, A2, j0))
        tiny = s[0] * mp.mpf(10) ** (-(mp.dps - 10))
        nz = [v for v in s if v > tiny]
        if nz:
            out.append(nz[-1])
    if not out:
        raise ValueError("every block 𝖠_{j0} is zero")
    return min(out)


def local_min_strength(H):
    """l of the (l, M)-good definition: λ_min(∇²L_tot(z*)) (spec def.lm_good, its first condition)."""
    _square(H, "H")
    return linalg.eigvalsh(H)[0]


def hessian_lipschitz_estimate(hess, z, radius, directions):
    """An estimate of M (spec def.lm_good, its second condition, and §5 "(l, M)-good"): twice the largest
    ‖∇²L(z + r·u) − ∇²L(z)‖/r over the given unit ``directions`` u and r = radius (the spec's
    recipe, with its ×2 safety factor; an estimate from samples, not a proof)."""
    if not callable(hess):
        raise ValueError(f"hess={hess!r} must be callable")
    check_mp(z, "z", ndim=1)
    radius = check_mp(radius, "radius", ndim=0)
    if not radius > 0:
        raise ValueError(f"radius={radius} must be > 0")
    directions = [check_mp(u, "directions[i]", ndim=1) for u in directions]
    if any(u.rows != z.rows or not any(u) for u in directions):
        raise ValueError(f"directions must be nonzero columns of z's length {z.rows}")
    H0 = hess(z)
    best = mp.mpf(0)
    for u in directions:
        u = u / linalg.norm2(u)
        best = max(best, linalg.spectral_norm(hess(z + u * radius) - H0) / radius)
    return 2 * best


def approx_factor(H, Ht):
    """The smallest ε0 with (1 − ε0)H ⪯ H̃ ⪯ (1 + ε0)H for H ≻ 0 (spec def.approx_hessian):
    max |λ(H^{−1/2} H̃ H^{−1/2}) − 1|."""
    _square(H, "H")
    _square(Ht, "Ht")
    if Ht.rows != H.rows:
        raise ValueError(f"Ht is {Ht.rows}x{Ht.cols}, must be {H.rows}x{H.cols} like H")
    E, Q = linalg.converged(lambda: mp.eigsy(linalg.sym(H)), "eigsy")
    if min(E[i] for i in range(E.rows)) <= 0:
        raise ValueError("H must be positive definite")
    Hm = Q * mp.diag([1 / mp.sqrt(E[i]) for i in range(E.rows)]) * Q.T
    return max(abs(lam - 1) for lam in linalg.eigvalsh(linalg.sym(Hm * Ht * Hm)))
