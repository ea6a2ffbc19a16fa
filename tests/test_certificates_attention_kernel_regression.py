"""Certificates of paper 004 (attention_kernel_regression; issue 22): every certifier proves its ledger
instance, ``check_certificate`` re-verifies it, corrupted certificates are rejected, and every search
claim and repair of the package names its fields (one per element of a drawn instance)."""

from __future__ import annotations

import copy
import dataclasses
import math
from fractions import Fraction

import pytest

from properties.certify import certifiers, certify_entry, check_certificate
from properties.registry import load_all

PAPER = "attention_kernel_regression"
CLAIMS = load_all()
CERTS = {k: v for k, v in certifiers().items() if k[0].startswith(PAPER + ".")}

_K1 = [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.5]], [0.0, 0.0, 1.0], 0, 0.0625, 0]
_K1_WORST = [[[3.9955654550007584, 0.0, 0.0], [0.0, 7.261961071199738, 0.0], [0.0, 0.0, 1.1]],
             [1.216044810882158, 6.1732147105400585, -7.035929226394714], 1, 0.009695961852261188, 24148254]
_COUNTS = {"j": [2, 4, 8, 16], "count": [73, 208, 662, 2304]}  # Algorithm 5's iteration counts (the ledger's)

# The ledger's instances (errata/ledger-ci.json counterexamples; the repairs' worst examples of a local run of
# python -m properties --claims 'attention_kernel_regression.*'), as drawn: (claim id, target, raw instance);
# the running-time claims take the counts (None: the fixed sweep _COUNTS).
INSTANCES = [
    (f"{PAPER}.factA.4.b1", "violation", [[0.0, 0.0]]),
    (f"{PAPER}.factA.4.b7", "violation", [[1.0], [0.0]]),
    (f"{PAPER}.factA.4.b8", "violation", [[[1.0, 0.0], [0.0, 0.1]], [[0.0], [1.0]]]),
    (f"{PAPER}.factA.4.b8", "repair", [[[1.0]], [[1.0]]]),
    (f"{PAPER}.lemD.2", "violation", [[[1.0], [0.0]], 0.5, [False, False]]),
    (f"{PAPER}.lemD.2", "repair", [[[1.0], [0.0]], 0.001, [False, False]]),
    (f"{PAPER}.lemJ.1.p3", "violation", [2, 0.0625]),
    (f"{PAPER}.lemJ.1.p3", "repair", [2, 1e-06]),
    (f"{PAPER}.lemJ.1.p4", "violation", None),
    (f"{PAPER}.lemJ.1.p4", "repair", None),
    (f"{PAPER}.thmJ.2", "violation", [[[1.0]], [1.0], 2, 0.0625, "aligned", [[0.0]] * 5]),
    (f"{PAPER}.thmJ.2", "repair", [[[-0.26368183759752495], [-0.04280142463875793], [0.04935688193451682]],
                                   [3.082244182568557], 5, 0.04444839466065122, "bottom", [[0.0]] * 5]),
    (f"{PAPER}.thmJ.2.time", "violation", None),
    (f"{PAPER}.thmJ.2.time", "repair", None),
    (f"{PAPER}.thmK.1", "violation", _K1),
    (f"{PAPER}.thmK.1", "repair", _K1_WORST),
    (f"{PAPER}.thm1.5", "violation", _K1),
    (f"{PAPER}.thm1.5", "repair", _K1_WORST),
    (f"{PAPER}.thmL.3.eq86", "violation", [[[1.0, 0.0, 0.0, 0.0]], [[0.0] * 4, [0.0] * 4, [0.0] * 4, [1.0, 0.0, 0.0, 0.0]],
                                           [0.0, 0.0, 0.0, 1.0]]),
    (f"{PAPER}.thmL.3.eq86", "repair", [[[1.0, 0.5, 0.0]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                                        [0.25, 1.0, -2.0]]),
    (f"{PAPER}.thmL.3.gd", "violation", [[[-7.559289460184544, -3.779644730092272, -3.779644730092272,
                                           -3.779644730092272]], [0.0, 0.0, 0.0, 1.0]]),
    (f"{PAPER}.thmL.3.gd", "repair", [[[-0.8315400388498633, 0.3713061618091059, -0.044435804171783555,
                                        -0.1519411074126699],
                                       [-0.2289142937049063, -0.5263664744620902, -0.7585666190831244,
                                        0.188334832931465],
                                       [0.24682829585053748, 0.2017226480887155, -0.39851566561476304,
                                        -0.7413292317690021]], [-0.33948414204120414, -0.7161896856378431, 1.0, 1.0]]),
]


# Section L's sketch claims (the ledger's instances: a local run of python -m properties --claims
# 'attention_kernel_regression.thmL*'), and its statistical claims as the ledger records them (extra: the
# trial design); the Algorithm 7/7R trials run the implementation's JAX solvers (compiled once: slow).
INSTANCES += [
    (f"{PAPER}.thmL.5", "violation", [0, 0]),
    (f"{PAPER}.thmL.3.allxy", "violation", [1, 2, 136, 1.0, 0]),
    (f"{PAPER}.thmL.3.allxy", "repair", [1, 2, 0, 0.0, 1]),
    (f"{PAPER}.thmL.5", "repair", {"trials": 10, "delta": 0.1}),
    (f"{PAPER}.thmL.1.p1", "violation", {"trials": 10, "delta": 0.05}),
    (f"{PAPER}.thmL.8", "violation", {"trials": 10, "delta": 0.05}),
]
SLOW_INSTANCES = [
    (f"{PAPER}.thmL.3", "violation", {"trials": 20, "delta": 0.1}),
    (f"{PAPER}.thmL.3", "repair", {"trials": 10, "delta": 0.1}),
    (f"{PAPER}.thm1.6", "violation", {"trials": 20, "delta": 0.1}),
    (f"{PAPER}.thm1.6", "repair", {"trials": 10, "delta": 0.1}),
]


def _certificate(claim_id: str, target: str, raw) -> dict:
    claim = CLAIMS[claim_id]
    if target == "repair":
        (claim,) = claim.repairs
    cert = CERTS[(claim_id, target)]
    if raw is None:  # a running-time claim: the fixed counts instead of a run of the implementation
        cert = dataclasses.replace(cert, instance=lambda entry: dict(_COUNTS))
    entry = {"id": claim_id, "verdict": "falsified" if target == "violation" else "verified",
             "counterexample" if target == "violation" else "worst_example": raw}
    if isinstance(raw, dict):  # a statistical claim: the trial design
        entry = {"id": claim_id, "verdict": entry["verdict"], "extra": raw}
    return certify_entry(claim, entry, cert)


_DOCS: dict = {}


def _doc(i: int) -> dict:
    if i not in _DOCS:
        _DOCS[i] = _certificate(*INSTANCES[i])
    return copy.deepcopy(_DOCS[i])


def _index(claim_id: str, target: str) -> int:
    return next(i for i, (c, t, _) in enumerate(INSTANCES) if (c, t) == (claim_id, target))


@pytest.mark.parametrize("i", range(len(INSTANCES)), ids=[f"{c}.{t}" for c, t, _ in INSTANCES])
def test_certified_and_rechecked(i):
    doc = _doc(i)
    assert doc["certified"], f"{INSTANCES[i][:2]} not certified: {doc.get('reason')}"
    why = check_certificate(doc, CLAIMS, CERTS)
    assert why == "", f"check_certificate rejected {INSTANCES[i][:2]}: {why}"


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW_INSTANCES, ids=[f"{c}.{t}" for c, t, _ in SLOW_INSTANCES])
def test_algorithm7_trials_certified_and_rechecked(case):
    doc = _certificate(*case)
    assert doc["certified"], f"{case[:2]} not certified: {doc.get('reason')}"
    assert check_certificate(doc, CLAIMS, CERTS) == ""
    if case[1] == "repair":  # Algorithm 7R's output replaced by 0 in one trial: ‖y‖ > ε‖y‖, that trial unproven
        doc["hints"]["trials"]["0"]["x"] = ["0"] * 64
        assert "recorded measured" in check_certificate(doc, CLAIMS, CERTS)


