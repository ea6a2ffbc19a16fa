"""Paper 003 in the registry: all 108 ids of claims.tsv have an entry, and the recorded findings are the
ones this harness reached (each is reproduced by tests/test_claims.py through the search)."""

from properties.registry import canonical_ids, select

FALSIFIED = {
    "fact4.3.loewner_norm", "fact4.4.p6", "lem7.4", "lem11.4", "lem9.1.p3", "lem9.1.p5", "lem12.8", "lem12.10",
    "sec3.psd_chain", "lem14.shrink", "lem14.induction",
}
REPAIRED = FALSIFIED  # every falsified claim of paper 003 carries a repair (issue 15)


def test_every_id_of_paper_003_is_registered_once():
    ids = [cid for cid, row in canonical_ids().items() if row["paper"] == "attention_optimization"]
    got = [c.id for c in select(["attention_optimization.*"])]
    assert len(ids) == 108 and sorted(got) == sorted(ids), f"missing {sorted(set(ids) - set(got))}"


def test_recorded_findings_and_repairs():
    claims = {c.id.removeprefix("attention_optimization."): c for c in select(["attention_optimization.*"])}
    falsified = {cid for cid, c in claims.items() if c.expected == "falsified"}
    assert falsified == FALSIFIED, f"falsified set changed: {sorted(falsified ^ FALSIFIED)}"
    assert {cid for cid, c in claims.items() if c.repairs} == REPAIRED
    for cid in REPAIRED:
        assert all(r.expected == "verified" for r in claims[cid].repairs), cid
    assert all(c.expected in ("verified", "falsified") for c in claims.values()), "no claim is left undecided"
