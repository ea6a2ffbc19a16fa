"""What a verdict is about: the provenance options of a claim, the paper's table of conventions, the
readings the registry attaches, and the strength of a falsification (properties.toolkit.provenance)."""

from __future__ import annotations

import dataclasses

import pytest

from properties import registry
from properties.paper import Paper
from properties.toolkit import Claim, ClaimSet, Convention, Outcome, strength
from properties.toolkit.provenance import (
    AS_WRITTEN,
    DECLARED_FIELDS,
    NOT_JUDGED,
    STRENGTH_WORDS,
    STRENGTHS,
    annotate,
    with_strengths,
)

SIGMA = Convention("sigma_min", "Def A.1: σ_min(A) = min_{‖x‖₂=1} ‖Ax‖₂",
                   alternatives=(("min_mn", "the least of the min(m, n) singular values"),))


def _claim(provenance="R", **fields) -> Claim:
    base = dict(id="x.y", paper="x", section="s", kind="inequality", statement="a ≤ b", hypotheses="",
                expected="falsified", mode="single", check=lambda: Outcome(True, 0.0, 1.0, 1.0),
                provenance=provenance)
    return Claim(**{**base, **fields})


def _tsv_id(provenance: str) -> tuple[str, str]:
    """(id, paper) of a claims.tsv row with this provenance."""
    return next((cid, row["paper"]) for cid, row in registry.canonical_ids().items()
                if row["provenance"] == provenance)


# -- strength: computed, never written; the meta-tests of what each verdict may claim ---------------------

def test_strength_is_none_unless_falsified():
    for verdict in ("verified", "inconclusive", "not-applicable"):
        assert strength(_claim(), verdict) is None, verdict


def test_a_claim_with_two_readings_of_which_one_holds_is_not_as_written():
    assert strength(_claim(), "falsified", ["verified"]) == "reading"
    assert strength(_claim(), "falsified", ["falsified", "verified"]) == "reading"


def test_a_claim_with_an_undecided_reading_is_not_as_written():
    assert strength(_claim(), "falsified", ["inconclusive"]) == "reading"


def test_a_reading_under_another_convention_than_the_papers_is_a_reading():
    claim = _claim(conventions=("sigma_min",), conventions_used=(("sigma_min", "min_mn"),))
    assert strength(claim, "falsified", ["falsified"]) == "reading"


def test_an_r_claim_whose_readings_all_fail_is_as_written():
    assert strength(_claim(), "falsified") == AS_WRITTEN
    assert strength(_claim(), "falsified", ["falsified", "falsified"]) == AS_WRITTEN
    assert strength(_claim(conventions=("sigma_min",)), "falsified", ["falsified"]) == AS_WRITTEN


@pytest.mark.parametrize("provenance", ["D", "I", "R-partial"])
def test_a_reconstructed_claim_is_never_as_written(provenance):
    for others in ((), ("falsified",), ("verified",)):
        assert strength(_claim(provenance), "falsified", others) == "reconstruction", (provenance, others)


def test_an_r_partial_claim_failing_on_the_papers_own_text_is_judged_as_an_r_claim():
    assert strength(_claim("R-partial", restored=False), "falsified") == AS_WRITTEN


@pytest.mark.parametrize("basis", ["proof step", "constants", "evidence"])
def test_a_basis_other_than_the_statement_gives_that_strength(basis):
    for provenance in ("R", "D"):
        claim = _claim(provenance, basis=basis, basis_note="why")
        assert strength(claim, "falsified", ["verified"]) == basis, (basis, provenance)


def test_a_falsification_without_provenance_has_no_strength():
    with pytest.raises(ValueError, match="claim x.y has provenance=''"):
        strength(_claim(""), "falsified")


def test_every_strength_is_worded():
    assert set(STRENGTH_WORDS) == set(STRENGTHS)


# -- the claim's fields and the ClaimSet options: bad declarations name the claim -------------------------

def test_a_basis_other_than_the_statement_needs_its_note():
    with pytest.raises(ValueError, match=r"basis='constants' needs basis_note.*\[x\.y\]"):
        _claim(basis="constants")


