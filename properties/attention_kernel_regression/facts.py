"""Claims of Appendices A–B of paper 004: the linear-algebra facts (Fact A.1, Fact A.4's nine bullets,
Definition A.5's remark, Lemma A.8) and the kernel facts (Fact B.3, Lemma B.4).

σ_min in Fact A.4 is the paper's ``min_{‖x‖=1}‖Mx‖`` (see :mod:`.common`); the outcome under the
singular-value convention is recorded in each claim's notes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import attention_kernel_regression as O
from oracle import linalg, to_mp

from ..toolkit import ClaimSet, eq, le, require, worst_pair
from ..toolkit.strategies import conditioned_matrices, dims, matrices, scalars, vectors
from .common import boost, cond_digits, exact_product, fails_infinitely, fraction, kappa_paper, orth, trivially_true
from .strategies import rank_deficient, tall, wide

__all__ = ["claims", "defA_5_note", "factA_4_b1", "factA_4_b1_defined", "factA_4_b1_repair", "factA_4_b3", "factA_4_b6",
           "factA_4_b7", "factA_4_b7_repair", "factA_4_b7_singular_values", "factA_4_b8", "factA_4_b8_repair",
           "factA_4_b9"]

claims = ClaimSet("attention_kernel_regression")


def _idempotent(A):
    with boost(2 * cond_digits(A)):
        P = O.projector(A)
        return P * P, P


claims.identity("attention_kernel_regression.factA.1", "P = A(AᵀA)^{-1}Aᵀ satisfies P² = P",
                hypotheses="A ∈ R^{n×d} with AᵀA invertible (G0); κ(A) up to 1e8",
                instances=lambda: tall(cond=8.0), sides=_idempotent, fields=("A",), provenance="R")


@claims.check("attention_kernel_regression.factA.4.b1", "for any A, ‖(AᵀA)†‖ = σ_min(A)^{-2}",
              hypotheses="any A (none stated); σ_min(A) = min_{‖x‖=1}‖Ax‖ (paper)", expected="falsified", fields=("A",),
              instances=lambda: st.one_of(tall(cond=8.0), rank_deficient(), wide()),
              notes="Holds under G0 (full column rank; 0 failures there, equality to 40+ digits). Fails for an "
                    "exactly rank-deficient A (σ_min = 0, RHS = ∞, LHS = σ_r(A)^{-2} finite) under either σ_min "
                    "convention, and for a wide A under the paper's σ_min. Correct form: ‖(AᵀA)†‖ = σ_r(A)^{-2}, "
                    "r = rank(A).",
              provenance="R", reading="1/0 = +∞", conventions=("sigma_min", "division_by_zero", "pinv"))
def factA_4_b1(A):
    r, (n, d), M = linalg.exact_rank(A), A.shape, to_mp(A)
    if r == 0:
        return fails_infinitely(0.0, "A = 0: ‖(AᵀA)†‖ = 0 but σ_min(A)^{-2} = ∞")
    if n < d or r < d:
        with mp.workdps(50):
            lhs = O.pinv_norm(M.T * M, r)
        return fails_infinitely(lhs, f"rank(A) = {r} < d = {d} or wide: σ_min(A) = 0 (paper), RHS ∞; "
                                     f"LHS ‖(AᵀA)†‖ = σ_r^(-2) = {mp.nstr(lhs, 6)}")

    def sides():
        with boost(2 * cond_digits(A)):
            return O.pinv_norm(M.T * M, d), linalg.sigma_min(M, convention="paper") ** -2

    return eq(sides)


@claims.check("attention_kernel_regression.factA.4.b1",
              "for any A ≠ 0 of rank r, ‖(AᵀA)†‖ = σ_r(A)^{-2} (σ_r the smallest nonzero singular value)",
              hypotheses="any A ≠ 0; rank r exact (over the rationals)", repair=True, fields=("A",),
              instances=lambda: st.one_of(tall(cond=8.0), rank_deficient(), wide()),
              notes="The spec's correct general form (Fact A.4 b1): the nonzero eigenvalues of AᵀA are σ_i(A)², "
                    "so (AᵀA)† has norm 1/σ_r(A)²; under G0 (r = d) it is the stated equality.")
def factA_4_b1_repair(A):
    r, M = linalg.exact_rank(A), to_mp(A)
    require(r > 0, "A ≠ 0")

    def sides():
        with boost(2 * cond_digits(A) if r == min(A.shape) else 0.0):
            return O.pinv_norm(M.T * M, r), linalg.singular_values(M)[r - 1] ** -2

    return eq(sides)


@claims.check("attention_kernel_regression.factA.4.b1", "for any A, ‖(AᵀA)†‖ = σ_min(A)^{-2}",
              hypotheses="A with σ_min(A) > 0, where the right side is defined: σ_min(A) = min_{‖x‖=1}‖Ax‖ (paper), "
                         "so A of full column rank (square or tall)",
              alternative=True, reading="1/0 undefined", conventions=("sigma_min", "division_by_zero", "pinv"),
              conventions_used={"division_by_zero": "undefined"}, fields=("A",), instances=lambda: tall(cond=8.0),
              notes="Every counterexample of the claim has σ_min(A) = 0, where σ_min(A)^{-2} is 0^{-2}; read as "
                    "undefined, the statement speaks only of A with σ_min(A) > 0, and there the nonzero eigenvalues "
                    "of AᵀA are the σ_i(A)², so ‖(AᵀA)†‖ = σ_d(A)^{-2} = σ_min(A)^{-2}.")
def factA_4_b1_defined(A):
    d, M = A.shape[1], to_mp(A)
    require(linalg.exact_rank(A) == d, "σ_min(A) > 0 (A of full column rank)")

    def sides():
        with boost(2 * cond_digits(A)):
            return O.pinv_norm(M.T * M, d), linalg.sigma_min(M, convention="paper") ** -2

    return eq(sides)


claims.identity("attention_kernel_regression.factA.4.b2", "for any A, ‖AᵀA‖ = σ_max(A)²", hypotheses="any A",
                instances=lambda: st.one_of(matrices(dims(1, 5), dims(1, 5)), tall(cond=8.0)),
                sides=lambda A: (linalg.spectral_norm(A.T * A), linalg.spectral_norm(A) ** 2), fields=("A",),
                provenance="R", conventions=("norms",))


@claims.check("attention_kernel_regression.factA.4.b3", "for any A and integer k ≥ 1, ‖((AᵀA)^k)†‖ ≤ σ_min(A)^{-2k}",
              hypotheses="any A, k ∈ {1..4}; σ_min paper convention (RHS = ∞ when σ_min = 0)",
              instances=lambda: st.tuples(st.one_of(tall(cond=6.0), rank_deficient(), wide()), dims(1, 4)), fields=("A", "k"),
              notes="Equality under G0 (decided to 40+ digits at a precision raised by 2k·log10 κ). Trivially true "
                    "(RHS = ∞) for rank-deficient or wide A under the paper's σ_min; under the SV convention a wide "
                    "full-row-rank A also gives equality.",
              provenance="R", conventions=("sigma_min", "division_by_zero", "pinv"),
              vacuous_note=("For a rank-deficient or wide A the paper's σ_min(A) is 0 and the right side σ_min(A)^{-2k} reads as "
                            "+∞, so the bound holds trivially there; the nontrivial case (full column rank) is an "
                            "equality."))
def factA_4_b3(inst):
    A, k = inst
    r, (n, d) = linalg.exact_rank(A), A.shape
    if n < d or r < d:
        return trivially_true(f"σ_min(A) = 0 (rank {r}, shape {A.shape}): RHS = ∞")
    M = to_mp(A)

    def sides():
        with boost(2 * k * cond_digits(A)):
            P = O.psd_power(M, k)
            return O.pinv_norm(linalg.symmetric_part(P), d), linalg.sigma_min(M, convention="paper") ** (-2 * k)

    return le(sides)


def _isometry(G, x):
    with boost(cond_digits(G)):
        return linalg.norm2(orth(G) * x), linalg.norm2(x)


claims.identity("attention_kernel_regression.factA.4.b4", "for any orthonormal column basis U ∈ R^{n×d} (n ≥ d), ‖Ux‖₂ = ‖x‖₂",
                hypotheses="U with orthonormal columns (built exactly in mpmath as the Q factor of a drawn "
                           "full-rank matrix), x ∈ R^d",
                instances=lambda: tall(cond=4.0).flatmap(lambda G: st.tuples(st.just(G), vectors(st.just(G.shape[1])))),
                sides=_isometry, fields=("G", "x"),
                provenance="R")

claims.inequality("attention_kernel_regression.factA.4.b5", "‖Ax‖ ≤ ‖A‖·‖x‖₂ = σ_max(A)·‖x‖₂", hypotheses="any A, x",
                  instances=lambda: st.one_of(matrices(dims(1, 5), dims(1, 5)), tall(cond=8.0)).flatmap(
                      lambda A: st.tuples(st.just(A), vectors(st.just(A.shape[1])))),
                  sides=lambda A, x: (linalg.norm2(A * x), linalg.spectral_norm(A) * linalg.norm2(x)), fields=("A", "x"),
                  provenance="R", conventions=("norms",))


@claims.check("attention_kernel_regression.factA.4.b6", "‖Ax‖₂ ≥ σ_min(A)·‖x‖₂",
              hypotheses="any A, x; σ_min(A) = min_{‖x‖=1}‖Ax‖ (paper's definition: 0 for wide A)",
              instances=lambda: st.one_of(tall(cond=8.0), rank_deficient(), wide()).flatmap(
                  lambda A: st.tuples(st.just(A), vectors(st.just(A.shape[1])))), fields=("A", "x"),
              notes="True by the paper's definition of σ_min. Under the SV convention σ_{min(n,d)} it FAILS for a "
                    "wide A (A = [1 0], x = e₂: 0 ≥ 1); the paper applies it to a wide matrix in Thm L.3 (eq. 86, "
                    "claim thmL.3.eq86).",
              provenance="R", conventions=("sigma_min",),
              vacuous_note=("True by the paper's definition σ_min(A) = min_{‖x‖=1}‖Ax‖ (§A.1), which makes it its own "
                            "definition; under the min(m,n)-th singular value it fails for a wide A (A = [1 0], x = e₂: 0 "
                            "≥ 1), the reading the proof of Theorem L.3 needs at eq. 86 (thmL.3.eq86)."))
def factA_4_b6(inst):
    A, x = inst
    n, d = A.shape
    zero = n < d or linalg.exact_rank(A) < d
    M, xm = to_mp(A), to_mp(x)

    def sides():
        with boost(0.0 if zero else cond_digits(A)):
            smin = mp.mpf(0) if zero else linalg.sigma_min(M, convention="paper")
            return smin * linalg.norm2(xm), linalg.norm2(M * xm)

    return le(sides)


@claims.check("attention_kernel_regression.factA.4.b7", "for any matrix A, κ(A) = κ(A†)",
              hypotheses="A of full rank (square or tall); κ = σ_max/σ_min with the paper's σ_min",
              expected="falsified", fields=("A",),
              instances=lambda: st.one_of(dims(1, 4).flatmap(lambda n: conditioned_matrices(n, n, max_log10_cond=6.0)),
                                          tall(n_lo=2, cond=6.0)),
              notes="Spec: AMBIGUOUS. With the paper's σ_min (the harness's reading of Fact A.4) it fails for every "
                    "tall non-square full-rank A: A† is wide, σ_min(A†) = 0, κ(A†) = ∞ ≠ κ(A) (minimal: A = [1; 0]). "
                    "Under the SV convention it holds (square and tall: equality to 40+ digits).",
              provenance="R", reading="paper's σ_min", conventions=("sigma_min", "kappa", "pinv"))
def factA_4_b7(A):
    n, d = A.shape
    M = to_mp(A)
    if n > d:
        with mp.workdps(60):
            k = linalg.cond(M)
        return fails_infinitely(k, f"A is {n}x{d} (tall): A† is wide, so σ_min(A†) = 0 and κ(A†) = ∞, "
                                   f"while κ(A) = {mp.nstr(k, 6)}")

    def sides():
        with boost(2 * cond_digits(A)):
            return linalg.cond(M), linalg.cond(mp.inverse(M))

    return eq(sides)


@claims.check("attention_kernel_regression.factA.4.b7", "for any matrix A of full rank, κ(A) = κ(A†) with κ = σ_max/σ_{min(n,d)} "
              "(singular-value convention)",
              hypotheses="A of full rank (square or tall)", repair=True, fields=("A",),
              instances=lambda: st.one_of(dims(1, 4).flatmap(lambda n: conditioned_matrices(n, n, max_log10_cond=6.0)),
                                          tall(n_lo=2, cond=6.0)),
              notes="The spec's reading under which it HOLDS: A = UΣVᵀ (thin SVD) gives A† = VΣ⁻¹Uᵀ, whose "
                    "singular values are the 1/σ_i, so σ_max/σ_min is the same. A† is formed as (AᵀA)⁻¹Aᵀ.")
def factA_4_b7_repair(A):
    M = to_mp(A)

    def sides():
        with boost(2 * cond_digits(A)):
            return linalg.cond(M), linalg.cond(mp.inverse(M.T * M) * M.T)

    return eq(sides)


@claims.check("attention_kernel_regression.factA.4.b7", "for any matrix A, κ(A) = κ(A†)",
              hypotheses="A of full rank (square or tall); κ = σ_max/σ_min with σ_min the min(m,n)-th singular value",
              alternative=True, reading="min(m,n)-th singular value", conventions=("sigma_min", "kappa", "pinv"),
              conventions_used={"sigma_min": "min(m,n)-th singular value"}, fields=("A",),
              instances=lambda: st.one_of(dims(1, 4).flatmap(lambda n: conditioned_matrices(n, n, max_log10_cond=6.0)),
                                          tall(n_lo=2, cond=6.0)),
              notes="The same instances as the claim's: with σ_min(A†) the min(m,n)-th singular value of the wide A† "
                    "(the 1/σ_i of A's), κ(A†) = κ(A); the proof of Theorem L.3 uses κ of wide matrices this way.")
def factA_4_b7_singular_values(A):
    return factA_4_b7_repair(A)


def _kappas(A, B):
    """κ(A), κ(B), κ(AB) with the paper's σ_min (AB and all ranks exact)."""
    FAB = exact_product(A, B)
    rA, rB, rAB = linalg.exact_rank(A), linalg.exact_rank(B), linalg.exact_rank(FAB)
    return ((to_mp(A), rA), (to_mp(B), rB), FAB, rAB)