def test_binomial_tail_matches_the_engine_rule():
    """The exact tail decides as the engine's threshold (scipy): F = threshold + 1 failures refute a
    guarantee at the false-alarm rate, F = threshold do not."""
    from flint import fmpq

    from properties.attention_kernel_regression.certificates_statistics import binomial_tail
    from properties.engine import FALSE_ALARM, binomial_threshold

    fa = fmpq(*FALSE_ALARM.as_integer_ratio())
    for k, delta in ((10, 0.05), (20, 0.1), (10, 0.1), (30, 0.05)):
        d = fmpq(*delta.as_integer_ratio())
        t = binomial_threshold(k, delta)
        assert binomial_tail(k, d, t + 1) <= fa < binomial_tail(k, d, t)
    assert binomial_tail(10, fmpq(1, 20), 10) == fmpq(1, 20) ** 10 and binomial_tail(7, fmpq(1, 3), 0) == 1


def test_exact_sketch_is_algorithm_8():
    """Z = m^{−k/2}·Z̃ (the exact rebuild) agrees with the oracle's 𝒵(S, T, X) at 40 digits, degrees 1–3."""
    import numpy as np
    from mpmath import mp

    from oracle import attention_kernel_ridge as R
    from oracle import to_mp
    from properties.attention_kernel_regression.certificates_sketch import exact_sketch

    rng = np.random.default_rng(7)
    X = rng.standard_normal((3, 4))
    T = {"n": np.int64(3), "signs": np.array([1, -1, -1, 1]), "rows": np.array([0, 3, 2, 2, 1])}
    S = {"d1": np.int64(5), "d2": np.int64(5), "signs1": np.array([1, -1, 1, 1, -1, 1, -1, -1]),
         "signs2": np.array([-1, -1, 1, 1, 1, -1, 1, 1]), "rows1": np.array([0, 7, 3, 3, 5]),
         "rows2": np.array([6, 1, 2, 0, 7])}
    with mp.workdps(40):
        for p in (1, 2, 3):
            Zt, k, m = exact_sketch(X, p, T, S)
            Z = R.tensor_sketch(to_mp(X), p, T, S)
            scale = mp.mpf(m) ** (-mp.mpf(k) / 2)
            for i in range(m):
                for j in range(4):
                    exact = scale * mp.mpf(int(Zt[i, j].p)) / int(Zt[i, j].q)
                    assert abs(exact - Z[i, j]) <= mp.mpf(10) ** -30 * (1 + abs(Z[i, j]))


