"""benchmarks.judge: the ledger comparison it prints beside its timings (no timing is run or asserted here)."""

from benchmarks.judge import COMPARED, compare_ledgers


def _ledger(**fields):
    entry = {"id": "p.c", "verdict": "verified", "examples": 25, "counterexample": None, "worst_ratio": 0.5,
             "seconds": 1.0}
    return {"claims": [entry | fields]}


def test_compare_ledgers_ignores_seconds_and_names_every_changed_field():
    assert compare_ledgers(_ledger(), _ledger(seconds=9.0)) == []
    changed = {"verdict": "falsified", "examples": 24, "counterexample": [[1.0]], "worst_ratio": 0.5000000000000001}
    for field, value in changed.items():
        lines = compare_ledgers(_ledger(), _ledger(**{field: value}))
        assert len(lines) == 1 and lines[0].startswith(f"p.c: {field} ")
    assert set(changed) == set(COMPARED)


def test_compare_ledgers_reports_a_claim_only_one_side_ran():
    other = {"claims": _ledger()["claims"] + [dict(_ledger()["claims"][0], id="p.d")]}
    assert compare_ledgers(_ledger(), other) == ["p.d: only in the new ledger"]
    assert compare_ledgers(other, _ledger()) == ["p.d: only in the baseline ledger"]
