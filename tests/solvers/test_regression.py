"""Tests of solvers.regression: Algorithms 1-6 of the attention-kernel-regression paper.

Spec: attention_kernel_regression.md §3 (alg.1 … alg.6) and the claims lemF.1, lemG.1, lemH.1,
lemI.1, thmJ.2, thmK.1. Accuracy is judged against direct numpy solves at small sizes with
condition numbers that keep float64 residuals meaningful (spec T4). Fixed seeds: the
probabilistic guarantees make these deterministic checks (a failure is a bug or a very unlucky
seed, never a flake).
"""

import math

import jax
import numpy as np
import pytest

from solvers import regression as rg
from solvers.results import Status

N, D = 8192, 4  # spec sketch sizes stay below n here, so the sketched path is exercised


def make_A(n, d, kappa, seed):
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((n, d)))
    V, _ = np.linalg.qr(rng.standard_normal((d, d)))
    return (U * np.geomspace(1.0, 1.0 / kappa, d)) @ V.T


def b_mixed(A, seed):
    """b with comparable components in range(A) and its complement."""
    rng = np.random.default_rng(seed + 100)
    s = A @ rng.standard_normal(A.shape[1])
    r = rng.standard_normal(A.shape[0])
    return s / np.linalg.norm(s) + r / np.linalg.norm(r)


def opt_residual(A, b):
    Q, _ = np.linalg.qr(A)
    return float(np.linalg.norm(b - Q @ (Q.T @ b)))


def gram_pow(A, x, j):
    for _ in range(j):
        x = A.T @ (A @ x)
    return x


@pytest.fixture(scope="module")
def well():
    A = make_A(N, D, 10.0, 0)
    return A, b_mixed(A, 0)


# ----------------------------------------------------------------------------- Algorithm 1


@pytest.mark.parametrize("kappa,method,sketch", [
    (10.0, "gd", "srht"), (1e6, "gd", "srht"), (1e6, "cg", "srht"), (10.0, "gd", "countsketch"),
    (1e6, "cg", "osnap"),
])
def test_fast_linear_regression(kappa, method, sketch):
    """alg.1 / lemF.1: ‖Ax' − b‖ ≤ (1+ε)·OPT, OPT from a QR solve."""
    A = make_A(N, D, kappa, 1)
    b = b_mixed(A, 1)
    eps = 1e-6
    r = rg.fast_linear_regression(A, b, eps, 0.05, key=3, method=method, sketch=sketch)
    res, opt = float(np.linalg.norm(A @ np.asarray(r.x) - b)), opt_residual(A, b)
    assert res <= (1 + eps) * opt, (
        f"residual/OPT − 1 = {res / opt - 1:.2e} > eps={eps} [alg.1 {method} {sketch} κ={kappa:g}]")
    assert r.sketch == sketch, f"sketch={r.sketch}, expected {sketch} (m={r.sketch_rows} < n={N})"
    assert r.status is Status.CONVERGED, f"status={r.status} [alg.1 {method}]"


def test_fast_linear_regression_counts(well):
    """alg.1 counts: m₁ = ⌈100 (d+1) ln(2n/δ)⌉ rows, QR m₁×d, T₁ steps, one A and one Aᵀ per step."""
    A, b = well
    eps, delta = 1e-8, 0.05
    r = rg.fast_linear_regression(A, b, eps, delta, key=0)
    m = math.ceil(100 * (D + 1) * math.log(N / (delta / 2)))
    T = max(0, math.ceil(math.log(0.4938271604938271 / (2 * eps)) / (2 * math.log(1 / (1 / 0.81 - 1)))))
    assert r.sketch_rows == m, f"sketch_rows={r.sketch_rows}, expected m₁={m}"
    assert r.qr_shape == (m, D), f"qr_shape={r.qr_shape}, expected ({m}, {D})"
    assert r.iterations == T == r.max_iterations, f"iterations={r.iterations}, expected T₁={T}"
    assert r.matvecs_A == T and r.matvecs_At == T, f"matvecs {r.matvecs_A}/{r.matvecs_At}, expected {T}"
    assert r.sketch_work == (D + 1) * 8192 * 13, (
        f"sketch_work={r.sketch_work}, expected (d+1)·n'·log2 n' = {(D + 1) * 8192 * 13}")


