"""Certificates: a certificate proves a claim false at an exact instance, and ``certify
--check`` rejects every corrupted one: an instance moved by one ulp past the boundary, a changed bound,
swapped fields, an edited statement, two exact forms of a field that disagree."""

from __future__ import annotations

import copy
import glob
import json
import os

import pytest

from properties.__main__ import main
from properties.certify import certify_entry, check_certificate
from properties.ledgerfile import read_ledger
from properties.registry import certifiers, load_all

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
CLAIM = "softmax_regression.fact4.4.p1"
ULP = 2.0 ** -52


@pytest.fixture(scope="module")
def registry():
    return load_all(), certifiers()


def _entry(G, H, t, a):
    """A ledger entry whose counterexample is the drawn (G, H, t, α) of fact4.4.p1."""
    return {"id": CLAIM, "verdict": "falsified", "counterexample": [G, H, t, a]}


def _certificate(registry, G, H, t, a):
    claims, certs = registry
    return certify_entry(claims[CLAIM], _entry(G, H, t, a), certs[(CLAIM, "violation")])


def test_one_ulp_violation_is_certified_and_the_boundary_is_not(registry):
    """G = [[1]], α = 1, t·HHᵀ = 2 + 2⁻⁵²: U = −(1 + 2⁻⁵²), ‖U‖ exceeds α‖V‖ = 1 by one ulp: certified.
    At t·HHᵀ = 2 the instance sits on the boundary ‖U‖ = α‖V‖: no certificate."""
    doc = _certificate(registry, [[1.0]], [[1.0]], 2.0 + 2 * ULP, 1.0)
    assert doc["certified"], doc
    assert check_certificate(doc, *registry) == ""
    on_boundary = _certificate(registry, [[1.0]], [[1.0]], 2.0, 1.0)
    assert not on_boundary["certified"]
    assert "not decided" in on_boundary["reason"]


@pytest.fixture
def good(registry):
    doc = _certificate(registry, [[1.0]], [[1.0]], 2.0 + 2 * ULP, 1.0)
    assert check_certificate(doc, *registry) == ""
    return doc


def _set_number(field: dict, value: float) -> None:
    field["rational"] = [str(value.as_integer_ratio()[0]) + "/" + str(value.as_integer_ratio()[1])]
    field["float_hex"] = [value.hex()]


def test_instance_moved_one_ulp_past_the_boundary_is_rejected(registry, good):
    bad = copy.deepcopy(good)
    _set_number(bad["instance"]["U"], -1.0)  # ‖U‖ = 1 = α‖V‖: the claim holds there
    assert "do not prove" in check_certificate(bad, *registry)


def test_changed_bound_is_rejected(registry, good):
    bad = copy.deepcopy(good)
    bad["bound"]["mid"] = "1/2"
    assert "disagrees" in check_certificate(bad, *registry)


def test_swapped_fields_are_rejected(registry, good):
    bad = copy.deepcopy(good)
    bad["instance"]["U"], bad["instance"]["V"] = bad["instance"]["V"], bad["instance"]["U"]
    assert check_certificate(bad, *registry) != ""


def test_edited_statement_and_inconsistent_forms_are_rejected(registry, good):
    bad = copy.deepcopy(good)
    bad["statement"] = "U ⪯ αV ⇒ ‖U‖ ≤ 2α‖V‖"
    assert "statement" in check_certificate(bad, *registry)
    bad = copy.deepcopy(good)
    bad["instance"]["U"]["float_hex"] = [(-1.0).hex()]  # the rational still says −(1 + 2⁻⁵²)
    assert "differ" in check_certificate(bad, *registry)
    bad = copy.deepcopy(good)
    bad["bits"] = 100
    assert "bits" in check_certificate(bad, *registry)
    bad = copy.deepcopy(good)
    bad["certified"] = False
    assert "not a certificate" in check_certificate(bad, *registry)


