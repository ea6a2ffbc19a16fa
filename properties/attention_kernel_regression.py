"""Claims of "Solving Attention Kernel Regression Problem via Pre-conditioner" (Song, Yin, Zhang
2023; paper 004), sections A–K: facts, sketching lemmas, the regression algorithms 1–6.

Spec: shared/spec/attention_kernel_regression.md.  Each check is named after its claim id; the
oracle (:mod:`oracle.attention_kernel_regression`) judges at 50+ digits from the exact float64
instance.  Ill-conditioned instances are judged at a working precision raised by the digits the
conditioning costs (:func:`_boost`), so "equal" means equal to 40+ digits after that loss.

Conventions recorded here once:
- σ_min in Fact A.4 is the paper's ``min_{‖x‖=1}‖Mx‖`` (0 for a wide matrix; exactly 0 for an
  exactly rank-deficient one, decided over the rationals).  The SV-convention outcome is in notes.
- Randomised guarantees (Lemma C.5, F.1–I.1, Theorems 1.4, K.1's sensible form) are statistical:
  k seeded trials, binomial rule (spec T1).  The running-time part of a claim is judged once per
  process on operation counts of ``solvers`` across a size sweep (fitted log-log exponent against
  the claimed form's exponent on the same grid, + 0.2); a failure there fails every trial.
- Sketch bits come from the implementation (adapters ``*_bits``); the matrix is rebuilt from the
  bits by the oracle, never taken from the implementation.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import attention_kernel_regression as O
from oracle import linalg, to_mp

from .compare import eq, float_outcome, le
from .registry import Outcome, claim
from .strategies import conditioned_matrices, dims, matrices, scalars, vectors
from .validate import adapter

PAPER = "attention_kernel_regression"
U = 2.0**-53
EPS_OSE = 0.1


# ============================================================================ helpers


def _boost(log10_cond: float):
    """Work at the current precision plus the digits a condition number 10**log10_cond costs."""
    extra = int(min(max(log10_cond, 0.0), 300.0)) + 10
    return mp.workdps(mp.dps + extra)


def _lc(A) -> float:
    """log10 κ(A) estimated in float64 (only chooses a working precision; never a verdict)."""
    s = np.linalg.svd(np.asarray(A, dtype=np.float64), compute_uv=False)
    if s.size == 0 or s[-1] <= 0 or s[0] == 0:
        return 300.0
    return float(min(300.0, math.log10(s[0] / s[-1]) + 1))


def _frac_matrix(A):
    return [[Fraction(float(v)) for v in row] for row in np.asarray(A, dtype=np.float64)]


def _frac_mul(X, Y):
    return [[sum((X[i][k] * Y[k][j] for k in range(len(Y))), Fraction(0)) for j in range(len(Y[0]))]
            for i in range(len(X))]


def _frac_to_mp(F):
    return mp.matrix([[mp.mpf(q.numerator) / q.denominator for q in row] for row in F])


def _kappa_paper(M, rank):
    """κ with the paper's σ_min: ∞ for a wide or rank-deficient matrix, σ_1/σ_c otherwise."""
    if M.rows < M.cols or rank < M.cols:
        return mp.inf
    s = linalg.singular_values(M)
    return s[0] / s[-1]


def _unit(v):
    return v / linalg.norm2(v)


def _orth(G):
    """An orthonormal basis (mp QR) of the columns of a full-column-rank mp matrix."""
    Q, _ = mp.qr(G, mode="skinny")
    return Q


def _fail_inf(measured, note):
    return Outcome(False, math.inf, float(measured), math.inf, None, note)


def _trivial(note):
    return Outcome(True, 0.0, 0.0, math.inf, None, note)


def _tall(n_lo=1, n_hi=6, d_hi=4, cond=8.0):
    return dims(n_lo, n_hi).flatmap(
        lambda n: dims(1, min(n, d_hi)).flatmap(lambda d: conditioned_matrices(st.just(n), st.just(d),
                                                                                max_log10_cond=cond)))


def _rank_deficient():
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


def _wide():
    return dims(1, 3).flatmap(lambda n: matrices(n, dims(n + 1, n + 3)))


# ============================================================================ §A facts


@claim("attention_kernel_regression.factA.1", statement="P = A(AᵀA)^{-1}Aᵀ satisfies P² = P",
       hypotheses="A ∈ R^{n×d} with AᵀA invertible (G0); κ(A) up to 1e8", expected="verified",
       strategy=lambda: _tall(cond=8.0))
def factA_1(A):
    """attention_kernel_regression.factA.1."""
    M = to_mp(A)
    c = 2 * _lc(A)

    def sides():
        with _boost(c):
            P = O.projector(M)
            return P * P, P

    return eq(sides)


@claim("attention_kernel_regression.factA.4.b1", statement="for any A, ‖(AᵀA)†‖ = σ_min(A)^{-2}",
       hypotheses="any A (none stated); σ_min(A) = min_{‖x‖=1}‖Ax‖ (paper)", expected="falsified",
       strategy=lambda: st.one_of(_tall(cond=8.0), _rank_deficient(), _wide()),
       notes="Holds under G0 (full column rank; 0 failures there, equality to 40+ digits). Fails for an "
             "exactly rank-deficient A (σ_min = 0, RHS = ∞, LHS = σ_r(A)^{-2} finite) under either σ_min "
             "convention, and for a wide A under the paper's σ_min. Correct form: ‖(AᵀA)†‖ = σ_r(A)^{-2}, "
             "r = rank(A).")
def factA_4_b1(A):
    """attention_kernel_regression.factA.4.b1."""
    r = O.exact_rank(A)
    M = to_mp(A)
    n, d = A.shape
    if r == 0:
        return _fail_inf(0.0, "A = 0: ‖(AᵀA)†‖ = 0 but σ_min(A)^{-2} = ∞")
    if n < d or r < d:
        with mp.workdps(50):
            lhs = O.pinv_norm(M.T * M, r)
        return _fail_inf(lhs, f"rank(A) = {r} < d = {d} or wide: σ_min(A) = 0 (paper), RHS ∞; "
                              f"LHS ‖(AᵀA)†‖ = σ_r^(-2) = {mp.nstr(lhs, 6)}")
    c = 2 * _lc(A)

    def sides():
        with _boost(c):
            return O.pinv_norm(M.T * M, d), O.sigma_min(M) ** -2

    return eq(sides)


@claim("attention_kernel_regression.factA.4.b2", statement="for any A, ‖AᵀA‖ = σ_max(A)²",
       hypotheses="any A", expected="verified",
       strategy=lambda: st.one_of(matrices(dims(1, 5), dims(1, 5)), _tall(cond=8.0)))
def factA_4_b2(A):
    """attention_kernel_regression.factA.4.b2."""
    M = to_mp(A)
    return eq(lambda: (linalg.spectral_norm(M.T * M), linalg.spectral_norm(M) ** 2))


@claim("attention_kernel_regression.factA.4.b3",
       statement="for any A and integer k ≥ 1, ‖((AᵀA)^k)†‖ ≤ σ_min(A)^{-2k}",
       hypotheses="any A, k ∈ {1..4}; σ_min paper convention (RHS = ∞ when σ_min = 0)", expected="verified",
       strategy=lambda: st.tuples(st.one_of(_tall(cond=6.0), _rank_deficient(), _wide()), dims(1, 4)),
       notes="Equality under G0 (decided to 40+ digits at a precision raised by 2k·log10 κ). Trivially true "
             "(RHS = ∞) for rank-deficient or wide A under the paper's σ_min; under the SV convention a wide "
             "full-row-rank A also gives equality.")
def factA_4_b3(inst):
    """attention_kernel_regression.factA.4.b3."""
    A, k = inst
    r = O.exact_rank(A)
    n, d = A.shape
    if n < d or r < d:
        return _trivial(f"σ_min(A) = 0 (rank {r}, shape {A.shape}): RHS = ∞")
    M = to_mp(A)
    c = 2 * k * _lc(A)

    def sides():
        with _boost(c):
            G = M.T * M
            P = mp.eye(d)
            for _ in range(k):
                P = P * G
            return O.pinv_norm(linalg.symmetric_part(P), d), O.sigma_min(M) ** (-2 * k)

    return le(sides)


@claim("attention_kernel_regression.factA.4.b4",
       statement="for any orthonormal column basis U ∈ R^{n×d} (n ≥ d), ‖Ux‖₂ = ‖x‖₂",
       hypotheses="U with orthonormal columns (built exactly in mpmath as the Q factor of a drawn "
                  "full-rank matrix), x ∈ R^d", expected="verified",
       strategy=lambda: _tall(cond=4.0).flatmap(lambda G: st.tuples(st.just(G), vectors(G.shape[1]))))
def factA_4_b4(inst):
    """attention_kernel_regression.factA.4.b4."""
    G, x = inst
    Gm, xm = to_mp(G), to_mp(x)

    def sides():
        with _boost(_lc(G)):
            return linalg.norm2(_orth(Gm) * xm), linalg.norm2(xm)

    return eq(sides)


@claim("attention_kernel_regression.factA.4.b5", statement="‖Ax‖ ≤ ‖A‖·‖x‖₂ = σ_max(A)·‖x‖₂",
       hypotheses="any A, x", expected="verified",
       strategy=lambda: st.one_of(matrices(dims(1, 5), dims(1, 5)), _tall(cond=8.0)).flatmap(
           lambda A: st.tuples(st.just(A), vectors(A.shape[1]))))
def factA_4_b5(inst):
    """attention_kernel_regression.factA.4.b5."""
    A, x = map(to_mp, inst)
    return le(lambda: (linalg.norm2(A * x), linalg.spectral_norm(A) * linalg.norm2(x)))


@claim("attention_kernel_regression.factA.4.b6", statement="‖Ax‖₂ ≥ σ_min(A)·‖x‖₂",
       hypotheses="any A, x; σ_min(A) = min_{‖x‖=1}‖Ax‖ (paper's definition: 0 for wide A)",
       expected="verified",
       strategy=lambda: st.one_of(_tall(cond=8.0), _rank_deficient(), _wide()).flatmap(
           lambda A: st.tuples(st.just(A), vectors(A.shape[1]))),
       notes="True by the paper's definition of σ_min. Under the SV convention σ_{min(n,d)} it FAILS for a "
             "wide A (A = [1 0], x = e₂: 0 ≥ 1); the paper applies it to a wide matrix in Thm L.3 (eq. 86, "
             "claim thmL.3.eq86).")
def factA_4_b6(inst):
    """attention_kernel_regression.factA.4.b6."""
    A, x = inst
    r = O.exact_rank(A)
    n, d = A.shape
    M, xm = to_mp(A), to_mp(x)
    zero = n < d or r < d
    c = _lc(A) if not zero else 0.0

    def sides():
        with _boost(c):
            smin = mp.mpf(0) if zero else O.sigma_min(M)
            return smin * linalg.norm2(xm), linalg.norm2(M * xm)

    return le(sides)


@claim("attention_kernel_regression.factA.4.b7", statement="for any matrix A, κ(A) = κ(A†)",
       hypotheses="A of full rank (square or tall); κ = σ_max/σ_min with the paper's σ_min",
       expected="falsified",
       strategy=lambda: st.one_of(dims(1, 4).flatmap(lambda n: conditioned_matrices(n, n, max_log10_cond=6.0)),
                                  _tall(n_lo=2, cond=6.0)),
       notes="Spec: AMBIGUOUS. With the paper's σ_min (the harness's reading of Fact A.4) it fails for every "
             "tall non-square full-rank A: A† is wide, σ_min(A†) = 0, κ(A†) = ∞ ≠ κ(A) (minimal: A = [1; 0]). "
             "Under the SV convention it holds (square and tall: equality to 40+ digits).")
def factA_4_b7(A):
    """attention_kernel_regression.factA.4.b7."""
    n, d = A.shape
    M = to_mp(A)
    c = 2 * _lc(A)
    if n > d:
        with mp.workdps(60):
            k = O.cond(M, convention="sv")
        return _fail_inf(k, f"A is {n}x{d} (tall): A† is wide, so σ_min(A†) = 0 and κ(A†) = ∞, "
                            f"while κ(A) = {mp.nstr(k, 6)}")

    def sides():
        with _boost(c):
            return O.cond(M, convention="sv"), O.cond(mp.inverse(M), convention="sv")

    return eq(sides)


@claim("attention_kernel_regression.factA.4.b8", statement="for any matrices A, B: κ(A) ≤ κ(AB)·κ(B)",
       hypotheses="A square (full rank), B ∈ R^{d×k}; paper's σ_min (κ = ∞ when σ_min = 0)",
       expected="falsified",
       strategy=lambda: dims(1, 4).flatmap(lambda d: st.tuples(
           conditioned_matrices(d, d, max_log10_cond=4.0), matrices(d, dims(1, d)))),
       notes="Fails in general (A = diag(1, 10), B = e₁: κ(A) = 10 > κ(AB)κ(B) = 1). True for square "
             "invertible B (A = (AB)B^{-1}).")
