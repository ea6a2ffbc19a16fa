"""Certificates of paper 003 (issue 22): every falsified claim is proven false in ball arithmetic at the
ledger's counterexample (written here as the instance it is), each certifiable repair is proven at its
worst example, ``check_certificate`` re-verifies them and rejects corrupted ones; and every search claim
and repair names the fields of its drawn instance."""

from __future__ import annotations

import copy
import math
from fractions import Fraction

import pytest

from properties.attention_optimization.certificates import CERTIFIERS
from properties.certify import certify_entry, check_certificate
from properties.registry import load_all

CLAIMS = load_all()
CERTS = CERTIFIERS.by_key

_LEM12_8 = [[[1.0], [1.0]], [[3.5355339059327373], [-3.5355339059327373]], [[5.0], [0.0]], [[0.0]], [[5.0]],
            [[-5.0], [-5.0]], 0, 0]
_LEM9_1 = [[[[0.7071067811865475, 0.7071067811865475]], [[4.0, 0.0]], [[4.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]],
            [[4.0, 4.0], [0.0, 0.0]], [[-4.0, -4.0]], 0, 0], 1.0, [0.0]]

# the counterexamples of errata/ledger-ci.json (the search's, shrunk; the same in a fresh ledger)
VIOLATIONS = {
    "attention_optimization.fact4.3.loewner_norm": [[[0.0] * 4] * 4, 1.0, [[0.0], [0.0], [0.0], [1.0]]],
    "attention_optimization.fact4.4.p6": [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0]],
    "attention_optimization.lem7.4": [[[0.0, 1.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [1.0, 0.0]],
                                      [[0.0, 0.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]],
                                      0, 0, 0, 0, 0],
    "attention_optimization.lem9.1.p3": _LEM9_1,
    "attention_optimization.lem9.1.p5": _LEM9_1,
    "attention_optimization.lem11.4": [[[1.0], [0.0]], [[0.0], [1.0]], [[0.0], [1.0]], [[0.0]], [[0.0]],
                                       [[1.0], [0.0]], 0, 0, 0, 0, 0],
    "attention_optimization.lem12.8": _LEM12_8,
    "attention_optimization.lem12.10": [[[1.0]], [[4.0]], [[4.0]], [[0.0]], [[4.0]], [[-4.0]], 0, 0],
    "attention_optimization.sec3.psd_chain": _LEM12_8,
    "attention_optimization.lem14.shrink": [[0.0, 1.0, 1.0], [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                                            0.0625, [0.0, 1.0, 0.0]],
    "attention_optimization.lem14.induction": [[0.0, 2.0, 2.0], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]],
                                               0.0625, [0.0, 0.0, 1.0]],
}

