"""Validator strength: planted bugs of the classes real implementations have are caught at
float64's corners with a minimal input, probabilistic guarantees are judged by the binomial rule (not
by a search over the seed), and claims false in general are backed by their repaired statements."""

import dataclasses
import importlib

import numpy as np
import pytest
from hypothesis import Phase, settings

from properties import profiles
from properties.failure_report import read_arguments
from properties.ledger import run_claim
from properties.registry import adapters, load_all
from properties.validate import validate


def _run(module, capsys, **kw):
    code = validate(module, profile="ci", include_claims=False, **kw)
    return code, capsys.readouterr().out


def _line(out, *words):
    return next(line for line in out.splitlines() if all(w in line for w in words))


def _input(out, line):
    """The failing call's arguments, printed by name on the line after the FAIL line, in order."""
    return list(read_arguments(out.split(line, 1)[1].splitlines()[1]).values())


def _counterexample(out, module, name, *, matrix=False):
    """The input of ``name``'s FAIL line, rebuilt from its JSON, re-judged here: the planted function
    called on it fails the oracle's comparison.  What the validator guarantees is a FAIL with a real
    counterexample, not which one the search reaches (that depends on the BLAS's rounding)."""
    line = _line(out, "FAIL", name)
    raw = _input(out, line)
    inst = np.asarray(raw[0], dtype=np.float64) if matrix else tuple(np.asarray(v, dtype=np.float64) for v in raw)
    try:
        verdict = adapters()[name].compare(inst, getattr(importlib.import_module(module), name))
    except ValueError as exc:  # the contract refuses the output (non-finite, misshapen): a failure too
        assert str(exc).endswith(f"[{name}]"), f"{name}: {exc} [{line}]"
        return inst
    assert not verdict.holds, f"the reported input of {name} is no counterexample: {verdict} [{line}]"
    return inst


# -- corners: overflow, squares, κ -----------------------------------------------------------------

def test_a_softmax_without_the_max_shift_fails_past_the_exponential_range(capsys):
    """Without the max shift, exp(Ax) leaves the normal float64 range once some |(Ax)_i| > 708.4
    (−ln of the smallest normal; overflow past 709.78): inside it the unshifted softmax is as accurate
    as the shifted one, so every counterexample lies beyond (the search usually shrinks to A = [[1]],
    x = [710])."""
    code, out = _run("tests.properties.meta.toy.unshifted_softmax", capsys)
    assert code == 1 and "0 passed, 3 failed" in out, out
    for name in ("softmax_loss", "softmax_gradient", "softmax_hessian"):
        A, b, w, x = _counterexample(out, "tests.properties.meta.toy.unshifted_softmax", name)
        assert np.abs(A @ x).max() > 708.39, (name, A, x)


def test_an_attention_softmax_without_the_row_max_shift_fails_past_the_exponential_range(capsys):
    code, out = _run("tests.properties.meta.toy.unshifted_attention", capsys)
    assert code == 1, out
    A1, A2, A3, B, X, Y = _counterexample(out, "tests.properties.meta.toy.unshifted_attention", "attention_loss")
    assert np.abs(A1 @ X @ A2.T).max() > 708.39, (A1, X, A2)


def test_normal_equations_fail_lstsq(capsys):
    """AᵀA x = Aᵀb squares κ: the validator FAILs it with a real counterexample (the search usually
    finds a square A with κ ≥ 10³, where its residual misses backward stability by ≈ κ; the
    normal-equation residual alone would not see it)."""
    code, out = _run("tests.properties.meta.toy.normal_equations", capsys)
    assert code == 1, out
    _counterexample(out, "tests.properties.meta.toy.normal_equations", "lstsq")


def test_singular_values_through_squares_fail(capsys):
    """σ through the eigenvalues of AᵀA: the squares overflow past 1e154 and underflow below 1e-162, and
    σ_min loses half its digits for κ ≳ 1e8; the validator FAILs both with a real counterexample
    (which of the three the search reaches depends on the BLAS's rounding)."""
    code, out = _run("tests.properties.meta.toy.squared_norms", capsys)
    assert code == 1 and "0 passed, 2 failed" in out, out
    for name in ("spectral_norm", "sigma_min"):
        _counterexample(out, "tests.properties.meta.toy.squared_norms", name, matrix=True)


# -- probabilistic guarantees ----------------------------------------------------------------------

def test_a_randomised_solver_failing_at_a_rate_below_delta_passes(capsys):
    """fails with probability δ/2 on each seed: its guarantee holds, a search over the seed would call
    it a counterexample; the binomial rule over seeded trials passes it."""
    code, out = _run("tests.properties.meta.toy.unlucky_regression", capsys)
    assert code == 0 and "PASS fast_linear_regression" in out, out


def test_a_randomised_solver_failing_more_often_than_delta_fails_by_the_binomial_rule(capsys):
    code, out = _run("tests.properties.meta.toy.coin_regression", capsys)
    assert code == 1, out
    line = _line(out, "FAIL", "fast_linear_regression")
    assert out.split(line, 1)[1].splitlines()[1].endswith(", seed = 0…29"), f"the seed is not searched: {out}"
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
    from tests.properties.meta.toy import damped_newton_step

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
    code = validate("tests.properties.meta.toy.damped_newton_step", profile="ci", functions=["softmax_newton_step"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert _line(out, "softmax_regression.lem8.7 (repair)").lstrip().startswith("FAIL"), out
    assert _line(out, "softmax_regression.lem8.7 ").lstrip().startswith("PASS"), out