def factA_4_b8(inst):
    """attention_kernel_regression.factA.4.b8."""
    A, B = inst
    FA, FB = _frac_matrix(A), _frac_matrix(B)
    FAB = _frac_mul(FA, FB)
    rA, rB, rAB = linalg.exact_rank(FA), linalg.exact_rank(FB), linalg.exact_rank(FAB)
    Am, Bm = to_mp(A), to_mp(B)
    if (B.shape[0] < B.shape[1] or rB < B.shape[1]) or rAB < B.shape[1]:
        return _trivial("κ(B) or κ(AB) is ∞: RHS = ∞")
    c = _lc(A) + _lc(B)

    def sides():
        with _boost(c):
            ABm = _frac_to_mp(FAB)
            return _kappa_paper(Am, rA), _kappa_paper(ABm, rAB) * _kappa_paper(Bm, rB)

    return le(sides)


def _pairs_b9():
    return dims(1, 4).flatmap(lambda n: dims(1, 4).flatmap(lambda d: st.tuples(
        st.one_of(matrices(n, d, max_abs=4.0), conditioned_matrices(max(n, d), min(n, d), max_log10_cond=4.0)
                  .map(lambda M: M if M.shape == (n, d) else M.T)),
        dims(1, 4).flatmap(lambda k: matrices(d, k, max_abs=4.0)))))


@claim("attention_kernel_regression.factA.4.b9", statement="for any matrices A, B: κ(AB) ≤ κ(A)·κ(B)",
       hypotheses="any A ∈ R^{n×d}, B ∈ R^{d×k}; paper's σ_min (κ = ∞ when σ_min = 0)", expected="verified",
       strategy=_pairs_b9,
       notes="Holds with the paper's σ_min (a wide or rank-deficient factor has κ = ∞). Under the SV "
             "convention it FAILS for wide A: A = [I₂ 0], B = [[1,0],[0,0],[0,1]] gives AB = diag(1, 0), "
             "κ(AB) = ∞ > κ(A)κ(B) = 1.")
def factA_4_b9(inst):
    """attention_kernel_regression.factA.4.b9."""
    A, B = inst
    FA, FB = _frac_matrix(A), _frac_matrix(B)
    FAB = _frac_mul(FA, FB)
    rA, rB, rAB = linalg.exact_rank(FA), linalg.exact_rank(FB), linalg.exact_rank(FAB)
    Am, Bm = to_mp(A), to_mp(B)
    ABm = _frac_to_mp(FAB)
    if _kappa_paper(Am, rA) == mp.inf or _kappa_paper(Bm, rB) == mp.inf:
        return _trivial("κ(A) or κ(B) is ∞ (paper σ_min): RHS = ∞")
    if rAB == 0 or _kappa_paper(ABm, rAB) == mp.inf:
        return _fail_inf(mp.inf, "κ(AB) = ∞ while κ(A), κ(B) finite")
    c = _lc(A) + _lc(B)

    def sides():
        with _boost(c):
            return _kappa_paper(_frac_to_mp(FAB), rAB), _kappa_paper(Am, rA) * _kappa_paper(Bm, rB)

    return le(sides)


@claim("attention_kernel_regression.defA.5.note", statement="srank(K) ≤ rank(K)",
       hypotheses="K ∈ R^{n×n}, K ≠ 0", expected="verified",
       strategy=lambda: dims(1, 6).flatmap(lambda n: st.one_of(
           matrices(n, n, max_abs=3.0),
           st.tuples(vectors(n), vectors(n)).map(lambda uv: np.outer(uv[0], uv[1])))))
def defA_5_note(K):
    """attention_kernel_regression.defA.5.note."""
    r = O.exact_rank(K)
    if r == 0:
        return _trivial("K = 0: srank undefined (0/0)")
    M = to_mp(K)
    return le(lambda: (O.srank(M), mp.mpf(r)))


@claim("attention_kernel_regression.factB.3", statement="B PSD ⇒ B_ii B_jj ≥ B_ij² for all i, j",
       hypotheses="B = G Gᵀ (formed exactly in mpmath), G ∈ R^{n×r}, r ≤ n (low rank included)",
       expected="verified",
       strategy=lambda: dims(1, 6).flatmap(lambda n: matrices(n, dims(1, n))))
def factB_3(G):
    """attention_kernel_regression.factB.3."""
    Gm = to_mp(G)

    def sides():
        B = Gm * Gm.T
        n = B.rows
        return max(((B[i, j] ** 2, B[i, i] * B[j, j]) for i in range(n) for j in range(n)),
                   key=lambda mb: mb[0] - mb[1])

    return le(sides)


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
                         st.integers(0, n - 1), st.integers(0, n - 1), matrices(n, n))
    X = dims(1, 5).flatmap(lambda n: matrices(n, dims(1, 3)))
    return X.filter(lambda X: np.any(X)).flatmap(build)


@claim("attention_kernel_regression.lemB.4",
       statement="A = exp(XXᵀ), ε ∈ (0, 0.1), ε ≤ ¼e^{−4r}, A_ij ∈ [e^{−r}, e^r], (1−ε)A ⪯ B ⪯ (1+ε)A "
                 "⇒ B_ij ∈ [(1−√ε)e^{−r}, (1+ε)e^r] for all i, j",
       hypotheses="X ∈ R^{n×d}, n ≤ 5, d ≤ 3, rescaled to max|XXᵀ| = r0 ∈ [0.01, 1.5]; r ≥ r0 (so (2) holds); "
                  "ε = θ·min(0.1, ¼e^{−4r}); B = A^{1/2}(I + E)A^{1/2} with symmetric ‖E‖₂ ≤ ε (so (3) holds): "
                  "E = s·εI, a rank-2 E along A^{1/2}e_i, A^{1/2}e_j, or a drawn E scaled to norm s·ε",
       expected="verified", strategy=_b4_instances,
       notes="Both ends judged; the worse one is reported. The upper end is tight (B = (1+ε)A at slack 0 "
             "attains B_ii = (1+ε)e^r: ratio 1). The proof's last line states the upper end (1−ε)e^r, which "
             "is false for the same B (spec); a sharper true bound is |B_ij − A_ij| ≤ ε√(A_ii A_jj).")
def lemB_4(inst):
    """attention_kernel_regression.lemB.4."""
    X, r0, slack, theta, s, shape, i, j, M = inst
    Xm = to_mp(X)
    scale = mp.sqrt(mp.mpf(r0) / max(abs(v) for v in (Xm * Xm.T)))
    Xm = Xm * scale
    r = mp.mpf(r0) * (1 + mp.mpf(slack))
    eps = mp.mpf(theta) * min(mp.mpf("0.1"), mp.exp(-4 * r) / 4)
    n = Xm.rows

    def sides():
        A = O.exp_kernel(Xm)
        R = O.psd_sqrt(A)
        if shape == "identity" or (shape == "pair" and i == j):
            E = mp.eye(n) * (mp.mpf(s) * eps)
        else:
            if shape == "pair":
                u, v = R[:, i], R[:, j]
                F = u * v.T + v * u.T
            else:
                F = linalg.symmetric_part(to_mp(M))
            nrm = linalg.spectral_norm(F)
            if nrm == 0:
                E = mp.zeros(n, n)
            else:
                E = F * (mp.mpf(s) * eps / nrm)
        B = R * (mp.eye(n) + E) * R.T
        lo, hi = (1 - mp.sqrt(eps)) * mp.exp(-r), (1 + eps) * mp.exp(r)
        pairs = [(B[a, c], hi) for a in range(n) for c in range(n)]
        pairs += [(lo, B[a, c]) for a in range(n) for c in range(n)]
        return max(pairs, key=lambda mb: (mb[0] - mb[1]) / abs(mb[1]) if mb[1] != 0 else mp.inf)

    return le(sides)


@claim("attention_kernel_regression.factD.1",
       statement="(∀ unit x: 1−ε ≤ ‖Ax‖² ≤ 1+ε) ⇔ ‖AᵀA − I‖ ≤ ε",
       hypotheses="any A ∈ R^{n×d}, ε ≥ 0; judged as the identity max_{‖x‖=1}|‖Ax‖² − 1| = ‖AᵀA − I‖ "
                  "(the smallest ε on each side), the left computed from the SVD of A",
       expected="verified",
       strategy=lambda: st.one_of(matrices(dims(1, 5), dims(1, 5), max_abs=2.0), _tall(cond=3.0)))
def factD_1(A):
    """attention_kernel_regression.factD.1."""
    M = to_mp(A)
    n, d = A.shape

    def sides():
        s = linalg.singular_values(M)
        lo = mp.mpf(0) if n < d else s[-1] ** 2
        return max(s[0] ** 2 - 1, 1 - lo), linalg.spectral_norm(M.T * M - mp.eye(d))

    # both sides come from differences of terms of size 1 + σ_max² (cancellation): that is the scale
    return eq(sides, scale=lambda: 1 + linalg.spectral_norm(M) ** 2)


# ============================================================================ §D lemmas


def _d2_instances():
    def build(A):
        n = A.shape[0]
        return st.tuples(st.just(A), scalars(0.001, 0.9), st.lists(st.booleans(), min_size=n, max_size=n))
    return _tall(n_lo=2, n_hi=4, d_hi=2, cond=4.0).flatmap(build)


@claim("attention_kernel_regression.lemD.2",
       statement="(1−ε)AᵀA ⪯ AᵀSᵀSA ⪯ (1+ε)AᵀA, x' = argmin‖AᵀSᵀSAx − b‖ ⇒ ‖AᵀAx' − b‖ ≤ ε‖b‖",
       hypotheses="A ∈ R^{n×d} full column rank (n ≤ 4, d ≤ 2, κ ≤ 1e4), ε ∈ [0.001, 0.9], S diagonal "
                  "(sampling-and-rescaling) with SᵀS = diag(1 ± ε) (so the sandwich holds exactly); b ∈ R^d the top "
                  "right singular vector of AᵀA(AᵀSᵀSA)^{-1} − I (spec's check)", expected="falsified",
       strategy=_d2_instances,
       notes="Spec: FAILS; true bound (ε/(1−ε))·κ(A)·‖b‖. The search finds ratios ≈ κ(A).")
def lemD_2(inst):
    """attention_kernel_regression.lemD.2."""
    A, eps, t = inst
    Am, e = to_mp(A), mp.mpf(eps)
    tm = to_mp(np.where(t, 1.0, -1.0))
    c = 2 * _lc(A)

    def parts():
        D2 = mp.diag([1 + e * tm[i] for i in range(tm.rows)])
        G = Am.T * Am
        Ms = Am.T * D2 * Am
        E = G * mp.inverse(Ms) - mp.eye(G.rows)
        _, _, V = mp.svd_r(E)
        b = V[0, :].T
        x = linalg.solve(Ms, b)
        return G, x, b

    def sides():
        with _boost(c):
            G, x, b = parts()
            return linalg.norm2(G * x - b), e * linalg.norm2(b)

    out = le(sides)
    with _boost(c):
        G, x, b = parts()
        k = O.cond(Am, convention="sv")
        corrected = linalg.norm2(G * x - b) / (e / (1 - e) * k * linalg.norm2(b))
    return Outcome(out.holds, out.ratio, out.measured, out.bound, out.digits,
                   f"κ(A) = {mp.nstr(k, 4)}; ratio to the corrected bound (ε/(1−ε))κ‖b‖: {mp.nstr(corrected, 4)}")


def _d3_instances():
    def build(d):
        return st.tuples(st.lists(scalars(0.75, 1.25), min_size=d, max_size=d),
                         matrices(d, d, max_abs=1.0), matrices(d, d, max_abs=1.0), st.booleans(),
                         vectors(d), vectors(d), dims(1, 6))
    return dims(1, 5).flatmap(build)


@claim("attention_kernel_regression.lemD.3",
       statement="B PSD with 3/4 ≤ ‖Bx‖ ≤ 5/4 for unit x; x_{t+1} = x_t − Bᵀ(Bx_t − y) ⇒ "
                 "‖B(x_t − x*)‖ ≤ c^t ‖B(x₀ − x*)‖ for some c ∈ (0, 0.9]",
       hypotheses="B = V diag(s) Vᵀ (PSD) or U diag(s) Vᵀ (square, not PSD), s_i ∈ [3/4, 5/4], U, V orthogonal "
                  "(mpmath QR of drawn factors), x₀, y ∈ R^d, t ≤ 6; judged with c = 9/16 (the proof's constant, "
                  "which implies the stated c ≤ 0.9)",
       expected="verified", strategy=_d3_instances,
       notes="Holds with c = 9/16, tight (B = (5/4)I attains it); PSD is not needed.")
