"""Claims of Appendices D–E of paper 004 (Fact D.1, Lemmas D.2–D.5, Lemma E.6) and Remark 3.1: the
deterministic lemmas the regression algorithms' proofs rest on."""

from __future__ import annotations

import numpy as np
from flint import fmpq_mat
from hypothesis import strategies as st
from mpmath import mp

from oracle import attention_kernel_regression as O
from oracle import linalg, to_mp
from oracle.ball import exact, rational_matrix

from ..toolkit import ClaimSet, le, worst
from ..toolkit.strategies import conditioned_matrices, dims, matrices, scalars, vectors
from .common import boost, cond_digits, orth, trivially_true, unit, with_note
from .strategies import tall

__all__ = ["claims", "d2_objects", "lemD_2", "lemD_2_literal", "lemD_2_repair", "lemD_5"]

claims = ClaimSet("attention_kernel_regression")


def _d1_sides(A):
    s = linalg.singular_values(A)
    lo = mp.mpf(0) if A.rows < A.cols else s[-1] ** 2
    return max(s[0] ** 2 - 1, 1 - lo), linalg.spectral_norm(A.T * A - mp.eye(A.cols))


claims.identity("attention_kernel_regression.factD.1", "(∀ unit x: 1−ε ≤ ‖Ax‖² ≤ 1+ε) ⇔ ‖AᵀA − I‖ ≤ ε",
                hypotheses="any A ∈ R^{n×d}, ε ≥ 0; judged as the identity max_{‖x‖=1}|‖Ax‖² − 1| = ‖AᵀA − I‖ "
                           "(the smallest ε on each side), the left computed from the SVD of A",
                instances=lambda: st.one_of(matrices(dims(1, 5), dims(1, 5), max_abs=2.0), tall(cond=3.0)),
                sides=_d1_sides, fields=("A",),
                # both sides are differences of terms of size 1 + σ_max² (cancellation): that is the scale
                scale=lambda A: 1 + linalg.spectral_norm(A) ** 2, provenance="R")


def _d2_build(A):
    return st.tuples(st.just(A), scalars(0.001, 0.9), st.lists(st.booleans(), min_size=A.shape[0],
                                                               max_size=A.shape[0]))


def _d2_instances():
    return tall(n_lo=2, n_hi=4, d_hi=2, cond=4.0).flatmap(_d2_build)


def _d2_square_instances():
    """Lemma D.2 as printed (b ∈ Rⁿ): ‖AᵀAx' − b‖ type-checks only for n = d, so square A of full rank."""
    return dims(1, 2).flatmap(lambda n: conditioned_matrices(st.just(n), st.just(n), max_log10_cond=4.0)).flatmap(
        _d2_build)


def d2_objects(A, eps, signs) -> dict:
    """The statement's objects of a Lemma D.2 instance, exactly: A, ε and the diagonal SᵀS = diag(1 ± ε)
    (``signs[i]`` true for 1 + ε); b, the worst direction, is chosen by the check (the lemma is for all b)."""
    e = exact(eps)
    d = [e + 1 if s else 1 - e for s in signs]
    return {"A": rational_matrix(A), "ε": e,
            "SᵀS": fmpq_mat(len(d), len(d), [d[i] if i == j else 0 for i in range(len(d)) for j in range(len(d))])}


def _d2_parts(Am, e, t):
    """Lemma D.2's instance: G = AᵀA, the worst direction b (top right singular vector of G·N⁻¹ − I,
    N = AᵀSᵀSA with SᵀS = diag(1 ± ε)) and x' = N⁻¹b."""
    G, Ms = Am.T * Am, Am.T * mp.diag([1 + e * (1 if ti else -1) for ti in t]) * Am
    _, _, V = mp.svd_r(G * mp.inverse(Ms) - mp.eye(G.rows))
    b = V[0, :].T
    return G, linalg.solve(Ms, b), b


@claims.check("attention_kernel_regression.lemD.2", "(1−ε)AᵀA ⪯ AᵀSᵀSA ⪯ (1+ε)AᵀA, x' = argmin‖AᵀSᵀSAx − b‖ ⇒ ‖AᵀAx' − b‖ ≤ ε‖b‖",
              hypotheses="A ∈ R^{n×d} full column rank (n ≤ 4, d ≤ 2, κ ≤ 1e4), ε ∈ [0.001, 0.9], S diagonal "
                         "(sampling-and-rescaling) with SᵀS = diag(1 ± ε) (so the sandwich holds exactly); b ∈ R^d "
                         "the top right singular vector of AᵀA(AᵀSᵀSA)^{-1} − I (spec's check)",
              expected="falsified", instances=_d2_instances, fields=("A", "ε", "signs"),
              to_statement=d2_objects,
              notes="Spec: FAILS; true bound (ε/(1−ε))·κ(A)·‖b‖. The search finds ratios ≈ κ(A).",
              provenance="R", conventions=("norms",), reading="b ∈ R^d (typo-corrected)")
