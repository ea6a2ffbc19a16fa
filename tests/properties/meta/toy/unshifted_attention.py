"""``attention_loss`` with the row softmax D(X)⁻¹exp(A1XA2ᵀ) evaluated without the row max-shift:
right for exponents below 709, NaN past it.  The validator must FAIL it on a corner."""

import numpy as np


def attention_loss(A1, A2, A3, B, X, Y):
    E = np.exp(A1 @ X @ A2.T)
    S = E / E.sum(axis=1, keepdims=True)
    return float(0.5 * np.sum((S @ A3 @ Y - B) ** 2))