def test_every_falsified_claim_and_repair_has_a_certifier_or_a_reason():
    ids = [c.id for c in CLAIMS.values() if c.paper == PAPER and c.expected == "falsified"]
    assert len(ids) == 18, f"paper 004 has 18 falsified claims, found {len(ids)}"
    for cid in ids:
        for target in ("violation", "repair"):
            cert = CERTS.get((cid, target))
            assert cert is not None, f"no {target} certifier (or reason) for {cid}"
            assert cert.evaluate is not None or len(cert.reason) > 40, f"{cid} {target}: no specific reason"


def test_identity_repairs_state_why_they_are_not_certified():
    for cid in (f"{PAPER}.factA.4.b1", f"{PAPER}.factA.4.b7"):
        cert = CERTS[(cid, "repair")]
        assert cert.evaluate is None and "identity" in cert.reason


def test_swapped_fields_rejected():
    """factA.4.b8 with A and B swapped: B (2×1) is not square, so the instance no longer meets the premise."""
    doc = _doc(_index(f"{PAPER}.factA.4.b8", "violation"))
    doc["instance"]["A"], doc["instance"]["B"] = doc["instance"]["B"], doc["instance"]["A"]
    assert check_certificate(doc, CLAIMS, CERTS) != ""


def test_instance_moved_one_ulp_past_the_sandwich_rejected():
    """lemD.2 at ε = ½, SᵀS = ½I: ε one ulp below ½ breaks (1−ε)AᵀA ⪯ AᵀSᵀSA, so the premise fails."""
    doc = _doc(_index(f"{PAPER}.lemD.2", "violation"))
    e = doc["instance"]["ε"]
    assert e["rational"] == "1/2", f"ε = {e['rational']} is not the ledger's 1/2"
    moved = math.nextafter(0.5, 0.0)
    e["rational"], e["float_hex"] = str(Fraction(moved)), moved.hex()
    why = check_certificate(doc, CLAIMS, CERTS)
    assert why != "", "an instance outside the lemma's hypotheses must be rejected"