def test_identity_sketch_when_m_exceeds_n():
    """Spec §3: if the computed sketch size is ≥ n, S = I_n (exact)."""
    A = make_A(200, 3, 5.0, 2)
    b = b_mixed(A, 2)
    r = rg.fast_linear_regression(A, b, 1e-8, 0.1, key=0)
    assert r.sketch == "identity" and r.sketch_rows == 200, f"sketch={r.sketch}, rows={r.sketch_rows}"
    res, opt = float(np.linalg.norm(A @ np.asarray(r.x) - b)), opt_residual(A, b)
    assert res <= (1 + 1e-8) * opt, f"identity path residual/OPT − 1 = {res / opt - 1:.2e}"


# ----------------------------------------------------------------------------- Algorithm 2


@pytest.mark.parametrize("kappa,eps", [(10.0, 1e-6), (1000.0, 1e-4)])
def test_fast_psd_regression(kappa, eps):
    """alg.2 / lemG.1: ‖AᵀAx' − b‖ ≤ ε‖b‖; forward error ≤ ε‖b‖/σ_min² (lemD.5)."""
    A = make_A(N, D, kappa, 3)
    b = np.random.default_rng(3).standard_normal(D)
    r = rg.fast_psd_regression(A, b, eps, 0.05, key=4)
    x = np.asarray(r.x)
    rel = np.linalg.norm(A.T @ (A @ x) - b) / np.linalg.norm(b)
    assert rel <= eps, f"‖AᵀAx − b‖/‖b‖ = {rel:.2e} > eps={eps} [alg.2 κ={kappa:g}]"
    x_star = np.linalg.solve(A.T @ A, b)
    fwd = np.linalg.norm(x - x_star)
    bound = eps * np.linalg.norm(b) * kappa**2  # σ_min = 1/κ, σ_max = 1
    assert fwd <= bound, f"‖x − x*‖ = {fwd:.2e} > ε‖b‖/σ_min² = {bound:.2e}"
    assert r.status is Status.CONVERGED and r.iterations <= r.max_iterations, (
        f"status={r.status}, iterations={r.iterations}, T₂={r.max_iterations}")
    assert r.matvecs_A == r.matvecs_At == 2 * r.iterations, (
        f"matvecs {r.matvecs_A}/{r.matvecs_At} != 2·iterations={2 * r.iterations}")


# ----------------------------------------------------------------------------- Algorithms 3-6


def test_attention_regression():
    """alg.3 / lemH.1: ‖AAᵀAx' − b‖ ≤ (1+ε)·OPT + ε‖b‖, OPT = ‖(I − P_A)b‖."""
    A = make_A(N, D, 10.0, 5)
    b = b_mixed(A, 5)
    eps = 1e-3
    r = rg.attention_regression(A, b, eps, 0.05, key=5)
    x = np.asarray(r.x)
    res = np.linalg.norm(A @ (A.T @ (A @ x)) - b)
    bound = (1 + eps) * opt_residual(A, b) + eps * np.linalg.norm(b)
    assert res <= bound, f"alg.3 residual {res:.6e} > (1+ε)OPT + ε‖b‖ = {bound:.6e}"
    assert len(r.stages) == 2 and r.epsilons[0] == pytest.approx(0.1 * eps), (
        f"stages={len(r.stages)}, epsilons={r.epsilons}: expected alg.1 with 0.1ε then alg.2")
    assert r.epsilons[1] == pytest.approx(eps / r.kappa) and r.kappa >= 10.0 * 0.999, (
        f"ε₂={r.epsilons[1]} must be ε/κ̂ with κ̂={r.kappa} ≥ κ(A)=10")
    assert r.matvecs_A == sum(s.matvecs_A for s in r.stages), "matvecs_A must total the stages"