# the repairs' worst examples of a fresh ledger (python -m properties --claims 'attention_optimization.*')
REPAIRS = {
    "attention_optimization.lem7.4": [
        [[0.0, -1.3260711465651056], [0.7316206279733275, 1.1]], [[0.0, 0.0], [-0.8299349047831928, 0.5324247319485678]],
        [[0.0, 0.0], [-0.8299349047831928, 0.5324247319485678]],
        [[-0.8299349047831928, 0.0], [-0.8299349047831928, 0.5324247319485678]],
        [[0.0, 0.0], [-0.8299349047831928, 0.5324247319485678]], [[-1.0, -1.0], [0.9784915065428916, 0.0]], 1, 1, 3, 1, 0],
    "attention_optimization.lem11.4": [
        [[0.0], [0.0], [-1.573207134433547]], [[0.0], [-1.4653508089565523], [0.0]],
        [[-1.2278086998111728], [-0.7280087690260169], [-0.11069138158838987]], [[0.0]], [[-1.6781120256698]],
        [[-1.9629414269651608], [-1.9504172480055124], [-0.5583169255304552]], 0, 0, 0, 0, 0],
    "attention_optimization.lem12.8": [
        [[0.7071067811865475, 0.7071067811865475]] * 3,
        [[3.4743290056744947, 0.0], [-3.4743290056744947, -0.0], [3.4743290056744947, 0.0]],
        [[6.017714360038482, 0.0], [0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]],
        [[6.017714360038482, 6.017714360038482], [0.0, 0.0]], [[-6.017714360038482, -6.017714360038482]] * 3, 1, 0],
    "attention_optimization.sec3.psd_chain": [
        [[[0.0, -0.2386933044123657], [-0.3363292219686721, 0.40200684368035394],
          [-0.7412231947246454, 0.6712586502997115]],
         [[0.0, 0.0], [-7.922195469046076, 0.0], [0.125508740752448, -9.197469454072786]],
         [[-6.623561243744671, -5.895516665685473], [-3.6202627732056163, 2.94800492396116],
          [-1.830582563616104, 5.139609795568328]],
         [[-0.3510928500783121, -0.22130882418900555], [0.2662193641642719, -0.37799382231258705]],
         [[2.4889553002143185, 4.405925547703194], [8.85773423978118, 8.077262804759613]],
         [[-0.2635545419419977, 0.0], [4.412040955435367, 0.0], [0.0, 0.0]], 1, 0],
        2.7041624038064773, [0.6460859713860051, 0.9022779453892482, 1.192092896e-07]],
    "attention_optimization.lem14.shrink": [
        [4.218424919843455, 1.192092896e-07, 5.0827309079928185],
        [[0.0, -0.7342876717885627, 0.3333333333333333], [0.752973647994859, -0.3401998766167815, 0.8948289111448329],
         [0.5785095017406348, -0.984875033964236, 0.9160418622572228]],
        0.0010000000000000002, [-0.4553956048130664, 0.08735031544232141, -0.40173632204358867]],
    "attention_optimization.lem14.induction": [
        [0.3333333333333333, 2.6470059517973556], [[-0.9999999999999999, -0.8470149521216115], [1.0, 0.4589598876552554]],
        0.0852064336504269, [-0.8511963889957934, 0.0]],
    # worst examples attaining their bound (ratio 1): certified in exact rationals (certificates_tight)
    "attention_optimization.fact4.3.loewner_norm": [[[-0.3333333333333333]], 8.928354645759889, [[6.317451380229059]]],
    "attention_optimization.fact4.4.p6": [[0.0], [0.0]],
    "attention_optimization.lem9.1.p3": [
        [[[0.7071067811865475, 0.7071067811865475]] * 3,
         [[2.3094010767585034, 0.0], [-2.3094010767585034, -0.0], [2.3094010767585034, 0.0]],
         [[4.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]], [[4.0, 4.0], [0.0, 0.0]],
         [[-4.0, -4.0]] * 3, 0, 0], 0.1, [0.0, 0.0, 0.0]],
    "attention_optimization.lem9.1.p5": [[[[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], [[0.0]], 0, 0], 0.1, [0.0]],
    "attention_optimization.lem12.10": [
        [[0.7071067811865475, 0.7071067811865475]], [[5.933514257450035, 0.0]], [[5.933514257450035, 0.0]],
        [[0.0, 0.0], [0.0, 0.0]], [[5.933514257450035, 5.933514257450035], [0.0, 0.0]],
        [[-5.933514257450035, -5.933514257450035]], 0, 0],
}
TIGHT = ("attention_optimization.fact4.3.loewner_norm", "attention_optimization.fact4.4.p6",
         "attention_optimization.lem9.1.p3", "attention_optimization.lem9.1.p5", "attention_optimization.lem12.10")


def _certificate(claim_id: str, target: str) -> dict:
    claim = CLAIMS[claim_id]
    if target == "violation":
        entry = {"verdict": "falsified", "counterexample": VIOLATIONS[claim_id]}
    else:
        claim = claim.repairs[0]
        entry = {"verdict": "verified", "worst_example": REPAIRS[claim_id]}
    return certify_entry(claim, entry, CERTS[(claim_id, target)])


def test_every_falsified_claim_and_repair_has_a_certifier_or_a_reason():
    """Each falsified claim of the paper has a violation certifier and each verified repair a repair certifier
    (those whose worst example attains the bound by exact rationals: no declared reason is left)."""
    falsified = {cid for cid, c in CLAIMS.items() if cid.startswith("attention_optimization.") and c.expected == "falsified"}
    assert set(VIOLATIONS) == falsified
    assert {cid for cid, t in CERTS if t == "violation"} == falsified
    repaired = {cid for cid in falsified if CLAIMS[cid].repairs}
    assert {cid for cid, t in CERTS if t == "repair"} == repaired
    assert not [key for key, c in CERTS.items() if c.evaluate is None]
    assert set(REPAIRS) == repaired


@pytest.mark.parametrize("claim_id", sorted(VIOLATIONS))
def test_violation_certified_and_rechecked(claim_id):
    doc = _certificate(claim_id, "violation")
    assert doc["certified"], f"{claim_id} not certified: {doc.get('reason')}"
    assert doc["bits"] <= 128, f"{claim_id} needed {doc['bits']} bits"
    assert all(p["proven"] for p in doc["premises"]), f"{claim_id}: a premise not proven {doc['premises']}"
    assert check_certificate(doc, CLAIMS, CERTS) == "", f"{claim_id}: the certificate does not re-check"


@pytest.mark.parametrize("claim_id", sorted(REPAIRS))
def test_repair_certified_and_rechecked(claim_id):
    doc = _certificate(claim_id, "repair")
    assert doc["certified"], f"{claim_id} repair not certified: {doc.get('reason')}"
    assert check_certificate(doc, CLAIMS, CERTS) == "", f"{claim_id}: the repair's certificate does not re-check"


@pytest.mark.parametrize("claim_id", TIGHT)
def test_tight_repair_is_proven_with_equality_exactly(claim_id):
    """At a worst example attaining its bound the evidence is the exact difference bound − measured (or the
    smallest exact LDLᵀ pivot), an exact 0: both enclosures are points, radius 0."""
    doc = _certificate(claim_id, "repair")
    assert doc["certified"], doc.get("reason")
    assert doc["measured"]["rad"] == doc["bound"]["rad"] == "0"
    assert doc["measured"]["mid"] == doc["bound"]["mid"] == "0"
    assert all(p["proven"] for p in doc["premises"])


def test_tight_repair_with_a_moved_recorded_value_is_rejected():
    """fact4.4.p6's repair: the recorded smallest pivot 0 changed to 1/2 disagrees with the exact recomputation."""
    doc = _certificate("attention_optimization.fact4.4.p6", "repair")
    bad = copy.deepcopy(doc)
    bad["measured"] = {"text": "0.5", "mid": "1/2", "rad": "0"}
    assert "recorded measured" in check_certificate(bad, CLAIMS, CERTS)


def test_tight_repair_with_an_instance_moved_one_ulp_is_rejected():
    """lem12.10's repair: B[0, 0] one ulp toward 0 makes |c| < R² + R, so the exact difference is no longer
    the recorded 0 (the repair still holds there, with room: the certificate is of another instance)."""
    doc = _certificate("attention_optimization.lem12.10", "repair")
    bad = copy.deepcopy(doc)
    _set_number(bad["instance"]["B"], 0, math.nextafter(-5.933514257450035, 0.0))
    assert "recorded measured" in check_certificate(bad, CLAIMS, CERTS)


def test_tight_lem9_1_p3_repair_at_a_rank_two_block_is_not_decided():
    """lem9.1.p3's repair: A2[0, 1] = 1 makes 𝖠_{j0} of rank 2, whose σ_+² is no longer a rational known in
    closed form; the exact certificate refuses to decide the tight link there."""
    doc = _certificate("attention_optimization.lem9.1.p3", "repair")
    bad = copy.deepcopy(doc)
    _set_number(bad["instance"]["A2"], 1, 1.0)
    assert "UndecidableError" in check_certificate(bad, CLAIMS, CERTS)


def test_fact4_3_repair_falls_back_to_balls_off_the_tight_case():
    """fact4.3's repair at S = diag(1, 2), G = e₁ (rank S = 2): ‖X‖ = 1 < α‖Y‖ = 4, proven with room in balls."""
    claim = CLAIMS["attention_optimization.fact4.3.loewner_norm"].repairs[0]
    entry = {"verdict": "verified", "worst_example": [[[1.0, 0.0], [0.0, 2.0]], 1.0, [[1.0], [0.0]]]}
    doc = certify_entry(claim, entry, CERTS[("attention_optimization.fact4.3.loewner_norm", "repair")])
    assert doc["certified"], doc.get("reason")
    assert Fraction(doc["measured"]["mid"]) == pytest.approx(1) and Fraction(doc["bound"]["mid"]) == pytest.approx(4)
    assert check_certificate(doc, CLAIMS, CERTS) == ""


def _set_number(field: dict, index: int, value: float) -> None:
    field["rational"][index] = str(Fraction(value))
    field["float_hex"][index] = value.hex()


def test_instance_moved_one_ulp_past_the_premise_is_rejected():
    """fact4.3: X = −e₄e₄ᵀ, Y = 0 sits on the boundary of its premise X ⪯ αY (αY − X = e₄e₄ᵀ is singular);
    X[0, 0] one ulp above 0 breaks the premise, so the implication is no longer refuted there."""
    doc = _certificate("attention_optimization.fact4.3.loewner_norm", "violation")
    bad = copy.deepcopy(doc)
    _set_number(bad["instance"]["X"], 0, math.nextafter(0.0, 1.0))
    assert "do not prove it" in check_certificate(bad, CLAIMS, CERTS)


def test_changed_bound_is_rejected():
    """lem12.8: the recorded bound nd·10R² = 500 changed to 600 disagrees with the recomputed one."""
    doc = _certificate("attention_optimization.lem12.8", "violation")
    bad = copy.deepcopy(doc)
    bad["bound"] = {"text": "600", "mid": "600", "rad": "0"}
    assert "recorded bound" in check_certificate(bad, CLAIMS, CERTS)


def test_swapped_fields_are_rejected():
    """lem12.8: A2 and A3 swapped give another instance, whose ‖H_xy‖ disagrees with the recorded enclosure."""
    doc = _certificate("attention_optimization.lem12.8", "violation")
    bad = copy.deepcopy(doc)
    bad["instance"]["A2"], bad["instance"]["A3"] = bad["instance"]["A3"], bad["instance"]["A2"]
    assert check_certificate(bad, CLAIMS, CERTS) != ""


def test_moved_witness_is_rejected():
    """fact4.4.p6: the witness v = u = (0, 0, 1, 1) gives vᵀXv = 1 ≤ vᵀYv = 4, which refutes nothing."""
    doc = _certificate("attention_optimization.fact4.4.p6", "violation")
    bad = copy.deepcopy(doc)
    bad["hints"] = {"v": ["0", "0", "1", "1"]}
    assert "do not prove it" in check_certificate(bad, CLAIMS, CERTS)