def lemD_3(inst):
    """attention_kernel_regression.lemD.3."""
    s, G1, G2, psd, x0, y, T = inst
    d = len(s)

    def sides():
        V = _orth(to_mp(G1) + 2 * mp.eye(d))
        Uo = V if psd else _orth(to_mp(G2) + 2 * mp.eye(d))
        B = Uo * mp.diag([mp.mpf(v) for v in s]) * V.T
        ym = to_mp(y)
        xs = linalg.solve(B, ym)
        x = to_mp(x0)
        e0 = linalg.norm2(B * (x - xs))
        if e0 == 0:
            return mp.mpf(0), mp.mpf(1)
        worst = mp.mpf(0)
        c = mp.mpf(9) / 16
        for t in range(1, T + 1):
            x = x - B.T * (B * x - ym)
            worst = max(worst, linalg.norm2(B * (x - xs)) / (c**t * e0))
        return worst, mp.mpf(1)

    return le(sides)


def _d4_instances():
    def build(A):
        n, d = A.shape
        return st.tuples(st.just(A), vectors(n), scalars(1e-4, 1.0), scalars(0.0, 1.0), vectors(d), st.booleans())
    return _tall(n_lo=2, n_hi=6, d_hi=3, cond=6.0).filter(lambda A: A.shape[0] > A.shape[1]).flatmap(build)


@claim("attention_kernel_regression.lemD.4",
       statement="‖Ax' − b‖ ≤ (1+ε₁)·min_x‖Ax − b‖ ⇒ ‖x' − x*‖ ≤ O(√ε₁)·‖Ax* − b‖/σ_min(A)",
       hypotheses="A full column rank (G0), ε₁ ∈ [1e-4, 1]; x' = x* + τv with ‖Ax' − b‖ = (1+θ ε₁')OPT "
                  "(θ ∈ [0,1]), v the smallest right singular vector or a drawn direction; O(√ε₁) = 2√ε₁ "
                  "(the proof's constant)", expected="verified", strategy=_d4_instances,
       notes="Exact worst case sqrt(2ε₁ + ε₁²)·OPT/σ_min, so the ratio is ≤ √3/2 for ε₁ ≤ 1.")
def lemD_4(inst):
    """attention_kernel_regression.lemD.4."""
    A, b, eps, theta, v, smallest = inst
    Am, bm, e = to_mp(A), to_mp(b), mp.mpf(eps)
    c = 2 * _lc(A)

    def sides():
        with _boost(c):
            xs = O.lstsq_full_rank(Am, bm)
            opt = linalg.norm2(Am * xs - bm)
            smin = O.sigma_min(Am)
            if smallest or linalg.norm2(to_mp(v)) == 0:
                _, _, V = mp.svd_r(Am)
                u = V[V.rows - 1, :].T
            else:
                u = _unit(to_mp(v))
            # ‖A(x* + τu) − b‖² = OPT² + τ²‖Au‖² (residual ⟂ range A); target (1 + θ ε)·OPT
            tau = opt * mp.sqrt((1 + theta * e) ** 2 - 1) / linalg.norm2(Am * u)
            return tau * linalg.norm2(u), 2 * mp.sqrt(e) * opt / smin

    return le(sides)


def _d5_instances():
    def build(A):
        d = A.shape[1]
        return st.tuples(st.just(A), vectors(d), scalars(1e-6, 0.99), scalars(0.0, 1.0), vectors(d), st.booleans())
    return _tall(cond=6.0).flatmap(build)


@claim("attention_kernel_regression.lemD.5",
       statement="‖AᵀAx' − b‖ ≤ ε₂‖b‖ ⇒ ‖x' − x*‖ ≤ ε₂‖b‖/σ_min(A)²",
       hypotheses="A full column rank (G0), b ∈ R^d, ε₂ ∈ (0, 1); x' = x* + (AᵀA)^{-1}e, ‖e‖ = θε₂‖b‖ along the "
                  "smallest eigenvector or a drawn direction", expected="verified", strategy=_d5_instances,
       notes="Tight: attained along the smallest singular direction with θ = 1.")
def lemD_5(inst):
    """attention_kernel_regression.lemD.5."""
    A, b, eps, theta, v, smallest = inst
    Am, bm, e = to_mp(A), to_mp(b), mp.mpf(eps)
    c = 2 * _lc(A)
    if not np.any(b):
        return _trivial("b = 0")

    def sides():
        with _boost(c):
            G = Am.T * Am
            if smallest or linalg.norm2(to_mp(v)) == 0:
                E, Q = mp.eigsy(linalg.symmetric_part(G))
                i = min(range(G.rows), key=lambda k: E[k])
                u = Q[:, i]
            else:
                u = _unit(to_mp(v))
            err = linalg.solve(G, u * (theta * e * linalg.norm2(bm)))
            return linalg.norm2(err), e * linalg.norm2(bm) / O.sigma_min(Am) ** 2

    return le(sides)


# ============================================================================ §A.8, §E, §3


def _a8_instances():
    def build(X):
        n, d = X.shape
        return st.tuples(st.just(X), conditioned_matrices(d, d, max_log10_cond=1.5), vectors(n))
    return _tall(n_lo=1, n_hi=6, d_hi=3, cond=3.0).flatmap(build)


@claim("attention_kernel_regression.lemA.8",
       statement="min_v ‖XWXᵀXv − y‖ (Def A.7) is equivalent to min_ṽ ‖X̃X̃ᵀX̃ṽ − y‖ (Def A.9) with W = UUᵀ, "
                 "X̃ = XU, v = Uṽ",
       hypotheses="W = GGᵀ symmetric positive definite (needed; unstated), U its Cholesky factor, X full column "
                  "rank (G0), y ∈ R^n; judged: equal optimal values, and v = Uṽ* attains the optimum of A.7",
       expected="verified", strategy=_a8_instances,
       notes="Needs W ≻ 0 (unstated). Derived stronger fact: for any invertible W both optima equal ‖(I−XX†)y‖.")
def lemA_8(inst):
    """attention_kernel_regression.lemA.8."""
    X, G, y = inst
    Xm, Gm, ym = to_mp(X), to_mp(G), to_mp(y)
    c = 3 * _lc(X) + 2 * _lc(G)

    def sides():
        with _boost(c):
            W = Gm * Gm.T
            Uc = mp.cholesky(W)
            Xt = Xm * Uc
            M1 = Xm * W * Xm.T * Xm
            M2 = Xt * Xt.T * Xt
            v1 = O.lstsq_full_rank(M1, ym)
            v2 = O.lstsq_full_rank(M2, ym)
            o1 = linalg.norm2(M1 * v1 - ym)
            o2 = linalg.norm2(M2 * v2 - ym)
            o3 = linalg.norm2(M1 * (Uc * v2) - ym)
            return mp.matrix([o1, o3]), mp.matrix([o2, o2])

    return eq(sides, scale=lambda: linalg.norm2(ym))


def _e6_instances():
    return dims(1, 3).flatmap(lambda d: st.tuples(matrices(dims(1, 5), st.just(d)),
                                                  conditioned_matrices(d, d, max_log10_cond=1.5)))


@claim("attention_kernel_regression.lemE.6",
       statement="with the unknown restricted to PD matrices, L_mid(U) = ‖Y − XUXᵀX‖_F² and "
                 "L_right(V) = ‖Y − XXᵀXV‖_F² are equivalent (X̃ = XU^{1/2}, V = U^{-1/2})",
       hypotheses="U = GGᵀ ≻ 0, X ∈ R^{n×d}; judged: the reparametrisation identity XUXᵀX = X̃X̃ᵀX̃U^{-1/2} "
                  "(so L_mid(U; X) = L_right(U^{-1/2}; X̃))", expected="verified", strategy=_e6_instances,
       notes="Spec: AMBIGUOUS. The identity holds (checked), but X̃ = XU^{1/2} depends on the unknown U, so this "
             "is not an equivalence of the two problems on the same data: spec's X (6×2), Y give "
             "inf_{U⪰0} L_mid = 15.9006 vs inf_{V⪰0} L_right = 16.5588 (projected gradient, float64; an "
             "infimum over the PSD cone is not certified by this oracle). Unconstrained, both equal "
             "‖(I−P_X)Y‖_F².")
def lemE_6(inst):
    """attention_kernel_regression.lemE.6."""
    X, G = inst
    Xm, Gm = to_mp(X), to_mp(G)
    c = 2 * _lc(G)

    def sides():
        with _boost(c):
            Um = Gm * Gm.T
            E, Q = mp.eigsy(linalg.symmetric_part(Um))
            half = Q * mp.diag([mp.sqrt(E[i]) for i in range(E.rows)]) * Q.T
            mhalf = Q * mp.diag([1 / mp.sqrt(E[i]) for i in range(E.rows)]) * Q.T
            Xt = Xm * half
            return Xm * Um * Xm.T * Xm, Xt * Xt.T * Xt * mhalf

    return eq(sides)


@claim("attention_kernel_regression.rem3.1",
       statement="solving eq. (4) = applying Algorithm 2 twice: (AᵀA)²x = b ⇔ AᵀAy = b, AᵀAx = y",
       hypotheses="A full column rank (G0), b ∈ R^d (exact arithmetic)", expected="verified",
       strategy=lambda: _tall(cond=6.0).flatmap(lambda A: st.tuples(st.just(A), vectors(A.shape[1]))))
def rem3_1(inst):
    """attention_kernel_regression.rem3.1."""
    A, b = inst
    Am, bm = to_mp(A), to_mp(b)
    c = 4 * _lc(A)

    def sides():
        with _boost(c):
            G = Am.T * Am
            y = linalg.solve(G, bm)
            x = linalg.solve(G, y)
            return G * G * x, bm

    return eq(sides, scale=lambda: linalg.norm2(bm) + 1)


@claim("attention_kernel_regression.id.opt",
       statement="under G0: min_x‖AAᵀAx − y‖ = min_x‖A(AᵀA)^j x − y‖ = ‖(I − P_A)y‖; "
                 "min_x‖(AᵀA)^j x − b‖ = 0 at x = (AᵀA)^{-j}b",
       hypotheses="A full column rank, y ∈ R^n, b ∈ R^d, j ∈ {0..3}", expected="verified",
       strategy=lambda: _tall(cond=3.0).flatmap(lambda A: st.tuples(
           st.just(A), vectors(A.shape[0]), vectors(A.shape[1]), dims(0, 3))))
def id_opt(inst):
    """attention_kernel_regression.id.opt (stacked: the three optimal values and the zero residual)."""
    A, y, b, j = inst
    Am, ym, bm = to_mp(A), to_mp(y), to_mp(b)
    c = (2 * j + 3) * _lc(A)

    def sides():
        with _boost(c):
            P = O.projector(Am)
            ref = linalg.norm2(ym - P * ym)
            o1 = O.opt_attention(Am, ym, 1)
            oj = O.opt_attention(Am, ym, j)
            Gj = O.psd_power(Am, j)
            r0 = linalg.norm2(Gj * linalg.solve(Gj, bm) - bm) if j else mp.mpf(0)
            return mp.matrix([o1, oj, r0]), mp.matrix([ref, ref, 0])

    return eq(sides, scale=lambda: linalg.norm2(ym) + linalg.norm2(bm))


# ============================================================================ Lemma C.5 (sketches)

_SE_N = (300, 512)  # 300: exercises the zero padding to 512
_SE_EPS, _SE_DELTA = 0.5, 0.1


def _se_instance(seed: int):
    """A fixed hard data matrix for trial ``seed``: coherent, spiky, or ill-conditioned Gaussian."""
    rng = np.random.default_rng(10_000 + seed)
    n = _SE_N[seed % 2]
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


def _se_rows(n, d, eps, delta):
    return int(math.ceil(d * math.log(n / delta) / eps**2))


def _se_judge(kind, bits, A, eps, note):
    SG, G = O.sketch_grams(kind, bits, A)

    def sides():
        return O.distortion_from_grams(SG, G), mp.mpf(eps)

    out = le(sides)
    return Outcome(out.holds, out.ratio, out.measured, out.bound, out.digits, note)


