"""Certificates of paper 001 (softmax_regression; issue 22): every certifier proves its ledger instance,
``check_certificate`` re-verifies it, corrupted certificates are rejected, and every search claim and
repair of the package names its fields (one per element of a drawn instance)."""

from __future__ import annotations

import copy
import math
from fractions import Fraction

import pytest

from properties.certify import certifiers, certify_entry, check_certificate
from properties.registry import load_all

CLAIMS = load_all()
CERTS = {k: v for k, v in certifiers().items() if k[0].startswith("softmax_regression.")}

_NEWTON_BAD = [[[-0.9805806756909203, -0.000196116135138184], [-0.19611613513818402, 0.00098058067569092]],
               [0.0, 0.0], 1.0, [1.0, 0.0], 0.999]

# The ledger's instances (errata/ledger-ci.json counterexamples; the repairs' worst examples of a local run of
# python -m properties --claims 'softmax_regression.*'), as drawn: (claim id, target, raw instance).
INSTANCES = [
    ("softmax_regression.fact4.4.p1", "violation", [[[0.0]], [[1.0]], 1.0, 1.0]),
    ("softmax_regression.fact4.4.p1", "repair", [[[2.206868253804682]], [[-0.7997720613691945]], 0.0, 1.0]),
    ("softmax_regression.fact4.5.p5", "violation", [[1.0, 1.0], [0.0, 1.0]]),
    ("softmax_regression.fact4.5.p5", "repair", [[0.0], [0.0]]),
    ("softmax_regression.fact4.5.p5", "repair", [[3.0, -1.0, 0.5], [0.25, 2.0, -4.0]]),
    ("softmax_regression.lem5.2.bf_ff", "violation", [[1.0, 1.0], [0.0, 1.0]]),
    ("softmax_regression.lem5.2.bf_ff", "repair", [[0.0], [0.0]]),
    ("softmax_regression.lem5.2.bf_ff", "repair", [[1.0, 2.0, 0.0], [0.5, 0.25, 0.0]]),
    ("softmax_regression.lem5.15.paperB", "violation", [[[0.5]], [0.0], [1.0], [0.0]]),
    ("softmax_regression.lem8.7", "violation", _NEWTON_BAD + [["general", [[0.0, 0.0], [0.0, 0.0]]], 0.99, 0.01, None]),
    ("softmax_regression.lem8.7", "repair", [[[1.0], [0.0]], [0.16666666666666666, 0.3333333333333333], 0.1, [-3.0],
                                             0.5, ["general", [[3.0]]], 0.99, 0.001, None]),
    ("softmax_regression.lem8.8", "violation", _NEWTON_BAD + [["general", [[0.0, 0.0], [0.0, 0.0]]], 0.99, 0.01, None]),
    ("softmax_regression.lem8.8", "repair", [[[-0.948683298050514], [-0.31622776601683794]], [0.0, 0.5], 1.0, [3.0],
                                             0.5, ["general", [[-2.0]]], 0.99, 0.01, None]),
    ("softmax_regression.thm9.1.accuracy", "violation", _NEWTON_BAD + [["diagonal", None], 0.99, 0.01, 0.6]),
    ("softmax_regression.thm9.1.accuracy", "repair", [[[-0.44721359549995787], [-0.8944271909999157]], [0.0, 0.0],
                                                      0.01, [-1.0], 0.999, ["diagonal", None], 0.99, 0.01, 0.3]),
]


def _certificate(claim_id: str, target: str, raw) -> dict:
    claim = CLAIMS[claim_id]
    if target == "repair":
        (claim,) = claim.repairs
    entry = {"id": claim_id, "verdict": "falsified" if target == "violation" else "verified",
             "counterexample" if target == "violation" else "worst_example": raw}
    return certify_entry(claim, entry, CERTS[(claim_id, target)])


_DOCS: dict = {}


def _doc(i: int) -> dict:
    if i not in _DOCS:
        _DOCS[i] = _certificate(*INSTANCES[i])
    return copy.deepcopy(_DOCS[i])


