"""Claims of Section L.1 of paper 004: Algorithm 7 (PreconditionedGradientDescent), Theorem L.3
(= Theorem 1.6), the sub-claims of its proof, and the ridge repair Algorithm 7R (alg7R.conv).

Spec: ``attention_kernel_regression.md`` (``alg.7``, ``alg.7R``, ``thmL.3``, ``thm1.6``, "Sub-claims of
Theorem L.3").  Every identity of the proof is judged in mpmath from the drawn float64 factors; the
theorem itself is judged on the implementation's Algorithm 7 output (seeded trials, spec T1), with
the kernel and the residual computed by the oracle.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import attention_kernel_ridge as R
from oracle import linalg, to_float_array, to_mp

from ..contract import output
from ..toolkit import ClaimSet, Outcome, le, named, require, worst_pair
from ..toolkit.strategies import conditioned_matrices, dims, matrices, scalars, vectors
from .common import exact_product
from .tensor_sketch import paper_q

__all__ = ["ALLXY_ROWS", "L3_D", "L3_EPS", "L3_N", "claims", "l3_instance"]

claims = ClaimSet("attention_kernel_regression")


# ============================================================================ the SVD objects of Algorithm 7


def _svd_parts(W, S):
    """``SWᵀ = UΣVᵀ`` (thin), ``R = UΣ^{-2}`` and ``Φ = RᵀSWᵀWSᵀR`` in mpmath, as alg.7 states.

    The hypothesis "SWᵀ of full column rank" is checked on the exact rational product of the float64
    factors: the mpmath SVD of an exactly rank-deficient SWᵀ returns a rounding-level σ_min > 0 at
    every precision, and R = UΣ^{-2} is then noise (thmL.3.eq80, thmL.3.eq86 judged a meaningless R)."""
    rank = linalg.exact_rank(exact_product(to_float_array(S, ndim=2), to_float_array(W, ndim=2).T))
    require(rank == W.rows, f"S Wᵀ must have full column rank {W.rows} (its exact rank is {rank}; alg.7 divides by Σ)")
    M = S * W.T
    U, sig, Vt = mp.svd_r(M, full_matrices=False)
    s = [sig[i] for i in range(len(sig))]
    Rm = U * mp.diag([1 / v**2 for v in s])
    phi = Rm.T * S * W.T * W * S.T * Rm
    return U, s, Vt, Rm, phi


def _w_and_s():
    """``W ∈ R^{m×n}`` (full row rank) and ``S ∈ R^{s×n}`` with m ≤ s, n > m (the regime m < n)."""
    return dims(1, 3).flatmap(lambda m: dims(m + 1, 6).flatmap(lambda n: dims(m, n).flatmap(
        lambda s: st.tuples(conditioned_matrices(st.just(n), st.just(m), max_log10_cond=4.0).map(lambda a: a.T.copy()),
                            matrices(st.just(s), st.just(n), max_abs=2.0)))))


def _phi_sides(W, S):
    U, s, Vt, Rm, phi = _svd_parts(W, S)
    inv = mp.diag([1 / v for v in s])
    lhs = linalg.stack(Rm.T * S * W.T, W * S.T * Rm, phi)
    rhs = linalg.stack(inv * Vt, Vt.T * inv, inv * inv)
    return lhs, rhs


claims.identity(
    "attention_kernel_regression.thmL.3.phi",
    "with SWᵀ = UΣVᵀ (thin SVD, full column rank) and R = UΣ^{-2}: RᵀSWᵀ = Σ^{-1}Vᵀ, WSᵀR = VΣ^{-1}, "
    "Φ = RᵀSWᵀWSᵀR = Σ^{-2}",
    hypotheses="W ∈ R^{m×n}, S ∈ R^{s×n}, m ≤ s, m < n, SWᵀ of full column rank (drawn; rank checked exactly)",
    instances=_w_and_s, sides=_phi_sides, max_examples=25, fields=("W", "S"),
    notes="Spec: HOLDS (exact). Consequence: alg.7's gradient-descent matrix is Σ^{-2}, whose eigenvalues "
          "σ_i(SWᵀ)^{-2} are not confined to Lemma D.3's window [3/4, 5/4] (thmL.3.gd).",
    provenance="D",
    source=("derived from Algorithm 7 (lines 7–8: SWᵀ = UΣVᵀ, R = UΣ⁻²) and the proof's Φ := RᵀSWᵀWSᵀR (eq. 81); the "
            "paper never writes Φ = Σ⁻² (spec thmL.3.phi)"))


def _eq80_sides(W, S):
    U, _, _, Rm, _ = _svd_parts(W, S)
    return S * W.T * W * S.T * Rm, U


claims.identity(
    "attention_kernel_regression.thmL.3.eq80",
    "SWᵀWSᵀR = U (orthonormal columns), so ‖SWᵀWSᵀRx‖ = ‖x‖",
    hypotheses="as thmL.3.phi", instances=_w_and_s, sides=_eq80_sides, max_examples=25, fields=("W", "S"),
    notes="Spec: HOLDS (verified).", provenance="R")


def _near_isometries():
    """``W ∈ R^{m×n}`` and an S ∈ R^{s×n} (s ≥ n) that is [I_n; 0] plus a perturbation of norm ≤ 0.3."""
    def build(parts):
        W, E, s = parts
        n = W.shape[1]
        S = np.zeros((s, n))
        S[:n] = np.eye(n)
        nrm = np.linalg.norm(E, 2)
        return W, S + (0.3 * E / nrm if nrm > 0 else 0.0)

    return dims(1, 3).flatmap(lambda m: dims(m + 1, 5).flatmap(lambda n: dims(n, n + 2).flatmap(
        lambda s: st.tuples(conditioned_matrices(st.just(n), st.just(m), max_log10_cond=6.0).map(lambda a: a.T.copy()),
                            matrices(st.just(s), st.just(n), max_abs=1.0), st.just(s)).map(build))))


def _distortion_on_rows(S, W):
    """max_i |σ_i(SQ) − 1| for Q an orthonormal basis of range(Wᵀ) (the SE accuracy ε₀ of S there)."""
    Q, _ = mp.qr(W.T)
    Q = Q[:, : W.rows]
    sv = linalg.singular_values(S * Q)
    return max(sv[0] - 1, 1 - sv[-1])


def _eq78_sides(W, S):
    eps0 = _distortion_on_rows(S, W)
    require(eps0 <= mp.mpf(1) / 3, "S must be an ε₀-subspace embedding for range(Wᵀ) with ε₀ ≤ 1/3")
    _, _, _, Rm, _ = _svd_parts(W, S)
    return linalg.cond(Rm.T * S * W.T), 2 * linalg.cond(W.T)


claims.inequality(
    "attention_kernel_regression.thmL.3.eq78",
    "κ(RᵀSWᵀ) ≤ 2κ(W) when S is an ε₀-SE for range(Wᵀ), ε₀ ≤ 1/3",
    hypotheses="W ∈ R^{m×n} (κ up to 1e6), S ∈ R^{s×n} = [I; 0] + E with ‖E‖ ≤ 0.3; the SE accuracy ε₀ of S on "
               "range(Wᵀ) is measured exactly and must be ≤ 1/3 (else the instance is rejected)",
    instances=_near_isometries, sides=_eq78_sides, max_examples=25, fields=("W", "S"),
    notes="Spec: HOLDS (derived: κ(RᵀSWᵀ) = κ(Σ) = κ(SWᵀ) ≤ ((1+ε₀)/(1−ε₀))κ(W) ≤ 2κ(W)).",
    provenance="R", conventions=("sigma_min", "kappa"),
    conventions_used={"sigma_min": "min(m,n)-th singular value"},
    vacuous_note="Judged with κ(W) = σ_1(W)/σ_m(W), the min(m,n)-th singular value, as the proof of Theorem L.3 means "
                 "it: under the paper's σ_min (§A.1) the wide m×n W has σ_min(W) = 0, κ(W) = ∞, and the bound holds "
                 "trivially.")


def _eq86_instances():
    return _w_and_s().flatmap(lambda WS: st.tuples(st.just(WS[0]), st.just(WS[1]), vectors(st.just(WS[0].shape[1]), max_abs=2.0)))


def _eq86_sides(W, S, v):
    _, _, _, Rm, _ = _svd_parts(W, S)
    RS = Rm.T * S
    return linalg.sigma_min(RS) * linalg.norm2(v), linalg.norm2(RS * v)


claims.inequality(
    "attention_kernel_regression.thmL.3.eq86",
    "‖RᵀSv‖ ≥ σ_min(RᵀS)‖v‖ for v ∈ Rⁿ",
    hypotheses="as thmL.3.phi; σ_min in the SV convention σ_{min(m,n)} (under the paper's min_{‖x‖=1} the right "
               "side is 0 for the wide RᵀS and the step proves nothing); any v ∈ Rⁿ",
    instances=_eq86_instances, sides=_eq86_sides, expected="falsified", max_examples=25, fields=("W", "S", "v"),
    notes="Spec: FAILS for the wide m×n matrix RᵀS (m < n): any v with a component in its null space. The proof "
          "of Theorem L.3 uses this step to pass from Rᵀ S-space to Rⁿ.",
    provenance="R", reading="min(m,n)-th singular value", conventions=("sigma_min",),
    conventions_used={"sigma_min": "min(m,n)-th singular value"})


def _eq86_sides_paper(W, S, v):
    _, _, _, Rm, _ = _svd_parts(W, S)
    RS = Rm.T * S
    return linalg.sigma_min(RS, convention="paper") * linalg.norm2(v), linalg.norm2(RS * v)


claims.inequality(
    "attention_kernel_regression.thmL.3.eq86",
    "‖RᵀSv‖ ≥ σ_min(RᵀS)‖v‖ for v ∈ Rⁿ",
    hypotheses="as the claim, with the paper's σ_min(RᵀS) = min_{‖x‖=1}‖RᵀSx‖ (§A.1)", instances=_eq86_instances,
    sides=_eq86_sides_paper, max_examples=25, fields=("W", "S", "v"), alternative=True, reading="paper's σ_min",
    conventions=("sigma_min",),
    notes="Under the paper's own definition the step is Fact A.4's sixth bullet and holds, but σ_min of the wide m×n "
          "RᵀS (m < n) is 0, so eq. 86 bounds ‖RᵀS(WᵀWx_t − y)‖ below by 0 and the proof of Theorem L.3 learns "
          "nothing about ‖WᵀWx_t − y‖ from it.")


def _eq86_row_space(W, S, v):
    _, _, _, Rm, _ = _svd_parts(W, S)
    RS = Rm.T * S
    # RᵀS has full row rank m (UᵀSWᵀ = ΣVᵀ has rank m, SWᵀ's rank checked exactly by _svd_parts); ‖Πv‖ = ‖Qᵀv‖
    # for Q an orthonormal basis of its row space (Householder QR: no solve with the Gram RᵀS SᵀR).
    Q, _ = mp.qr(RS.T)
    return linalg.singular_values(RS)[RS.rows - 1] * linalg.norm2(Q[:, : RS.rows].T * v), linalg.norm2(RS * v)


claims.inequality(
    "attention_kernel_regression.thmL.3.eq86",
    "‖RᵀSv‖ ≥ σ_m(RᵀS)·‖Πv‖ for v ∈ Rⁿ, Π the projector onto the row space of RᵀS (so ‖RᵀSv‖ ≥ σ_m(RᵀS)‖v‖ "
    "for v in that row space)",
    hypotheses="as the claim", instances=_eq86_instances, sides=_eq86_row_space, max_examples=25, repair=True,
    fields=("W", "S", "v"),
    notes="Derived: RᵀSv = RᵀSΠv and RᵀS restricted to its row space has singular values σ_1 … σ_m > 0. It does "
          "not rescue the proof of Theorem L.3, whose v (the residual in Rⁿ) is not confined to that m-dimensional "
          "space.")


def _gd_instances():
    return dims(1, 3).flatmap(lambda m: dims(m + 1, 5).flatmap(
        lambda n: st.tuples(conditioned_matrices(st.just(n), st.just(m), max_log10_cond=3.0).map(lambda a: a.T.copy()),
                            vectors(st.just(n), max_abs=2.0))))


_GD_STEPS = 8


def _gd_sides(W, y):
    n = W.cols
    require(linalg.norm2(y) > 0, "y must be nonzero")
    S = mp.eye(n)  # s ≥ n: S = I_n (spec §3)
    _, _, _, Rm, phi = _svd_parts(W, S)
    b = Rm.T * S * y
    require(linalg.norm2(b) > 0, "RᵀSy must be nonzero (else z₀ = 0 is already optimal)")
    z = mp.matrix(phi.rows, 1)
    for _ in range(_GD_STEPS):
        z = z - phi.T * (phi * z - b)
    return linalg.norm2(phi * z - b), mp.mpf("0.9") ** _GD_STEPS * linalg.norm2(b)


claims.inequality(
    "attention_kernel_regression.thmL.3.gd",
    "Algorithm 7's loop z_{t+1} = z_t − Φᵀ(Φz_t − RᵀSy) converges as Lemma D.3 says: "
    "‖Φz_t − RᵀSy‖ ≤ c^t‖RᵀSy‖ with c ≤ 0.9",
    hypotheses=f"W ∈ R^{{m×n}} generic (κ ≤ 1e3), S = I_n (s ≥ n), y ∈ Rⁿ; t = {_GD_STEPS} steps from z₀ = 0, "
               "c = 0.9 (the largest rate Lemma D.3 allows)",
    instances=_gd_instances, sides=_gd_sides, expected="falsified", max_examples=25, fields=("W", "y"),
    notes="Spec: FAILS. Φ = Σ^{-2} (thmL.3.phi) has eigenvalues σ_i(SWᵀ)^{-2}: unit-step GD diverges when some "
          "σ_i < 2^{-1/4} and stalls when they are large; Lemma D.3's window [3/4, 5/4] never applies.", provenance="R",
    basis="proof step",
    basis_note="Refutes the step of Theorem L.3's proof that applies Lemma D.3 to Φ (eq. 82), for a generic W with "
               "S = I_n rather than the theorem's W_g(X) and SRHT: Φ = Σ⁻² lies outside Lemma D.3's window unless the "
               "singular values of SWᵀ lie in [0.89, 1.15], which nothing in the proof arranges (eq. 80 does not), "
               "but the judged W are not feature maps W_g(X), so Theorem L.3 itself is not refuted here (see thmL.3).")


def _gd_window_instances():
    """(W, y): W ∈ R^{m×n} = V·diag(σ)·Uᵀ with σ_i ∈ [0.9, 1.15] (inside Lemma D.3's window for Φ = Σ^{-2})."""
    def build(parts):
        A, sig, y = parts
        m, n = A.shape
        Qn, _ = np.linalg.qr(A.T)  # n×m orthonormal columns
        return (np.diag(np.asarray(sig)) @ Qn.T).copy(), y

    return dims(1, 3).flatmap(lambda m: dims(m + 1, 5).flatmap(lambda n: st.tuples(
        conditioned_matrices(st.just(n), st.just(m), max_log10_cond=1.0).map(lambda a: a.T.copy()),
        st.lists(scalars(0.9, 1.15), min_size=m, max_size=m), vectors(st.just(n), max_abs=2.0)).map(build)))


def _gd_window_sides(W, y):
    n = W.cols
    require(linalg.norm2(y) > 0, "y must be nonzero")
    S = mp.eye(n)
    _, s_, _, Rm, phi = _svd_parts(W, S)
    require(all(mp.mpf(3) / 4 <= v ** -2 <= mp.mpf(5) / 4 for v in s_), "Φ = Σ^{-2} in Lemma D.3's window")
    b = Rm.T * S * y
    require(linalg.norm2(b) > 0, "RᵀSy must be nonzero")
    z = mp.matrix(phi.rows, 1)
    for _ in range(_GD_STEPS):
        z = z - phi.T * (phi * z - b)
    return linalg.norm2(phi * z - b), (mp.mpf(9) / 16) ** _GD_STEPS * linalg.norm2(b)


claims.inequality(
    "attention_kernel_regression.thmL.3.gd",
    "when the singular values of SWᵀ lie in [(4/5)^{1/2}, (4/3)^{1/2}] (so Φ = Σ^{-2} meets Lemma D.3's hypothesis "
    "3/4 ≤ ‖Φx‖ ≤ 5/4 on unit x), ‖Φz_t − RᵀSy‖ ≤ (9/16)^t‖RᵀSy‖",
    hypotheses=f"W ∈ R^{{m×n}} with singular values in [0.9, 1.15], S = I_n, y ∈ Rⁿ; t = {_GD_STEPS} steps from z₀ = 0",
    instances=_gd_window_instances, sides=_gd_window_sides, max_examples=25, repair=True, fields=("W", "y"),
    notes="Lemma D.3 (verified, rate 9/16) applied to Φ = Σ^{-2} (thmL.3.phi): the residual obeys r_{t+1} = (I − "
          "Φ²)r_t and |1 − σ^{-4}| ≤ 9/16 on the window. The hypothesis is on the spectrum of SWᵀ, which "
          "Algorithm 7 does not arrange (its W, S give eigenvalues of Φ far outside it); the ridge Algorithm 7R "
          "(alg7R.conv) is the repair of the algorithm.")


# ============================================================================ the ∀x, y step


def _allxy_instances():
    """(d, n, data seed, k, bits seed): X, x, y₀ Gaussian from the data seed (integers shrink fast)."""
    return st.tuples(dims(1, 2), dims(2, 5), st.integers(0, 2**16), scalars(0.0, 6.0), st.integers(0, 2**16))


ALLXY_ROWS = (2, 4, 4)
_ALLXY_FIELDS = ("d", "n", "data_seed", "k", "seed")
_ALLXY_EPS = mp.mpf("0.5")


def _allxy_setup(inst, impl):
    """The instance of thmL.3.allxy and its repair: X, x, y₀ from the data seed, W = W_g(X) from the
    implementation's bits; returns (X, x, y₀ as mpmath, W, k)."""
    d, n, data_seed, k, seed = inst
    rng = np.random.default_rng(data_seed)
    X, x, y0 = 0.5 * rng.standard_normal((d, n)), rng.standard_normal(n), rng.standard_normal(n)
    bits = impl.attention_feature_bits(X.shape[0], ALLXY_ROWS, seed)
    Xm, xm, ym = to_mp(X), to_mp(x), to_mp(y0)
    with mp.workdps(mp.dps + 10):
        W = R.kernel_features(Xm, bits)
    return Xm, xm, ym, W, k


@claims.check(
     "attention_kernel_regression.thmL.3.allxy",
     "∀x, y: ‖WᵀWx − y‖ ≤ (1+ε̂)‖Kx − y‖ for W = W_g(X)",
     hypotheses=f"X ∈ R^{{d×n}} (d ≤ 2, n ≤ 5; X, x, y₀ Gaussian from a drawn seed, X scaled by 1/2), "
                f"W = W_g(X) of the implementation's bits (rows per degree "
                f"{ALLXY_ROWS}), ε̂ = 1/2; y = Kx + 10^{{−k}}·y₀ with y₀ ∈ Rⁿ, k ∈ [0, 6] drawn (the claim is for "
                "every y; near Kx the right side is small)",
     instances=_allxy_instances, uses=("attention_feature_bits",), expected="falsified", max_examples=25, fields=_ALLXY_FIELDS,
     notes="Spec: FAILS (y = Kx: the right side is 0 while WᵀWx ≠ Kx; y near Kx breaks it by a factor). "
           "The proof of Theorem L.3 uses it to pass "
           "the sketch's residual to the kernel's. No multiplicative repair is known (y = Kx makes any factor "
           "fail); the additive form below is the true step.",
     provenance="R")
def _allxy_check(inst, impl):
    Xm, xm, ym, W, k = _allxy_setup(inst, impl)

    def sides():
        K = R.attention_kernel(Xm)
        y = K * xm + mp.mpf(10) ** (-mp.mpf(k)) * ym
        return linalg.norm2(W.T * W * xm - y), (1 + _ALLXY_EPS) * linalg.norm2(K * xm - y)

    return le(sides)


@claims.check(
     "attention_kernel_regression.thmL.3.allxy",
     "additive form: with ε_W the sandwich accuracy of W ((1−ε_W)K ⪯ WᵀW ⪯ (1+ε_W)K), for all x, y: "
     "‖WᵀWx − y‖ ≤ ‖Kx − y‖ + ε_W·‖K‖^{1/2}·‖K^{1/2}x‖",
     hypotheses="as the claim; ε_W measured exactly (K is positive definite for distinct points)",
     instances=_allxy_instances, uses=("attention_feature_bits",), max_examples=25, repair=True, fields=_ALLXY_FIELDS,
     notes="Derived: ‖WᵀWx − y‖ ≤ ‖Kx − y‖ + ‖(WᵀW − K)x‖ and WᵀW − K = K^{1/2}EK^{1/2} with ‖E‖ ≤ ε_W. The "
           "additive term does not shrink with the residual, so it cannot give the proof's ε-accuracy.")
def _allxy_additive(inst, impl):
    Xm, xm, ym, W, k = _allxy_setup(inst, impl)

    def sides():
        K = R.attention_kernel(Xm)
        y = K * xm + mp.mpf(10) ** (-mp.mpf(k)) * ym
        eps_w = R.plain_distortion(W, K)
        return (linalg.norm2(W.T * W * xm - y),
                linalg.norm2(K * xm - y) + eps_w * mp.sqrt(linalg.spectral_norm(K) * (xm.T * K * xm)[0]))

    return le(sides)


# ============================================================================ Theorem L.3 / 1.6: Algorithm 7


L3_N, L3_D, L3_EPS, _L3_DELTA = 64, 8, 0.1, 0.1


def l3_instance(seed: int, *, rows_convention: bool):
    """Trial ``seed``'s (X, y) of thmL.3 (or thm1.6, ``rows_convention``): unit-direction columns of norm in
    [0.5, 1], y standard normal."""
    rng = np.random.default_rng(40_000 + seed + (1000 if rows_convention else 0))
    X = rng.standard_normal((L3_D, L3_N))
    X = X / np.linalg.norm(X, axis=0) * rng.uniform(0.5, 1.0, L3_N)
    return X, rng.standard_normal(L3_N)


def _alg7_trial(seed, impl, *, rows_convention):
    X, y = l3_instance(seed, rows_convention=rows_convention)
    q = paper_q(X, L3_EPS)
    # m = 1 + Σ 2l < n: the regime of a polylog m for large n (T samples the d = 8 Hadamard rows with
    # replacement; fewer rows than that keep the blocks of W of full rank in most trials)
    rows = tuple(2 * l for l in range(1, q + 1))
    m = 1 + sum(rows)
    s = min(2 * m, L3_N - 1)
    fbits = impl.attention_feature_bits(L3_D, rows, seed)
    sbits = impl.srht_bits(L3_N, s, seed + 7)
    # Theorem 1.6's A ∈ R^{n×d} is Xᵀ: exp(AAᵀ) = exp(XᵀX), the same kernel; the implementation takes X = Aᵀ
    try:
        x = np.asarray(impl.preconditioned_gd(X, y, fbits, sbits, L3_EPS, 100), dtype=np.float64)
    except ValueError as exc:  # alg.7 defect (v): SWᵀ rank-deficient, R = UΣ^{-2} undefined
        return Outcome(False, float("inf"), float("inf"), L3_EPS, None, f"Algorithm 7 gave no output: {exc}")
    Xm, ym, xm = to_mp(X), to_mp(y), to_mp(x)

    def sides():
        K = R.attention_kernel(Xm)
        return linalg.norm2(K * xm - ym), mp.mpf(L3_EPS) * linalg.norm2(ym)

    out = le(sides)
    return Outcome(out.holds, out.ratio, out.measured, out.bound, out.digits,
                   f"n={L3_N}, d={L3_D}, q={q}, m={m} < n, s={s}; ‖Kx̂ − y‖/‖y‖ = {out.measured / out.bound * L3_EPS:.4g}")


_L3_NOTES = ("Spec: FAILS (three defects: Φ = Σ^{-2} makes the loop diverge or stall; x̂ ∈ range(SᵀR) has dimension "
             "m, so ‖Kx̂ − y‖ ≤ ε‖y‖ is impossible for generic y when m < n; the proof's ∀x,y step is false). "
             "The stated m = O(ε^{-2}β log²(nd/(εδ)) log(n/δ)) is polylogarithmic in n, so m < n for large n whatever "
             "its constant; the trials witness that regime at n = 64 with m = 1 + Σ_l 2l. Repair: alg7R.conv.")


@claims.trial(
    "attention_kernel_regression.thmL.3",
    "For the attention kernel G of X ∈ R^{d×n} with all ‖x_i‖ ≤ 1, Algorithm 7 computes, with probability ≥ 1 − δ, "
    "x̂ with ‖Gx̂ − y‖ ≤ ε‖y‖, using m = O(ε^{-2}β log²(nd/(εδ)) log(n/δ)) rows, β ≥ srank(G)",
    delta=_L3_DELTA, trials=20, uses=("attention_feature_bits", "srht_bits", "preconditioned_gd"),
    hypotheses=f"n = {L3_N}, d = {L3_D}, ‖x_i‖ ∈ [0.5, 1], y Gaussian, ε = {L3_EPS}, δ = {_L3_DELTA}; W = W_g(X) with "
               "the paper's degree rule and m < n rows, SRHT S with s = min(2m, n − 1) rows; ‖Gx̂ − y‖ by the oracle",
    expected="falsified", notes=_L3_NOTES,
    provenance="R", conventions=("constants", "probability"), basis="constants",
    basis_note=("m = O(ε⁻²β log²(nd/εδ) log(n/δ)) instantiated as W_g(X) with the paper's degree rule for q and 2l rows "
                "per degree l (m = 1 + Σ_l 2l < n), an SRHT S with s = min(2m, n − 1) rows; n = 64, d = 8, ε = δ = "
                "0.1. With m < n the output x̂ ∈ range(SᵀR) has dimension m, so ε-accuracy for a generic y is "
                "impossible: any fixed constant fails for n large enough, but the trials certify only these "
                "constants. The constant-free defects of the proof are judged as thmL.3.allxy, thmL.3.gd and "
                "thmL.3.eq86."))
def thmL_3(seed, impl):
    return _alg7_trial(seed, impl, rows_convention=False)


@claims.trial(
    "attention_kernel_regression.thm1.6",
    "Given A ∈ R^{n×d}, b ∈ Rⁿ, an algorithm finds x' with ‖exp(AAᵀ)x' − b‖ ≤ ε_final‖b‖ using "
    "m = O(ε^{-2}β log³(κnd/(ε_final δ_final))) rows, β ≥ srank(exp(AAᵀ)), in time O(mn + ε^{-2}nd + m^ω)",
    delta=_L3_DELTA, trials=20, uses=("attention_feature_bits", "srht_bits", "preconditioned_gd"),
    hypotheses=f"as thmL.3 with the row convention A = Xᵀ ∈ R^{{n×d}}, ε_final = {L3_EPS}, δ_final = {_L3_DELTA}",
    expected="falsified", notes=_L3_NOTES,
    provenance="R", conventions=("constants", "probability", "kappa"), basis="constants",
    basis_note=("As thmL.3 with A = Xᵀ: m = O(ε⁻²β log³(κnd/(ε_final δ_final))) instantiated as W_g(X) with 2l rows per "
                "degree (m < n), s = min(2m, n − 1); n = 64, d = 8, ε_final = δ_final = 0.1. Only these constants are "
                "certified; the rank argument says any fixed constant fails for large n."))
def thm1_6(seed, impl):
    return _alg7_trial(seed, impl, rows_convention=True)


def _ridge_trial(seed, impl, *, rows_convention):
    X, y = l3_instance(seed, rows_convention=rows_convention)
    Xm, ym = to_mp(X), to_mp(y)
    lam = 0.1 * float(np.linalg.norm(np.exp(X.T @ X), 2))  # λ ≈ 0.1‖K‖ (any λ > 0 is admissible)
    x = output(impl.kernel_ridge_solve(X.copy(), y.copy(), lam, L3_EPS, seed), "kernel_ridge_solve", shape=(L3_N,))
    xm = to_mp(x)

    def sides():
        K = R.attention_kernel(Xm)
        return linalg.norm2(K * xm + xm * mp.mpf(lam) - ym), mp.mpf(L3_EPS) * linalg.norm2(ym)

    out = le(sides)
    return Outcome(out.holds, out.ratio, out.measured, out.bound, out.digits, f"n={L3_N}, d={L3_D}, λ = {lam:.4g}")


def _declare_ridge_repair(claim_id, statement, *, rows_convention):
    """Declare the ridge-form repair of ``claim_id`` (thmL.3: X by columns; thm1.6: rows, A = Xᵀ): 10 trials
    of the implementation's Algorithm 7R (:func:`_ridge_trial`), the residual judged by the oracle."""
    @claims.trial(
        claim_id, statement, delta=_L3_DELTA, trials=10, uses=("kernel_ridge_solve",), repair=True,
        hypotheses=f"the instances of the claim (n = {L3_N}, d = {L3_D}, ‖x_i‖ ∈ [0.5, 1], y Gaussian), λ = 0.1‖K‖ "
                   f"(float64), ε = {L3_EPS}, δ = {_L3_DELTA}; the implementation's Algorithm 7R (kernel_ridge_solve); "
                   "the residual by the oracle",
        notes="The spec's sensible version (thmL.3, alg.7R): the ridge system (K + λI)x = y with the ridge W_g "
              "(thmL.8's repair) as preconditioner; its convergence is alg7R.conv (verified).")
    @named(f"_{claim_id.split('.', 1)[1].replace('.', '_')}_ridge")
    def trial(seed, impl):
        return _ridge_trial(seed, impl, rows_convention=rows_convention)


_declare_ridge_repair(
    "attention_kernel_regression.thmL.3",
    "Ridge form: for λ > 0, Algorithm 7R (W_g-preconditioned Richardson on (K + λI)x = y) computes, with probability "
    "≥ 1 − δ, x̂ with ‖(K + λI)x̂ − y‖ ≤ ε‖y‖", rows_convention=False)
_declare_ridge_repair(
    "attention_kernel_regression.thm1.6",
    "Ridge form: for λ > 0, an algorithm (Algorithm 7R) finds x' with ‖(exp(AAᵀ) + λI)x' − b‖ ≤ ε_final‖b‖ with "
    "probability ≥ 1 − δ_final", rows_convention=True)


_L3T_SIZES = (256, 512, 1024, 2048)

claims.running_time(
    "attention_kernel_regression.thmL.3.time",
    "Algorithm 7 runs in time O(mn + ε^{-2}nd + m^ω)",
    uses=("preconditioned_gd_ops",), sizes=_L3T_SIZES,
    count=lambda impl, n: impl.preconditioned_gd_ops(8, n, (1, 2), 64, 5, 0),
    claimed=lambda n: 4 * n + 100 * 8 * n + 4**2.373,
    hypotheses="operation counts reported by the implementation (features, SRHT of Wᵀ, SVD, loop) over n ∈ "
               f"{_L3T_SIZES} at fixed m = 4 rows (degrees 1–2, rows (1, 2): SWᵀ of full rank), s = 64, d = 8, ≤ 5 iterations",
    notes="Spec: AMBIGUOUS (inconsistent with the proof's own total; rests on the invalid m). Judged on its "
          "n-dependence at fixed m: linear up to the log n of the SRHT.",
    provenance="R", conventions=("constants",))


# ============================================================================ alg.7R (the ridge repair)


_R7_ROWS = (16, 32, 64, 64)
_R7_STEPS = 8


def _r7_instances():
    return dims(1, 3).flatmap(lambda d: dims(2, 6).flatmap(lambda n: st.tuples(
        matrices(st.just(d), st.just(n), max_abs=0.6), vectors(st.just(n), max_abs=2.0), scalars(0.05, 1.0),
        st.integers(0, 2**16))))


@claims.check(
     "attention_kernel_regression.alg7R.conv",
     "Under the ridge sandwich (1−ε₀)(K+λI) ⪯ WᵀW + λI ⪯ (1+ε₀)(K+λI), ε₀ < 1/2, Algorithm 7R's residuals "
     "r_t = y − (K+λI)x_t obey ‖P^{1/2}r_t‖ ≤ (ε₀/(1−ε₀))^t‖P^{1/2}y‖ and "
     "‖r_t‖ ≤ √(((1+ε₀)/(1−ε₀))(‖K‖+λ)/λ)·(ε₀/(1−ε₀))^t‖y‖, P = (WᵀW + λI)^{-1}",
     hypotheses=f"X ∈ R^{{d×n}} (d ≤ 3, n ≤ 6, entries ≤ 0.6), y ∈ Rⁿ, λ = ρn with ρ ∈ [0.05, 1]; W = W_g(X) of the "
                f"implementation's bits, rows per degree {_R7_ROWS}; ε₀ := the exact sandwich accuracy of W (must be "
                f"< 1/2, else rejected); the iteration is run exactly for t ≤ {_R7_STEPS}",
     instances=_r7_instances, uses=("attention_feature_bits",), max_examples=25, fields=("X", "y", "ρ", "seed"),
     notes="Spec: HOLDS (derived). The implementation's Algorithm 7R itself is judged by the kernel_ridge_solve "
           "adapter (its residual rule against the oracle's kernel).",
     provenance="D",
     source="the harness's ridge replacement for Theorem L.3 (spec alg.7R, alg7R.conv); not a statement of the paper")
def _r7_check(inst, impl):
    X, y, rho, seed = inst
    bits = impl.attention_feature_bits(X.shape[0], _R7_ROWS, seed)
    Xm, ym = to_mp(X), to_mp(y)
    n = X.shape[1]
    lam = mp.mpf(rho) * n
    require(linalg.norm2(ym) > 0, "y must be nonzero")

    def system():
        # W, K and ε₀ at the current precision: a ε₀ frozen at one precision would be compared with
        # residuals computed at a higher one, and an exact equality (P^{1/2}y an eigenvector of the
        # extreme sandwich eigenvalue) would then be decided by ε₀'s rounding.
        W = R.kernel_features(Xm, bits)
        K = R.attention_kernel(Xm)
        return W, K, R.ridge_distortion(W, K, lam)

    with mp.workdps(mp.dps + 10):
        eps0 = system()[2]
    require(eps0 < mp.mpf(1) / 2, "the features must meet the ridge sandwich with ε₀ < 1/2")

    def sides():
        W, Kk, e0 = system()
        c = e0 / (1 - e0)
        lead = mp.sqrt((1 + e0) / (1 - e0) * (linalg.spectral_norm(Kk) + lam) / lam)
        hist = R.richardson_residuals(Kk, W, ym, lam, _R7_STEPS)
        r0, p0 = hist[0]
        pairs = []
        for t, (r, p) in enumerate(hist[1:], start=1):
            pairs += [(p, c**t * p0), (r, lead * c**t * r0)]
        return worst_pair(*pairs)

    out = le(sides)
    return Outcome(out.holds, out.ratio, out.measured, out.bound, out.digits,
                   f"n={n}, λ={mp.nstr(lam, 4)}, measured sandwich ε₀={mp.nstr(eps0, 4)}; t ≤ {_R7_STEPS}")