@functools.lru_cache(maxsize=None)
def _sketch_cost_sweep(kind: str):
    """XLA cost-analysis FLOPs of applying the sketch to n×4 data, n = 2^10, 2^12, 2^14 (solvers.sketches)."""
    import jax.numpy as jnp

    from solvers import sketches as sk

    ns = [2**k for k in (10, 12, 14)]
    flops, work = [], []
    d = 4
    for n in ns:
        M = jnp.ones((n, d))
        if kind == "srht":
            m = _se_rows(n, d, _SE_EPS, _SE_DELTA)
            b = sk.srht_bits(0, n, m)
            lowered = sk._srht_core.lower(jnp.asarray(b["signs"]), jnp.asarray(b["rows"]), M, n_pad=n)
            work.append(sk.sketch_work("srht", n, d, m))
        else:
            m = _se_rows(n, d, _SE_EPS, _SE_DELTA)
            s = int(math.ceil(math.log(d / _SE_DELTA) / _SE_EPS))
            b = sk.osnap_bits(0, n, m, s)
            lowered = sk._scatter_core.lower(jnp.asarray(b["rows"]), jnp.asarray(b["signs"]), M, m=m)
            work.append(sk.sketch_work("osnap", n, d, m, s))
        ca = lowered.compile().cost_analysis()
        ca = ca[0] if isinstance(ca, list) else ca
        flops.append(float(ca.get("flops", 0.0)))
    return tuple(ns), tuple(flops), tuple(work)


def _slope(xs, ys):
    lx, ly = np.log(np.asarray(xs, float)), np.log(np.asarray(ys, float))
    return float(np.polyfit(lx, ly, 1)[0])


@functools.lru_cache(maxsize=None)
def _sketch_time_outcome(kind: str) -> tuple[bool, str]:
    ns, flops, work = _sketch_cost_sweep(kind)
    d = 4
    if kind == "srht":
        claimed = [n * d * math.log(n / _SE_DELTA) for n in ns]
        form = "n·d·log(n/δ)"
    else:
        s = int(math.ceil(math.log(d / _SE_DELTA) / _SE_EPS))
        claimed = [s * n * d for n in ns]
        form = "s·nnz(A)"
    got, want, w = _slope(ns, flops), _slope(ns, claimed), _slope(ns, work)
    ok = got <= want + 0.2
    return ok, (f"time: XLA FLOPs slope in n {got:.3f} vs claimed {form} slope {want:.3f} (+0.2 allowed); "
                f"operation-count slope {w:.3f}")


def _se_trial(kind: str, seed: int, impl):
    A, n, d = _se_instance(seed)
    m = _se_rows(n, d, _SE_EPS, _SE_DELTA)
    if kind == "srht":
        bits = impl.srht_bits(n, m, seed)
    else:
        s = int(math.ceil(math.log(d / _SE_DELTA) / _SE_EPS))
        bits = impl.osnap_bits(n, m, s, seed)
    t_ok, t_note = _sketch_time_outcome(kind)
    out = _se_judge(kind, bits, A, _SE_EPS, f"n={n}, d={d}, m={m}, family {seed % 3}; {t_note}")
    if not t_ok:
        return Outcome(False, out.ratio, out.measured, out.bound, out.digits, "running time: " + out.note)
    return out


@claim("attention_kernel_regression.lemC.5.srht",
       statement="SRHT S ∈ R^{m×n} with m = O(ε^{-2} d log(n/δ)) is SE(n, d, ε, δ) for any fixed A ∈ R^{n×d}; "
                 "SA costs O(nd log(n/δ))",
       hypotheses="m = ⌈ε^{-2} d ln(n/δ)⌉ (C = 1), ε = 0.5, δ = 0.1, n ∈ {300 (padded to 512), 512}, d ∈ {2, 3}; "
                  "A from three hard families (coherent A[:d] += 50I; scaled basis vectors; Gaussian with "
                  "κ ≤ 1e6) fixed per seed; bits from the implementation, matrix rebuilt by the oracle; "
                  "distortion max|σ_i(SQ) − 1| ≤ ε judged exactly",
       expected="verified", trial=True, delta=_SE_DELTA, trials=50, uses=("srht_bits",),
       notes="Spec: HOLDS with C = 1 (worst distortion/ε 0.57). Time: XLA cost analysis of the FWHT kernel "
             "(which under-counts the fused butterflies; the solver's operation count d·n'·log₂n' is reported "
             "beside it).")
def lemC_5_srht(seed, impl):
    """attention_kernel_regression.lemC.5.srht (one seeded trial)."""
    return _se_trial("srht", seed, impl)


@claim("attention_kernel_regression.lemC.5.osnap",
       statement="OSNAP with m = O(ε^{-2} d log(d/δ)), s = O(ε^{-1} log(d/δ)) is SE(n, d, ε, δ); SA costs "
                 "O(s·nnz(A))",
       hypotheses="m = ⌈ε^{-2} d ln(n/δ)⌉, s = ⌈ε^{-1} ln(d/δ)⌉ (block variant of solvers.sketches), ε = 0.5, "
                  "δ = 0.1; A as lemC.5.srht", expected="verified", trial=True, delta=_SE_DELTA, trials=50,
       uses=("osnap_bits",),
       notes="Spec: HOLDS (C = 1; worst distortion/ε 0.53). Time: XLA FLOPs of the scatter-add kernel.")
def lemC_5_osnap(seed, impl):
    """attention_kernel_regression.lemC.5.osnap (one seeded trial)."""
    return _se_trial("osnap", seed, impl)


# ============================================================================ Algorithms 1–6
#
# Statistical trials draw an instance from the seed (n = 8192 so that every sketch is a real
# sketch, m < n), run the implementation through its adapter and judge the guarantee exactly:
# ExactGram holds AᵀA, Aᵀb, bᵀb as rationals, so residuals of tall problems cost O(d²) mpmath work.

_N_ALG = 8192


def _reg_matrix(rng, n, d, log10_kappa):
    Q, _ = np.linalg.qr(rng.standard_normal((n, d)))
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    s = 10.0 ** (rng.uniform(-1, 1) - log10_kappa * np.linspace(0, 1, d))
    A = (Q * s) @ V.T
    if rng.uniform() < 1 / 3:  # coherent rows: the sketch must mix them
        A[:d] += 5 * s[0] * np.eye(d)
    return A


def _reg_instance(seed, *, max_log10_kappa, eps_range=(-6, -1), d_choices=(2,), tall_b=True):
    rng = np.random.default_rng(20_000 + seed)
    d = int(d_choices[seed % len(d_choices)])
    eps = float(10.0 ** rng.uniform(*eps_range))
    lk = float(rng.uniform(0, max_log10_kappa(eps)))
    A = _reg_matrix(rng, _N_ALG, d, lk)
    if tall_b:
        xt = rng.standard_normal(d)
        Ax = A @ xt
        r = rng.standard_normal(_N_ALG)
        b = Ax + 10.0 ** rng.uniform(-3, 1) * np.linalg.norm(Ax) / np.linalg.norm(r) * r
    else:
        b = rng.standard_normal(d) * 10.0 ** rng.uniform(-2, 2)
    return A, b, eps


def _x(value, d, name):
    x = np.asarray(value, dtype=np.float64)
    if x.shape != (d,) or not np.all(np.isfinite(x)):
        raise ValueError(f"{name} returned shape {x.shape} or non-finite values; must be a finite ({d},) array")
    return x


def _power_residual(g: O.ExactGram, x, j, b=None):
    """‖(AᵀA)^j x − b‖ at the current precision (b ∈ R^d; the Gram data's b is unused)."""
    G, _, _ = g.mp()
    y = _to_col(x)
    for _ in range(j):
        y = G * y
    return linalg.norm2(y - _to_col(b))


def _to_col(v):
    return v if isinstance(v, mp.matrix) else to_mp(np.asarray(v, dtype=np.float64))


def _odd_residual_and_opt(g: O.ExactGram, x, j):
    """(‖A(AᵀA)^j x − b‖, OPT = ‖(I − P_A)b‖) at the current precision from exact Gram data."""
    G, c, bb = g.mp()
    y = _to_col(x)
    for _ in range(j):
        y = G * y
    r2 = (y.T * G * y)[0] - 2 * (y.T * c)[0] + bb
    xs = linalg.solve(G, c)
    opt2 = bb - (xs.T * c)[0]
    return mp.sqrt(max(r2, mp.mpf(0))), mp.sqrt(max(opt2, mp.mpf(0)))


# ---------------------------------------------------------------------------- running-time sweeps

_SWEEP_N = (4096, 8192, 16384)


def _ops(res, n: int) -> int:
    """Operation count of a SolveResult/ChainResult: matvecs·n·d + sketch work + QR m·d² + d³."""
    stages = getattr(res, "stages", None) or (res,)
    total = 0
    for s in stages:
        m, d = s.qr_shape
        total += s.sketch_work + m * d * d + d**3 + (s.matvecs_A + s.matvecs_At) * n * d
    return total


@functools.lru_cache(maxsize=None)
def _alg_sweep(name: str):
    """Operation counts of ``solvers.regression.<name>`` for n in _SWEEP_N (d = 2, κ = 100)."""
    from solvers import regression as R

    rng = np.random.default_rng(7)
    eps, delta, j = 1e-3, 0.05, 2
    counts = []
    for n in _SWEEP_N:
        A = _reg_matrix(rng, n, 2, 2.0)
        bn, bd = rng.standard_normal(n), rng.standard_normal(2)
        if name == "fast_linear_regression":
            res = R.fast_linear_regression(A, bn, eps, delta, key=1)
        elif name == "fast_psd_regression":
            res = R.fast_psd_regression(A, bd, eps, delta, key=1)
        elif name == "attention_regression":
            res = R.attention_regression(A, bn, eps, delta, key=1)
        elif name == "four_matrices":
            res = R.four_matrices(A, bd, eps, delta, key=1)
        elif name == "even_powers":
            res = R.even_powers(A, bd, j, eps, delta, key=1)
        else:
            res = R.odd_powers(A, bn, j, eps, delta, key=1)
        counts.append(_ops(res, n))
    return _SWEEP_N, tuple(counts)


_CLAIMED_N_FORM = {  # the n-dependence of each stated bound (d fixed): n·log²(n/δ) (× log j·n for J.2/K.1)
    "fast_linear_regression": lambda n: n * math.log(n / 0.05) ** 2,
    "fast_psd_regression": lambda n: n * math.log(n / 0.05) ** 2,
    "attention_regression": lambda n: n * math.log(n / 0.05) ** 2,
    "four_matrices": lambda n: n * math.log(n / 0.05) ** 2,
    "even_powers": lambda n: n * math.log(2 * n / 0.05) ** 2,
    "odd_powers": lambda n: n * math.log(2 * n / 0.05) ** 2,
}


@functools.lru_cache(maxsize=None)
def _alg_time(name: str) -> tuple[bool, str, float, float]:
    ns, counts = _alg_sweep(name)
    got = _slope(ns, counts)
    want = _slope(ns, [_CLAIMED_N_FORM[name](n) for n in ns])
    return got <= want + 0.2, f"time: op-count slope in n {got:.3f} vs claimed form {want:.3f} (+0.2)", got, want


def _with_time(out: Outcome, name: str) -> Outcome:
    ok, note, _, _ = _alg_time(name)
    note = f"{out.note}; {note}" if out.note else note
    return Outcome(out.holds and ok, out.ratio, out.measured, out.bound, out.digits,
                   note if ok else "running time fails: " + note)


# ---------------------------------------------------------------------------- Lemma F.1

def _f1_kappa(eps):
    return 8.0


@claim("attention_kernel_regression.lemF.1",
       statement="Algorithm 1 runs in O((nd + d³) log(1/ε₁) log²(n/δ₁)) and outputs x' with "
                 "‖Ax' − b₁‖ ≤ (1+ε₁)·min_x‖Ax − b₁‖ w.p. ≥ 1 − δ₁",
       hypotheses="A ∈ R^{8192×2} full column rank, κ(A) = 10^U(0,8), a third with coherent rows; "
                  "b₁ = Ax + r with ‖r‖/‖Ax‖ = 10^U(−3,1); ε₁ = 10^U(−6,−1), δ₁ = 0.05 (T1: 50 trials)",
       expected="verified", trial=True, delta=0.05, trials=50, uses=("fast_linear_regression",),
       notes="The paper's while-loop never stops when OPT ≥ ε₁; the implementation runs the fixed T₁ (spec alg.1). "
             "Each trial's note also reports the Karlson–Waldén backward error η̃/(u‖A‖) of x' (our own "
             "measured claim; see tests/test_attention_kernel_regression.py for the κ sweep).")