def lemD_2(inst):
    A, eps, t = inst
    Am, e = to_mp(A), mp.mpf(eps)

    def sides():
        with boost(2 * cond_digits(A)):
            G, x, b = _d2_parts(Am, e, t)
            return linalg.norm2(G * x - b), e * linalg.norm2(b)

    out = le(sides)
    with boost(2 * cond_digits(A)):
        G, x, b = _d2_parts(Am, e, t)
        k = linalg.cond(Am)
        corrected = linalg.norm2(G * x - b) / (e / (1 - e) * k * linalg.norm2(b))
    return with_note(out, f"κ(A) = {mp.nstr(k, 4)}; ratio to the corrected bound (ε/(1−ε))κ‖b‖: "
                          f"{mp.nstr(corrected, 4)}")


@claims.check("attention_kernel_regression.lemD.2", "(1−ε)AᵀA ⪯ AᵀSᵀSA ⪯ (1+ε)AᵀA, x' = argmin‖AᵀSᵀSAx − b‖ ⇒ ‖AᵀAx' − b‖ ≤ ε‖b‖",
              hypotheses="as printed, b ∈ Rⁿ: AᵀAx' − b type-checks only for n = d, so A square of full rank "
                         "(n = d ≤ 2, κ ≤ 1e4), ε ∈ [0.001, 0.9], SᵀS = diag(1 ± ε), b the worst direction",
              expected="falsified", instances=_d2_square_instances, fields=("A", "ε", "signs"), to_statement=d2_objects,
              alternative=True, reading="b ∈ Rⁿ as printed (n = d)", conventions=("norms",),
              notes="The literal statement fails too (already at n = d = 1: A = [1], SᵀS = ½ gives ‖AᵀAx' − b‖ = ‖b‖ "
                    "against ε‖b‖ = ½‖b‖), so the typo does not decide the verdict.")
def lemD_2_literal(inst):
    return lemD_2(inst)


@claims.check("attention_kernel_regression.lemD.2",
              "under the same hypotheses, ‖AᵀAx' − b‖ ≤ (ε/(1−ε))·κ(A)·‖b‖ and, in the (AᵀA)⁻¹-norm, "
              "‖(AᵀA)^{-1/2}(AᵀAx' − b)‖ ≤ (ε/(1−ε))‖(AᵀA)^{-1/2}b‖",
              hypotheses="as the claim (A full column rank, SᵀS = diag(1 ± ε), b the worst direction)", repair=True,
              fields=("A", "ε", "signs"), to_statement=d2_objects,
              instances=_d2_instances,
              notes="The spec's corrected versions (a) and (b). Derivation: with M = AᵀA, N = AᵀSᵀSA, AᵀAx' − b = "
                    "(MN⁻¹ − I)b = M^{1/2}(M^{1/2}N⁻¹M^{1/2} − I)M^{-1/2}b, and (1−ε)M ⪯ N ⪯ (1+ε)M puts the "
                    "eigenvalues of M^{1/2}N⁻¹M^{1/2} in [1/(1+ε), 1/(1−ε)], so the middle factor has norm ≤ "
                    "ε/(1−ε); (a) adds ‖M^{1/2}‖‖M^{-1/2}‖ = κ(A).")
def lemD_2_repair(inst):
    A, eps, t = inst
    Am, e = to_mp(A), mp.mpf(eps)

    def parts():
        G, x, b = _d2_parts(Am, e, t)
        lam, Q = mp.eigsy(linalg.sym(G))
        Gm12 = Q * mp.diag([1 / mp.sqrt(lam[i]) for i in range(G.rows)]) * Q.T
        return G, x, b, Gm12

    def a():
        with boost(2 * cond_digits(A)):
            G, x, b, _ = parts()
            return linalg.norm2(G * x - b), e / (1 - e) * linalg.cond(Am) * linalg.norm2(b)

    def b_norm():
        with boost(2 * cond_digits(A)):
            G, x, b, Gm12 = parts()
            return linalg.norm2(Gm12 * (G * x - b)), e / (1 - e) * linalg.norm2(Gm12 * b)

    return worst(le(a), le(b_norm))


