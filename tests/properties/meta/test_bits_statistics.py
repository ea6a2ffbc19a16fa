"""The statistical checks of the ``*_bits`` adapters: planted bits that are well formed
and deterministic but not random (every sign +1, every row 0) fail them, and the project's own bits
pass them."""

import numpy as np
import pytest

import solvers.adapter as ours
from oracle.sketch_bits import distortion_from_grams, sketch_grams
from properties import sketch_statistics as SS
from properties.registry import adapters
from properties.validate import check_function
from tests.properties.meta.toy import constant_sign_bits, zero_row_bits

BITS = ("srht_bits", "tensor_srht_bits", "osnap_bits", "countsketch_bits", "gaussian_bits", "attention_feature_bits")


@pytest.mark.parametrize("name", BITS)
def test_the_projects_bits_pass_every_statistical_check(name):
    ad = adapters()[name]
    assert ad.statistical, f"{name} declares no statistical check"
    for check in ad.statistical:
        out = check(getattr(ours, name))
        assert out.holds, f"{check.__name__} of solvers.adapter.{name}: {out.note}"


@pytest.mark.parametrize("module, name, family", [
    (constant_sign_bits, "srht_bits", "sign balance"),
    (constant_sign_bits, "countsketch_bits", "sign"),
    (constant_sign_bits, "osnap_bits", "sign"),
    (zero_row_bits, "srht_bits", "rows uniform"),
    (zero_row_bits, "countsketch_bits", "rows uniform"),
    (zero_row_bits, "gaussian_bits", "Gaussian"),
])
def test_planted_bits_fail_the_distribution_check(module, name, family):
    distribution, *_ = adapters()[name].statistical
    out = distribution(getattr(module, name))
    assert not out.holds and out.ratio > 1, f"{module.__name__}.{name} passed: {out.note}"
    assert f"fails {family}" in out.note and "false-alarm rate ≤ 1e-06" in out.note, out.note


@pytest.mark.parametrize("module, name, worst_input", [
    (constant_sign_bits, "srht_bits", "Walsh-Hadamard columns"),
    (constant_sign_bits, "countsketch_bits", ""),  # the all-ones column and the repeated rows
    (constant_sign_bits, "osnap_bits", ""),
    (zero_row_bits, "srht_bits", "spikes"),
    (zero_row_bits, "countsketch_bits", "spikes"),
    (zero_row_bits, "gaussian_bits", "spikes"),
])
def test_planted_bits_fail_the_embedding_on_coherent_inputs(module, name, worst_input):
    out = SS.bits_embedding(name[:-len("_bits")])(getattr(module, name))
    assert not out.holds, f"{module.__name__}.{name} embeds every coherent input: {out.note}"
    assert f"worst input {worst_input}" in out.note and f"{SS.EMBEDDING.trials} of {SS.EMBEDDING.trials} trials" in out.note, \
        out.note


def test_constant_signs_on_repeated_rows_distort_a_countsketch():
    A = SS.coherent_inputs(1024, 2)["repeated rows"]
    bits = constant_sign_bits.countsketch_bits(1024, SS.EMBEDDING.rows, 0)
    assert distortion_from_grams(*sketch_grams("countsketch", bits, A)) > 1, "1 + (n/d)/m ≈ 5 expected of ‖S·1‖²/n"


def test_the_validator_reports_the_failed_statistical_check_after_a_passed_search():
    rep = check_function(adapters()["srht_bits"], zero_row_bits.srht_bits)
    assert not rep.passed and rep.examples > 0, "the format search passes; the statistical check must fail"
    assert rep.minimal_input == {"statistical check": "distribution"} and not rep.shrunk, rep
    assert "rows uniform" in rep.error, rep.error


def test_judge_rejects_empty_draws_and_the_rule_has_its_stated_rows():
    with pytest.raises(ValueError, match="draws='nothing' must hold"):
        SS.judge(SS.Draws("nothing"))
    assert SS.EMBEDDING.rows == 120, "m = ⌈(d² + d)/(δε²)⌉ = ⌈6/(0.2·0.25)⌉"
    with pytest.raises(ValueError, match="kind='fjlt' must be one of"):
        SS.bits_draws("fjlt", "x", [{}])


def test_fair_numpy_draws_pass_and_one_biased_coordinate_fails():
    rng = np.random.default_rng(7)
    signs = rng.choice([-1, 1], (SS.TRIALS, 16))
    rows = rng.integers(0, 4, (SS.TRIALS, 1, 16))
    fair = SS.Draws("fair", signs, (SS.Hits("rows", rows, 4, signs[:, None, :]),))
    assert SS.judge(fair).holds, SS.judge(fair).note
    signs[:, 5] = 1
    out = SS.judge(SS.Draws("biased", signs))
    assert not out.holds and "coordinate 5" in out.note, out.note
