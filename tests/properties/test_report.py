"""The errata report: exact counterexamples, one file per paper, README generated."""

import json
import math
import os
import pathlib
import shlex
import subprocess
import sys
from fractions import Fraction

import pytest

from properties import ledgerfile, report
from properties.__main__ import main

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _ledger():
    """A small ledger as the ledger writes one (each entry records the verdict the harness expects)."""
    ledger = _ledger_entries()
    for entry in ledger["claims"]:
        entry.setdefault("expected", entry["verdict"])
    return ledger


def _ledger_entries():
    return {"profile": "ci", "seed": 0, "claims": [
        {"id": "softmax_regression.fact4.4.p1", "paper": "softmax_regression", "section": "Fact 4.4 Part 1",
         "kind": "loewner-implies-norm", "verdict": "falsified", "examples": 33, "worst_ratio": 155.7,
         "counterexample": [[[0.0]], [[-0.1]], 1.0, 0.3], "counterexample_source": "search",
         "counterexample_outcome": {"holds": False, "ratio": 2.0, "measured": 1.0, "bound": 0.0, "digits": 90},
         "recheck_dps": 100, "reason": "", "statement": "U ⪯ αV ⇒ ‖U‖ ≤ α‖V‖"},
        {"id": "softmax_regression.fact4.5.p5", "paper": "softmax_regression", "section": "Fact 4.5",
         "kind": "loewner", "verdict": "falsified", "examples": 37, "worst_ratio": 1.3,
         "counterexample": [[1.0, 1.0], [1.0, 0.0]], "counterexample_source": "search",
         "counterexample_outcome": {"holds": False, "ratio": 1.3, "measured": 0.618, "bound": 0.0, "digits": 90},
         "recheck_dps": 100, "reason": "", "statement": "(v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞² uuᵀ",
         "repairs": [{"statement": "(v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞²‖u‖₂² I_n", "verdict": "verified", "examples": 25,
                      "worst_ratio": 1.0, "reason": ""}]},
        {"id": "softmax_regression.lem8.7", "paper": "softmax_regression", "section": "Lemma 8.7",
         "kind": "contraction-inequality", "verdict": "falsified", "examples": 5, "worst_ratio": 40.9,
         "counterexample": [1.0], "counterexample_source": "search", "recheck_dps": 100, "reason": "",
         "statement": "r_{t+1} ≤ 2(ε0 + r̄_t/(l − r̄_t))·r_t",
         "repairs": [{"statement": "H-norm form", "verdict": "verified", "examples": 10, "worst_ratio": 0.96,
                      "reason": ""},
                     {"statement": "a wrong repair", "verdict": "falsified", "examples": 3, "worst_ratio": 2.0,
                      "reason": ""}]},
        {"id": "softmax_regression.fact4.3.p1", "paper": "softmax_regression", "section": "Fact 4.3",
         "kind": "inequality", "verdict": "verified", "examples": 25, "worst_ratio": 1e-3,
         "statement": "⟨u, v⟩ ≤ ‖u‖₂‖v‖₂"},
        {"id": "softmax_regression.fact4.2.p1", "paper": "softmax_regression", "section": "Fact 4.2",
         "kind": "identity", "verdict": "verified", "examples": 25, "worst_ratio": 1e-101, "statement": "⟨u, v⟩"},
    ]}


def test_counterexample_values_are_exact_and_round_trip():
    text = ledgerfile.counterexample_text([[0.1, 3.0], 2.0**-10 * 3])
    first, exact = text.split("\n")
    assert json.loads(first) == [[0.1, 3.0], 2.0**-10 * 3], text
    assert "0.1 = 0x1.999999999999ap-4" in exact, f"0.1 must be given exactly (hex): {text}"
    assert f"{2.0**-10 * 3!r} = 3/1024" in exact, f"a dyadic value must be given as a fraction: {text}"
    assert float.fromhex("0x1.999999999999ap-4") == 0.1 and Fraction(3, 1024) == 2.0**-10 * 3