def _index(claim_id: str, target: str) -> int:
    return next(i for i, (c, t, _) in enumerate(INSTANCES) if (c, t) == (claim_id, target))


@pytest.mark.parametrize("i", range(len(INSTANCES)), ids=[f"{c}.{t}.{k}" for k, (c, t, _) in enumerate(INSTANCES)])
def test_certified_and_rechecked(i):
    doc = _doc(i)
    assert doc["certified"], f"{INSTANCES[i][:2]} not certified: {doc.get('reason')}"
    why = check_certificate(doc, CLAIMS, CERTS)
    assert why == "", f"check_certificate rejected {INSTANCES[i][:2]}: {why}"


def test_every_falsified_claim_and_repair_has_a_certifier():
    ids = [c.id for c in CLAIMS.values() if c.paper == "softmax_regression" and c.expected == "falsified"]
    assert ids, "paper 001 must have falsified claims"
    for cid in ids:
        assert (cid, "violation") in CERTS, f"no violation certifier for {cid}"
        assert (cid, "repair") in CERTS, f"no repair certifier (or reason) for {cid}"


def test_paper_b_repair_states_why_it_is_not_certified():
    cert = CERTS[("softmax_regression.lem5.15.paperB", "repair")]
    assert cert.evaluate is None and "transcendental" in cert.reason
    doc = _certificate("softmax_regression.lem5.15.paperB", "repair", [[[0.5]], [0.2], [1.0], [0.5]])
    assert not doc["certified"] and doc["reason"] == cert.reason


def _fields_of(doc, name):
    return doc["instance"][name]


def test_swapped_fields_rejected():
    """fact4.5.p5 with u and v swapped: u = (0, 1), v = (1, 1) gives (v∘u)(v∘u)ᵀ = uuᵀ, no violation."""
    doc = _doc(_index("softmax_regression.fact4.5.p5", "violation"))
    doc["instance"]["u"], doc["instance"]["v"] = doc["instance"]["v"], doc["instance"]["u"]
    assert check_certificate(doc, CLAIMS, CERTS) != ""


def test_instance_moved_one_ulp_off_the_simplex_rejected():
    """lem5.2.bf_ff at f = (½, ½): f_1 one ulp larger leaves the simplex (⟨f, 1⟩ ≠ 1), so the premise fails."""
    doc = _doc(_index("softmax_regression.lem5.2.bf_ff", "violation"))
    f = _fields_of(doc, "f")
    assert f["rational"][0] == "1/2", f"f = {f['rational']} is not the ledger's (1/2, 1/2)"
    moved = float.fromhex(f["float_hex"][0])
    moved = math.nextafter(moved, 1.0)
    f["rational"][0], f["float_hex"][0] = str(Fraction(moved)), moved.hex()
    why = check_certificate(doc, CLAIMS, CERTS)
    assert why != "" and "prove" in why, f"a moved instance must be rejected for its premise, got {why!r}"


def test_changed_bound_rejected():
    """lem8.7: the recorded bound replaced by another value is not the recomputed enclosure."""
    doc = _doc(_index("softmax_regression.lem8.7", "violation"))
    doc["bound"]["mid"] = str(Fraction(doc["bound"]["mid"]) * 2)
    why = check_certificate(doc, CLAIMS, CERTS)
    assert "recorded bound" in why, f"a changed bound must be rejected, got {why!r}"


def test_changed_hessian_approximation_rejected():
    """lem8.8: H̃_0 replaced by 2·H̃_0 is no ε0-approximation of ∇²L(x_0) (def8.4), so the premise fails."""
    doc = _doc(_index("softmax_regression.lem8.8", "violation"))
    h = doc["instance"]["H̃"]
    h["rational"] = [str(2 * Fraction(t)) for t in h["rational"]]
    h["float_hex"] = [(2 * float.fromhex(t)).hex() for t in h["float_hex"]]
    assert check_certificate(doc, CLAIMS, CERTS) != ""
