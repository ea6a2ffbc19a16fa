"""Command-line errors: one line on stderr and exit 2, never a traceback.

- ``--resume`` and ``report --from`` on a ledger whose entries lack fields (``KeyError: 'worst_ratio'``,
  ``KeyError: 'paper'`` before) or hold a field of the wrong JSON type.
- ``report`` without matplotlib: the Markdown and certificates are written, the figures left out with one line
  saying what draws them (nothing was written before); ``report --out`` a directory that cannot be made.
- ``experiment --impl`` an unknown module, one that fails at import, one without the pruning functions.
- NaN sketch bits are a FAIL that says NaN, not "different bits on two calls" (non-determinism).
"""

from __future__ import annotations

import dataclasses
import json
import sys

import numpy as np
import pytest

from properties import ledger, ledgerfile
from properties.__main__ import main
from properties.registry import adapters

LEDGER = "errata/ledger-ci.json"
ONE_CLAIM = "softmax_regression.fact4.2.p1"


def _ledger_without(tmp_path, field: str, *, value=None, drop=True) -> str:
    doc = json.loads(open(LEDGER, encoding="utf-8").read())
    for entry in doc["claims"]:
        if drop:
            entry.pop(field, None)
        else:
            entry[field] = value
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path), doc


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("error: "), f"no error line: {err}"
    assert not any("Traceback" in line for line in err), "\n".join(err)
    return err[-1]


def test_entry_fields_are_the_ledgers():
    """read_ledger checks the fields the ledger writes: ENTRY_FIELDS are Result's fields, in order."""
    assert tuple(ledgerfile.ENTRY_FIELDS) == tuple(f.name for f in dataclasses.fields(ledger.Result))


def test_the_shipped_ledger_reads():
    assert len(ledgerfile.read_ledger(LEDGER)["claims"]) > 300


@pytest.mark.parametrize("field", ["worst_ratio", "paper", "verdict"])
def test_resume_from_a_ledger_lacking_a_field(tmp_path, capsys, field):
    path, doc = _ledger_without(tmp_path, field)
    code = main(["--claims", ONE_CLAIM, "--json", path, "--resume", "--profile", doc["profile"],
                 "--seed", str(doc["seed"]), "--jobs", "1"])
    line = _one_error_line(capsys)
    assert code == 2 and f"lacks the field '{field}'" in line and "claims[0]" in line, line


@pytest.mark.parametrize("field, value, words", [
    ("paper", None, "has paper=None, which must be of JSON type str"),
    ("examples", "many", "has examples='many', which must be of JSON type int"),
    ("worst_ratio", "1.0", "has worst_ratio='1.0'"),
])
def test_report_from_a_ledger_with_a_field_of_the_wrong_type(tmp_path, capsys, field, value, words):
    path, _ = _ledger_without(tmp_path, field, value=value, drop=False)
    out = tmp_path / "report"
    code = main(["report", "--from", path, "--out", str(out)])
    line = _one_error_line(capsys)
    assert code == 2 and words in line, line
    assert not any(out.glob("ERRATA-*")), "an errata file was written from a bad ledger"


def test_report_from_a_ledger_lacking_paper(tmp_path, capsys):
    path, _ = _ledger_without(tmp_path, "paper")
    code = main(["report", "--from", path, "--out", str(tmp_path / "report")])
    line = _one_error_line(capsys)
    assert code == 2 and "lacks the field 'paper'" in line, line


def test_report_without_matplotlib_writes_the_markdown_and_says_what_draws_the_figures(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    out = tmp_path / "report"
    code = main(["report", "--from", LEDGER, "--out", str(out), "--paper", "softmax_regression"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert (out / "ERRATA-softmax_regression.md").is_file() and not list(out.glob("*.png")), list(out.iterdir())
    assert "figures were not drawn: matplotlib is not installed; pip install '.[report]'" in err, err


def test_report_out_directory_that_cannot_be_made(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("x", encoding="utf-8")
    code = main(["report", "--from", LEDGER, "--out", str(blocker / "dir")])
    line = _one_error_line(capsys)
    assert code == 2 and "a_file" in line, line


@pytest.mark.parametrize("module, words", [
    ("no_such_module_anywhere", "cannot be imported (ModuleNotFoundError"),
    ("tests.properties.test_cli_errors", "lacks the adapter functions the experiment needs: attention_pruning_prune, "
                                         "attention_pruning_wanda"),
])
def test_experiment_impl_errors(tmp_path, capsys, module, words):
    out = tmp_path / "exp"
    code = main(["experiment", "attention_pruning", "--impl", module, "--skip-real-model", "--quick", "--out", str(out)])
    line = _one_error_line(capsys)
    assert code == 2 and f"--impl {module!r}" in line and words in line, line
    assert not out.exists(), "the output directory was made although the module was refused"


def test_experiment_impl_failing_at_import(tmp_path, capsys, monkeypatch):
    (tmp_path / "boom_at_import.py").write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["experiment", "attention_pruning", "--impl", "boom_at_import", "--skip-real-model", "--quick",
                 "--out", str(tmp_path / "exp")])
    line = _one_error_line(capsys)
    assert code == 2 and "cannot be imported (RuntimeError: boom)" in line, line


def test_nan_sketch_bits_fail_as_nan_not_as_nondeterminism():
    out = adapters()["gaussian_bits"].compare((3, 2, 0), lambda n, m, seed: {"g": np.full((m, n), np.nan)})
    assert not out.holds and "NaN" in out.note and "deterministic" not in out.note, out.note


@pytest.mark.parametrize("args, words", [
    (["--claims", "no_such_paper.*"], "holds no claim selected by --claims no_such_paper.*"),
    (["--paper", "attention_pruning", "softmax_regression", "--claims", "softmax_regression.*"],
     "paper='attention_pruning' must have claims in errata/ledger-ci.json matching --claims softmax_regression.*"),
])
def test_report_selection_that_the_ledger_does_not_hold(tmp_path, capsys, args, words):
    """No errata file of no claim; the selection that finds nothing is named."""
    out = tmp_path / "report"
    code = main(["report", "--from", LEDGER, *args, "--out", str(out)])
    line = _one_error_line(capsys)
    assert code == 2 and words in line, line
    assert not any(out.glob("ERRATA-*")), "an errata file was written for a selection the ledger does not hold"


def test_experiment_of_a_paper_without_one(capsys):
    code = main(["experiment", "softmax_regression"])
    line = _one_error_line(capsys)
    assert code == 2 and "paper='softmax_regression' must be one of attention_pruning" in line, line
