"""Certificates of paper 000 (attention_pruning; issue 22): every certifier proves a fixed instance (the
ledger's), ``check_certificate`` re-verifies it, corrupted certificates are rejected, and every search
claim and repair of the package names its fields (one per element of a drawn instance)."""

from __future__ import annotations

import copy
import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest

from properties.attention_pruning.certificates import CERTIFIERS
from properties.certify import certify_entry, check_certificate
from properties.registry import load_all

CLAIMS = load_all()
CERTS = dict(CERTIFIERS.by_key)  # this paper's alone (another paper's module cannot break these tests)

_Q = [[-0.08944271909999157, -0.044721359549995794], [-0.044721359549995794, 0.08944271909999159]]
_RUNTIME = ("fitted exponent 2.829 of the counts [681119283.2740476, 4446692199.336271, 32050513210.98992, "
            "243284055920.5668] over sizes [16, 32, 64, 128]; claimed form's {} (+0.2 allowed)")

# errata/ledger-ci.json's counterexamples; the repairs' worst examples of a local run of
# python -m properties --claims 'attention_pruning.*' (worst_example): (claim id, target, ledger entry fields).
INSTANCES = [
    ("attention_pruning.lemF2.p2", "violation",
     {"counterexample": [[[0.1, 0.0], [0.0, 0.0]], [[-1.0, -1.0], [-1.0, -1.0]], [[0.5, 0.5], [0.5, 0.5]], False,
                         "star", 1.0]}),
    ("attention_pruning.lemF2.p2", "repair",
     {"worst_example": [[[0.3875766281908329, 0.2803622010364473, -0.048402682864384386], [0.0, 0.7143408688266455, 0.0]],
                        [[0.0, 1.4151728203038505, 0.0], [0.692654267736487, 0.17209307739397048, 0.8736253034786543],
                         [-0.995715537832908, -0.3772756673193623, -0.5644862087788163]],
                        [[0.0, 1.0, 0.3484005897624614], [0.0, 0.0, 0.7371203084203172], [0.04935762798683686, 1.0, 0.0]],
                        False, "free", 0.0]}),
    ("attention_pruning.lem5.5", "violation",
     {"counterexample": [_Q, [[-1.0, -1.0], [-1.0, -1.0]], [[0.0, 0.0], [0.0, 0.0]], "star", 1.0, "A"]}),
    ("attention_pruning.lem5.5", "repair",
     {"worst_example": [[[-0.021842252743618642, -0.0022875807931716243], [-0.0022875807931716243, 0.02184225274361864]],
                        [[-1.9134853568392853, -1.9134853568392853], [1.9134853568392853, 1.9134853568392853]],
                        [[0.0, 0.18283353794424098], [0.18283353794424098, 0.19895589206952696]], "star",
                        8.679689205378224e-228, "A"]}),
    ("attention_pruning.thm4.1", "violation",
     {"counterexample": [[[0.7, -0.0], [0.0, 0.7]], [[0.5, -0.5], [-0.5, -0.5]], [[0.0, 0.0], [0.0, 0.0]], 0.0, 0.99,
                         0.8, "B"]}),
    ("attention_pruning.thm4.1", "repair",
     {"worst_example": [[[-0.4806861693281602, -0.3590832864623739], [0.3590832864623739, -0.4806861693281602]],
                        [[-0.35, 0.35], [-0.35, -0.35]], [[0.0, 0.0], [0.0, 0.0]], 0.0, 0.95, 0.8, "A"]}),
    ("attention_pruning.claim.runtime", "violation", {"counterexample": {"construction": _RUNTIME.format("1.000")}}),
    ("attention_pruning.claim.runtime", "repair", {"reason": _RUNTIME.format("3.000")}),
    ("attention_pruning.claim.assumptions_practical", "violation",
     {"counterexample": [[[0.0], [0.0]], [[0.0]], [[0.0]], 0.0, True]}),
    ("attention_pruning.claim.assumptions_practical", "repair",
     {"worst_example": [[[-0.7866035672167735], [0.0], [-0.7326754044782762], [0.0]], [[-0.6139043499055864]], [[1.0]],
                        0.0, False]}),
]


