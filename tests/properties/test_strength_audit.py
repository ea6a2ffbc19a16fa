"""The audit tables "Strength of each falsification" of docs/source/<paper>-notes.md agree with the claims'
declarations: each lists exactly the paper's claims expected to be falsified, and each row's strength is
the one :func:`properties.toolkit.strength` computes from the declaration (provenance, basis, conventions)
with the expected verdicts of the claim and of its declared readings (the ledger's tests hold the search
to those expected verdicts)."""

from __future__ import annotations

import pathlib
import re

import pytest

from properties import registry
from properties.toolkit import strength

ROOT = pathlib.Path(__file__).resolve().parents[2]
_ROW = re.compile(r"^\| `(?P<id>[a-z_]+\.[^`]+)` \| (?P<strength>[a-z ]+) \| .+ \|$")


def _audit_table(paper: str) -> dict[str, str]:
    text = (ROOT / "docs" / "source" / f"{paper}-notes.md").read_text(encoding="utf-8")
    section = text.split('<a id="strength"></a>', 1)
    assert len(section) == 2, f"docs/source/{paper}-notes.md has no 'Strength of each falsification' section"
    return {m["id"]: m["strength"] for line in section[1].splitlines() if (m := _ROW.match(line))}


def _declared_strength(claim) -> str | None:
    return strength(claim, claim.expected, [r.expected for r in claim.readings])


@pytest.mark.parametrize("paper", registry.paper_names())
def test_the_audit_table_lists_each_expected_falsification_with_its_computed_strength(paper):
    table = _audit_table(paper)
    falsified = {c.id: c for c in registry.claims() if c.paper == paper and c.expected == "falsified"}
    assert set(table) == set(falsified), (f"docs/source/{paper}-notes.md lists {sorted(set(table) - set(falsified))} "
                                          f"not expected falsified and lacks {sorted(set(falsified) - set(table))}")
    wrong = {cid: (table[cid], _declared_strength(c)) for cid, c in falsified.items()
             if table[cid] != _declared_strength(c)}
    assert not wrong, f"rows whose strength differs from the declaration's (table, computed): {wrong}"
