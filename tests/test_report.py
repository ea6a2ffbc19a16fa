"""The errata report (issue 15): exact counterexamples, one file per paper, README generated."""

import json
import math
import pathlib
from fractions import Fraction

from properties import report

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _ledger():
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
    text = report.counterexample_text([[0.1, 3.0], 2.0**-10 * 3])
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
    # the drawn (G, H, t, α) is shown as the statement's U = αGGᵀ − t·HHᵀ, V = GGᵀ and α (issue 22, item 3)
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
    shows their first table (tests/meta/test_docs.py)."""
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
    """Issue 15: per falsified claim, "repair: verified / falsified / none known" (notes say why for none)."""
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