def _frac_mp(F):
    return mp.matrix([[fraction(q) for q in row] for row in F])


@claims.check("attention_kernel_regression.factA.4.b8", "for any matrices A, B: κ(A) ≤ κ(AB)·κ(B)",
              hypotheses="A square (full rank), B ∈ R^{d×k}; paper's σ_min (κ = ∞ when σ_min = 0)",
              expected="falsified", fields=("A", "B"),
              instances=lambda: dims(1, 4).flatmap(lambda d: st.tuples(
                  conditioned_matrices(d, d, max_log10_cond=4.0), matrices(st.just(d), dims(1, d)))),
              notes="Fails in general (A = diag(1, 10), B = e₁: κ(A) = 10 > κ(AB)κ(B) = 1). True for square "
                    "invertible B (A = (AB)B^{-1}).", provenance="R", conventions=("sigma_min", "kappa"))
def factA_4_b8(inst):
    A, B = inst
    (Am, rA), (Bm, rB), FAB, rAB = _kappas(A, B)
    if B.shape[0] < B.shape[1] or rB < B.shape[1] or rAB < B.shape[1]:
        return trivially_true("κ(B) or κ(AB) is ∞: RHS = ∞")

    def sides():
        with boost(cond_digits(A) + cond_digits(B)):
            return kappa_paper(Am, rA), kappa_paper(_frac_mp(FAB), rAB) * kappa_paper(Bm, rB)

    return le(sides)


