"""Planted bugs of the masks (``tests/properties/meta/planted``): Wanda and the binarisation are judged
exactly against the oracle's mask (count, entries, order of ties), and the discrete edges of the
oracle's rules (``oracle.pruning_baselines.COUNT_RULE``, ``BINARIZE_COUNT_RULE``, ``TIE_RULE``) are
fixed corners, so each bug below FAILs under the ``ci`` profile on every seed, and the reported input
separates it from the correct implementation (``solvers.adapter``)."""

import math

import numpy as np
import pytest

from oracle.pruning_baselines import binarize_count, count_pruned

from .test_planted_bugs import SEEDS, _judge, _recheck


def _caught(module: str, name: str, seed: int):
    ad, rep = _judge(module, name, seed)
    assert "entries differ from the oracle's" in rep.outcome.note, rep.outcome.note
    _recheck(ad, rep.minimal_input, module, name)
    return rep.minimal_input


@pytest.mark.parametrize("seed", SEEDS)
def test_wanda_pruning_one_too_many_fails(seed):
    """ceil(ρ·d_in): over-pruning, which a check of "at least k zeros" passes."""
    W, X, rho = _caught("wanda_ceil", "attention_pruning_wanda", seed)
    assert math.ceil(rho * W.shape[0] - 1e-9) > count_pruned(rho, W.shape[0]), (rho, W.shape)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_all_zero_wanda_fails(seed):
    W, X, rho = _caught("wanda_zeros", "attention_pruning_wanda", seed)
    assert count_pruned(rho, W.shape[0]) < W.shape[0], (rho, W.shape)


@pytest.mark.parametrize("seed", SEEDS)
def test_wanda_breaking_ties_to_the_higher_index_fails_on_a_tie(seed):
    W, X, rho = _caught("wanda_ties_last", "attention_pruning_wanda", seed)
    scores = np.abs(W) * np.linalg.norm(X, axis=0)[:, None]
    assert any(len(set(col.tolist())) < col.size for col in scores.T), scores


@pytest.mark.parametrize("seed", SEEDS)
def test_wanda_without_the_rounding_guard_fails_at_d_in_22(seed):
    """int(ρ·d_in) gives 14 at ρ = 15/22: d_in ≥ 22, beyond every drawn size, is a fixed corner."""
    W, X, rho = _caught("wanda_no_guard", "attention_pruning_wanda", seed)
    assert W.shape[0] >= 22 and int(rho * W.shape[0]) != count_pruned(rho, W.shape[0]), (rho, W.shape)


@pytest.mark.parametrize("seed", SEEDS)
def test_binarize_rounding_halves_to_even_fails(seed):
    S, rho = _caught("binarize_half_even", "attention_pruning_binarize", seed)
    assert round(rho * S.size) != binarize_count(rho, S.size), (rho, S.shape)


@pytest.mark.parametrize("seed", SEEDS)
def test_binarize_breaking_ties_to_the_higher_index_fails_on_a_tie(seed):
    S, rho = _caught("binarize_ties_last", "attention_pruning_binarize", seed)
    assert len(set(S.reshape(-1).tolist())) < S.size, S