def test_four_matrices():
    """alg.4 / lemI.1: ‖(AᵀA)²x' − b‖ ≤ ε‖b‖ (with the exact κ given)."""
    A = make_A(N, D, 5.0, 6)
    b = np.random.default_rng(6).standard_normal(D)
    eps = 1e-4
    r = rg.four_matrices(A, b, eps, 0.05, key=6, kappa=5.0)
    rel = np.linalg.norm(gram_pow(A, np.asarray(r.x), 2) - b) / np.linalg.norm(b)
    assert rel <= eps, f"‖(AᵀA)²x − b‖/‖b‖ = {rel:.2e} > eps={eps}"
    assert r.epsilons == pytest.approx((0.1 * eps / 25, 0.1 * eps / 25)), f"epsilons={r.epsilons}"
    assert r.kappa_source == "given", f"kappa_source={r.kappa_source}"


@pytest.mark.parametrize("schedule", ["paper", "corrected"])
def test_even_powers(schedule):
    """alg.5 / thmJ.2: ‖(AᵀA)^j x' − b‖ ≤ ε‖b‖ (j = 3, κ = 2, κ^{2j} = 64: float64 is exact enough)."""
    A = make_A(N, D, 2.0, 7)
    b = np.random.default_rng(7).standard_normal(D)
    j, eps, delta = 3, 1e-4, 0.05
    r = rg.even_powers(A, b, j, eps, delta, key=7, schedule=schedule)
    rel = np.linalg.norm(gram_pow(A, np.asarray(r.x), j) - b) / np.linalg.norm(b)
    assert rel <= eps, f"‖(AᵀA)^{j}x − b‖/‖b‖ = {rel:.2e} > eps={eps} [schedule={schedule}]"
    want_d = [delta / k for k in (1, 2, 3)] if schedule == "paper" else [delta / j] * j
    assert r.deltas == pytest.approx(tuple(want_d)), f"deltas={r.deltas}, expected {want_d}"
    assert len(r.stages) == j, f"{len(r.stages)} stages, expected j={j}"


@pytest.mark.parametrize("j", [0, 2])
def test_odd_powers(j):
    """alg.6 / thmK.1 (sensible reading): ‖A(AᵀA)^j x' − b‖ ≤ (1+ε)·OPT + ε‖b‖."""
    A = make_A(N, D, 2.0, 8)
    b = b_mixed(A, 8)
    eps = 1e-3
    r = rg.odd_powers(A, b, j, eps, 0.05, key=8)
    res = np.linalg.norm(A @ gram_pow(A, np.asarray(r.x), j) - b)
    bound = (1 + eps) * opt_residual(A, b) + eps * np.linalg.norm(b)
    assert res <= bound, f"alg.6 (j={j}) residual {res:.6e} > (1+ε)OPT + ε‖b‖ = {bound:.6e}"
    assert len(r.stages) == 1 + j, f"{len(r.stages)} stages, expected 1 + j = {1 + j}"


# ----------------------------------------------------------------------------- reproducibility


def test_reproducible(well):
    """Same key (int or jax key) → identical output; another key → another sketch."""
    A, b = well
    r1 = rg.fast_linear_regression(A, b, 1e-4, 0.05, key=11)
    r2 = rg.fast_linear_regression(A, b, 1e-4, 0.05, key=jax.random.key(11))
    r3 = rg.fast_linear_regression(A, b, 1e-4, 0.05, key=12)
    assert np.array_equal(np.asarray(r1.x), np.asarray(r2.x)), "same key must give identical x"
    assert not np.array_equal(np.asarray(r1.x), np.asarray(r3.x)), "different keys gave identical x"
    assert r1.kappa_sketch != r3.kappa_sketch, "different keys must draw different sketches"


# ----------------------------------------------------------------------------- bad input


def _rank_deficient():
    A = make_A(300, 3, 2.0, 9)
    return np.column_stack([A, A[:, 0] + A[:, 1]])


