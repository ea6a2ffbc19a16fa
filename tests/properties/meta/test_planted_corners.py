"""Planted bugs wrong only where a search never looks (``tests/properties/meta/planted``): above the
entries the search draws (|x| > 10) or from a size beyond its largest draw (n ≥ 9 rows).  Every adapter
declares magnitude and size corners, judged after every search at every profile, so each is caught under
``ci`` on every seed, and the reported input separates it from ``solvers.adapter``."""

import numpy as np
import pytest

from properties.registry import adapters

from .test_planted_bugs import SEEDS, _judge, _recheck


@pytest.mark.parametrize("seed", SEEDS)
def test_a_kron_wrong_only_above_ten_fails_on_a_magnitude_corner(seed):
    ad, rep = _judge("kron_float32_large", "kron", seed)
    x, y = rep.minimal_input
    assert np.max(np.abs(x)) > 10, rep.minimal_input
    _recheck(ad, rep.minimal_input, "kron_float32_large", "kron")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_spectral_norm_dropping_rows_past_eight_fails_on_a_size_corner(seed):
    ad, rep = _judge("spectral_norm_first_block", "spectral_norm", seed)
    assert rep.minimal_input.shape[0] >= 9, rep.minimal_input.shape
    _recheck(ad, rep.minimal_input, "spectral_norm_first_block", "spectral_norm")


def test_every_adapter_function_has_magnitude_and_size_corners():
    """Each function of the contract declares both kinds (contract.Adapter.magnitude_corners, size_corners),
    each with at least one instance."""
    missing = {name for name, ad in adapters().items() for kind in ("magnitude_corners", "size_corners")
               if getattr(ad, kind) is None or not getattr(ad, kind)()}
    assert not missing, f"adapter functions without magnitude or size corners: {sorted(missing)}"
