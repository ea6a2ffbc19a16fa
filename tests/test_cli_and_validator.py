"""The command line and the validator, end to end (meta-tests with planted bugs)."""

import json
import os
import subprocess
import sys

import pytest

from properties.validate import validate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(*args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "properties", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_ledger_json_has_one_entry_per_selected_claim(tmp_path):
    out = tmp_path / "ledger.json"
    proc = _run("--claims", "softmax_regression.fact4.3.*", "--profile", "ci", "--json", str(out))
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr}"
    data = json.loads(out.read_text())
    ids = [c["id"] for c in data["claims"]]
    assert ids == sorted(set(ids), key=ids.index) and len(ids) == 7, f"ids {ids}"
    for c in data["claims"]:
        for key in ("id", "paper", "kind", "verdict", "examples", "worst_ratio", "counterexample",
                    "counterexample_source"):
            assert key in c, f"{c['id']}: JSON entry lacks {key}"
        assert c["verdict"] in ("verified", "falsified", "not-applicable", "inconclusive"), c
    assert "[1/7]" in proc.stderr, "progress lines go to stderr while the ledger runs"
    assert "verified" in proc.stdout, "the summary table goes to stdout"


def test_unknown_pattern_exits_2_with_one_line():
    proc = _run("--claims", "no_such_paper.*")
    assert proc.returncode == 2, f"exit {proc.returncode}"
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no registered claim matches" in lines[0], proc.stderr


def test_validate_missing_module_exits_nonzero_with_one_line():
    proc = _run("validate", "no_such_module_xyz")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "cannot import" in proc.stderr


def test_validate_module_without_adapters_exits_nonzero_with_one_line():
    proc = _run("validate", "tests.toy.no_adapters")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "defines none of the adapter functions" in proc.stderr


def test_validator_catches_planted_bugs_with_minimal_inputs(capsys):
    code = validate("tests.toy.wrong_linalg", profile="ci")
    out = capsys.readouterr().out
    assert code == 1, f"validator must fail the toy implementation:\n{out}"
    assert "PASS sigma_min" in out, f"the correct function passes:\n{out}"
    spectral = next(line for line in out.splitlines() if "spectral_norm" in line and "FAIL" in line)
    kron = next(line for line in out.splitlines() if "kron" in line and "FAIL" in line)
    # Hypothesis shrinks to the smallest witnesses: Frobenius ≠ spectral needs rank 2, so a 2×2
    # matrix with two unit entries; kron(x, y) ≠ kron(y, x) needs two different 2-vectors.
    assert "minimal failing input: [[0.0, 1.0], [1.0, 0.0]]" in spectral or \
        "minimal failing input: [[1.0, 0.0], [0.0, 1.0]]" in spectral, spectral
    assert "minimal failing input: [[0.0, 1.0], [1.0, 0.0]]" in kron or \
        "minimal failing input: [[1.0, 0.0], [0.0, 1.0]]" in kron, kron


def _solver_adapter_names():
    import solvers.adapter
    from properties.validate import find_adapters

    return find_adapters(solvers.adapter)


@pytest.mark.parametrize("name", _solver_adapter_names())
def test_solvers_adapter_passes_the_validator(name, capsys):
    """Each adapter function of solvers passes the validator (one test each, so xdist spreads them);
    the claims that use them run on solvers.adapter through the same run_claim in test_claims.py."""
    code = validate("solvers.adapter", profile="ci", functions=[name], include_claims=False)
    out = capsys.readouterr().out
    assert code == 0, f"solvers.adapter.{name} must pass the validator:\n{out}"
    assert "1 passed, 0 failed" in out, out


def test_split_newton_passes_the_solve_contract(capsys):
    """split_newton (float32 Gram, sampled E part) as a user's softmax_solve passes the validator:
    its x matches the oracle's 50-digit minimiser within the softmax_solve tolerance."""
    code = validate("tests.toy.split_newton_solve", profile="ci", functions=["softmax_solve"],
                    include_claims=False)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "1 passed, 0 failed" in out, out


def test_validator_runs_claims_that_use_the_functions(capsys):
    """The claims part of the validator: a module defining ``srht_bits`` gets the subspace-embedding
    claim that uses it judged on its sketches (here the project's own solver)."""
    code = validate("solvers.adapter", profile="ci", functions=["srht_bits"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "claims that use these functions (1)" in out and "PASS attention_kernel_regression.lemC.5.srht" in out, out


@pytest.mark.parametrize("module", ["solvers", "properties"])
def test_solvers_and_oracle_stay_independent(module):
    """DESIGN principle 1: solvers/ never imports oracle/; oracle/ never imports solvers/ or jax."""
    import pathlib
    import re

    pattern = {"solvers": r"^\s*(from|import)\s+oracle\b", "properties": None}[module]
    if pattern:
        for path in pathlib.Path(ROOT, "solvers").rglob("*.py"):
            assert not re.search(pattern, path.read_text(), re.M), f"{path} imports oracle"
    for path in pathlib.Path(ROOT, "oracle").rglob("*.py"):
        assert not re.search(r"^\s*(from|import)\s+(solvers|jax)\b", path.read_text(), re.M), \
            f"{path} imports solvers or jax"


def test_readme_lists_the_adapter_contract():
    """README's adapter table is the contract: every registered adapter appears with its signature."""
    import pathlib

    from properties.validate import ADAPTERS, _load_adapters

    _load_adapters()
    readme = pathlib.Path(ROOT, "README.md").read_text(encoding="utf-8")
    missing = [a.signature for a in ADAPTERS.values() if f"`{a.signature}`" not in readme]
    assert not missing, f"README lacks adapter rows for {missing} (regenerate: python -m properties adapters --markdown)"
