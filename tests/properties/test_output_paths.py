"""Paths a command writes to and ledgers it resumes or reports from, refused up front with one line and
exit code 2 (docs/cli.md): an empty ``--json``, a ``--json`` naming a directory, an ``--out`` that is a
file, a ledger written by other code (``--resume``), a ledger holding ids or verdicts this code could not
have written (``report``); ``--json LINK`` writes the link's target."""

import json
import os

import pytest

from properties.__main__ import main
from properties.ledger import code_fingerprint

ONE = "softmax_regression.fact4.2.p1"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("error: ") and "Traceback" not in "\n".join(err), err
    return err[-1]


@pytest.mark.parametrize("path, words", [("", "non-empty file name"), ("newdir/", "must name a file")])
def test_a_json_path_that_names_no_file_is_refused_before_any_claim(capsys, monkeypatch, tmp_path, path, words):
    monkeypatch.chdir(tmp_path)
    assert main(["--claims", ONE, "--json", path]) == 2
    assert words in _error(capsys)
    assert os.listdir(tmp_path) == []


def test_json_at_a_link_writes_its_target(tmp_path):
    target = tmp_path / "ledgers" / "ledger.json"
    target.parent.mkdir()
    link = tmp_path / "ledger.json"
    link.symlink_to(target)
    assert main(["--claims", ONE, "--jobs", "1", "--json", str(link)]) == 0
    assert link.is_symlink() and json.loads(target.read_text())["claims"][0]["id"] == ONE


@pytest.mark.parametrize("command", [["docs", "--out"], ["certify", "--claims", ONE, "--out"]])
def test_an_out_directory_that_is_a_file_is_one_line_and_exit_2(capsys, tmp_path, command):
    (tmp_path / "taken").write_text("a file")
    assert main([*command, str(tmp_path / "taken")]) == 2
    assert "--out" in _error(capsys)


def test_resume_refuses_a_ledger_written_by_other_code(capsys, tmp_path):
    path = tmp_path / "ledger.json"
    assert main(["--claims", ONE, "--jobs", "1", "--json", str(path)]) == 0
    doc = json.loads(path.read_text())
    assert doc["code"] == code_fingerprint()
    doc["code"] = "0" * 16
    path.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["--claims", ONE, "--jobs", "1", "--json", str(path), "--resume"]) == 2
    assert "written by other code" in _error(capsys)


@pytest.mark.parametrize("field, value, words", [
    ("id", "softmax_regression.made_up", "not a claim of claims.tsv"),
    ("verdict", "proven", "must be one of"),
    ("expected", "sort-of", "must be one of"),
])
def test_report_refuses_what_this_code_could_not_have_written(capsys, tmp_path, field, value, words):
    with open(os.path.join(ROOT, "errata", "ledger-ci.json"), encoding="utf-8") as fh:
        doc = json.load(fh)
    doc["claims"][0][field] = value
    (tmp_path / "ledger.json").write_text(json.dumps(doc))
    assert main(["report", "--from", str(tmp_path / "ledger.json"), "--out", str(tmp_path / "out")]) == 2
    assert words in _error(capsys)