def test_window_left_rejected():
    """thmL.3.gd's repair needs σ(SWᵀ)² ≥ 4/5: W scaled by 1/4 (σ² ≈ 1/16) leaves the window, so it is rejected."""
    doc = _doc(_index(f"{PAPER}.thmL.3.gd", "repair"))
    w = doc["instance"]["W"]
    w["rational"] = [str(Fraction(t) / 4) for t in w["rational"]]
    w["float_hex"] = [(float.fromhex(t) / 4).hex() for t in w["float_hex"]]
    assert check_certificate(doc, CLAIMS, CERTS) != ""


def test_changed_bound_rejected():
    """factA.4.b8: the recorded bound replaced by another value is not the recomputed enclosure."""
    doc = _doc(_index(f"{PAPER}.factA.4.b8", "violation"))
    doc["bound"]["mid"] = str(Fraction(doc["bound"]["mid"]) * 2)
    why = check_certificate(doc, CLAIMS, CERTS)
    assert "recorded bound" in why, f"a changed bound must be rejected, got {why!r}"


def test_changed_output_rejected():
    """thmK.1: the recorded Algorithm 6 output x' replaced by b itself meets the stated bound: no violation."""
    doc = _doc(_index(f"{PAPER}.thmK.1", "violation"))
    doc["hints"]["x'"] = ["0", "0", "1"]
    assert check_certificate(doc, CLAIMS, CERTS) != ""


def test_sketch_instance_moved_rejected():
    """thmL.5 at another data seed: X moves, and the recomputed enclosure is not the recorded one."""
    doc = _doc(_index(f"{PAPER}.thmL.5", "violation"))
    doc["instance"]["data_seed"]["value"] = 1
    assert "recorded measured" in check_certificate(doc, CLAIMS, CERTS)


def test_larger_failure_rate_rejected():
    """thmL.8 with δ = 1/2 recorded: 10 failures in 10 trials are then likely (P = 2^-10 > 1e-6): no refutation."""
    doc = _doc(_index(f"{PAPER}.thmL.8", "violation"))
    doc["instance"]["δ"] = {"kind": "number", "rational": "1/2", "float_hex": (0.5).hex()}
    assert "do not prove it" in check_certificate(doc, CLAIMS, CERTS)


def test_changed_trial_bits_rejected():
    """thmL.5's repair with trial 0's T rows all the first Hadamard row: Z of rank 1, the sandwich fails there,
    so one trial is unproven and the recomputed tail is not the recorded one."""
    doc = _doc(_index(f"{PAPER}.thmL.5", "repair"))
    T = doc["hints"]["trials"]["0"]["bits"][0]
    T["rows"] = [0] * len(T["rows"])
    assert "recorded measured" in check_certificate(doc, CLAIMS, CERTS)