def test_reports_name_every_falsified_claim_with_its_counterexample(tmp_path):
    paths = report.write_reports(_ledger(), str(tmp_path), papers=["softmax_regression"], command="cmd")
    md = (tmp_path / "ERRATA-softmax_regression.md").read_text(encoding="utf-8")
    assert [pathlib.Path(p).name for p in paths] == ["ERRATA-softmax_regression.md", "TIGHTNESS-softmax_regression.png"]
    assert "### `softmax_regression.fact4.4.p1`" in md, md
    # the drawn (G, H, t, α) is shown as the statement's U = αGGᵀ − t·HHᵀ, V = GGᵀ and α
    assert "Counterexample (found by the Hypothesis search): `U = [[-0.010000000000000002]], V = [[0.0]], α = 0.3`" in md, md
    assert "re-checked at 100 digits" in md and "found by the Hypothesis search" in md, md
    assert "Looser than 100× (1): `softmax_regression.fact4.3.p1`" in md, md
    assert "fact4.2.p1` |" not in md, "identities are not bounds and stay out of the tightness table"
    png = (tmp_path / "TIGHTNESS-softmax_regression.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000


def test_loose_threshold_is_100x():
    assert math.isclose(report.LOOSE, 0.01)


def test_readme_status_is_generated_from_the_registry():
    """docs/status.md's tables are readme_status() verbatim (regenerate: python -m properties docs); README
    shows their first table (tests/properties/meta/test_docs.py)."""
    readme = (ROOT / "docs" / "status.md").read_text(encoding="utf-8")
    begin, end = "<!-- status:begin (generated: properties.report.readme_status) -->\n", "\n<!-- status:end -->"
    assert begin in readme and end in readme, "docs/status.md lacks the generated status block"
    block = readme[readme.index(begin) + len(begin):readme.index(end)]
    assert block == report.readme_status(), (
        "docs/status.md's tables differ from properties.report.readme_status(); regenerate them")


def _entries(md):
    """{claim id: its section of an ERRATA file} for the falsified entries."""
    body = md.split("## Falsified claims", 1)[1].split("## Not applicable", 1)[0]
    return {part.split("`", 1)[0]: part for part in body.split("### `")[1:]}


def test_every_falsified_claim_has_a_repair_line(tmp_path):
    """Per falsified claim, "repair: verified / falsified / none known" (notes say why for none)."""
    report.write_reports(_ledger(), str(tmp_path), papers=["softmax_regression"], command="cmd")
    md = (tmp_path / "ERRATA-softmax_regression.md").read_text(encoding="utf-8")
    entries = _entries(md)
    falsified = [c["id"] for c in _ledger()["claims"] if c["verdict"] == "falsified"]
    assert sorted(entries) == sorted(falsified), f"falsified entries {sorted(entries)} but ledger has {falsified}"
    want = {"softmax_regression.fact4.4.p1": "none known", "softmax_regression.fact4.5.p5": "verified",
            "softmax_regression.lem8.7": "falsified"}
    for cid, status in want.items():
        lines = [ln for ln in entries[cid].splitlines() if ln.startswith("- repair: ")]
        assert lines == [f"- repair: {status}"], f"{cid}: repair lines {lines}, but should be ['- repair: {status}']"
    assert "  - (v∘u)(v∘u)ᵀ ⪯ ‖v‖_∞²‖u‖₂² I_n — **verified** on 25 examples" in entries["softmax_regression.fact4.5.p5"]
    assert "Repairs of the 3 falsified claims: falsified 1, none known 1, verified 1." in md, md


def test_repair_status_words():
    assert report.repair_status({}) == "none known"
    assert report.repair_status({"repairs": [{"verdict": "verified"}, {"verdict": "inconclusive"}]}) == "inconclusive"
    assert report.repair_status({"repairs": [{"verdict": "verified"}, {"verdict": "falsified"}]}) == "falsified"
    assert report.repair_status({"repairs": [{"verdict": "verified"}]}) == "verified"


def test_every_falsified_claim_carries_a_repair_or_says_none_is_known():
    """The registry: an expected-falsified claim has a repair, or its notes say "No repair known" and why."""
    from properties.registry import claims

    missing = [c.id for c in claims() if c.expected == "falsified" and not c.repairs
               and "no repair known" not in c.notes.lower()]
    assert not missing, f"falsified claims {missing} have no repair and their notes do not say 'No repair known: …'"


def test_certificates_and_worst_examples_are_shown(tmp_path):
    ledger = _ledger()
    ledger["claims"][1]["repairs"][0].update(worst_example=[[1.0, 2.0], [0.5, 0.0]], worst_instance=None)
    cert = {"claim": "softmax_regression.fact4.5.p5", "target": "violation", "certified": True, "method": "witness",
            "bits": 64, "enclosed": "vᵀ(Y − X)v", "relation": "≥", "measured": {"text": "[-0.5 +/- 0]"},
            "bound": {"text": "0"}, "premises": []}
    report.write_reports(ledger, str(tmp_path), papers=["softmax_regression"], command="cmd",
                         certificates={("softmax_regression.fact4.5.p5", "violation"): cert})
    md = (tmp_path / "ERRATA-softmax_regression.md").read_text(encoding="utf-8")
    assert "- Certificate: **certified** (witness, 64 bits): vᵀ(Y − X)v: measured ∈ [-0.5 +/- 0], bound ∈ 0" in md, md
    assert "Worst example: `u = [1.0, 2.0], v = [0.5, 0.0]`" in md, md
    assert "not certified (no certificate was made" in md, "a claim without a certificate must say so"


def test_difference_table_puts_changed_verdicts_first():
    base = {"profile": "ci", "claims": [
        {"id": "a", "verdict": "verified", "worst_ratio": 0.5, "examples": 25},
        {"id": "b", "verdict": "verified", "worst_ratio": 0.1, "examples": 25},
        {"id": "c", "verdict": "verified", "worst_ratio": 0.2, "examples": 25}]}
    deep = {"profile": "thorough", "claims": [
        {"id": "a", "verdict": "verified", "worst_ratio": 0.5, "examples": 1000},
        {"id": "b", "verdict": "verified", "worst_ratio": 0.9, "examples": 1000},
        {"id": "c", "verdict": "falsified", "worst_ratio": 3.0, "examples": 40, "reason": "found"}]}
    table = report.difference_table(base, deep, "ci.json", "deep.json")
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == ["c", "b", "a"], table
    assert "**verified → falsified**" in rows[0] and "found" in rows[0]
    assert "(×9)" in rows[1] and "25 → 1000" in rows[2]
    assert "3 claims in both; 1 changed verdict; 1 moved" in table


def test_tightness_from_a_deep_ledger(tmp_path):
    deep = {"profile": "thorough", "claims": [
        {"id": "softmax_regression.fact4.3.p1", "paper": "softmax_regression", "section": "Fact 4.3",
         "kind": "inequality", "verdict": "verified", "examples": 1000, "worst_ratio": 0.5,
         "statement": "⟨u, v⟩ ≤ ‖u‖₂‖v‖₂"}]}
    paths = report.write_reports(_ledger(), str(tmp_path), papers=["softmax_regression"], command="cmd",
                                 tightness=deep, tightness_source="deep.json")
    md = (tmp_path / "ERRATA-softmax_regression.md").read_text(encoding="utf-8")
    assert "tightness from deep.json (profile thorough)" in md and "| 0.5 | 1000 |" in md, md
    assert "Looser than 100× (0): none" in md, "the loose list must come from the deep ledger"
    assert any(p.endswith("DIFFERENCES.md") for p in paths)


def test_ledger_table_states_each_falsified_claim_and_its_named_counterexample():
    from properties.ledger import summary_table

    entry = {"id": "softmax_regression.fact4.4.p1", "kind": "loewner-implies-norm", "verdict": "falsified",
             "examples": 43, "worst_ratio": 35.28, "statement": "U ⪯ αV ⇒ ‖U‖ ≤ α‖V‖",
             "instance": {"U": [[-1.0]], "V": [[0.0]], "α": 1.0}, "counterexample": [[[0.0]], [[1.0]], 1.0, 1.0]}
    verified = {"id": "softmax_regression.fact4.4.p2", "kind": "inequality", "verdict": "verified", "examples": 25,
                "worst_ratio": 1.0, "statement": "‖Uv‖₂ ≤ ‖U‖‖v‖₂"}
    lines = summary_table([entry, verified]).splitlines()
    assert lines[2:4] == ["    stated: U ⪯ αV ⇒ ‖U‖ ≤ α‖V‖", "    counterexample: U = [[-1.0]], V = [[0.0]], α = 1.0"], lines
    assert lines[4].startswith("softmax_regression.fact4.4.p2") and "stated" not in "".join(lines[4:])
    # tightness (worst measured/bound) is a verified bound's: a falsified claim's row shows none
    assert lines[1].split()[-2:] == ["43", "-"] and "35.28" not in lines[1], lines[1]
    assert lines[4].split()[-2:] == ["25", "1"], lines[4]
    shown = summary_table([{**entry, "counterexample_outcome": {"holds": False, "measured": 1.0, "bound": 0.0}}])
    assert "    measured: 1 against bound 0" in shown.splitlines(), shown


# -- only the ledger's papers, the commit of a non-editable install, a Reproduce line that
# reproduces, the figure in the paper's order ---------------------------------------------------------------

LEDGER = "errata/ledger-ci.json"


def test_reports_are_written_only_for_the_papers_of_the_ledger(tmp_path):
    paths = report.write_reports(_ledger(), str(tmp_path), command="cmd")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ERRATA-softmax_regression.md",
                                                           "TIGHTNESS-softmax_regression.png"], paths


