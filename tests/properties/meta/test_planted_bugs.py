"""Planted bugs (modules in ``tests/properties/meta/planted``): under the ``ci`` profile, on every seed
0-4, the validator FAILs each with an input of the kind that separates it from the contract, and the
input is re-checked: the correct implementation (``solvers.adapter``) passes the same comparison there
and the planted one does not.  Each search is restricted to the one function (``check_function``, the
validator's per-function judgement, no claims)."""

import importlib

import numpy as np
import pytest

import solvers.adapter as correct
from properties.registry import adapters
from properties.validate import check_function

SEEDS = range(5)


def _judge(module: str, name: str, seed: int, *, package: str = "tests.properties.meta.planted"):
    """The validator's report on ``name`` of the planted ``module`` (must be a FAIL with an input)."""
    ad = adapters()[name]
    rep = check_function(ad, getattr(importlib.import_module(f"{package}.{module}"), name),
                         profile="ci", seed=seed)
    assert not rep.passed and rep.minimal_input is not None, f"{module}.{name} passed on seed {seed}: {rep}"
    return ad, rep


def _recheck(ad, inst, module: str, name: str, *, package: str = "tests.properties.meta.planted"):
    """The input separates: the correct function holds on it, the planted one does not (fresh calls)."""
    bad = getattr(importlib.import_module(f"{package}.{module}"), name)
    options = dict(ad.options)
    good = ad.compare(inst, getattr(correct, name), **options)
    assert good.holds, f"the correct {name} fails the reported input {inst!r}: {good.note}"
    try:
        wrong = ad.compare(inst, bad, **options)
    except (ValueError, np.linalg.LinAlgError):  # a non-finite output refused by contract.output, or a breakdown
        return
    assert not wrong.holds, f"the planted {name} holds on the reported input {inst!r}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("module", ["prune_largest", "prune_global_step"])
def test_a_pruner_with_the_wrong_end_or_the_wrong_step_fails(module, seed):
    """Zeroing the largest scores, or stepping with Thm 5.4's η = 1/L for 1/L_loc: the mask differs from
    the binarised 25-digit replay of alg.gd_momentum, on an instance with λ > 0, d ≥ 2, 0 < k < d²."""
    ad, rep = _judge(module, "attention_pruning_prune", seed)
    X, W, lam, rho, causal, score = rep.minimal_input
    d = W.shape[0]
    k = int(np.floor(rho * d * d + 0.5 + 1e-9))
    assert lam > 0 and d >= 2 and 0 < k < d * d and X.shape[0] >= 2, rep.minimal_input
    assert "differ from M_bin∘W" in rep.outcome.note, rep.outcome.note
    _recheck(ad, rep.minimal_input, module, "attention_pruning_prune")


@pytest.mark.parametrize("seed", SEEDS)
def test_wanda_scoring_with_squared_norms_fails_on_an_instance_that_separates_the_scores(seed):
    ad, rep = _judge("wanda_squared_norms", "attention_pruning_wanda", seed)
    W, X, rho = rep.minimal_input
    norms = np.linalg.norm(X, axis=0)
    k = int(np.floor(rho * W.shape[0] + 1e-9))
    assert W.shape[0] >= 3 and 0 < k < W.shape[0], rep.minimal_input
    assert np.all(norms > 0) and len(set(norms.tolist())) == norms.size, f"column norms {norms}"
    _recheck(ad, rep.minimal_input, "wanda_squared_norms", "attention_pruning_wanda")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_loss_returning_nan_above_1e3_fails_on_a_large_loss(seed):
    ad, rep = _judge("nan_large_loss", "attention_loss", seed)
    assert correct.attention_loss(*rep.minimal_input) > 1e3, rep.minimal_input
    assert "non-finite" in rep.error, rep.error
    _recheck(ad, rep.minimal_input, "nan_large_loss", "attention_loss")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_taylor_map_one_degree_short_fails_by_a_wide_margin(seed):
    ad, rep = _judge("taylor_one_degree_short", "taylor_ridge_solve", seed)
    assert rep.outcome is not None and rep.outcome.ratio >= 2, f"error/tolerance {rep.outcome}"
    _recheck(ad, rep.minimal_input, "taylor_one_degree_short", "taylor_ridge_solve")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_ridge_solve_exiting_early_fails(seed):
    ad, rep = _judge("ridge_early_exit", "kernel_ridge_solve", seed)
    X, y, lam, log_eps, _ = rep.minimal_input
    assert rep.outcome is not None and rep.outcome.ratio > 1 and log_eps <= -4, rep.minimal_input
    _recheck(ad, rep.minimal_input, "ridge_early_exit", "kernel_ridge_solve")