@pytest.mark.parametrize("fields, rule", [
    (dict(provenance="X"), "provenance='X' must be one of"),
    (dict(basis="proof"), "basis='proof' must be one of"),
    (dict(alternative=True), "alternative reading needs reading="),
    (dict(alternative=True, repair=True, reading="r"), "a repair or an alternative reading, not both"),
    (dict(restored=False), "restored=False"),
    (dict(conventions=("a", "a")), "conventions=.* distinct"),
])
def test_bad_provenance_fields_are_refused(fields, rule):
    with pytest.raises(ValueError, match=rule):
        _claim(**fields)


def test_a_provenance_other_than_claims_tsvs_is_refused():
    cid, paper = _tsv_id("D")
    claims = ClaimSet(paper)
    with pytest.raises(ValueError, match=rf"provenance='R' differs from claims.tsv's 'D' \[{cid}\]"):
        claims.check(cid, "s", provenance="R")(lambda: Outcome(True, 0.0, 1.0, 1.0))


def test_a_provenance_resting_on_less_text_than_claims_tsvs_needs_a_source_and_is_the_claims():
    cid, paper = _tsv_id("R")
    with pytest.raises(ValueError, match=r"with a source saying what is restored"):
        ClaimSet(paper).check(cid, "s", provenance="R-partial")(lambda: Outcome(True, 0.0, 1.0, 1.0))
    claims = ClaimSet(paper)
    claims.check(cid, "s", provenance="R-partial", source="the objects it names are restored")(
        lambda: Outcome(True, 0.0, 1.0, 1.0))
    assert claims.claims[0].provenance == "R-partial"
    assert strength(claims.claims[0], "falsified") == "reconstruction"


def test_the_provenance_of_claims_tsv_is_the_claims_and_fills_an_empty_column():
    cid, paper = _tsv_id("D")
    claims = ClaimSet(paper)
    claims.check(cid, "s")(lambda: Outcome(True, 0.0, 1.0, 1.0))
    assert claims.claims[0].provenance == "D"
    blank = next(cid for cid, row in registry.canonical_ids().items()
                 if row["provenance"] == "" and row["paper"] == "attention_kernel_regression")
    claims = ClaimSet("attention_kernel_regression")
    claims.check(blank, "s", provenance="I", source="spec §L")(lambda: Outcome(True, 0.0, 1.0, 1.0))
    assert claims.claims[0].provenance == "I"


def test_convention_rows_are_checked():
    with pytest.raises(ValueError, match="name='σ' must be a lower-case identifier"):
        Convention("σ", "Def A.1")
    with pytest.raises(ValueError, match="must quote the paper's definition"):
        Convention("kappa", " ")
    with pytest.raises(ValueError, match="other than 'paper'"):
        Convention("kappa", "Def", alternatives=(("paper", "x"),))
    assert SIGMA.choices == ("paper", "min_mn")
    assert SIGMA.fixed and not Convention("division_by_zero", "not fixed by the paper", harness="1/0 = +∞").fixed


def _paper_with(*options_list) -> Paper:
    cid, paper = _tsv_id("R")
    claims = ClaimSet(paper)
    for i, options in enumerate(options_list):
        claims.check(cid, f"s{i}", **options)(lambda: Outcome(True, 0.0, 1.0, 1.0))
    return Paper(name=paper, title="t", number="001", authors=("A",), year=2023, arxiv="2304.10411",
                 sections=(claims,), conventions=(SIGMA,))


def test_a_claim_takes_its_conventions_from_its_papers_table():
    paper = _paper_with(dict(conventions=("sigma_min",), reading="paper's σ_min"),
                        dict(alternative=True, reading="min(m, n)", conventions_used={"sigma_min": "min_mn"}))
    assert paper.claims[1].convention_choices() == {"sigma_min": "min_mn"}
    assert paper.claims[0].convention_choices() == {"sigma_min": "paper"}
    with pytest.raises(ValueError, match=r"claim .* names convention 'norms', which is not in its paper's table"):
        _paper_with(dict(conventions=("norms",)))
    with pytest.raises(ValueError, match=r"claim .* reads convention 'sigma_min' as 'rank'"):
        _paper_with(dict(conventions_used={"sigma_min": "rank"}))