def test_select_entries_narrows_to_papers_and_globs():
    ledger = _ledger()
    ledger["claims"].append({**ledger["claims"][3], "id": "attention_pruning.factA1.a", "paper": "attention_pruning"})
    narrowed, papers = report.select_entries(ledger, patterns=["softmax_regression.fact4.[45].*", "*.factA1.a"])
    assert [c["id"] for c in narrowed["claims"]] == ["softmax_regression.fact4.4.p1", "softmax_regression.fact4.5.p5",
                                                     "attention_pruning.factA1.a"]
    assert papers == ["softmax_regression", "attention_pruning"], "papers in the registry's order"
    narrowed, papers = report.select_entries(ledger, papers=["attention_pruning"])
    assert papers == ["attention_pruning"] and len(narrowed["claims"]) == 1
    with pytest.raises(ValueError, match="paper='attention_kernel_regression' must have claims in x.json"):
        report.select_entries(ledger, papers=["attention_kernel_regression", "softmax_regression"], source="x.json")
    with pytest.raises(ValueError, match="x.json holds no claim selected by --claims nothing.*"):
        report.select_entries(ledger, patterns=["nothing.*"], source="x.json")


def test_report_claims_writes_its_papers_and_a_reproduce_line_that_reproduces(tmp_path, capsys):
    """``report --from L --claims …`` writes files only for the selected claims' paper; its Reproduce line,
    run as written (the shell's words), writes the same errata file again."""
    out = tmp_path / "rep"
    assert main(["report", "--from", LEDGER, "--claims", "softmax_regression.fact4.4.*", "softmax_regression.lem7.1",
                 "--out", str(out)]) == 0, capsys.readouterr().err
    assert sorted(p.name for p in out.glob("*-*")) == ["ERRATA-softmax_regression.md", "TIGHTNESS-softmax_regression.png"]
    md = (out / "ERRATA-softmax_regression.md").read_text(encoding="utf-8")
    (line,) = [ln for ln in md.splitlines() if ln.startswith("- Reproduce: ")]
    command = line.removeprefix("- Reproduce: `").removesuffix("`")
    assert command == (f"python -m properties report --from {LEDGER} --claims 'softmax_regression.fact4.4.*' "
                       f"softmax_regression.lem7.1 --out {out}"), command
    assert "3 of the 78 claim ids of this paper are in the ledger" in md, md
    (out / "ERRATA-softmax_regression.md").unlink()
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", "properties"]
    assert main(words[3:]) == 0, capsys.readouterr().err
    assert (out / "ERRATA-softmax_regression.md").read_text(encoding="utf-8") == md