@pytest.mark.parametrize("seed", SEEDS)
def test_normal_equations_fail_fast_linear_regression_on_an_ill_conditioned_system(seed):
    """AᵀA x = Aᵀb squares κ: exact on the plain search's well-conditioned instances, it misses the
    backward-stable residual the rule allows on the κ corners mixed into the search (κ = 1e4 … 1e12, square
    half the time) or on the fixed square corners judged after it (κ ≥ 1e3), on most of 30 seeds."""
    ad, rep = _judge("normal_equations_regression", "fast_linear_regression", seed)
    A = rep.minimal_input[0]
    assert np.linalg.cond(A) >= 1e3 * (1 - 1e-6), rep.minimal_input
    assert "seeded trials" in rep.outcome.note, rep.outcome.note


def test_the_attention_solve_rule_is_not_zero_at_a_zero_minimiser():
    """B = 0: z* = 0 and every magnitude of the rule vanishes; the floor 4u²‖z0 − z*‖ keeps the tolerance
    positive (an honest solver is never held to exactly 0), and the project's 40 Newton updates meet it."""
    one = np.ones((1, 1))
    inst = ((one, one, one, np.zeros((1, 1)), np.array([1.5]), np.array([0.5, 0.5])), 0, 0)
    out = adapters()["attention_solve"].compare(inst, correct.attention_solve)
    assert out.holds and out.bound > 0, out


@pytest.mark.parametrize("seed", SEEDS)
def test_a_newton_solve_through_the_normal_equations_fails_softmax_solve_at_large_kappa(seed):
    """HᵀH δ = Hᵀg squares κ(∇²L) ≈ κ(A)²: harmless while κ(A) ≤ 1e4 (the plain search), it stalls or breaks
    down at the κ corners (1e6 … 1e12) mixed into the search and judged after it."""
    ad, rep = _judge("newton_normal_equations_softmax", "softmax_solve", seed)
    assert np.linalg.cond(rep.minimal_input[0]) >= 1e4 * (1 - 1e-6), rep.minimal_input
    _recheck(ad, rep.minimal_input, "newton_normal_equations_softmax", "softmax_solve")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_hessian_jittered_by_the_loss_fails_at_large_targets(seed):
    """H_yy + 1e-30·L_half·I is exact to 1e-30 on the plain search (entries ≤ 2) and wrong once B ≳ 1e16: the
    scaled-B branch and the corner B = 1e150 catch it (a zero-tolerance instance, H_yy = 0 exactly, may too)."""
    ad, rep = _judge("hessian_loss_jitter", "attention_hessian_yy", seed)
    _recheck(ad, rep.minimal_input, "hessian_loss_jitter", "attention_hessian_yy")
    one = np.ones((1, 1))
    _recheck(ad, (one, one, one, np.array([[1e150]]), one, one), "hessian_loss_jitter", "attention_hessian_yy")


def _seeded_failures(ad, inst, fn):
    return sum(not ad.compare(ad.trials.with_seed(inst, s), fn).holds for s in range(ad.trials.trials))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_sketched_gram_with_the_wrong_scaling_fails_over_seeds(seed):
    """S normalised by 1/m for 1/√m: every single call is symmetric, PSD and zero where it must be, but over
    the seeds its distance to E[M̃] breaks the Chebyshev bound more often than δ allows (the binomial rule)."""
    from properties.engine import binomial_threshold

    ad, rep = _judge("gram_wrong_scaling", "attention_sketched_gram", seed)
    inst = rep.minimal_input
    assert inst[3] > 1 and "seeded trials" in rep.outcome.note, (inst, rep.outcome)
    bad = importlib.import_module("tests.properties.meta.planted.gram_wrong_scaling").attention_sketched_gram
    q = binomial_threshold(ad.trials.trials, ad.trials.delta(inst))
    assert _seeded_failures(ad, inst, correct.attention_sketched_gram) <= q < _seeded_failures(ad, inst, bad), inst


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ["spectral_norm", "sigma_min"])
def test_singular_values_through_squares_fail_on_a_magnitude_or_kappa_corner(name, seed):
    """σ from the eigenvalues of AᵀA (tests/properties/meta/toy/squared_norms): squares past overflow or underflow, which the
    corners mixed into the search (and judged after it) reach, or σ_min off by u‖A‖²/σ_min, past the rule's
    16·N·u·‖A‖ once κ ≳ 32N."""
    ad, rep = _judge("squared_norms", name, seed, package="tests.properties.meta.toy")
    A = rep.minimal_input
    top = np.abs(A).max()
    assert top > 1e150 or top < 1e-150 or (name == "sigma_min" and np.linalg.cond(A) > 64), A
    _recheck(ad, A, "squared_norms", name, package="tests.properties.meta.toy")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_gd_step_that_clips_the_gradient_fails_at_a_large_gradient(seed):
    """Gradient-norm clipping at 1e6 is invisible on the plain draws (‖∇L‖ of order 1) and wrong where W or λM
    make the gradient large: the magnitude corners mixed into the search and the λM = 1e10 corner after it."""
    ad, rep = _judge("clipped_gd_step", "attention_pruning_gd_step", seed)
    (X, W, M, lam, causal), eta = rep.minimal_input
    G = (M - correct.attention_pruning_gd_step(X, W, M, lam, eta, causal)) / eta
    assert np.linalg.norm(G) > 1e6, rep.minimal_input
    _recheck(ad, rep.minimal_input, "clipped_gd_step", "attention_pruning_gd_step")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_softmax_hessian_dropping_tiny_entries_fails_on_a_scaled_corner(seed):
    """Entries of A below 1e-100 taken as zeros: exact on the plain draws, wrong where A·10^e, x·10^-e keep L
    of order 1 and scale the Hessian down (the scaled branch of the search, the A ~ 1e-120 corner after it)."""
    ad, rep = _judge("pruned_tiny_entries_hessian", "softmax_hessian", seed)
    A = rep.minimal_input[0]
    assert 0 < np.abs(A[A != 0]).min() < 1e-100, rep.minimal_input
    _recheck(ad, rep.minimal_input, "pruned_tiny_entries_hessian", "softmax_hessian")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ["kernel_ridge_solve", "taylor_ridge_solve"])
