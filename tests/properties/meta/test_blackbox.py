"""Black-box sketches: the validator recovers S = f(I_n) by probing, checks its
structure, f(M) = S·M (linearity), determinism, the distribution over seeds and the embedding on
coherent inputs; scipy's ``clarkson_woodruff_transform`` passes as ``countsketch``."""

import numpy as np
import pytest

from properties import blackbox
from properties.registry import adapters
from properties.validate import check_function
from tests.properties.meta.real import scipy_sketch
from tests.properties.meta.toy import blackbox_sketches as toy


def test_scipy_clarkson_woodruff_transform_passes_as_countsketch():
    rep = check_function(adapters()["countsketch"], scipy_sketch.countsketch)
    assert rep.passed, f"{rep.minimal_input}: {rep.error}"
    assert rep.examples > 0 and rep.statistics == 2, "searched, then both statistical checks ran"


@pytest.mark.parametrize("name", ["srht", "osnap", "countsketch", "gaussian_sketch"])
def test_a_correct_numpy_form_of_each_kind_passes(name):
    rep = check_function(adapters()[name], getattr(toy, name))
    assert rep.passed and rep.statistics == 2, f"{name}: {rep.minimal_input}: {rep.error}"


@pytest.mark.parametrize("name, adapter, words", [
    ("countsketch_constant_signs", "countsketch", "fails sign"),
    ("gaussian_sketch_ignores_seed", "gaussian_sketch", "fails Gaussian"),
])
def test_a_well_formed_linear_sketch_with_a_wrong_distribution_fails_its_statistical_check(name, adapter, words):
    rep = check_function(adapters()[adapter], getattr(toy, name))
    assert not rep.passed and rep.minimal_input == {"statistical check": "distribution"}, rep
    assert words in rep.error and "false-alarm rate ≤ 1e-06" in rep.error, rep.error


@pytest.mark.parametrize("name, adapter, inst, words", [
    ("srht_is_a_countsketch", "srht", ((1, 2, 1, 0), np.zeros((1, 1)), np.zeros((1, 1))), "is not a srht: S[0, 0] = "),
    ("osnap_one_row_per_block_repeated", "osnap", ((1, 2, 2, 0), np.zeros((1, 1)), np.zeros((1, 1))),
     "column 0 has 1 nonzeros, must have 2"),
    ("srht_not_linear", "srht", ((1, 1, 1, 0), np.zeros((1, 1)), np.full((1, 1), 2.0)), "f(B) ≠ S·B"),
    ("srht_not_linear", "srht", ((2, 1, 1, 0), np.eye(2)[:, :1], np.eye(2)[:, :1]), "f(A + B) ≠ S(A + B): not linear"),
    ("countsketch_seeded_by_input", "countsketch", ((1, 1, 1, 0), np.zeros((1, 1)), np.full((1, 1), 7.0)), "f(B) ≠ S·B"),
])
def test_planted_bugs_fail_on_the_minimal_input_the_search_shrinks_to(name, adapter, inst, words):
    out = adapters()[adapter].compare(inst, getattr(toy, name))
    assert not out.holds and words in out.note, out.note


@pytest.mark.slow
@pytest.mark.parametrize("name, adapter, minimal", [
    ("srht_is_a_countsketch", "srht", (1, 2, 1, 0)),
    ("countsketch_seeded_by_input", "countsketch", (1, 1, 1, 0)),
])
def test_the_search_shrinks_a_planted_bug_to_a_one_entry_input(name, adapter, minimal):
    rep = check_function(adapters()[adapter], getattr(toy, name))
    assert not rep.passed and rep.shrunk and rep.minimal_input[0] == minimal, rep


def test_recovered_srht_bits_rebuild_the_probed_matrix():
    S = toy.srht(np.eye(8), 5, 3)
    problem, (v0, q) = blackbox.structure("srht", S)
    assert problem is None
    H = np.array([[(-1) ** bin(i & j).count("1") for j in range(8)] for i in range(8)])
    rebuilt = np.vstack([v0, H[q] * v0]) / np.sqrt(5)  # row 0 is Walsh row 0 relative to itself
    assert np.allclose(rebuilt, S, rtol=0, atol=1e-15), "(v0, q) must be an exact description of S"


def test_bad_output_shape_is_named():
    with pytest.raises(ValueError, match=r"out.shape=\(3, 4\), but should be \(2, 4\) \[countsketch\]"):
        blackbox.recover("countsketch", lambda A, m, seed: np.zeros((3, A.shape[0])), 4, 2, 1, 0)