def _d3_instances():
    def build(d):
        k = st.just(d)
        return st.tuples(st.lists(scalars(0.75, 1.25), min_size=d, max_size=d),
                         matrices(k, k, max_abs=1.0), matrices(k, k, max_abs=1.0), st.booleans(), vectors(k), vectors(k),
                         dims(1, 6))
    return dims(1, 5).flatmap(build)


def _d3_sides(s, G1, G2, psd, x0, y, T):
    d = len(s)
    V = orth(G1 + 2 * mp.eye(d))
    B = (V if psd else orth(G2 + 2 * mp.eye(d))) * mp.diag(list(s)) * V.T
    xs, x, c = linalg.solve(B, y), x0, mp.mpf(9) / 16
    e0 = linalg.norm2(B * (x - xs))
    if e0 == 0:
        return mp.mpf(0), mp.mpf(1)
    worst = mp.mpf(0)
    for t in range(1, T + 1):
        x = x - B.T * (B * x - y)
        worst = max(worst, linalg.norm2(B * (x - xs)) / (c**t * e0))
    return worst, mp.mpf(1)


claims.inequality("attention_kernel_regression.lemD.3", "B PSD with 3/4 ≤ ‖Bx‖ ≤ 5/4 for unit x; x_{t+1} = x_t − Bᵀ(Bx_t − y) ⇒ "
                                 "‖B(x_t − x*)‖ ≤ c^t ‖B(x₀ − x*)‖ for some c ∈ (0, 0.9]",
                  hypotheses="B = V diag(s) Vᵀ (PSD) or U diag(s) Vᵀ (square, not PSD), s_i ∈ [3/4, 5/4], U, V "
                             "orthogonal (mpmath QR of drawn factors), x₀, y ∈ R^d, t ≤ 6; judged with c = 9/16 (the "
                             "proof's constant, which implies the stated c ≤ 0.9)",
                  instances=_d3_instances, sides=_d3_sides, fields=("s", "G₁", "G₂", "psd", "x₀", "y", "T"),
                  notes="Holds with c = 9/16, tight (B = (5/4)I attains it); PSD is not needed.",
                  provenance="R")


def _perturbed_solutions(tall_matrices, *, normal_equations, eps_lo, eps_hi):
    """(A, b, ε, θ, v, smallest) of Lemmas D.4 and D.5: A from ``tall_matrices``; b ∈ Rⁿ of Ax ≈ b, or b ∈ R^d
    of AᵀAx = b when ``normal_equations``; ε ∈ [eps_lo, eps_hi]; θ ∈ [0, 1] the share of the allowed error
    used; the direction of x' − x* (v ∈ R^d, or the smallest singular direction when ``smallest``)."""
    def build(A):
        n, d = A.shape
        return st.tuples(st.just(A), vectors(st.just(d if normal_equations else n)), scalars(eps_lo, eps_hi), scalars(0.0, 1.0),
                         vectors(st.just(d)), st.booleans())
    return tall_matrices.flatmap(build)


def _d4_instances():
    return _perturbed_solutions(tall(n_lo=2, n_hi=6, d_hi=3, cond=6.0).filter(lambda A: A.shape[0] > A.shape[1]),
                                normal_equations=False, eps_lo=1e-4, eps_hi=1.0)


def _d4_sides(A, b, eps, theta, v, smallest):
    with boost(2 * cond_digits(A)):
        xs = O.lstsq_full_rank(A, b)
        opt = linalg.norm2(A * xs - b)
        if smallest or linalg.norm2(v) == 0:
            _, _, V = mp.svd_r(A)
            u = V[V.rows - 1, :].T
        else:
            u = unit(v)
        # ‖A(x* + τu) − b‖² = OPT² + τ²‖Au‖² (residual ⟂ range A); target (1 + θ ε)·OPT
        tau = opt * mp.sqrt((1 + theta * eps) ** 2 - 1) / linalg.norm2(A * u)
        return tau * linalg.norm2(u), 2 * mp.sqrt(eps) * opt / linalg.sigma_min(A, convention="paper")


claims.inequality("attention_kernel_regression.lemD.4",
                  "‖Ax' − b‖ ≤ (1+ε₁)·min_x‖Ax − b‖ ⇒ ‖x' − x*‖ ≤ O(√ε₁)·‖Ax* − b‖/σ_min(A)",
                  hypotheses="A full column rank (G0), ε₁ ∈ [1e-4, 1]; x' = x* + τv with ‖Ax' − b‖ = (1+θ ε₁')OPT "
                             "(θ ∈ [0,1]), v the smallest right singular vector or a drawn direction; O(√ε₁) = 2√ε₁ "
                             "(the proof's constant)",
                  instances=_d4_instances, sides=_d4_sides, fields=("A", "b", "ε₁", "θ", "v", "smallest"),
                  notes="Exact worst case sqrt(2ε₁ + ε₁²)·OPT/σ_min, so the ratio is ≤ √3/2 for ε₁ ≤ 1.",
                  provenance="R", conventions=("sigma_min", "constants"))