def test_a_ridge_solve_through_the_normal_equations_fails_at_a_condition_corner(name, seed):
    """(K + λI)²x = (K + λI)y squares κ: within the rule on the plain draws (λ ≥ 0.1, κ ≲ 1e2), outside it on
    the nearly repeated points with λ = ‖K‖·10^−c mixed into the search (κ(K + λI) from 1e4 up)."""
    ad, rep = _judge("ridge_normal_equations", name, seed)
    X, y, lam = rep.minimal_input[:3]
    M = np.exp(X.T @ X) + lam * np.eye(X.shape[1])
    assert np.linalg.cond(M) >= 1e3, rep.minimal_input
    _recheck(ad, rep.minimal_input, "ridge_normal_equations", name)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_newton_step_through_the_normal_equations_fails_at_a_condition_corner(seed):
    """H̃ᵀH̃ δ = H̃ᵀg squares κ(H̃): close enough on the plain draws (H̃ = GGᵀ + sI, s ≥ 0.5), outside the rule on
    the H̃ of κ 1e4 … 1e12 mixed into the search."""
    ad, rep = _judge("newton_step_normal_equations", "attention_newton_step", seed)
    _, G, s = rep.minimal_input
    assert np.linalg.cond(G @ G.T + s * np.eye(G.shape[0])) >= 1e3, rep.minimal_input
    _recheck(ad, rep.minimal_input, "newton_step_normal_equations", "attention_newton_step")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_sketch_flushing_tiny_entries_fails_on_a_scaled_corner(seed):
    """Entries below 1e-100 taken as zeros: exact on the plain draws, wrong on the A1·10^e, C2·10^−e draws mixed
    into the search (the sketch unchanged, one factor's entries below 1e-100)."""
    ad, rep = _judge("sketch_rows_flush_tiny", "attention_sketch_rows", seed)
    A1, C2 = rep.minimal_input[:2]
    assert min(np.abs(M[M != 0]).min() for M in (A1, C2) if M.any()) < 1e-100, rep.minimal_input
    _recheck(ad, rep.minimal_input, "sketch_rows_flush_tiny", "attention_sketch_rows")


@pytest.mark.parametrize("seed", SEEDS)
def test_an_attention_solve_through_the_normal_equations_fails_at_a_condition_or_magnitude_corner(seed):
    """HᵀH δ = Hᵀg squares κ(∇²L_tot): it converges with the correct solver on the plain draws (κ ≲ 1e3) and on
    the diagonally rescaled ones, and loses the step (a singular HᵀH, a stalled or non-finite iterate) where the
    problem is written in coordinates with κ(∇²L_tot) ≥ 1e8 or magnified until HᵀH overflows: the corners mixed
    into the search and the fixed ones judged after it."""
    from solvers import attention_optimization as A

    ad, rep = _judge("attention_solve_normal_equations", "attention_solve", seed)
    (A1, A2, A3, B, w, z0), _, _ = rep.minimal_input
    H = np.asarray(A.hessian_tot(A1, A2, A3, B, w, z0))
    assert np.linalg.cond(H) >= 1e8 or np.abs(H).max() >= 1e150, rep.minimal_input
    _recheck(ad, rep.minimal_input, "attention_solve_normal_equations", "attention_solve")
