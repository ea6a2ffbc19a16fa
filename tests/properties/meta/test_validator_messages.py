"""The validator's messages point at the bug: an exact rule's FAIL shows the returned and expected arrays
side by side with the wrong entries marked and no second, contradictory error/tolerance pair; a PASS of a
sketch offered as bits says what its bits cannot show and which function judges it; a file name given for
the module is answered with one line; ``--only`` restricts the functions; progress goes to stderr."""

import subprocess
import sys

import numpy as np
import pytest

import solvers.adapter
from properties.errors import UnusableModule
from properties.failure_report import Call, FunctionReport
from properties.registry import adapters
from properties.validate import check_function, open_module, validate

from .test_planted_bugs import _judge


def test_an_exact_mask_failure_marks_the_wrong_entries_and_states_no_ratio():
    _, rep = _judge("binarize_half_even", "attention_pruning_binarize", 0)
    text = "\n".join(rep.lines())
    assert "exact rule broken; " in text and "error/tolerance" not in text, text
    marked = [line for line in rep.lines() if "*" in line and line.strip().startswith("[")]
    assert marked and "entries differ, marked *" in text, text
    assert "tolerance 0" not in text, text


def test_a_failure_judged_as_a_ratio_prints_no_second_pair():
    """A rule whose outcome is a ratio against 1 (the head line's error/tolerance) adds no 'error X, tolerance 1'."""
    x, y = np.array([1.1]), np.array([3.0])
    returned = np.kron(x, y) * (1 + 1e-9)
    outcome = adapters()["kron"].compare((x, y), lambda *_: returned)
    assert outcome.bound == 1 and not outcome.holds, outcome
    report = FunctionReport("kron", False, 1, outcome.ratio, (x, y), outcome, call=Call((x, y), {}, returned),
                            adapter=adapters()["kron"])
    lines = report.lines()
    assert any(line.strip().startswith("tolerance rule:") for line in lines), lines
    assert not any(line.strip().startswith("error ") for line in lines), lines


@pytest.mark.parametrize("name", ["srht_bits", "osnap_bits", "gaussian_bits", "tensor_srht_bits"])
def test_a_pass_of_sketch_bits_says_the_scale_is_not_judged_and_names_the_apply_function(name):
    lines = FunctionReport(name, True, 25, 0.0, adapter=adapters()[name]).lines()
    assert len(lines) == 2 and lines[1].strip().startswith("not judged: the scale of S"), lines
    assert f"{name.removesuffix('_bits')}_apply" in lines[1], lines


def test_a_passed_search_report_carries_its_adapter():
    rep = check_function(adapters()["kron"], solvers.adapter.kron, profile="ci")
    assert rep.passed and rep.adapter is adapters()["kron"], rep


def test_a_file_name_for_the_module_is_one_line_saying_drop_py():
    with pytest.raises(UnusableModule, match=r"name the module without '\.py': python -m properties validate pkg\.myprune$"):
        open_module("pkg/myprune.py")


def test_only_restricts_the_functions_and_progress_goes_to_stderr(capsys):
    code = validate("tests.properties.meta.planted.kron_float32_large", profile="ci", functions=["kron"],
                    include_claims=False)
    out, err = capsys.readouterr()
    assert code == 1 and "1 adapter functions (kron)" in out, out
    assert "[1/1] kron …" in err and "[1/1]" not in out, err
    done = subprocess.run([sys.executable, "-m", "properties", "validate", "tests.properties.meta.planted.kron_float32_large",
                           "--only", "spectral_norm"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "does not define adapter functions ['spectral_norm']" in done.stderr, done


def test_search_parameters_not_passed_to_the_function_are_listed_by_name():
    """softmax_solve receives (A, b, w); the drawn l and extra, from which w was built, are named."""
    ad = adapters()["softmax_solve"]
    A, b, w = np.eye(2), np.array([0.5, 0.5]), np.array([3.0, 3.0])
    inst = (A, b, 0.25, np.array([0.0, 7.0]))
    report = FunctionReport("softmax_solve", False, 1, None, inst, None, "boom", call=Call((A, b, w), {}, raised="boom"),
                            adapter=ad)
    (line,) = [ln for ln in report.lines() if "drawn with" in ln]
    assert "l (w² ≥ 4 + l/σ_min(A)² + extra) = 0.25" in line and "extra = [0.0, 7.0]" in line, line
    assert "[2]" not in line and "raised: boom" not in "\n".join(report.lines()), report.lines()


def test_search_parameters_of_a_nested_tuple_are_named_one_by_one():
    """A sketch apply's instance ((kind, n, m, s, seed), M) names each drawn bits parameter, not instance[0][k]."""
    from properties.failure_report import _field
    names = adapters()["srht_apply"].instance_fields
    assert [_field(f"[0][{k}]", names) for k in range(5)] == ["sketch kind", "n", "m", "s", "seed of the bits"]
    assert _field("[1]", names) == "M"
    assert _field("[0][7]", names) == "(sketch kind, n, m, s, seed of the bits)[7]"
    assert _field("[2]", names) == "instance[2]"
    assert adapters()["kernel_ridge_solve"].instance_fields[3] == "log10 eps"