def lemF_1(seed, impl):
    """attention_kernel_regression.lemF.1 (one seeded trial)."""
    A, b, eps = _reg_instance(seed, max_log10_kappa=_f1_kappa)
    x = _x(impl.fast_linear_regression(A.copy(), b.copy(), eps, 0.05, seed), A.shape[1], "fast_linear_regression")
    g = O.ExactGram(A, b)
    rr = g.residual_sq(x)

    def sides():
        G, c, bb = g.mp()
        xs = linalg.solve(G, c)
        opt2 = bb - (xs.T * c)[0]
        return mp.sqrt(O.ExactGram._f(rr)), (1 + mp.mpf(eps)) * mp.sqrt(max(opt2, mp.mpf(0)))

    out = le(sides)
    with mp.workdps(60):
        eta, nA = g.backward_error(x)
        be = eta / (nA * U)
        G, c, bb = g.mp()
        xs = linalg.solve(G, c)
        excess = (mp.sqrt(O.ExactGram._f(rr)) / mp.sqrt(bb - (xs.T * c)[0]) - 1) / eps
    note = (f"κ≈{10**_lc(A) / 10:.2g}, ε₁={eps:.2g}, (‖Ax'−b‖/OPT − 1)/ε₁ = {mp.nstr(excess, 3)}, "
            f"backward error η̃/(u‖A‖) = {mp.nstr(be, 3)} (x' is only ε₁-accurate by design; the stability sweep at "
            f"ε₁ = 1e-15 is in tests/test_attention_kernel_regression.py)")
    return _with_time(Outcome(out.holds, out.ratio, out.measured, out.bound, out.digits, note),
                      "fast_linear_regression")


# ---------------------------------------------------------------------------- Lemma G.1

def _g1_kappa(eps):  # spec T4: κ(A)²·1e-16 ≤ 1e-2·ε₂
    return max(0.0, min(3.0, (14 + math.log10(eps)) / 2))


@claim("attention_kernel_regression.lemG.1",
       statement="Algorithm 2 runs in O((nd + d³) log(κ/ε₂) log²(n/δ₂)) and outputs x' with "
                 "‖AᵀAx' − b₂‖ ≤ ε₂‖b₂‖ w.p. ≥ 1 − δ₂",
       hypotheses="A ∈ R^{8192×2} full column rank, κ(A)²·1e-16 ≤ 1e-2·ε₂ (spec T4, float64 reach), "
                  "κ ≤ 1e3; b₂ ∈ R^d; ε₂ = 10^U(−8,−1.5), δ₂ = 0.05", expected="verified", trial=True,
       delta=0.05, trials=50, uses=("fast_psd_regression",),
       notes="Implementation: residual stopping rule capped at T₂ = ⌈ln(κ(R̃)/ε₂)/ln(1/c₂)⌉ (spec alg.2 (a)+(b)): "
             "HOLDS. The proof's reading with T₂ = log(1/ε₂) steps FAILS (spec: ratio 497 at κ = 1000) but is "
             "not what any implementation here runs.")
def lemG_1(seed, impl):
    """attention_kernel_regression.lemG.1 (one seeded trial)."""
    A, b, eps = _reg_instance(seed, max_log10_kappa=_g1_kappa, eps_range=(-8, -1.5), tall_b=False)
    x = _x(impl.fast_psd_regression(A.copy(), b.copy(), eps, 0.05, seed), A.shape[1], "fast_psd_regression")
    g = O.ExactGram(A, np.zeros(A.shape[0]))
    bm = to_mp(b)
    out = le(lambda: (_power_residual(g, x, 1, bm), mp.mpf(eps) * linalg.norm2(bm)))
    return _with_time(out, "fast_psd_regression")


# ---------------------------------------------------------------------------- Lemma H.1

def _h1_kappa(eps):  # stage 2 uses ε/κ: κ³·1e-16 ≤ 1e-2·ε
    return max(0.0, min(3.0, (14 + math.log10(eps)) / 3))


@claim("attention_kernel_regression.lemH.1",
       statement="Algorithm 3 runs in O((nd + d³) log(κ/ε₃) log²(n/δ₃)) and outputs x' with "
                 "‖AAᵀAx' − b₃‖ ≤ (1+ε₃)·OPT + ε₃‖b₃‖, OPT = min_x‖AAᵀAx − b₃‖, w.p. ≥ 1 − δ₃",
       hypotheses="A ∈ R^{8192×2} full column rank, κ³·1e-16 ≤ 1e-2·ε₃, κ ≤ 1e3; b₃ ∈ R^n with a large "
                  "range(A) component; ε₃ = 10^U(−6,−1), δ₃ = 0.05", expected="verified", trial=True, delta=0.05,
       trials=50, uses=("attention_regression",),
       notes="Spec: HOLDS; adversarial composition (T5) tight at 0.99998.")
def lemH_1(seed, impl):
    """attention_kernel_regression.lemH.1 (one seeded trial)."""
    A, b, eps = _reg_instance(seed, max_log10_kappa=_h1_kappa)
    x = _x(impl.attention_regression(A.copy(), b.copy(), eps, 0.05, seed), A.shape[1], "attention_regression")
    g = O.ExactGram(A, b)
    e = mp.mpf(eps)

    def sides():
        res, opt = _odd_residual_and_opt(g, x, 1)
        return res, (1 + e) * opt + e * mp.sqrt(g.mp()[2])

    return _with_time(le(sides), "attention_regression")


# ---------------------------------------------------------------------------- Lemma I.1

def _i1_kappa(eps):  # ε₂ = 0.1ε/κ²: κ⁴·1e-16 ≤ 1e-3·ε
    return max(0.0, min(2.5, (13 + math.log10(eps)) / 4))


@claim("attention_kernel_regression.lemI.1",
       statement="Algorithm 4 runs in O((nd + d³) log(κ/ε₄) log²(n/δ₄)) and outputs x' with "
                 "‖AᵀAAᵀAx' − b₄‖ ≤ ε₄‖b₄‖ w.p. ≥ 1 − δ₄",
       hypotheses="A ∈ R^{8192×2} full column rank, κ⁴·1e-16 ≤ 1e-3·ε₄; b₄ ∈ R^d; ε₄ = 10^U(−6,−1), δ₄ = 0.05",
       expected="verified", trial=True, delta=0.05, trials=50, uses=("four_matrices",),
       notes="Spec: HOLDS (the proof's last line has 2κε₂ for 2κ²ε₂ and drops a term; conclusion still true).")
def lemI_1(seed, impl):
    """attention_kernel_regression.lemI.1 (one seeded trial)."""
    A, b, eps = _reg_instance(seed, max_log10_kappa=_i1_kappa, tall_b=False)
    x = _x(impl.four_matrices(A.copy(), b.copy(), eps, 0.05, seed), A.shape[1], "four_matrices")
    g = O.ExactGram(A, np.zeros(A.shape[0]))
    bm = to_mp(b)
    return _with_time(le(lambda: (_power_residual(g, x, 2, bm), mp.mpf(eps) * linalg.norm2(bm))), "four_matrices")


# ---------------------------------------------------------------------------- Lemma J.1 (T5 chains)


def _chain_instances(max_cond=2.0, j_hi=5):
    def build(A):
        d = A.shape[1]
        return st.tuples(st.just(A), vectors(d), dims(1, j_hi), scalars(1e-3, 0.1),
                         st.sampled_from(["aligned", "top", "bottom", "random"]),
                         st.lists(vectors(d, max_abs=1.0), min_size=j_hi, max_size=j_hi))
    return _tall(n_lo=1, n_hi=5, d_hi=3, cond=max_cond).flatmap(build).filter(lambda t: np.any(t[1]))


def _direction(mode, G, bprev, v, Q, E):
    if mode == "aligned":
        return _unit(bprev)
    if mode in ("top", "bottom"):
        i = max(range(E.rows), key=lambda k: E[k]) if mode == "top" else min(range(E.rows), key=lambda k: E[k])
        return Q[:, i]
    vm = to_mp(v)
    return _unit(vm) if linalg.norm2(vm) > 0 else _unit(bprev)


def _chain(A, b, j, eps, mode, dirs, schedule):
    """b_k, k = 0..j, with each stage meeting its tolerance with equality (spec T5).

    ``schedule="proof"``: stage k error 0.1·ε_k·κ^{−2(k−1)}‖b_{k−1}‖ (eq. 61), ε_k = ε·0.5^{j−k}.
    ``schedule="paper"``: alg.5 as written: tolerance ε_k/κ^{2k}.
    Returns (list of b_k, ε_k list, G, κ, σ_min).
    """
    Am, bm = to_mp(A), to_mp(b)
    G = Am.T * Am
    E, Q = mp.eigsy(linalg.symmetric_part(G))
    lam = sorted(E[i] for i in range(E.rows))
    kappa = mp.sqrt(lam[-1] / lam[0])
    smin = mp.sqrt(lam[0])
    bs, epss = [bm], []
    for k in range(1, j + 1):
        ek = mp.mpf(eps) * mp.mpf(0.5) ** (j - k)
        tol = mp.mpf(0.1) * ek * kappa ** (-2 * (k - 1)) if schedule == "proof" else ek / kappa ** (2 * k)
        u = _direction(mode, G, bs[-1], dirs[k - 1], Q, E)
        bs.append(linalg.solve(G, bs[-1] + u * (tol * linalg.norm2(bs[-1]))))
        epss.append(ek)
    return bs, epss, G, kappa, smin


@claim("attention_kernel_regression.lemJ.1.p1",
       statement="induction step of alg.5: ‖(AᵀA)^{k+1}b_{k+1} − b₀‖ ≤ ε_{k+1}‖b₀‖",
       hypotheses="eq. 61 for every stage (‖AᵀAb_k − b_{k−1}‖ = 0.1ε_kκ^{−2(k−1)}‖b_{k−1}‖, met with equality "
                  "along b_{k−1}, the top or bottom eigenvector, or a drawn direction), ε_k = ε·0.5^{j−k} "
                  "(ε_k ≤ 0.5ε_{k+1}), j ≤ 5, κ ≤ 100", expected="verified",
       strategy=_chain_instances, notes="Spec: HOLDS under eq. 61 (worst 0.196, proof bound 0.7).")
def lemJ_1_p1(inst):
    """attention_kernel_regression.lemJ.1.p1 (worst stage k of the chain)."""
    A, b, j, eps, mode, dirs = inst
    c = (2 * j + 2) * _lc(A)

    def sides():
        with _boost(c):
            bs, epss, G, _, _ = _chain(A, b, j, eps, mode, dirs, "proof")
            worst = None
            P = mp.eye(G.rows)
            for k in range(1, j + 1):
                P = P * G
                pair = (linalg.norm2(P * bs[k] - bs[0]), epss[k - 1] * linalg.norm2(bs[0]))
                if worst is None or pair[0] / pair[1] > worst[0] / worst[1]:
                    worst = pair
            return worst

    return le(sides)


@claim("attention_kernel_regression.lemJ.1.p2",
       statement="induction step of alg.5: ‖b_{k+1}‖ ≤ 2σ_min(A)^{−2(k+1)}‖b₀‖",
       hypotheses="as lemJ.1.p1", expected="verified", strategy=_chain_instances,
       notes="Exact form ‖b_k‖ ≤ (1+ε_k)σ_min^{−2k}‖b₀‖.")
def lemJ_1_p2(inst):
    """attention_kernel_regression.lemJ.1.p2 (worst stage)."""
    A, b, j, eps, mode, dirs = inst
    c = (2 * j + 2) * _lc(A)

    def sides():
        with _boost(c):
            bs, _, _, _, smin = _chain(A, b, j, eps, mode, dirs, "proof")
            return max(((linalg.norm2(bs[k]), 2 * smin ** (-2 * k) * linalg.norm2(bs[0])) for k in range(1, j + 1)),
                       key=lambda mb: mb[0] / mb[1])

    return le(sides)


@claim("attention_kernel_regression.lemJ.1.p3",
       statement="ε_{k+1} ≤ 0.5·ε_k (Lemma J.1, third bullet)",
       hypotheses="alg.5's tolerances ε_k = ε_final·0.5^{j−k}, k = 1..j, j ≥ 2, ε_final ∈ (0, 0.1)",
       expected="falsified",
       strategy=lambda: st.tuples(dims(2, 12), scalars(1e-6, 0.099)),
       notes="Alg.5 sets ε_{k+1} = 2ε_k (ratio 4 to the stated bound); the proof of part 1 uses ε_k ≤ 0.5ε_{k+1}, "
             "the reverse, which alg.5 satisfies.")
def lemJ_1_p3(inst):
    """attention_kernel_regression.lemJ.1.p3."""
    j, eps = inst

    def sides():
        ek = [mp.mpf(eps) * mp.mpf(0.5) ** (j - k) for k in range(1, j + 1)]
        return max(((ek[k + 1], ek[k] / 2) for k in range(j - 1)), key=lambda mb: mb[0] / mb[1])

    return le(sides)