def _d5_instances():
    return _perturbed_solutions(tall(cond=6.0), normal_equations=True, eps_lo=1e-6, eps_hi=0.99)


@claims.check("attention_kernel_regression.lemD.5", "‖AᵀAx' − b‖ ≤ ε₂‖b‖ ⇒ ‖x' − x*‖ ≤ ε₂‖b‖/σ_min(A)²",
              hypotheses="A full column rank (G0), b ∈ R^d, ε₂ ∈ (0, 1); x' = x* + (AᵀA)^{-1}e, ‖e‖ = θε₂‖b‖ along "
                         "the smallest eigenvector or a drawn direction",
              instances=_d5_instances, fields=("A", "b", "ε₂", "θ", "v", "smallest"),
              notes="Tight: attained along the smallest singular direction with θ = 1.",
              provenance="R", conventions=("sigma_min",))
def lemD_5(inst):
    A, b, eps, theta, v, smallest = inst
    if not np.any(b):
        return trivially_true("b = 0: x' = x*")
    Am, bm, e, vm = to_mp(A), to_mp(b), mp.mpf(eps), to_mp(v)

    def sides():
        with boost(2 * cond_digits(A)):
            G = Am.T * Am
            if smallest or linalg.norm2(vm) == 0:
                E, Q = mp.eigsy(linalg.symmetric_part(G))
                u = Q[:, min(range(G.rows), key=lambda k: E[k])]
            else:
                u = unit(vm)
            err = linalg.solve(G, u * (theta * e * linalg.norm2(bm)))
            return linalg.norm2(err), e * linalg.norm2(bm) / linalg.sigma_min(Am, convention="paper") ** 2

    return le(sides)


def _e6_sides(X, G):
    with boost(2 * cond_digits(G)):
        U = G * G.T
        E, Q = mp.eigsy(linalg.symmetric_part(U))
        half = Q * mp.diag([mp.sqrt(E[i]) for i in range(E.rows)]) * Q.T
        Xt = X * half
        return X * U * X.T * X, Xt * Xt.T * Xt * mp.inverse(half)


claims.identity("attention_kernel_regression.lemE.6", "with the unknown restricted to PD matrices, L_mid(U) = ‖Y − XUXᵀX‖_F² and "
                               "L_right(V) = ‖Y − XXᵀXV‖_F² are equivalent (X̃ = XU^{1/2}, V = U^{-1/2})",
                hypotheses="U = GGᵀ ≻ 0, X ∈ R^{n×d}; judged: the reparametrisation identity XUXᵀX = "
                           "X̃X̃ᵀX̃U^{-1/2} (so L_mid(U; X) = L_right(U^{-1/2}; X̃))",
                instances=lambda: dims(1, 3).flatmap(lambda d: st.tuples(
                    matrices(dims(1, 5), st.just(d)), conditioned_matrices(d, d, max_log10_cond=1.5))),
                sides=_e6_sides, fields=("X", "G"),
                notes="Spec: AMBIGUOUS. The identity holds (checked), but X̃ = XU^{1/2} depends on the unknown U, so "
                      "this is not an equivalence of the two problems on the same data: spec's X (6×2), Y give "
                      "inf_{U⪰0} L_mid = 15.9006 vs inf_{V⪰0} L_right = 16.5588 (projected gradient, float64; an "
                      "infimum over the PSD cone is not certified by this oracle). Unconstrained, both equal "
                      "‖(I−P_X)Y‖_F².",
                provenance="R")


def _rem31_sides(A, b):
    with boost(4 * cond_digits(A)):
        G = A.T * A
        return G * G * linalg.solve(G, linalg.solve(G, b)), b


claims.identity("attention_kernel_regression.rem3.1",
                "solving eq. (4) = applying Algorithm 2 twice: (AᵀA)²x = b ⇔ AᵀAy = b, AᵀAx = y",
                hypotheses="A full column rank (G0), b ∈ R^d (exact arithmetic)",
                instances=lambda: tall(cond=6.0).flatmap(lambda A: st.tuples(st.just(A), vectors(st.just(A.shape[1])))),
                sides=_rem31_sides, scale=lambda A, b: linalg.norm2(b) + 1, fields=("A", "b"), provenance="R")
