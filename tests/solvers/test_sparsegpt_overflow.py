"""SparseGPT on a layer input whose Gram matrix overflows float64 names the overflow of XᵀX (the layer
Hessian 2XᵀX), not the dampening: no dampening can repair an infinite Hessian."""

import numpy as np
import pytest

from solvers.attention_pruning import sparsegpt


def test_an_overflowing_gram_matrix_is_named():
    rng = np.random.default_rng(0)
    W, X = rng.standard_normal((4, 3)), rng.standard_normal((6, 4))
    with pytest.raises(ValueError, match="XᵀX") as err:
        sparsegpt(W, X * 1e200, 0.5)
    assert "overflows" in str(err.value) and "percdamp" not in str(err.value), str(err.value)
    assert np.isfinite(sparsegpt(W, X * 1e100, 0.5).loss)
