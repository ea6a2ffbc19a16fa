"""mpmath helpers for "A Fast Optimization View: Reformulating Single Layer Attention in LLM Based on
Tensor and SVM Trick, and Solving It in Matrix Multiplication Time" (Gao, Song, Wang, Yin 2023;
paper 003, spec ``shared/spec/attention_optimization.md``).

Pure mpmath on ``mp.matrix`` inputs (convert float64 data with :func:`oracle.to_mp`).  Vectors are
n×1 columns.  Used by the checks of the Sec 4.1 facts (``attention_optimization.fact*``).
"""

from __future__ import annotations

from mpmath import mp

__all__ = ["classical_matmul", "diag", "exp_entrywise", "hadamard", "inner", "ones"]


def _check_vector(u, name):
    if not isinstance(u, mp.matrix) or u.cols != 1 or u.rows == 0:
        shape = f"{u.rows}x{u.cols}" if isinstance(u, mp.matrix) else type(u).__name__
        raise ValueError(f"{name} must be a nonempty n×1 mp.matrix column, got {shape}")


def _same_length(u, v, nu, nv):
    _check_vector(u, nu)
    _check_vector(v, nv)
    if u.rows != v.rows:
        raise ValueError(f"{nu} (length {u.rows}) and {nv} (length {v.rows}) must have the same length")


def ones(n: int):
    """The all-ones column 1_n."""
    if int(n) != n or n < 1:
        raise ValueError(f"n={n!r} must be a positive integer")
    return mp.matrix([mp.mpf(1)] * int(n))


def hadamard(u, v):
    """u ∘ v, the entrywise product of two columns of one length."""
    _same_length(u, v, "u", "v")
    return mp.matrix([u[i] * v[i] for i in range(u.rows)])


def inner(u, v):
    """⟨u, v⟩ = Σ_i u_i v_i (an exactly rounded sum, ``mp.fsum``)."""
    _same_length(u, v, "u", "v")
    return mp.fsum(u[i] * v[i] for i in range(u.rows))


def diag(u):
    """diag(u), the n×n diagonal matrix of the column u."""
    _check_vector(u, "u")
    return mp.diag([u[i] for i in range(u.rows)])


def exp_entrywise(u):
    """exp(u), entrywise (any matrix shape)."""
    if not isinstance(u, mp.matrix):
        raise ValueError(f"u must be an mp.matrix, got {type(u).__name__}")
    return mp.matrix([[mp.exp(u[i, j]) for j in range(u.cols)] for i in range(u.rows)])


def classical_matmul(A, B):
    """The product A B of an a×b and a b×c matrix by the textbook triple loop, counting its work.

    **Returns:** ``(C, count)``: the product and the number of scalar multiplications performed
    (each one counted as it is executed, not taken from a formula).  This is the algorithm whose
    cost T_mat(a, b, c) the permutation fact ``fact4.mm`` is measured on.
    """
    if not isinstance(A, mp.matrix) or not isinstance(B, mp.matrix):
        raise ValueError("A and B must be mp.matrix")
    if A.cols != B.rows:
        raise ValueError(f"A.cols={A.cols} must equal B.rows={B.rows}")
    count = 0
    C = mp.matrix(A.rows, B.cols)
    for i in range(A.rows):
        for k in range(B.cols):
            terms = []
            for j in range(A.cols):
                terms.append(A[i, j] * B[j, k])
                count += 1
            C[i, k] = mp.fsum(terms)
    return C, count