def test_the_registry_attaches_alternative_readings_like_repairs():
    claim = next(c for c in registry.claims() if c.expected == "falsified" and not c.readings)
    reading = dataclasses.replace(claim, alternative=True, reading="other", provenance="", source="")
    with pytest.raises(ValueError, match="must name its reading"):
        registry.reading_of(claim, reading)
    primary = dataclasses.replace(claim, reading="as stated")
    attached = registry.reading_of(primary, reading)
    assert (attached.provenance, attached.source) == (claim.provenance, claim.source)
    with pytest.raises(ValueError, match="has the name of the claim's own reading"):
        registry.reading_of(primary, dataclasses.replace(reading, reading="as stated"))
    other = next(p for p in ("R", "D") if p != claim.provenance)
    with pytest.raises(ValueError, match=f"has provenance '{other}'"):
        registry.reading_of(primary, dataclasses.replace(reading, provenance=other))


# -- the registry: every claim says where it comes from and takes its conventions from its paper -----------

def _declarations():
    """Every registered declaration: each claim, its alternative readings and its repairs."""
    return [d for c in registry.claims() for d in (c, *c.readings, *c.repairs)]


def test_every_claim_of_every_paper_has_a_provenance():
    missing = [c.id for c in registry.claims() if not c.provenance]
    assert not missing, f"claims without a provenance (claims.tsv leaves it empty; declare provenance=...): {missing}"


def test_every_reconstructed_finding_says_where_its_statement_comes_from():
    """A falsification of a statement that is not the paper's text quotes what the reconstruction rests on."""
    missing = [f"{d.id}{f' ({d.reading})' if d.reading else ''}" for d in _declarations()
               if d.expected == "falsified" and not d.repair and d.provenance != "R" and not d.source.strip()]
    assert not missing, f"falsified claims of provenance D/I/R-partial without source=...: {missing}"


def test_each_claims_conventions_come_from_its_papers_table():
    for paper in registry.papers():
        rows = {c.name: c for c in paper.conventions}
        for d in paper.claims:
            for name, choice in d.convention_choices().items():
                assert name in rows, f"{d.id} names convention {name!r}, not in {paper.name}'s table {tuple(rows)}"
                assert choice in rows[name].choices, \
                    f"{d.id} reads {name!r} as {choice!r}, not one of {rows[name].choices} [{paper.name}]"


def test_every_reading_differs_from_its_claim_in_name_and_is_judged_with_it():
    for c in registry.claims():
        names = [c.reading, *(r.reading for r in c.readings)]
        assert not c.readings or (all(names) and len(set(names)) == len(names)), f"{c.id}: reading names {names}"
        assert all(r.alternative and r.provenance == c.provenance for r in c.readings), c.id


# -- the ledger entry: declared fields, readings and strengths --------------------------------------------

def _with_reading(provenance="R") -> Claim:
    primary = _claim(provenance, reading="paper's σ_min", conventions=("sigma_min",))
    other = _claim(provenance, reading="min(m, n)", alternative=True, statement="a ≤ b (min(m, n))",
                   conventions_used=(("sigma_min", "min_mn"),))
    return dataclasses.replace(primary, readings=(other,))


def test_annotate_takes_the_declaration_and_computes_each_strength():
    claim = _with_reading()
    entry = {"id": "x.y", "verdict": "falsified", "provenance": "D",
             "readings": [{"reading": "min(m, n)", "verdict": "verified"}]}
    out = annotate(entry, claim)
    assert (out["provenance"], out["reading"], out["conventions"]) == ("R", "paper's σ_min", {"sigma_min": "paper"})
    assert out["strength"] == "reading" and out["readings"][0]["strength"] is None
    assert out["readings"][0]["conventions"] == {"sigma_min": "min_mn"}
    both = annotate({**entry, "readings": [{"reading": "min(m, n)", "verdict": "falsified"}]}, claim)
    assert (both["strength"], both["readings"][0]["strength"]) == (AS_WRITTEN, "reading")


def test_a_reading_the_ledger_did_not_judge_is_listed_undecided_and_keeps_the_claim_from_as_written():
    out = annotate({"id": "x.y", "verdict": "falsified"}, _with_reading())
    assert [(r["reading"], r["verdict"], r["reason"]) for r in out["readings"]] == \
        [("min(m, n)", "inconclusive", NOT_JUDGED)]
    assert out["strength"] == "reading"


def test_with_strengths_needs_every_reading_judged():
    with pytest.raises(ValueError, match="has 0 readings, the claim declares 1"):
        with_strengths(_with_reading(), {"id": "x.y", "verdict": "falsified", "readings": []})


