"""``attention_hessian_yy`` with a "stabilising" jitter 1e-30·L_half·I: invisible while the loss is O(1) (the
search's entries are ≤ 2), it swamps H_yy = I ⊗ (SA3)ᵀ(SA3) once B reaches about 1e16, and the loss itself
overflows for targets near 1e154."""

import numpy as np

import solvers.adapter as correct


def attention_hessian_yy(A1, A2, A3, B, X, Y):
    H = np.asarray(correct.attention_hessian_yy(A1, A2, A3, B, X, Y))
    Z = A1 @ X @ A2.T
    S = np.exp(Z - Z.max(axis=1, keepdims=True))
    S /= S.sum(axis=1, keepdims=True)
    loss = 0.5 * np.sum((S @ A3 @ Y - B) ** 2)
    return H + 1e-30 * loss * np.eye(H.shape[0])