@claims.check("attention_kernel_regression.factA.4.b8", "for square A and square invertible B: κ(A) ≤ κ(AB)·κ(B)",
              hypotheses="A ∈ R^{d×d} full rank, B ∈ R^{d×d} invertible (κ(B) ≤ 1e4)", repair=True, fields=("A", "B"),
              instances=lambda: dims(1, 4).flatmap(lambda d: st.tuples(
                  conditioned_matrices(d, d, max_log10_cond=4.0), conditioned_matrices(d, d, max_log10_cond=4.0))),
              notes="The spec's correct version (Fact A.4 b8): A = (AB)B⁻¹ and κ(B⁻¹) = κ(B), so fact A.4 b9 "
                    "gives κ(A) ≤ κ(AB)κ(B⁻¹) = κ(AB)κ(B).")
def factA_4_b8_repair(inst):
    A, B = inst
    (Am, rA), (Bm, rB), FAB, rAB = _kappas(A, B)
    require(rB == B.shape[1] and rAB == B.shape[1], "B invertible (exact rank)")

    def sides():
        with boost(cond_digits(A) + cond_digits(B)):
            return kappa_paper(Am, rA), kappa_paper(_frac_mp(FAB), rAB) * kappa_paper(Bm, rB)

    return le(sides)


def _pairs_b9():
    return dims(1, 4).flatmap(lambda n: dims(1, 4).flatmap(lambda d: st.tuples(
        st.one_of(matrices(st.just(n), st.just(d), max_abs=4.0),
                  conditioned_matrices(max(n, d), min(n, d), max_log10_cond=4.0)
                  .map(lambda M: M if M.shape == (n, d) else M.T)),
        dims(1, 4).flatmap(lambda k: matrices(st.just(d), st.just(k), max_abs=4.0)))))


