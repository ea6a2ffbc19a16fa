"""Validator strength (issue 14): planted bugs of the classes real implementations have are caught at
float64's corners with a minimal input, probabilistic guarantees are judged by the binomial rule (not
by a search over the seed), and claims false in general are backed by their repaired statements."""

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import Phase, settings

from properties import profiles
from properties.ledger import run_claim
from properties.registry import load_all
from properties.validate import validate


def _run(module, capsys, **kw):
    code = validate(module, profile="ci", include_claims=False, **kw)
    return code, capsys.readouterr().out


def _line(out, *words):
    return next(line for line in out.splitlines() if all(w in line for w in words))


def _input(line):
    return json.loads(line.split("failing input: ")[1])


# -- corners: overflow, squares, κ -----------------------------------------------------------------

def test_a_softmax_without_the_max_shift_fails_at_A_1_x_710(capsys):
    code, out = _run("tests.meta.toy.unshifted_softmax", capsys)
    assert code == 1 and "0 passed, 3 failed" in out, out
    for name in ("softmax_loss", "softmax_gradient", "softmax_hessian"):
        line = _line(out, "FAIL", name)
        A, b, w, x = _input(line)
        assert np.abs(np.array(A) @ np.array(x)).max() > 709.78, line  # past log(float64 max)
        assert np.size(x) == 1, f"shrunk to one unknown (as A = [[1]], x = [710]): {line}"
        assert "non-finite" in _line(out.split(line)[1], "[" + name + "]"), out


def test_an_attention_softmax_without_the_row_max_shift_fails_at_the_710_corner(capsys):
    code, out = _run("tests.meta.toy.unshifted_attention", capsys)
    assert code == 1, out
    A1, A2, A3, B, X, Y = _input(_line(out, "FAIL", "attention_loss"))
    assert np.abs(np.array(A1) @ np.array(X) @ np.array(A2).T).max() >= 710, out


def test_normal_equations_fail_lstsq_on_a_square_ill_conditioned_system(capsys):
    """AᵀA x = Aᵀb squares κ: on a square A with κ ≥ 1e3 its residual misses backward stability by ≈ κ
    (the normal-equation residual alone would not see it)."""
    code, out = _run("tests.meta.toy.normal_equations", capsys)
    assert code == 1, out
    line = _line(out, "FAIL", "lstsq")
    A, b = _input(line)
    A = np.array(A)
    assert A.shape[0] == A.shape[1] and np.linalg.cond(A) >= 1e3 * (1 - 1e-9), line  # κ = 10³ up to rounding
    assert "square nonsingular A: ‖b − A x̂‖" in out, out


def test_singular_values_through_squares_fail_past_overflow_and_underflow(capsys):
    code, out = _run("tests.meta.toy.squared_norms", capsys)
    assert code == 1 and "0 passed, 2 failed" in out, out
    for name in ("spectral_norm", "sigma_min"):
        A = np.abs(np.array(_input(_line(out, "FAIL", name))))
        top = A.max()
        assert top > 1e154 or 0 < top < 1e-162 or 0 < A[A > 0].min() < 1e-162, (name, A)


# -- probabilistic guarantees ----------------------------------------------------------------------

def test_a_randomised_solver_failing_at_a_rate_below_delta_passes(capsys):
    """fails with probability δ/2 on each seed: its guarantee holds, a search over the seed would call
    it a counterexample; the binomial rule over seeded trials passes it."""
    code, out = _run("tests.meta.toy.unlucky_regression", capsys)
    assert code == 0 and "PASS fast_linear_regression" in out, out


def test_a_randomised_solver_failing_more_often_than_delta_fails_by_the_binomial_rule(capsys):
    code, out = _run("tests.meta.toy.coin_regression", capsys)
    assert code == 1, out
    line = _line(out, "FAIL", "fast_linear_regression")
    assert len(_input(line)) == 4, f"the reported instance carries no seed (the seed is not searched): {line}"
    assert "seeded trials (seeds 0…29) failed" in out and "except with probability 1e-06" in out, out


# -- repairs back claims false in general -----------------------------------------------------------

@pytest.fixture
def no_shrinking(monkeypatch):
    load = profiles.load
    monkeypatch.setattr(profiles, "load", lambda name: settings(load(name), phases=[
        Phase.explicit, Phase.reuse, Phase.generate, Phase.target]))


@pytest.mark.parametrize("cid", ["softmax_regression.lem8.7", "softmax_regression.lem8.8"])
def test_a_damped_newton_step_is_caught_by_the_repaired_contraction(cid, no_shrinking):
    """lem8.7/lem8.8 are false in general, so a wrong step still 'matches the record' there; their
    repaired statements (H-norm contraction) are true for a correct step and falsified by a step
    damped by ½ — which validate reports as a FAIL of the repair."""
    import solvers.adapter
    from tests.meta.toy import damped_newton_step

    claim = load_all()[cid]
    assert claim.expected == "falsified" and claim.repairs, cid
    repair = dataclasses.replace(claim.repairs[0], max_examples=4)
    assert run_claim(repair, profile="ci", impl=solvers.adapter).verdict == "verified"
    assert run_claim(repair, profile="ci", impl=damped_newton_step).verdict == "falsified"


@pytest.mark.slow
def test_validate_reports_a_failing_repair(capsys):
    """End to end (16 s alone, minutes on a loaded machine: three falsified Newton claims shrink):
    validate judges the repairs of the claims that use softmax_newton_step and FAILs the damped step
    on them."""
    code = validate("tests.meta.toy.damped_newton_step", profile="ci", functions=["softmax_newton_step"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert _line(out, "softmax_regression.lem8.7 (repair)").lstrip().startswith("FAIL"), out
    assert _line(out, "softmax_regression.lem8.7 ").lstrip().startswith("PASS"), out
