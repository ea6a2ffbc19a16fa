"""Argument checks of the pruning solvers that are theirs alone: the argument checks themselves live in
:mod:`solvers._validation` (``name=... must be ...`` ValueErrors); here the shapes of the pruning problem
(X (n, d), W and M d×d) and the overflow report of the attention logits."""

from __future__ import annotations

import numpy as np

from .._validation import check_array, require_finite

__all__ = ["finite", "float_matrix", "square_like"]


def float_matrix(name: str, x, *, shape: tuple | None = None) -> np.ndarray:
    """``x`` as a finite, non-empty 2-D float64 numpy array (of ``shape`` when given)."""
    return np.asarray(check_array(name, x, ndim=2, shape=shape))


def square_like(X, W, name: str = "W") -> tuple[np.ndarray, np.ndarray]:
    """X (n, d) and a d×d matrix ``name``."""
    X = float_matrix("X", X)
    W = float_matrix(name, W, shape=(X.shape[1], X.shape[1]))
    return X, W


def finite(what: str, out, X):
    """``out`` (an array or a tuple of arrays) when every entry is finite; else ValueError naming the overflow."""
    return require_finite(what, out, what="is not finite in float64: it overflows in the logits X(M∘W)Xᵀ or the "
                                          "products with X", hint=lambda: f"max |X| = {float(np.max(np.abs(X))):.3g}")