@claims.check("attention_kernel_regression.factA.4.b9", "for any matrices A, B: κ(AB) ≤ κ(A)·κ(B)",
              hypotheses="any A ∈ R^{n×d}, B ∈ R^{d×k}; paper's σ_min (κ = ∞ when σ_min = 0)",
              instances=_pairs_b9, fields=("A", "B"),
              notes="Holds with the paper's σ_min (a wide or rank-deficient factor has κ = ∞). Under the SV "
                    "convention it FAILS for wide A: A = [I₂ 0], B = [[1,0],[0,0],[0,1]] gives AB = diag(1, 0), "
                    "κ(AB) = ∞ > κ(A)κ(B) = 1.",
              provenance="R", conventions=("sigma_min", "kappa", "division_by_zero"),
              vacuous_note=("For a wide A the paper's σ_min(A) = 0, so κ(A) = ∞ and the bound holds trivially; under the "
                            "min(m,n)-th singular value it fails for a wide A (A = [I₂ 0], B = [[1,0],[0,0],[0,1]]: "
                            "κ(AB) = ∞ > κ(A)κ(B) = 1)."))
def factA_4_b9(inst):
    A, B = inst
    (Am, rA), (Bm, rB), FAB, rAB = _kappas(A, B)
    if kappa_paper(Am, rA) == mp.inf or kappa_paper(Bm, rB) == mp.inf:
        return trivially_true("κ(A) or κ(B) is ∞ (paper σ_min): RHS = ∞")
    if rAB == 0 or kappa_paper(_frac_mp(FAB), rAB) == mp.inf:
        return fails_infinitely(mp.inf, "κ(AB) = ∞ while κ(A), κ(B) finite")

    def sides():
        with boost(cond_digits(A) + cond_digits(B)):
            return kappa_paper(_frac_mp(FAB), rAB), kappa_paper(Am, rA) * kappa_paper(Bm, rB)

    return le(sides)


