"""Failure reports a user can act on, and honest rules at the edges: a seeded
trial that raises is one failed trial of the binomial rule, not the verdict, while a crash of the
module's process stays a FAIL; a FAIL names the function's arguments, shows what was expected beside
what was returned, and the tolerance with the values of its rule's symbols."""

import itertools
import json
import re

import numpy as np
import pytest

from properties.failure_report import argument_names, read_arguments
from properties.registry import adapters
from properties.validate import validate

SEEDS = range(5)


def _run(module, capsys, **kw):
    code = validate(module, profile="ci", include_claims=False, **kw)
    return code, capsys.readouterr().out


def _line(out, *words):
    return next(line for line in out.splitlines() if all(w in line for w in words))


# -- a trial that raises is one failed trial --------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_correct_solver_raising_on_a_rare_singular_sketch_passes(seed, capsys):
    """Sketch-and-precondition with a CountSketch of 40d rows raises LinAlgError when a collision makes SA
    singular (one seed in 80 on the spikes corner, 8 × 2 with two nonzero rows; more on repeated rows):
    rarer than δ, so within the binomial rule's threshold on every drawn instance."""
    code, out = _run("tests.properties.meta.toy.singular_sketch_regression", capsys, seed=seed)
    assert code == 0 and "PASS fast_linear_regression" in out, out


def test_a_solver_raising_on_every_trial_fails_saying_how_many_raised_and_what(capsys):
    code, out = _run("tests.properties.meta.toy.always_singular_regression", capsys)
    assert code == 1, out
    detail = out.split("FAIL fast_linear_regression", 1)[1]
    assert "30 of 30 seeded trials (seeds 0…29) failed" in detail, out
    assert "30 of them raised: LinAlgError: singular matrix (every seed)" in detail, out


def test_a_crash_in_one_trial_is_no_trial_but_a_fail(capsys):
    """os._exit on one seed of thirty: rarer than δ, yet the process ended, which no binomial rule excuses."""
    code, out = _run("tests.properties.meta.toy.exits_on_one_seed", capsys)
    assert code == 1, out
    assert "ended the implementation's process (exit code 0)" in out.split("FAIL fast_linear_regression", 1)[1], out


# -- a FAIL report names the arguments, shows expected beside returned, and the rule ------------

def _arguments(out, name):
    """The named arguments printed on the line after ``name``'s FAIL line."""
    line = _line(out, "FAIL", name)
    assert line.endswith("failing input:"), line
    return read_arguments(out.split(line, 1)[1].splitlines()[1])


def _detail(out, name):
    """The indented lines under ``name``'s FAIL line (up to the next function's verdict or the summary)."""
    after = out.split(_line(out, "FAIL", name), 1)[1].splitlines()[1:]
    return "\n".join(line for line in itertools.takewhile(lambda ln: ln.startswith("     "), after))


def test_a_hessian_failure_shows_both_matrices_the_worst_entry_and_the_tolerance_with_its_symbols(capsys):
    code, out = _run("tests.properties.meta.toy.hessian_without_regulariser", capsys)
    assert code == 1, out
    args = _arguments(out, "softmax_hessian")
    assert list(args) == ["A", "b", "w", "x"], out
    A, w = np.array(args["A"]), np.array(args["w"])
    detail = _detail(out, "softmax_hessian")
    returned = json.loads(_line(detail, "returned: ").split("returned: ", 1)[1])
    expected = json.loads(_line(detail, "expected: ").split("expected: ", 1)[1])
    d = A.shape[1]
    assert np.shape(returned) == np.shape(expected) == (d, d), detail
    # the planted bug drops AᵀW²A exactly: what was expected minus what was returned is that term
    np.testing.assert_allclose(np.array(expected) - np.array(returned), A.T @ np.diag(w * w) @ A,
                               rtol=1e-12, atol=1e-12 * np.abs(expected).max(), err_msg=detail)
    assert re.search(r"worst entry \[\d+, \d+\]: returned \S+, expected \S+", detail), detail
    assert re.search(r"error \S+, tolerance \S+ with n = \d+, d = \d+, m = \S+", detail), detail
    assert "tolerance rule: ‖Ĥ − ∇²L‖₂ ≤ 32(n+d)·u·" in detail, detail