@functools.lru_cache(maxsize=None)
def _even_iterations(kappa: float = 100.0, n: int = 64, d: int = 3, eps: float = 1e-2, delta: float = 0.05):
    """Total GD iterations of solvers.regression.even_powers (alg.5 as written) for j = 1, 2, 4, 8, 16."""
    from solvers import regression as R

    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.standard_normal((n, d)))
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    A = (Q * np.geomspace(1.0, 1.0 / kappa, d)) @ V.T
    b = rng.standard_normal(d)
    js = (1, 2, 4, 8, 16)
    runs = [R.even_powers(A, b, j, eps, delta, key=0) for j in js]
    caps = tuple(sum(int(st_.max_iterations) for st_ in r.stages) for r in runs)
    its = tuple(int(r.iterations) for r in runs)
    return js, caps, its


def _count_slope(form, note_form):
    js, caps, its = _even_iterations()
    sel = [i for i, j in enumerate(js) if j >= 2]
    got = _slope([js[i] for i in sel], [caps[i] for i in sel])
    want = _slope([js[i] for i in sel], [form(js[i]) for i in sel])
    note = (f"alg.5 worst-case GD iterations Σ_k T₂(k) for j = {js}: {caps} (κ = 100, ε = 1e-2; iterations "
            f"actually run in float64: {its}); fitted exponent in j (j ≥ 2) {got:.2f} vs the claimed form "
            f"{note_form}: {want:.2f} (+0.2 allowed)")
    return float_outcome(got, want + 0.2, note=note)


@claim("attention_kernel_regression.lemJ.1.p4",
       statement="time through stage k+1: C·(nd + d³)·(k+1)·log(κ/ε_{k+1})·log(1/δ_{k+1})",
       hypotheses="alg.5 as implemented (solvers.regression.even_powers, schedule 'paper'); n = 64, d = 3, κ = 100, "
                  "ε = 1e-2, δ = 0.05; per-iteration cost O(nd + d³) is fixed, so the iteration count carries the "
                  "dependence on k: the count judged is the algorithm's own worst-case bound Σ_k T₂(k), "
                  "T₂(k) = ⌈ln(κ(R̃)/η_k)/ln(1/c₂)⌉ (float64 cannot run the exact-arithmetic iterations for "
                  "η_k below 1e-16)", expected="falsified",
       notes="Stage k needs Θ(k log κ) iterations (tolerance ε_k/κ^{2k}), so the total is Θ(j² log κ): fitted "
             "exponent ≈ 1.9 against the claimed linear-in-k form (exponent ≈ 1.2 on this grid with its log(k/δ)).")
def lemJ_1_p4():
    """attention_kernel_regression.lemJ.1.p4 (single: iteration-count sweep)."""
    return _count_slope(lambda j: j * math.log(100 / 1e-2) * math.log(j / 0.05), "(k+1)·log(κ/ε)·log(k/δ)")


@claim("attention_kernel_regression.lemJ.1.p5",
       statement="the failure probability through stage k+1 is at most δ₁ + … + δ_{k+1}",
       hypotheses="alg.5 as implemented with δ_k = δ/k (union bound: Σδ_k = δ·H_j); j = 2, δ = 0.05, so the "
                  "final guarantee of part 1 may fail w.p. ≤ 0.075; A ∈ R^{8192×2} with κ⁸·1e-16 ≤ 1e-3·ε",
       expected="verified", trial=True, delta=0.075, trials=50, uses=("even_powers",),
       notes="As a union bound it holds; alg.5's δ_k = δ/k sums to δ·H_j > δ (j ≥ 2), the proof of J.2 uses δ/j.")
def lemJ_1_p5(seed, impl):
    """attention_kernel_regression.lemJ.1.p5 (one seeded trial, j = 2)."""
    return _even_trial(seed, impl, j=2)


def _even_trial(seed, impl, j):
    kap = (lambda eps: max(0.0, min(2.0, (13 + math.log10(eps)) / (2 * j + 2))))
    A, b, eps = _reg_instance(seed, max_log10_kappa=kap, eps_range=(-4, -1), tall_b=False)
    x = _x(impl.even_powers(A.copy(), b.copy(), j, eps, 0.05, seed), A.shape[1], "even_powers")
    g = O.ExactGram(A, np.zeros(A.shape[0]))
    bm = to_mp(b)
    return le(lambda: (_power_residual(g, x, j, bm), mp.mpf(eps) * linalg.norm2(bm)))


def _j2_instances():
    def build(A):
        d = A.shape[1]
        return st.tuples(st.just(A), vectors(d), dims(1, 5), scalars(1e-3, 0.099),
                         st.sampled_from(["aligned", "top", "bottom"]), st.just([np.zeros(d)] * 5))
    return _tall(n_lo=1, n_hi=4, d_hi=2, cond=1.0).flatmap(build).filter(lambda t: np.any(t[1]))


@claim("attention_kernel_regression.thmJ.2",
       statement="Algorithm 5 runs in O((nd + d³)·j·log(κ/ε)·log²(jn/δ)) and outputs x' with "
                 "‖(AᵀA)^j x' − b‖ ≤ ε_final‖b‖ w.p. ≥ 1 − δ_final",
       hypotheses="alg.5 as written (ε_k = ε·0.5^{j−k}, stage tolerance ε_k/κ^{2k}) with sub-solvers that meet "
                  "Lemma G.1's guarantee (with equality, in an adversarial direction: spec T5); A full column rank, "
                  "κ(A) ≤ 10, n ≤ 4, d ≤ 2, j ≤ 5, ε ∈ [1e-3, 0.1)", expected="falsified", strategy=_j2_instances,
       notes="Spec: alg.5 as written FAILS against a G.1-compliant sub-solver when κ < √10 (ratio 1.505 at j = 2, "
             "κ = 1). With the corrected tolerances (spec alg.5) the theorem holds; the shipped implementation "
             "(real alg.2 with a residual rule) meets the bound on random instances: see thm1.4 (verified).")
def thmJ_2(inst):
    """attention_kernel_regression.thmJ.2 (alg.5 as written, adversarial compliant sub-solver)."""
    A, b, j, eps, mode, dirs = inst
    c = (2 * j + 2) * _lc(A)

    def sides():
        with _boost(c):
            bs, _, G, _, _ = _chain(A, b, j, eps, mode, dirs, "paper")
            P = mp.eye(G.rows)
            for _ in range(j):
                P = P * G
            return linalg.norm2(P * bs[j] - bs[0]), mp.mpf(eps) * linalg.norm2(bs[0])

    return le(sides)


@claim("attention_kernel_regression.thmJ.2.time",
       statement="Algorithm 5 runs in O((nd + d³)·j·log(κ/ε_final)·log²(jn/δ_final))",
       hypotheses="alg.5 as implemented; n = 64, d = 3, κ = 100, ε = 1e-2, δ = 0.05; iteration counts for "
                  "j = 1..16 (per-iteration cost O(nd + d³) fixed)", expected="falsified",
       notes="Spec: AMBIGUOUS ('holds only while j = O(log²(jn/δ))'). The harness reads the O(·) with n, δ fixed "
             "and j growing: the iteration count is Θ(j² log κ) (stage tolerance ε_k/κ^{2k}), fitted exponent "
             "≈ 1.9 against ≈ 1.2 for j·log²(jn/δ) on the same grid, so the stated bound fails for large j.")
def thmJ_2_time():
    """attention_kernel_regression.thmJ.2.time (single: iteration-count sweep)."""
    return _count_slope(lambda j: j * math.log(100 / 1e-2) * math.log(j * 64 / 0.05) ** 2, "j·log(κ/ε)·log²(jn/δ)")


@claim("attention_kernel_regression.thm1.4",
       statement="(informal J.2) there is an algorithm running in O((nd + d³)·j·log(κ/ε)·log²(jn/δ)) that "
                 "outputs x' with ‖(AᵀA)^j x' − b‖ ≤ ε‖b‖ w.p. ≥ 1 − δ",
       hypotheses="the shipped alg.5 (schedule 'paper', real alg.2); A ∈ R^{8192×2} full column rank with "
                  "κ^{2j+2}·1e-16 ≤ 1e-3·ε; j ∈ {1, 2, 3}; ε = 10^U(−4,−1), δ = 0.05",
       expected="verified", trial=True, delta=0.05, trials=50, uses=("even_powers",),
       notes="The guarantee holds for the implementation (real alg.2 overshoots its tolerance). The running-time "
             "part in j fails as for thmJ.2.time; here only the n-dependence is judged (slope of op counts).")
def thm1_4(seed, impl):
    """attention_kernel_regression.thm1.4 (one seeded trial)."""
    return _with_time(_even_trial(seed, impl, j=1 + seed % 3), "even_powers")


# ---------------------------------------------------------------------------- Theorem K.1 / 1.5


def _k1_instances():
    # one shape (the implementation compiles once) and few drawn numbers, so shrinking stays cheap:
    # A = diag(a), a_i ∈ [0.1, 10] (κ ≤ 100), the spec's counterexample family (A = 2I₃)
    d = 3
    return st.tuples(st.lists(scalars(0.1, 10.0), min_size=d, max_size=d).map(np.diag), vectors(d), dims(0, 2),
                     scalars(1e-3, 0.099), st.integers(0, 2**31 - 1)).filter(lambda t: np.any(t[1]))


def _k1_check(inst, impl, name):
    A, b, j, eps, seed = inst
    x = _x(impl.odd_powers(A.copy(), b.copy(), j, eps, 0.05, seed), A.shape[1], "odd_powers")
    Am, bm, xm = to_mp(A), to_mp(b), to_mp(x)
    c = (2 * j + 2) * _lc(A)

    def sides():
        with _boost(c):
            y = O.psd_power(Am, j) * xm
            return linalg.norm2(y - bm), mp.mpf(eps) * linalg.norm2(bm)

    out = le(sides)
    with _boost(c):
        y = O.psd_power(Am, j) * xm
        sens = linalg.norm2(Am * y - bm) / ((1 + mp.mpf(eps)) * O.opt_attention(Am, bm, j) + eps * linalg.norm2(bm))
    return Outcome(out.holds, out.ratio, out.measured, out.bound, out.digits,
                   f"n = d = {A.shape[0]}, j = {j}: stated ratio {out.ratio:.3g}; sensible reading "
                   f"‖A(AᵀA)^j x' − b‖/((1+ε)OPT + ε‖b‖) = {mp.nstr(sens, 3)}")


_K1_NOTES = ("Ill-typed for n ≠ d ((AᵀA)^j x' ∈ R^d, b ∈ R^n); checked where it type-checks (n = d) and false there "
             "(A = 2I₃, j = 1: 0.5‖b‖). The proof shows ‖A(AᵀA)^j x' − b‖ ≤ (1+ε)OPT + ε‖b‖; its ratio is in each "
             "note (≤ 1), and the adapter check of odd_powers judges that sensible form.")


@claim("attention_kernel_regression.thmK.1",
       statement="Algorithm 6 runs in O((nd + d³)·j·log(κ/ε)·log²(jn/δ)) and outputs x' with "
                 "‖(AᵀA)^j x' − b‖ ≤ ε_final‖b‖ w.p. ≥ 1 − δ_final",
       hypotheses="square A (n = d = 3, the only case where the conclusion type-checks), A = diag(a), a_i ∈ [0.1, 10]; b ∈ R^n; "
                  "j ∈ {0, 1, 2}; ε ∈ [1e-3, 0.1); the shipped alg.6", expected="falsified",
       strategy=_k1_instances, uses=("odd_powers",), notes=_K1_NOTES)
def thmK_1(inst, impl):
    """attention_kernel_regression.thmK.1 (as stated)."""
    return _k1_check(inst, impl, "thmK.1")


@claim("attention_kernel_regression.thm1.5",
       statement="(informal K.1) an algorithm outputs x' with ‖(AᵀA)^j x' − b‖ ≤ ε‖b‖ w.p. ≥ 1 − δ for eq. (2)",
       hypotheses="as thmK.1", expected="falsified", strategy=_k1_instances, uses=("odd_powers",), notes=_K1_NOTES)
def thm1_5(inst, impl):
    """attention_kernel_regression.thm1.5 (as stated)."""
    return _k1_check(inst, impl, "thm1.5")


# ============================================================================ adapters
#
# Sketches: ``<kind>_bits(..., seed) -> dict`` (the random bits, format of solvers/sketches.py) and
# ``<kind>_apply(bits, M) -> S @ M``.  The validator checks *_bits for format and determinism and
# rebuilds the matrix with the oracle; *_apply is fed bits drawn here (independent of the
# implementation) and compared entrywise with the oracle's exact S·M.
# Algorithms: ``name(A, b, [j,] eps, delta, seed) -> x`` judged on the paper's guarantee, exactly,
# plus the rounding allowance 16·N·u·(scale of the computed residual) (N = max(n, d)).


def _bits_out(ok, note):
    return Outcome(bool(ok), 0.0 if ok else math.inf, 0.0, 0.0, None, note)