@claims.check("attention_kernel_regression.defA.5.note", "srank(K) ≤ rank(K)", hypotheses="K ∈ R^{n×n}, K ≠ 0",
              instances=lambda: dims(1, 6).flatmap(lambda n: st.one_of(
                  matrices(st.just(n), st.just(n), max_abs=3.0),
                  st.tuples(vectors(st.just(n)), vectors(st.just(n))).map(lambda uv: np.outer(*uv)))), fields=("K",),
              provenance="R")
def defA_5_note(K):
    r = linalg.exact_rank(K)
    if r == 0:
        return trivially_true("K = 0: srank undefined (0/0)")
    M = to_mp(K)
    return le(lambda: (linalg.stable_rank(M), mp.mpf(r)))


def _cauchy_schwarz(G):
    B = G * G.T
    return worst_pair(*((B[i, j] ** 2, B[i, i] * B[j, j]) for i in range(B.rows) for j in range(B.rows)))


claims.inequality("attention_kernel_regression.factB.3", "B PSD ⇒ B_ii B_jj ≥ B_ij² for all i, j",
                  hypotheses="B = G Gᵀ (formed exactly in mpmath), G ∈ R^{n×r}, r ≤ n (low rank included)",
                  instances=lambda: dims(1, 6).flatmap(lambda n: matrices(st.just(n), dims(1, n))), sides=_cauchy_schwarz,
                  fields=("G",),
                  provenance="R")


