"""A deliberately wrong implementation of paper 003's adapters: ``attention_grad_x`` flips the sign
of the row-sum term of Q (Q = S∘P + diag((S∘P)1)S instead of −), ``attention_loss`` drops the ½ of
L_half; ``attention_grad_y`` is right.  The validator must fail the first two with a minimal input."""

import numpy as np


def _softmax(Z):
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def attention_loss(A1, A2, A3, B, X, Y):
    C = _softmax(A1 @ X @ A2.T) @ A3 @ Y - B
    return float(np.sum(C * C))  # planted bug: no ½


def attention_grad_x(A1, A2, A3, B, X, Y):
    S = _softmax(A1 @ X @ A2.T)
    H = A3 @ Y
    SP = S * ((S @ H - B) @ H.T)
    Q = SP + SP.sum(axis=1, keepdims=True) * S  # planted bug: + instead of −
    return A1.T @ Q @ A2


def attention_grad_y(A1, A2, A3, B, X, Y):
    S = _softmax(A1 @ X @ A2.T)
    return A3.T @ S.T @ (S @ A3 @ Y - B)