def _same_bits(b1, b2):
    return set(b1) == set(b2) and all(np.array_equal(np.asarray(b1[k]), np.asarray(b2[k])) for k in b1)


def _bits_check(kind, fn, args, seed, rebuild, expect):
    b1 = fn(*args, seed)
    b2 = fn(*args, seed)
    if not isinstance(b1, dict):
        return _bits_out(False, f"returned {type(b1).__name__}, must be a dict")
    if not _same_bits(b1, b2):
        return _bits_out(False, f"seed={seed} gave different bits on two calls (must be deterministic)")
    for key, (shape, dtype_kind) in expect.items():
        if key not in b1:
            return _bits_out(False, f"bits lack key {key!r}")
        arr = np.asarray(b1[key])
        if arr.shape != shape:
            return _bits_out(False, f"bits[{key!r}].shape={arr.shape}, must be {shape}")
        if dtype_kind == "i" and not np.issubdtype(arr.dtype, np.integer):
            return _bits_out(False, f"bits[{key!r}].dtype={arr.dtype} must be an integer dtype")
    rebuild(b1)  # the oracle rebuilds the matrix: ValueError on out-of-range values
    return _bits_out(True, "format, determinism and oracle rebuild ok")


def _np2(n):
    return 1 << (n - 1).bit_length()


@adapter("srht_bits", signature="srht_bits(n: int, m: int, seed: int) -> dict",
         doc="random bits of an m×n SRHT: {'n': 0-d int, 'signs': (n_pad,) ±1 ints, 'rows': (m,) ints in "
             "[0, n_pad)}, n_pad = 2^⌈log2 n⌉; S[k,i] = signs[i]·(−1)^{popcount(rows[k]&i)}/√m",
         tolerance="exact: deterministic in seed, shapes/dtypes/ranges as documented",
         strategy=lambda: st.tuples(dims(1, 40), dims(1, 20), st.integers(0, 2**31 - 1)))
def _srht_bits(inst, fn):
    n, m, seed = inst
    return _bits_check("srht", fn, (n, m), seed, O.srht_matrix,
                       {"n": ((), "i"), "signs": ((_np2(n),), "i"), "rows": ((m,), "i")})


@adapter("tensor_srht_bits", signature="tensor_srht_bits(d1: int, d2: int, m: int, seed: int) -> dict",
         doc="random bits of a TensorSRHT R^{d1}×R^{d2} → R^m: {'d1','d2': 0-d ints, 'signs1': (d1p,), "
             "'signs2': (d2p,) ±1, 'rows1': (m,) in [0,d1p), 'rows2': (m,) in [0,d2p)}",
         tolerance="exact: deterministic in seed, shapes/dtypes/ranges as documented",
         strategy=lambda: st.tuples(dims(1, 9), dims(1, 9), dims(1, 20), st.integers(0, 2**31 - 1)))
def _tensor_srht_bits(inst, fn):
    d1, d2, m, seed = inst
    return _bits_check("tensor", fn, (d1, d2, m), seed, O.tensor_srht_matrix,
                       {"d1": ((), "i"), "d2": ((), "i"), "signs1": ((_np2(d1),), "i"), "signs2": ((_np2(d2),), "i"),
                        "rows1": ((m,), "i"), "rows2": ((m,), "i")})


@adapter("osnap_bits", signature="osnap_bits(n: int, m: int, s: int, seed: int) -> dict",
         doc="random bits of an m×n OSNAP with column sparsity s: {'m': 0-d int, 'rows': (s, n) ints in [0, m), "
             "'signs': (s, n) ±1}; S[rows[t,j], j] += signs[t,j]/√s; each column's s rows distinct",
         tolerance="exact: deterministic in seed, shapes/ranges as documented, distinct rows per column",
         strategy=lambda: dims(1, 12).flatmap(lambda m: st.tuples(dims(1, 30), st.just(m), dims(1, m),
                                                                  st.integers(0, 2**31 - 1))))
def _osnap_bits(inst, fn):
    n, m, s, seed = inst
    out = _bits_check("osnap", fn, (n, m, s), seed, O.osnap_matrix,
                      {"m": ((), "i"), "rows": ((s, n), "i"), "signs": ((s, n), "i")})
    if out.holds:
        rows = np.asarray(fn(n, m, s, seed)["rows"])
        if any(len(set(rows[:, j].tolist())) != s for j in range(n)):
            return _bits_out(False, "a column's s nonzero rows are not distinct (def.osnap)")
    return out


@adapter("countsketch_bits", signature="countsketch_bits(n: int, m: int, seed: int) -> dict",
         doc="random bits of an m×n CountSketch: {'m': 0-d int, 'rows': (n,) ints in [0, m), 'signs': (n,) ±1}",
         tolerance="exact: deterministic in seed, shapes/ranges as documented",
         strategy=lambda: st.tuples(dims(1, 30), dims(1, 12), st.integers(0, 2**31 - 1)))
def _countsketch_bits(inst, fn):
    n, m, seed = inst
    return _bits_check("countsketch", fn, (n, m), seed, O.countsketch_matrix,
                       {"m": ((), "i"), "rows": ((n,), "i"), "signs": ((n,), "i")})


@adapter("gaussian_bits", signature="gaussian_bits(n: int, m: int, seed: int) -> dict",
         doc="random bits of an m×n Gaussian sketch: {'g': (m, n) float64}; S = g/√m",
         tolerance="exact: deterministic in seed, shape (m, n), finite",
         strategy=lambda: st.tuples(dims(1, 20), dims(1, 12), st.integers(0, 2**31 - 1)))
def _gaussian_bits(inst, fn):
    n, m, seed = inst
    return _bits_check("gaussian", fn, (n, m), seed, O.gaussian_matrix, {"g": ((m, n), "f")})


def _draw_bits(kind, rng, n, m, s=1, d2=None):
    """Bits drawn here with numpy (independent of the implementation under test)."""
    if kind == "srht":
        p = _np2(n)
        return {"n": np.int64(n), "signs": rng.choice(np.array([-1, 1], np.int8), p),
                "rows": rng.integers(0, p, m).astype(np.int64)}
    if kind == "tensor":
        p1, p2 = _np2(n), _np2(d2)
        return {"d1": np.int64(n), "d2": np.int64(d2), "signs1": rng.choice(np.array([-1, 1], np.int8), p1),
                "signs2": rng.choice(np.array([-1, 1], np.int8), p2), "rows1": rng.integers(0, p1, m).astype(np.int64),
                "rows2": rng.integers(0, p2, m).astype(np.int64)}
    if kind == "osnap":
        rows = np.stack([rng.choice(m, s, replace=False) for _ in range(n)], axis=1).astype(np.int64)
        return {"m": np.int64(m), "rows": rows, "signs": rng.choice(np.array([-1, 1], np.int8), (s, n))}
    if kind == "countsketch":
        return {"m": np.int64(m), "rows": rng.integers(0, m, n).astype(np.int64),
                "signs": rng.choice(np.array([-1, 1], np.int8), n)}
    return {"g": rng.standard_normal((m, n))}


def _apply_strategy(kind):
    def build(t):
        n, m, k, seed, vec = t
        s = 1 + seed % m
        return st.tuples(st.just((kind, n, m, s, seed)),
                         matrices(n, k, max_abs=1e3).map(lambda M: M[:, 0] if vec else M))
    return st.tuples(dims(1, 20), dims(1, 10), dims(1, 3), st.integers(0, 2**31 - 1), st.booleans()).flatmap(build)


def _apply_check(inst, fn):
    (kind, n, m, s, seed), M = inst
    bits = _draw_bits(kind, np.random.default_rng(seed), n, m, s)
    got = np.asarray(fn({k: np.copy(v) for k, v in bits.items()}, M.copy()), dtype=np.float64)
    M2 = M[:, None] if M.ndim == 1 else M
    want_shape = (m,) if M.ndim == 1 else (m, M2.shape[1])
    if got.shape != want_shape or not np.all(np.isfinite(got)):
        return Outcome(False, math.inf, math.inf, 0.0, None, f"returned shape {got.shape}, must be {want_shape}, finite")
    got2 = got[:, None] if M.ndim == 1 else got
    T, q, ks = O.sketch_int_matrix(kind, bits)
    NM, km = O.int_scaled(M2)
    TM = T.dot(NM)
    absT = np.abs(np.asarray(T, dtype=np.float64))
    mag = absT @ np.abs(M2) * 2.0**-ks  # Σ|T||M| per entry
    terms = (absT != 0).sum(axis=1)[:, None]
    if kind == "srht":
        gamma = math.log2(_np2(n)) + 3
    else:
        gamma = terms + 3
    worst = mp.mpf(0)
    with mp.workdps(40):
        sq = mp.sqrt(q)
        for i in range(TM.shape[0]):
            for j in range(TM.shape[1]):
                exact = mp.mpf(int(TM[i, j])) / 2 ** (km + ks) / sq
                g = gamma if np.isscalar(gamma) else float(gamma[i, 0])
                tol = g * U * float(mag[i, j]) / math.sqrt(q) + 2 * U * abs(exact)
                err = abs(mp.mpf(got2[i, j]) - exact)
                r = err / tol if tol else (mp.inf if err else mp.mpf(0))
                worst = max(worst, r)
    return Outcome(bool(worst <= 1), float(worst), float(worst), 1.0, None,
                   f"{kind}: worst entrywise error/tolerance {mp.nstr(worst, 4)}")


_APPLY_TOL = ("|(SM)^ − SM| ≤ γ·u·(Σ|S||M|) + 2u|SM| entrywise, γ = log₂ n_pad + 3 (SRHT, FWHT depth) or "
              "(nonzeros in the row + 3) (sparse / Gaussian sums)")

for _kind, _sig, _doc in [
    ("srht", "srht_apply(bits: dict, M: (n,) or (n, k) array) -> (m,) or (m, k) array", "S @ M for the SRHT of bits"),
    ("osnap", "osnap_apply(bits: dict, M) -> S @ M", "S @ M for the OSNAP of bits"),
    ("countsketch", "countsketch_apply(bits: dict, M) -> S @ M", "S @ M for the CountSketch of bits"),
    ("gaussian", "gaussian_apply(bits: dict, M) -> S @ M", "S @ M = (g @ M)/√m for the Gaussian sketch of bits"),
]:
    adapter(f"{_kind}_apply", signature=_sig, doc=_doc, tolerance=_APPLY_TOL,
            strategy=functools.partial(_apply_strategy, _kind))(_apply_check)


@adapter("tensor_srht_apply",
         signature="tensor_srht_apply(bits: dict, x: (d1,) or (d1, k), y: (d2,) or (d2, k)) -> (m,) or (m, k)",
         doc="S(x ⊗ y) for the TensorSRHT of bits (column-wise for matrices), kron convention (x⊗y)[a·d2+b]",
         tolerance="|ẑ − z| ≤ (log₂d1p + log₂d2p + 4)·u·‖x‖₁‖y‖₁/√m entrywise",
         strategy=lambda: st.tuples(dims(1, 9), dims(1, 9), dims(1, 10), st.integers(0, 2**31 - 1)).flatmap(
             lambda t: st.tuples(st.just(t), vectors(t[0], max_abs=1e3), vectors(t[1], max_abs=1e3))))
def _tensor_srht_apply(inst, fn):
    (d1, d2, m, seed), x, y = inst
    bits = _draw_bits("tensor", np.random.default_rng(seed), d1, m, d2=d2)
    got = np.asarray(fn({k: np.copy(v) for k, v in bits.items()}, x.copy(), y.copy()), dtype=np.float64)
    if got.shape != (m,) or not np.all(np.isfinite(got)):
        return Outcome(False, math.inf, math.inf, 0.0, None, f"returned shape {got.shape}, must be ({m},), finite")
    with mp.workdps(40):
        S = O.tensor_srht_matrix(bits)
        z = S * to_mp(np.kron(x, y)) if np.all(np.isfinite(np.kron(x, y))) else None
        # kron of floats may round: build it exactly instead
        kx = mp.matrix([mp.mpf(a) * mp.mpf(b) for a in x for b in y])
        z = S * kx
        tol = (math.log2(_np2(d1)) + math.log2(_np2(d2)) + 4) * U * float(np.abs(x).sum() * np.abs(y).sum()) / math.sqrt(m)
        worst = max(abs(mp.mpf(got[i]) - z[i]) for i in range(m))
        r = worst / tol if tol else (mp.inf if worst else mp.mpf(0))
    return Outcome(bool(r <= 1), float(r), float(worst), float(tol), None, f"worst error {mp.nstr(worst, 4)}")


# ---------------------------------------------------------------------------- algorithm adapters