def _b4_instances():
    """X (n ≤ 5, d ≤ 3) rescaled so that max|XXᵀ| = r0 (attained on the diagonal, Cauchy–Schwarz),
    r = r0·(1 + slack) (slack 0 makes hypothesis (2) tight), ε = θ·min(0.1, ¼e^{−4r}), and the
    perturbation B = A^{1/2}(I + E)A^{1/2}, ‖E‖ ≤ ε, in one of three shapes: E = s·εI (B = (1 ± ε)A,
    the upper end's extremal case), a rank-2 E along A^{1/2}e_i, A^{1/2}e_j (the adversarial
    shape of the spec), or a drawn symmetric E."""
    def build(X):
        n = X.shape[0]
        return st.tuples(st.just(X), scalars(0.01, 1.5), st.one_of(st.just(0.0), scalars(0.0, 1.0)),
                         scalars(0.0, 1.0).map(lambda t: max(t, 1e-3)), scalars(-1.0, 1.0),
                         st.sampled_from(["identity", "pair", "random"]),
                         st.integers(0, n - 1), st.integers(0, n - 1), matrices(st.just(n), st.just(n)))
    X = dims(1, 5).flatmap(lambda n: matrices(st.just(n), dims(1, 3)))
    return X.filter(lambda X: np.any(X)).flatmap(build)


def _b4_sides(X, r0, slack, theta, s, shape, i, j, M):
    X = X * mp.sqrt(r0 / max(abs(v) for v in (X * X.T)))
    r = r0 * (1 + slack)
    eps = theta * min(mp.mpf("0.1"), mp.exp(-4 * r) / 4)
    n = X.rows
    A = O.exp_kernel(X)
    R = O.psd_sqrt(A)
    if shape == "identity" or (shape == "pair" and i == j):
        E = mp.eye(n) * (s * eps)
    else:
        F = R[:, i] * R[:, j].T + R[:, j] * R[:, i].T if shape == "pair" else linalg.symmetric_part(M)
        nrm = linalg.spectral_norm(F)
        E = mp.zeros(n, n) if nrm == 0 else F * (s * eps / nrm)
    B = R * (mp.eye(n) + E) * R.T
    lo, hi = (1 - mp.sqrt(eps)) * mp.exp(-r), (1 + eps) * mp.exp(r)
    pairs = [(B[a, c], hi) for a in range(n) for c in range(n)] + [(lo, B[a, c]) for a in range(n) for c in range(n)]
    return max(pairs, key=lambda mb: (mb[0] - mb[1]) / abs(mb[1]) if mb[1] != 0 else mp.inf)