def test_reproduce_command_names_every_option_that_shaped_the_report():
    fresh = report.reproduce_command(source=None, profile="dev", seed=3, tightness="deep ledger.json", out="r",
                                     papers=["softmax_regression"], patterns=["*.lem7.*"])
    assert shlex.split(fresh) == ["python", "-m", "properties", "report", "--profile", "dev", "--seed", "3",
                                  "--tightness-from", "deep ledger.json", "--paper", "softmax_regression",
                                  "--claims", "*.lem7.*", "--out", "r"], fresh


def _git_head():
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except OSError:
        out = None
    if out is None or out.returncode != 0:
        pytest.skip("not a git checkout: the build records no commit here")
    return out.stdout.strip()


def test_a_checkout_reports_its_head():
    assert report.provenance()[0] == _git_head()


def test_the_build_records_the_commit_for_a_non_editable_install(tmp_path):
    """setup.py's build step writes properties/build_info.py into the built package; that copy, run where no
    git repository holds it (and then inside an unrelated repository), reports the commit it was built from."""
    head = _git_head()
    build = tmp_path / "lib"
    proc = subprocess.run([sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(build)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"COMMIT = {head!r}" in (build / "properties" / "build_info.py").read_text(encoding="utf-8")
    assert not (ROOT / "properties" / "build_info.py").exists(), "the record goes into the build, not the checkout"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = "import properties.report as r; print(r.__file__); print(r.provenance()[0])"
    for where in ("alone", "inside another repository"):
        if where != "alone":  # a site-packages inside some repository of the user's: not this project's checkout
            for args in (["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
                                          "-m", "other"]):
                subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, timeout=60)
        run = subprocess.run([sys.executable, "-c", probe], cwd=build, env=env, capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, run.stderr
        path, commit = run.stdout.split()
        assert path.startswith(str(build)) and commit == head, f"{where}: {run.stdout}"


def test_the_figure_follows_the_papers_numbering():
    """Lemma 7.1, 7.2's parts, 7.3, …, 7.10, 7.11 (claims.tsv lists 7.3 and 7.1 after 7.11); body sections
    before appendices."""
    ids = ["lem7.10", "lem7.2.part1", "lem7.11", "lem7.1", "lem7.3", "lem7.2.part0", "fact4.3.p1", "lem8.5", "lem5.10",
           "lem5.9"]
    entries = [{"id": f"softmax_regression.{i}", "verdict": "verified"} for i in ids]
    order = [c["id"].split(".", 1)[1] for c in report._in_paper_order("softmax_regression", entries)]
    assert order == ["fact4.3.p1", "lem5.9", "lem5.10", "lem7.1", "lem7.2.part0", "lem7.2.part1", "lem7.3", "lem7.10",
                     "lem7.11", "lem8.5"], order
    keys = report.section_order("attention_pruning")
    assert keys["attention_pruning.thm4.1"] < keys["attention_pruning.lem5.5"] < keys["attention_pruning.factA1.a"] \
        < keys["attention_pruning.lemB8"] < keys["attention_pruning.lemB10"] < keys["attention_pruning.lemF9"]