def test_the_ledger_table_shows_each_falsifications_strength_and_each_readings_verdict():
    from properties.ledger import summary_table

    entry = {"id": "x.y", "kind": "inequality", "verdict": "falsified", "examples": 3, "worst_ratio": 2.0,
             "statement": "a ≤ b", "counterexample": [1.0], "strength": "reading",
             "readings": [{"reading": "min(m, n)", "verdict": "verified", "strength": None}]}
    lines = summary_table([entry, {**entry, "id": "x.z", "strength": AS_WRITTEN, "readings": []}]).splitlines()
    assert lines[0].split()[3] == "strength" and lines[1].split()[3] == "reading", lines[:2]
    assert "    reading 'min(m, n)': verified" in lines, lines
    assert lines[-1] == "falsified by strength: as written: 1  reading: 1", lines[-1]


# -- certificates say what they prove, and certify --check holds it to the registry ------------------------

def test_a_certificate_carries_what_it_proves_and_a_tampered_strength_is_rejected():
    import json
    import pathlib

    from properties.certify import certify_entry, check_certificate
    from properties.registry import certifiers

    claims, certs = registry.load_all(), certifiers()
    ledger = {e["id"]: e for e in json.loads(pathlib.Path("errata/ledger-ci.json").read_text())["claims"]}
    cid = "softmax_regression.fact4.5.p5"  # (v∘u)(v∘u)ᵀ ⪯ ‖v‖∞²uuᵀ, refuted at u = (1, 1), v = (0, 1)
    doc = certify_entry(claims[cid], ledger[cid], certs[(cid, "violation")])
    claim = claims[cid]
    assert doc["certified"], doc
    assert (doc["provenance"], doc["reading"], doc["strength"]) == (
        claim.provenance, claim.reading, strength(claim, "falsified", [r.expected for r in claim.readings]))
    assert check_certificate(doc, claims, certs) == ""
    overstated = next(s for s in STRENGTHS if s != doc["strength"])
    assert "strength=" in check_certificate({**doc, "strength": overstated}, claims, certs)
    assert "provenance=" in check_certificate({**doc, "provenance": "D" if claim.provenance != "D" else "R"},
                                              claims, certs)
    assert "(absent)" in check_certificate({k: v for k, v in doc.items() if k != "strength"}, claims, certs)


def test_add_readings_keeps_every_verdict_and_adds_only_the_judged_readings():
    import json
    import pathlib

    from properties.ledger import add_readings

    ledger = json.loads(pathlib.Path("errata/ledger-ci.json").read_text())
    claim = next(c for c in registry.claims() if c.readings and c.expected == "falsified" and c.provenance == "R"
                 and c.basis == "statement")
    old = next(e for e in ledger["claims"] if e["id"] == claim.id)
    readings = [{"id": claim.id, "statement": r.statement, "verdict": "verified", "reading": r.reading}
                for r in claim.readings]
    judged = {"profile": ledger["profile"], "seed": ledger["seed"],
              "claims": [{**old, "seconds": 0.5, "readings": readings}]}
    merged = add_readings(ledger, judged)
    assert [e["id"] for e in merged["claims"]] == [e["id"] for e in ledger["claims"]]
    judged_fields = {"readings", "strength", *DECLARED_FIELDS}  # what add_readings sets; nothing else may change
    for before, after in zip(ledger["claims"], merged["claims"]):
        kept = {k: v for k, v in before.items() if k not in judged_fields}
        assert {k: after[k] for k in kept} == kept, f"{before['id']}: a recorded field changed"
        assert after["provenance"] and "strength" in after, after["id"]
    entry = next(e for e in merged["claims"] if e["id"] == claim.id)
    assert [r["verdict"] for r in entry["readings"]] == ["verified"] * len(claim.readings)
    assert entry["strength"] == "reading", "a falsified R claim with a verified reading fails under a reading"
    with pytest.raises(ValueError, match="new run's verdict of the claim's own reading must be the ledger's"):
        add_readings(ledger, {**judged, "claims": [{**old, "verdict": "inconclusive", "readings": readings}]})
    with pytest.raises(ValueError, match="must have the ledger's profile"):
        add_readings(ledger, {**judged, "seed": ledger["seed"] + 1})