def test_a_newton_step_failure_prints_the_five_arguments_by_name(capsys):
    """The drawn instance has nine fields (the approximate Hessian is built from search parameters); the
    report names the five arguments the function received and labels the rest as not passed to it."""
    code = validate("tests.properties.meta.toy.damped_newton_step", profile="ci", functions=["softmax_newton_step"],
                    include_claims=False)
    out = capsys.readouterr().out
    assert code == 1, out
    args = _arguments(out, "softmax_newton_step")
    assert list(args) == ["A", "b", "w", "x", "H_tilde"], out
    d = len(args["x"])
    assert np.shape(args["H_tilde"]) == (d, d) and np.shape(args["A"])[1] == d, out
    assert "drawn with (search parameters, not passed to the function): " in _detail(out, "softmax_newton_step"), out


def test_a_solve_failure_prints_its_three_arguments(capsys):
    code, out = _run("tests.properties.meta.toy.loose_solve", capsys)
    assert code == 1, out
    assert list(_arguments(out, "softmax_solve")) == ["A", "b", "w"], out


def test_a_randomised_failure_names_the_seed_argument_as_the_trials(capsys):
    code, out = _run("tests.properties.meta.toy.always_singular_regression", capsys)
    line = out.split(_line(out, "FAIL", "fast_linear_regression"), 1)[1].splitlines()[1]
    assert line.endswith(", seed = 0…29"), out
    assert list(read_arguments(line.rsplit(", seed = ", 1)[0])) == ["A", "b", "eps", "delta"], out
    assert "first failing trial: seed = 0" in out and "raised: LinAlgError: singular matrix" in out, out


@pytest.mark.parametrize("signature, names", [
    ("softmax_newton_step(A: (n, d), b: (n,), w: (n,), x: (d,), H_tilde: (d, d)) -> (d,) array",
     ["A", "b", "w", "x", "H_tilde"]),
    ("attention_loss(A1, A2, A3, B: (n, d) arrays, X, Y: (d, d) arrays) -> float", ["A1", "A2", "A3", "B", "X", "Y"]),
    ("attention_pruning_prune(X, W, lam, rho, causal, score='M', steps=300) -> (d, d) array",
     ["X", "W", "lam", "rho", "causal", "score", "steps"]),
    ("attention_features(bits: list of [T_bits, S_bits] per degree, X: (d, n) array) -> (1 + Σm_l, n) array",
     ["bits", "X"]),
    ("preconditioned_gd(X: (d, n) array, y: (n,) array, feature_bits, s_bits: dict | None, eps: float, "
     "max_iter: int) -> (n,) array", ["X", "y", "feature_bits", "s_bits", "eps", "max_iter"]),
])
def test_argument_names_of_contract_signatures(signature, names):
    assert argument_names(signature) == names


def test_every_adapter_signature_names_its_arguments():
    """Each contract signature yields distinct identifiers (what the FAIL report labels the arguments with)."""
    for name, ad in adapters().items():
        names = argument_names(ad.signature)
        assert names and len(set(names)) == len(names) and ad.signature.startswith(f"{name}("), (name, names)


def test_read_arguments_inverts_the_printed_line():
    line = 'A = [[1.0, -2.5], [NaN, 0.0]], b = [1e-300, 2.0], eps = 0.5, score = "MW", bits = {"n": 4, "rows": [1, 2]}'
    args = read_arguments(line)
    assert list(args) == ["A", "b", "eps", "score", "bits"] and args["score"] == "MW", args
    assert args["bits"] == {"n": 4, "rows": [1, 2]} and np.isnan(args["A"][1][0]), args


# -- no claim applies --------------------------------------------------------------------------------

def test_when_no_claim_applies_the_report_says_which_functions_claims_need(capsys):
    code = validate("tests.properties.meta.toy.hessian_without_regulariser", profile="ci")
    out = capsys.readouterr().out
    assert code == 1, out
    line = _line(out, "0 claims apply: no claim uses these functions; the claims near them use ")
    needed = re.split(r", | and \d+ more", line.split(" near them use ", 1)[1])
    assert "softmax_newton_step" in needed and "softmax_hessian" not in needed, line
    assert set(n for n in needed if n) <= set(adapters()) and len(line) < 200, line