def _certificate(claim_id: str, target: str, fields: dict, cert=None) -> dict:
    claim = CLAIMS[claim_id]
    if target == "repair":
        (claim,) = claim.repairs
    entry = {"id": claim_id, "verdict": "falsified" if target == "violation" else "verified", **fields}
    return certify_entry(claim, entry, cert or CERTS[(claim_id, target)])


# The emp.* certifiers build their instance by running the experiment (half a minute); their evaluators are
# tested on small fixed instances of the same layout (X, W and the methods' pruned W per seed), one seed.
_X = [[1.0, 0.5], [-0.5, 1.0], [0.25, -1.0]]
_W = [[1.0, -0.5], [0.75, 0.5]]
_ZERO = [[0.0, 0.0], [0.0, 0.0]]
_HALF = [[0.5, -0.25], [0.375, 0.25]]


def _emp(tag=""):
    return {f"X{tag} (seed 0)": np.array(_X), f"W{tag} (seed 0)": np.array(_W)}


EMP = [  # ours (M) prunes everything (error largest), Wanda nothing (error 0)
    ("attention_pruning.emp.beats_baselines",
     {"variant": "a", "n": 3, "ρ": 0.5, "λ": 0.0625, "seeds": 1} | _emp()
     | {"W_pruned ours (M) (seed 0)": np.array(_ZERO), "W_pruned Wanda (seed 0)": np.array(_W),
        "W_pruned SparseGPT (seed 0)": np.array(_HALF)}),
    ("attention_pruning.emp.rho_growth",
     {"variant": "b", "n": 3, "ρ": 0.25, "λ": 0.0625, "seeds": 1} | _emp()
     | {"W_pruned ours (M) (seed 0)": np.array(_ZERO), "W_pruned Wanda (seed 0)": np.array(_HALF),
        "W_pruned SparseGPT (seed 0)": np.array(_W)}),
    ("attention_pruning.emp.wanda_vs_sparsegpt_n",
     {"variant": "b", "n": 3, "ρ": 0.5, "λ": 0.0625, "seeds": 1} | _emp()
     | {"W_pruned Wanda (seed 0)": np.array(_ZERO), "W_pruned SparseGPT (seed 0)": np.array(_HALF)}),
    ("attention_pruning.emp.n_growth",
     {"variant": "a", "method": "Wanda", "n": 3, "n'": 4, "ρ": 0.5, "λ": 0.0625, "seeds": 1} | _emp(" n=3")
     | {"W_pruned Wanda n=3 (seed 0)": np.array(_ZERO), "X n=4 (seed 0)": np.array(_X + [[0.5, 0.5]]),
        "W n=4 (seed 0)": np.array(_W), "W_pruned Wanda n=4 (seed 0)": np.array(_W)}),
    ("attention_pruning.emp.lambda_ushape",
     {"variant": "a", "n": 3, "ρ": 0.5, "λ grid": np.array([2.0 ** -12, 2.0 ** -8, 2.0 ** -4, 1.0]), "end": 0, "seeds": 1}
     | {k: v for i, Wp in enumerate([_W, _HALF, _ZERO, _ZERO])
        for k, v in (_emp(f" λ[{i}]") | {f"W_pruned ours (M) λ[{i}] (seed 0)": np.array(Wp)}).items()}),
]

_DOCS: dict = {}


def _doc(i: int) -> dict:
    if i not in _DOCS:
        if i < len(INSTANCES):
            _DOCS[i] = _certificate(*INSTANCES[i])
        else:
            cid, inst = EMP[i - len(INSTANCES)]
            cert = dataclasses.replace(CERTS[(cid, "violation")], instance=lambda entry, inst=inst: inst)
            _DOCS[i] = _certificate(cid, "violation", {}, cert)
    return copy.deepcopy(_DOCS[i])


def _index(claim_id: str, target: str = "violation") -> int:
    ids = [(c, t) for c, t, _ in INSTANCES] + [(c, "violation") for c, _ in EMP]
    return ids.index((claim_id, target))


_ALL = [f"{c}.{t}" for c, t, _ in INSTANCES] + [f"{c}.violation" for c, _ in EMP]


@pytest.mark.parametrize("i", range(len(_ALL)), ids=_ALL)
def test_certified_and_rechecked(i):
    doc = _doc(i)
    assert doc["certified"], f"{_ALL[i]} not certified: {doc.get('reason')}"
    why = check_certificate(doc, CLAIMS, CERTS)
    assert why == "", f"check_certificate rejected {_ALL[i]}: {why}"