def _alg_strategy(tall_b: bool, kappa_exp: int):
    """Small instances (the sketch is then the identity) with κ kept within float64 reach (T4)."""
    def build(eps):
        lk = max(0.0, min(4.0, (14 + math.log10(eps)) / kappa_exp))
        return dims(1, 3).flatmap(lambda d: dims(d, 8).flatmap(lambda n: st.tuples(
            conditioned_matrices(n, d, max_log10_cond=lk), vectors(n if tall_b else d), st.just(eps),
            scalars(0.01, 0.09), st.integers(0, 2**31 - 1))))
    return st.floats(-6, -1.05).map(lambda e: float(10.0**e)).flatmap(build).filter(lambda t: np.any(t[1]))


def _alg_out(measured_sides, note):
    def sides():
        m, b, slack = measured_sides()
        return m, b + slack
    return le(sides, note=note)


def _slack(N, *terms):
    return 16 * N * mp.mpf(U) * mp.fsum(terms)


@adapter("fast_linear_regression",
         signature="fast_linear_regression(A: (n, d), b: (n,), eps: float, delta: float, seed: int) -> (d,) array",
         doc="Algorithm 1: x' with ‖Ax' − b‖ ≤ (1+ε)·min_x‖Ax − b‖ (w.p. ≥ 1 − δ)",
         tolerance="‖Ax̂ − b‖ ≤ (1+ε)·OPT + 16·N·u·(‖A‖‖x̂‖ + ‖b‖)",
         strategy=lambda: _alg_strategy(True, 1), max_examples=15)
def _fast_linear_regression(inst, fn):
    A, b, eps, delta, seed = inst
    x = _x(fn(A.copy(), b.copy(), eps, delta, seed), A.shape[1], "fast_linear_regression")
    g = O.ExactGram(A, b)
    N = max(A.shape)

    def ms():
        G, c, bb = g.mp()
        xs = linalg.solve(G, c)
        opt = mp.sqrt(max(bb - (xs.T * c)[0], mp.mpf(0)))
        nA = mp.sqrt(linalg.eigvalsh(G)[-1])
        return (mp.sqrt(O.ExactGram._f(g.residual_sq(x))), (1 + mp.mpf(eps)) * opt,
                _slack(N, nA * linalg.norm2(to_mp(x)), mp.sqrt(bb)))

    return _alg_out(ms, f"x̂ = {x.tolist()}")


def _psd_adapter(fn, inst, j, name, extra_args=()):
    A, b, eps, delta, seed = inst
    x = _x(fn(A.copy(), b.copy(), *extra_args, eps, delta, seed), A.shape[1], name)
    g = O.ExactGram(A, np.zeros(A.shape[0]))
    bm = to_mp(b)
    N = max(A.shape)

    def ms():
        G, _, _ = g.mp()
        nA2 = linalg.eigvalsh(G)[-1]
        return (_power_residual(g, x, j, bm), mp.mpf(eps) * linalg.norm2(bm),
                _slack(N * j, nA2**j * linalg.norm2(to_mp(x)), linalg.norm2(bm)))

    return _alg_out(ms, f"x̂ = {x.tolist()}")


@adapter("fast_psd_regression",
         signature="fast_psd_regression(A: (n, d), b: (d,), eps: float, delta: float, seed: int) -> (d,) array",
         doc="Algorithm 2: x' with ‖AᵀAx' − b‖ ≤ ε‖b‖ (w.p. ≥ 1 − δ)",
         tolerance="‖AᵀAx̂ − b‖ ≤ ε‖b‖ + 16·N·u·(‖A‖²‖x̂‖ + ‖b‖)",
         strategy=lambda: _alg_strategy(False, 2), max_examples=15)
def _fast_psd_regression(inst, fn):
    return _psd_adapter(fn, inst, 1, "fast_psd_regression")


@adapter("four_matrices",
         signature="four_matrices(A: (n, d), b: (d,), eps: float, delta: float, seed: int) -> (d,) array",
         doc="Algorithm 4: x' with ‖(AᵀA)²x' − b‖ ≤ ε‖b‖ (w.p. ≥ 1 − δ)",
         tolerance="‖(AᵀA)²x̂ − b‖ ≤ ε‖b‖ + 16·2N·u·(‖A‖⁴‖x̂‖ + ‖b‖)",
         strategy=lambda: _alg_strategy(False, 5), max_examples=15)
def _four_matrices(inst, fn):
    return _psd_adapter(fn, inst, 2, "four_matrices")


def _even_strategy():
    return st.tuples(_alg_strategy(False, 7), dims(1, 3))


@adapter("even_powers",
         signature="even_powers(A: (n, d), b: (d,), j: int, eps: float, delta: float, seed: int) -> (d,) array",
         doc="Algorithm 5: x' with ‖(AᵀA)^j x' − b‖ ≤ ε‖b‖ (w.p. ≥ 1 − δ), j ≥ 1",
         tolerance="‖(AᵀA)^j x̂ − b‖ ≤ ε‖b‖ + 16·jN·u·(‖A‖^{2j}‖x̂‖ + ‖b‖)",
         strategy=_even_strategy, max_examples=15)
def _even_powers(inst, fn):
    base, j = inst
    return _psd_adapter(fn, base, j, "even_powers", extra_args=(j,))


def _odd_adapter(fn, inst, j, name, extra_args=()):
    A, b, eps, delta, seed = inst
    x = _x(fn(A.copy(), b.copy(), *extra_args, eps, delta, seed), A.shape[1], name)
    g = O.ExactGram(A, b)
    N = max(A.shape)
    e = mp.mpf(eps)

    def ms():
        res, opt = _odd_residual_and_opt(g, x, j)
        G, _, bb = g.mp()
        nA = mp.sqrt(linalg.eigvalsh(G)[-1])
        return (res, (1 + e) * opt + e * mp.sqrt(bb),
                _slack(N * (j + 1), nA ** (2 * j + 1) * linalg.norm2(to_mp(x)), mp.sqrt(bb)))

    return _alg_out(ms, f"x̂ = {x.tolist()}")


@adapter("attention_regression",
         signature="attention_regression(A: (n, d), b: (n,), eps: float, delta: float, seed: int) -> (d,) array",
         doc="Algorithm 3: x' with ‖AAᵀAx' − b‖ ≤ (1+ε)·OPT + ε‖b‖ (w.p. ≥ 1 − δ)",
         tolerance="‖AAᵀAx̂ − b‖ ≤ (1+ε)OPT + ε‖b‖ + 16·2N·u·(‖A‖³‖x̂‖ + ‖b‖)",
         strategy=lambda: _alg_strategy(True, 3), max_examples=15)
def _attention_regression(inst, fn):
    return _odd_adapter(fn, inst, 1, "attention_regression")


@adapter("odd_powers",
         signature="odd_powers(A: (n, d), b: (n,), j: int, eps: float, delta: float, seed: int) -> (d,) array",
         doc="Algorithm 6, judged on the sensible reading of Thm K.1: ‖A(AᵀA)^j x' − b‖ ≤ (1+ε)OPT + ε‖b‖, j ≥ 0",
         tolerance="‖A(AᵀA)^j x̂ − b‖ ≤ (1+ε)OPT + ε‖b‖ + 16·(j+1)N·u·(‖A‖^{2j+1}‖x̂‖ + ‖b‖)",
         strategy=lambda: st.tuples(_alg_strategy(True, 7), dims(0, 3)), max_examples=15)
def _odd_powers(inst, fn):
    base, j = inst
    return _odd_adapter(fn, base, j, "odd_powers", extra_args=(j,))


# ============================================================================ derived identities (spec §4 end)


def _points():
    return dims(1, 3).flatmap(lambda d: matrices(d, dims(1, 4), max_abs=2.0))


def _tensor_power_columns(Xm, l):
    """X^{⊗l} ∈ R^{d^l × n} (column i = x_i^{⊗l}, x^{⊗0} = 1), kron convention of def.tensor."""
    cols = []
    for i in range(Xm.cols):
        v = mp.matrix([1])
        for _ in range(l):
            v = linalg.kron(v, Xm[:, i])
        cols.append(v)
    out = mp.matrix(cols[0].rows, Xm.cols)
    for i, v in enumerate(cols):
        for r in range(v.rows):
            out[r, i] = v[r]
    return out


def _hadamard_power(M, l):
    return mp.matrix([[M[i, j] ** l for j in range(M.cols)] for i in range(M.rows)])


@claim("attention_kernel_regression.id.tensor_gram", statement="(X^{⊗l})ᵀX^{⊗l} = (XᵀX)^{∘l}",
       hypotheses="X ∈ R^{d×n} (d ≤ 3, n ≤ 4), l ∈ {0..3}", expected="verified",
       strategy=lambda: st.tuples(_points(), dims(0, 3)))
def id_tensor_gram(inst):
    """attention_kernel_regression.id.tensor_gram."""
    X, l = inst
    Xm = to_mp(X)

    def sides():
        T = _tensor_power_columns(Xm, l)
        return T.T * T, _hadamard_power(Xm.T * Xm, l)

    return eq(sides)


@claim("attention_kernel_regression.id.taylor", statement="exp(XᵀX) = Σ_{l≥0} (XᵀX)^{∘l}/l! (entrywise exp)",
       hypotheses="X ∈ R^{d×n}, entries ≤ 2 in magnitude; the series summed until its tail is below the working "
                  "precision (tail bounded by the next term times 2, terms decreasing)", expected="verified",
       strategy=_points)
def id_taylor(X):
    """attention_kernel_regression.id.taylor."""
    Xm = to_mp(X)

    def sides():
        G = Xm.T * Xm
        n = G.rows
        S = mp.matrix(n, n)
        gmax = max(abs(G[i, j]) for i in range(n) for j in range(n))
        l, term_scale = 0, mp.mpf(1)
        while True:
            S += _hadamard_power(G, l) / mp.factorial(l)
            term_scale = gmax ** (l + 1) / mp.factorial(l + 1)
            if l + 2 > 2 * gmax and term_scale < mp.mpf(10) ** (-mp.dps - 5):
                break
            l += 1
        return mp.matrix([[mp.exp(G[i, j]) for j in range(n)] for i in range(n)]), S

    return eq(sides)


@claim("attention_kernel_regression.id.gauss_dkd",
       statement="G = DKD, G_ij = exp(−‖x_i − x_j‖²/2), K = exp(XᵀX), D = diag(exp(−‖x_i‖²/2))",
       hypotheses="X ∈ R^{d×n}", expected="verified", strategy=_points)
def id_gauss_dkd(X):
    """attention_kernel_regression.id.gauss_dkd."""
    Xm = to_mp(X)
    n = Xm.cols

    def sides():
        col = [Xm[:, i] for i in range(n)]
        G = mp.matrix([[mp.exp(-linalg.norm2(col[i] - col[j]) ** 2 / 2) for j in range(n)] for i in range(n)])
        K = mp.matrix([[mp.exp((col[i].T * col[j])[0]) for j in range(n)] for i in range(n)])
        D = mp.diag([mp.exp(-linalg.norm2(col[i]) ** 2 / 2) for i in range(n)])
        return G, D * K * D

    return eq(sides)


@claim("attention_kernel_regression.id.statdim",
       statement="s_λ(K) = tr(K(K + λI)^{-1}) = Σ_i λ_i/(λ_i + λ); s_λ → rank(K) as λ → 0",
       hypotheses="K = GGᵀ PSD (n ≤ 5, rank ≤ n), λ = 10^U(−3, 2); judged: the trace identity, and "
                  "0 ≤ rank(K) − s_λ(K) ≤ λ·Σ_{λ_i>0} 1/λ_i (which → 0 as λ → 0)", expected="verified",
       strategy=lambda: st.tuples(dims(1, 5).flatmap(lambda n: matrices(n, dims(1, n))), scalars(-3.0, 2.0)))
def id_statdim(inst):
    """attention_kernel_regression.id.statdim (stacked: identity residual and the limit bound)."""
    Gf, ll = inst
    r = O.exact_rank(Gf)
    Gm = to_mp(Gf)
    if r == 0:
        return _trivial("K = 0")

    def sides():
        lam = mp.mpf(10) ** ll
        K = Gm * Gm.T
        n = K.rows
        tr = sum((K * mp.inverse(K + lam * mp.eye(n)))[i, i] for i in range(n))
        ev = sorted(linalg.eigvalsh(K), reverse=True)[:r]
        s = mp.fsum(e / (e + lam) for e in ev)
        gap = r - s
        bound = lam * mp.fsum(1 / e for e in ev)
        # identity part as |tr − s|, limit part as max(0, gap − bound) and max(0, −gap): all must vanish
        return mp.matrix([tr - s, max(gap - bound, 0), max(-gap, 0)]), mp.matrix([0, 0, 0])

    return eq(sides, scale=lambda: mp.mpf(r))
