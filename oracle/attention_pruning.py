"""mpmath helpers for "Beyond Linear Approximations: A Novel Pruning Approach for Attention Matrix"
(Liang, Long, Shi, Song, Zhou; ICLR 2025; paper 000, spec ``shared/spec/attention_pruning.md``).

Pure mpmath on ``mp.matrix`` inputs (convert float64 data with :func:`oracle.to_mp`), except
:func:`exact_rank`, which works on the float64 data itself in exact rational arithmetic.
"""

from __future__ import annotations

from mpmath import mp

from .linalg import exact_rank

__all__ = ["causal_mask", "exact_rank", "frob_inner", "hadamard", "masked_softmax_attention", "trace"]


def _check_matrix(M, name):
    if not isinstance(M, mp.matrix) or M.rows == 0 or M.cols == 0:
        shape = f"{M.rows}x{M.cols}" if isinstance(M, mp.matrix) else type(M).__name__
        raise ValueError(f"{name} must be a nonempty mp.matrix, got {shape}")


def _same_shape(A, B, na, nb):
    _check_matrix(A, na)
    _check_matrix(B, nb)
    if (A.rows, A.cols) != (B.rows, B.cols):
        raise ValueError(f"{na} ({A.rows}x{A.cols}) and {nb} ({B.rows}x{B.cols}) must have the same shape")


def hadamard(A, B):
    """A ∘ B, the entrywise product of two matrices (or columns) of one shape."""
    _same_shape(A, B, "A", "B")
    return mp.matrix([[A[i, j] * B[i, j] for j in range(A.cols)] for i in range(A.rows)])


def frob_inner(A, B):
    """⟨A, B⟩ = tr(AᵀB) = Σ_ij A_ij B_ij (an exactly rounded sum)."""
    _same_shape(A, B, "A", "B")
    return mp.fsum(A[i, j] * B[i, j] for i in range(A.rows) for j in range(A.cols))


def trace(A):
    """tr(A) of a square matrix."""
    _check_matrix(A, "A")
    if A.rows != A.cols:
        raise ValueError(f"A must be square, got {A.rows}x{A.cols}")
    return mp.fsum(A[i, i] for i in range(A.rows))


def causal_mask(n: int):
    """M_c ∈ {0,1}^{n×n} with (M_c)_{ij} = 1 iff i ≥ j (Def 3.1)."""
    if int(n) != n or n < 1:
        raise ValueError(f"n={n!r} must be a positive integer")
    return mp.matrix([[mp.mpf(1) if i >= j else mp.mpf(0) for j in range(n)] for i in range(n)])


def masked_softmax_attention(X, W, M, Mc=None):
    """f̃(M) = D̃⁻¹Ã with Ã = exp(X(M∘W)Xᵀ) ∘ M_c and D̃ = diag(Ã 1_n) (Defs 3.2, B.1–B.3).

    **Arguments:** X (n×d), W (d×d), M (d×d), optional causal mask ``Mc`` (n×n, default 1_{n×n}).
    **Returns:** the n×n row-stochastic matrix f̃(M) (each row a softmax over its unmasked entries).
    """
    _check_matrix(X, "X")
    _same_shape(W, M, "W", "M")
    if W.rows != W.cols or W.rows != X.cols:
        raise ValueError(f"W and M must be d×d with d = X.cols = {X.cols}, got {W.rows}x{W.cols}")
    n = X.rows
    if Mc is not None:
        _check_matrix(Mc, "Mc")
        if (Mc.rows, Mc.cols) != (n, n):
            raise ValueError(f"Mc must be {n}x{n}, got {Mc.rows}x{Mc.cols}")
    S = X * hadamard(M, W) * X.T
    out = mp.matrix(n, n)
    for i in range(n):
        row = [mp.exp(S[i, j]) * (1 if Mc is None else Mc[i, j]) for j in range(n)]
        alpha = mp.fsum(row)
        if alpha == 0:
            raise ValueError(f"Mc must leave at least one entry of row {i} unmasked")
        for j in range(n):
            out[i, j] = row[j] / alpha
    return out