def test_every_falsified_claim_and_repair_has_a_certifier():
    for claim in CLAIMS.values():
        if claim.paper != "attention_pruning" or claim.expected != "falsified":
            continue
        assert (claim.id, "violation") in CERTS, f"no violation certifier for {claim.id}"
        if claim.repairs:
            assert (claim.id, "repair") in CERTS, f"no repair certifier (or reason) for {claim.id}"


def _set_number(field: dict, value: float, k: int | None = None) -> None:
    """Write the float ``value`` into an encoded instance field (entry ``k`` of a matrix), both exact forms."""
    if k is None:
        field["rational"], field["float_hex"] = str(Fraction(value)), value.hex()
    else:
        field["rational"][k], field["float_hex"][k] = str(Fraction(value)), value.hex()


def test_mask_moved_one_ulp_out_of_the_box_rejected():
    """lemF2.p2 at M = ½·1: M_11 set one ulp above 1 leaves [0,1]^{d×d}, so the premise fails."""
    doc = _doc(_index("attention_pruning.lemF2.p2"))
    _set_number(doc["instance"]["M"], math.nextafter(1.0, 2.0), 0)
    why = check_certificate(doc, CLAIMS, CERTS)
    assert why != "" and "prove" in why, f"a mask outside the box must be rejected for its premise, got {why!r}"


def test_step_size_moved_one_ulp_past_1_over_L_rejected():
    """thm4.1: η·L = 0.99 replaced by the float just above 1 breaks the hypothesis η < 1/L."""
    doc = _doc(_index("attention_pruning.thm4.1"))
    _set_number(doc["instance"]["η·L"], math.nextafter(1.0, 2.0))
    assert check_certificate(doc, CLAIMS, CERTS) != ""


def test_tight_repair_moved_one_ulp_off_equality_rejected():
    """lemF2.p2's repair holds with equality at λ = 0 exactly; λ = t one ulp above 0 leaves no exact equality
    (the slack is a ball around 0), so the recorded certificate no longer verifies."""
    doc = _doc(_index("attention_pruning.lemF2.p2", "repair"))
    assert doc["measured"]["rad"] == "0" and doc["bound"]["rad"] == "0", "the tight case must be exact"
    _set_number(doc["instance"]["t"], math.nextafter(0.0, 1.0))
    assert check_certificate(doc, CLAIMS, CERTS) != ""


def test_claimed_exponent_changed_rejected():
    """claim.runtime: the claimed exponent 1 replaced by 3 (the repair's) is not violated by 2.83."""
    doc = _doc(_index("attention_pruning.claim.runtime"))
    doc["instance"]["claimed exponent"]["value"] = 3
    assert check_certificate(doc, CLAIMS, CERTS) != ""


def test_changed_bound_rejected():
    """lem5.5: the recorded bound doubled is not the recomputed enclosure."""
    doc = _doc(_index("attention_pruning.lem5.5"))
    doc["bound"]["mid"] = str(Fraction(doc["bound"]["mid"]) * 2)
    why = check_certificate(doc, CLAIMS, CERTS)
    assert "recorded bound" in why, f"a changed bound must be rejected, got {why!r}"


def test_swapped_fields_rejected():
    """thm4.1: η·L and θ swapped (0.8 and 0.99) is another run, whose enclosures differ from the recorded ones."""
    doc = _doc(_index("attention_pruning.thm4.1"))
    inst = doc["instance"]
    inst["η·L"], inst["θ"] = inst["θ"], inst["η·L"]
    assert check_certificate(doc, CLAIMS, CERTS) != ""


def test_emp_swapped_methods_rejected():
    """emp.beats_baselines with ours' and Wanda's pruned W swapped: ours is then lowest, no violation."""
    doc = _doc(_index("attention_pruning.emp.beats_baselines"))
    inst = doc["instance"]
    a, b = "W_pruned ours (M) (seed 0)", "W_pruned Wanda (seed 0)"
    inst[a], inst[b] = inst[b], inst[a]
    assert check_certificate(doc, CLAIMS, CERTS) != ""