claims.inequality(
    "attention_kernel_regression.lemB.4", "A = exp(XXᵀ), ε ∈ (0, 0.1), ε ≤ ¼e^{−4r}, A_ij ∈ [e^{−r}, e^r], (1−ε)A ⪯ B ⪯ (1+ε)A "
                   "⇒ B_ij ∈ [(1−√ε)e^{−r}, (1+ε)e^r] for all i, j",
    hypotheses="X ∈ R^{n×d}, n ≤ 5, d ≤ 3, rescaled to max|XXᵀ| = r0 ∈ [0.01, 1.5]; r ≥ r0 (so (2) holds); "
               "ε = θ·min(0.1, ¼e^{−4r}); B = A^{1/2}(I + E)A^{1/2} with symmetric ‖E‖₂ ≤ ε (so (3) holds): "
               "E = s·εI, a rank-2 E along A^{1/2}e_i, A^{1/2}e_j, or a drawn E scaled to norm s·ε",
    instances=_b4_instances, sides=_b4_sides, fields=("X", "r₀", "slack", "θ", "s", "shape", "i", "j", "M"),
    notes="Both ends judged; the worse one is reported. The upper end is tight (B = (1+ε)A at slack 0 attains "
          "B_ii = (1+ε)e^r: ratio 1). The proof's last line states the upper end (1−ε)e^r, which is false for the "
          "same B (spec); a sharper true bound is |B_ij − A_ij| ≤ ε√(A_ii A_jj).",
    provenance="R")


def _a8_instances():
    def build(X):
        n, d = X.shape
        return st.tuples(st.just(X), conditioned_matrices(d, d, max_log10_cond=1.5), vectors(st.just(n)))
    return tall(n_lo=1, n_hi=6, d_hi=3, cond=3.0).flatmap(build)


def _a8_sides(X, G, y):
    with boost(3 * cond_digits(X) + 2 * cond_digits(G)):
        W = G * G.T
        Uc = mp.cholesky(W)
        Xt = X * Uc
        M1, M2 = X * W * X.T * X, Xt * Xt.T * Xt
        v2 = O.lstsq_full_rank(M2, y)
        o1 = linalg.norm2(M1 * O.lstsq_full_rank(M1, y) - y)
        o2 = linalg.norm2(M2 * v2 - y)
        return mp.matrix([o1, linalg.norm2(M1 * (Uc * v2) - y)]), mp.matrix([o2, o2])


claims.identity("attention_kernel_regression.lemA.8",
                "min_v ‖XWXᵀXv − y‖ (Def A.7) is equivalent to min_ṽ ‖X̃X̃ᵀX̃ṽ − y‖ (Def A.9) "
                "with W = UUᵀ, X̃ = XU, v = Uṽ",
                hypotheses="W = GGᵀ symmetric positive definite (needed; unstated), U its Cholesky factor, X full "
                           "column rank (G0), y ∈ R^n; judged: equal optimal values, and v = Uṽ* attains the optimum "
                           "of A.7",
                instances=_a8_instances, sides=_a8_sides, scale=lambda X, G, y: linalg.norm2(y), fields=("X", "G", "y"),
                notes="Needs W ≻ 0 (unstated). Derived stronger fact: for any invertible W both optima equal "
                      "‖(I−XX†)y‖.", provenance="R")