@pytest.mark.parametrize("call,match", [
    (lambda A, b: rg.fast_linear_regression(A, b[:-1], 0.1, 0.1, key=0), "b.shape\\[0\\]=8191 must equal A.shape\\[0\\]"),
    (lambda A, b: rg.fast_linear_regression(A[:3], b[:3], 0.1, 0.1, key=0), "must have n >= d"),
    (lambda A, b: rg.fast_linear_regression(np.where(A == A[0, 0], np.nan, A), b, 0.1, 0.1, key=0), "A must be finite"),
    (lambda A, b: rg.fast_linear_regression(A, np.full_like(b, np.inf), 0.1, 0.1, key=0), "b must be finite"),
    (lambda A, b: rg.fast_linear_regression(A, b, 0.0, 0.1, key=0), "eps=0.0 must be in the open interval"),
    (lambda A, b: rg.fast_linear_regression(A, b, 0.1, 1.5, key=0), "delta=1.5 must be in the open interval"),
    (lambda A, b: rg.fast_linear_regression(A, b, 0.1, 0.1, key=0, sketch="fjlt"), "sketch='fjlt' must be one of"),
    (lambda A, b: rg.fast_linear_regression(A, b, 0.1, 0.1, key=0, method="newton"), "method='newton'"),
    (lambda A, b: rg.fast_linear_regression(A, b, 0.1, 0.1, key=1.5), "key=1.5 must be"),
    (lambda A, b: rg.fast_linear_regression(_rank_deficient(), np.ones(300), 0.1, 0.1, key=0), "full column rank"),
    (lambda A, b: rg.fast_psd_regression(A, b, 0.1, 0.1, key=0), "b.shape\\[0\\]=8192 must equal A.shape\\[1\\]=4"),
    (lambda A, b: rg.fast_psd_regression(_rank_deficient(), np.ones(4), 0.1, 0.1, key=0), "full column rank"),
    (lambda A, b: rg.even_powers(A, np.ones(4), 0, 0.1, 0.1, key=0), "j=0 must be >= 1"),
    (lambda A, b: rg.odd_powers(A, b, -1, 0.1, 0.1, key=0), "j=-1 must be >= 0"),
    (lambda A, b: rg.four_matrices(A, np.ones(4), 0.1, 0.1, key=0, kappa=0.5), "kappa=0.5 must be >= 1"),
    (lambda A, b: rg.attention_regression(A, np.ones(4), 0.1, 0.1, key=0), "b.shape\\[0\\]=4 must equal A.shape\\[0\\]"),
    (lambda A, b: rg.even_powers(A, np.ones(4), 2, 0.1, 0.1, key=0, schedule="x"), "schedule='x'"),
])
def test_bad_input(well, call, match):
    """Bad input raises ValueError naming the argument and the rule."""
    A, b = well
    with pytest.raises(ValueError, match=match):
        call(A, b)


@pytest.mark.parametrize("n, d", [(1, 1), (511, 8), (1300, 64), (1030, 100), (300, 1024)])
def test_fused_pass_is_the_two_products(n, d):
    """The one-pass products r = Av − b and Aᵀr equal numpy's two passes to rounding, whatever the row blocks
    (block sizes 512, 327 and 64 for these d; n leaves a partial last block or none at all)."""
    from solvers.least_squares import fused_pass

    rng = np.random.default_rng(n + d)
    A, v, b = rng.standard_normal((n, d)), rng.standard_normal(d), rng.standard_normal(n)
    r, g = jax.jit(lambda A, v, b: fused_pass(A, v, b, True))(A, v, b)
    want = A @ v - b
    assert np.max(np.abs(np.asarray(r) - want)) <= 4 * d * 2.0**-53 * np.max(np.abs(A) @ np.abs(v) + np.abs(b))
    scale = np.abs(A).T @ (np.abs(A) @ np.abs(v) + np.abs(b))
    assert np.all(np.abs(np.asarray(g) - A.T @ want) <= 4 * (n + d) * 2.0**-53 * scale)