def test_tampered_display_fields_are_rejected(registry, good):
    """What a certificate displays is the recomputation's: an edited text, a radius widened to 1e100 (an
    enclosure that still overlaps), an edited premise or an edited description of what was enclosed is
    rejected, each naming the field."""
    edits = {
        "measured text": lambda d: d["measured"].update(text="[2.00000000000 +/- 6e-16]"),
        "bound text": lambda d: d["bound"].update(text="[0.5 +/- 1e-3]"),
        "rad": lambda d: d["measured"].update(rad="1e100"),
        "premise": lambda d: d["premises"][0].update(what="U ⪯ 2αV"),
        "enclosed": lambda d: d.update(enclosed=d["enclosed"] + " (edited)"),
    }
    for name, edit in edits.items():
        bad = copy.deepcopy(good)
        edit(bad)
        why = check_certificate(bad, *registry)
        assert why != "", f"an edited {name} was accepted"
        assert name.split()[0] in why or "text" in why, (name, why)


def test_failed_premise_is_reported_as_that_premise(registry, good):
    """U = 2, V = 1, α = 1: ‖U‖ = 2 > α‖V‖ still, but U ⪯ αV is false; the rejection names that premise
    and its method, not a bare "measured 1 ≤ bound 0"."""
    bad = copy.deepcopy(good)
    _set_number(bad["instance"]["U"], 2.0)
    why = check_certificate(bad, *registry)
    assert "premise 'U ⪯ αV" in why and "exact rational LDLᵀ" in why, why
    assert "measured 1" not in why, why


def test_check_command_exit_codes(tmp_path, good, capsys):
    ok, bad = tmp_path / "ok.json", tmp_path / "bad.json"
    ok.write_text(json.dumps(good), encoding="utf-8")
    corrupted = copy.deepcopy(good)
    corrupted["measured"]["mid"] = "3"
    bad.write_text(json.dumps(corrupted), encoding="utf-8")
    assert main(["certify", "--check", str(ok)]) == 0
    assert main(["certify", "--check", str(ok), str(bad)]) == 1
    out = capsys.readouterr().out
    assert "REJECTED" in out and "1 of 2 certificates verified" in out


def test_certifiers_name_falsified_claims_or_repairs(registry):
    claims, certs = registry
    for (cid, target), cert in certs.items():
        assert cid in claims, cid
        if cert.reading:  # an alternative reading's certifier: the reading is declared, and found false
            (judged,) = [r for r in claims[cid].readings if r.reading == cert.reading]
            assert target == f"violation:{cert.reading}" and judged.expected == "falsified", (cid, cert.reading)
        elif target == "violation":
            assert claims[cid].expected == "falsified", f"{cid} is not a falsified claim"
        else:
            assert target == "repair" and claims[cid].repairs, f"{cid} has no repair"
        assert cert.evaluate is not None or cert.reason, f"{cid}: cannot() without a reason"


def test_shipped_certificates_verify(registry):
    """Every file committed under errata/certificates/ is a certificate (why a claim or repair is not
    certified is the errata's) and re-verifies from its instance alone, so ``certify --check`` on the
    folder exits 0."""
    paths = sorted(glob.glob(os.path.join(ROOT, "errata", "certificates", "*.json")))
    assert paths, "no certificate is committed under errata/certificates/"
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        assert doc.get("certified"), f"{path} is not a certificate: {doc.get('reason')}"
        assert check_certificate(doc, *registry) == "", path


def test_every_falsified_claim_of_the_shipped_ledger_has_a_certifier_or_a_reason(registry):
    claims, certs = registry
    ledger = read_ledger(os.path.join(ROOT, "errata", "ledger-ci.json"))
    missing = [e["id"] for e in ledger["claims"] if e["verdict"] == "falsified" and (e["id"], "violation") not in certs]
    assert not missing, f"falsified claims with no certifier and no stated reason: {missing}"
