"""mpmath helpers for "A Fast Optimization View: Reformulating Single Layer Attention in LLM Based on
Tensor and SVM Trick, and Solving It in Matrix Multiplication Time" (Gao, Song, Wang, Yin 2023;
paper 003, spec ``shared/spec/attention_optimization.md``).

Pure mpmath on ``mp.matrix`` inputs (convert float64 data with :func:`oracle.to_mp`).  Vectors are
n×1 columns.  Used by the checks of the Sec 4.1 facts (``attention_optimization.fact*``) and of the
reformulation and gradient identities (§4.2–4.4 of the spec): the per-row functions of Defs 4.8–4.12
(u, α, f, h, c, L_{j0,i0}) built on the Kronecker block 𝖠_{j0} = a_{j0} ⊗ A2, and the matrix-form
loss built on A1 X A2ᵀ, so that the reformulations are checked between two independent routes.

Conventions (spec §1): x = vec_row(X) (x[a·d + b] = X[a, b]); y stacks the columns of Y
(y[i0·d + i1] = Y[i1, i0]); 0-based indices.
"""

from __future__ import annotations

from mpmath import mp

from .linalg import diag, dot, hadamard

__all__ = ["alpha", "c_entry", "classical_matmul", "exp_entrywise", "f_row", "h_col", "kron_block", "L_entry",
           "loss_matrix_form", "multiple_softmax_loss", "norm_inf", "softmax_matrix", "u_row", "vec_cols", "vec_row",
           "L_half", "B_x_paper", "B_xy_paper", "grad_x_matrix_form", "grad_y_matrix_form"]


def norm_inf(u):
    """‖u‖_∞ = max_i |u_i| of a column."""
    if not isinstance(u, mp.matrix) or u.rows == 0:
        raise ValueError("u must be a nonempty mp.matrix")
    return max(abs(u[i, j]) for i in range(u.rows) for j in range(u.cols))


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


# --- the single-layer attention loss (spec §1, §2 "Basic functions") -------------------------


def _check_matrix(M, name):
    if not isinstance(M, mp.matrix) or M.rows == 0 or M.cols == 0:
        raise ValueError(f"{name} must be a nonempty mp.matrix")


def vec_row(X):
    """x = vec_row(X): x[a·d + b] = X[a, b] (numpy ``X.reshape(-1)``)."""
    _check_matrix(X, "X")
    return mp.matrix([X[a, b] for a in range(X.rows) for b in range(X.cols)])


def vec_cols(Y):
    """y stacking the columns of Y: y[i0·d + i1] = Y[i1, i0] (numpy ``Y.T.reshape(-1)``)."""
    _check_matrix(Y, "Y")
    return mp.matrix([Y[i1, i0] for i0 in range(Y.cols) for i1 in range(Y.rows)])


def kron_block(A1, A2, j0: int):
    """𝖠_{j0} = a_{j0} ⊗ A2 ∈ R^{n×d²} (rows j0·n … j0·n + n − 1 of A1 ⊗ A2), entry
    [r, a·d + b] = A1[j0, a]·A2[r, b]."""
    _check_matrix(A1, "A1")
    _check_matrix(A2, "A2")
    if A1.cols != A2.cols:
        raise ValueError(f"A1 (d={A1.cols}) and A2 (d={A2.cols}) must have the same number of columns")
    if not 0 <= j0 < A1.rows:
        raise ValueError(f"j0={j0} must be in [0, {A1.rows})")
    d = A1.cols
    return mp.matrix([[A1[j0, a] * A2[r, b] for a in range(d) for b in range(d)] for r in range(A2.rows)])


def u_row(A1, A2, x, j0: int):
    """u(x)_{j0} = exp(𝖠_{j0} x) (Def 4.8)."""
    if not isinstance(x, mp.matrix) or x.cols != 1 or x.rows != A1.cols ** 2:
        raise ValueError(f"x must be a d²×1 mp.matrix column, d = A1.cols = {A1.cols}")
    return exp_entrywise(kron_block(A1, A2, j0) * x)


def alpha(A1, A2, x, j0: int):
    """α(x)_{j0} = ⟨u(x)_{j0}, 1_n⟩ (Def 4.9)."""
    return mp.fsum(u_row(A1, A2, x, j0))


def f_row(A1, A2, x, j0: int):
    """f(x)_{j0} = α(x)_{j0}⁻¹ u(x)_{j0} (Def 4.10)."""
    u = u_row(A1, A2, x, j0)
    return u / mp.fsum(u)


def h_col(A3, y, i0: int):
    """h(y)_{i0} = A3 y_{i0}, y_{i0} = y[i0·d : (i0+1)·d] (Def 4.11)."""
    _check_matrix(A3, "A3")
    _check_matrix(y, "y")
    d = A3.cols
    if y.rows != d * d or not 0 <= i0 < d:
        raise ValueError(f"y (length {y.rows}) must have length d²={d * d} and i0={i0} must be in [0, {d})")
    return A3 * mp.matrix([y[i0 * d + k] for k in range(d)])


def c_entry(A1, A2, A3, B, x, y, j0: int, i0: int):
    """c(x, y)_{j0,i0} = ⟨f(x)_{j0}, h(y)_{i0}⟩ − B[j0, i0] (Def 4.12)."""
    return dot(f_row(A1, A2, x, j0), h_col(A3, y, i0)) - B[j0, i0]


def L_entry(A1, A2, A3, B, x, y, j0: int, i0: int):
    """L(x, y)_{j0,i0} = ½ c(x, y)²_{j0,i0} (Defs 4.7/4.13, the body's normalisation)."""
    return c_entry(A1, A2, A3, B, x, y, j0, i0) ** 2 / 2


def softmax_matrix(A1, A2, X):
    """S(X) = D(X)⁻¹ exp(A1 X A2ᵀ), D(X) = diag(exp(A1 X A2ᵀ) 1_n) (matrix route, no Kronecker)."""
    E = exp_entrywise(A1 * X * A2.T)
    return mp.matrix([[E[r, c] / mp.fsum(E[r, k] for k in range(E.cols)) for c in range(E.cols)]
                      for r in range(E.rows)])


def loss_matrix_form(A1, A2, A3, B, X, Y):
    """L(X, Y) = ‖D(X)⁻¹ exp(A1 X A2ᵀ) A3 Y − B‖_F² (Def 1.2, no ½)."""
    R = softmax_matrix(A1, A2, X) * A3 * Y - B
    return mp.fsum(R[i, j] ** 2 for i in range(R.rows) for j in range(R.cols))


def multiple_softmax_loss(A1, A2, X, B):
    """Def 1.4 Part 2: ‖D(X)⁻¹ exp(A1 X A2ᵀ) − B‖_F², B ∈ R^{n×n}."""
    R = softmax_matrix(A1, A2, X) - B
    return mp.fsum(R[i, j] ** 2 for i in range(R.rows) for j in range(R.cols))


def L_half(A1, A2, A3, B, x, y):
    """L_half(x, y) = Σ_{j0,i0} L(x, y)_{j0,i0} = ½ L (spec def.loss; all gradient and Hessian
    statements are for this normalisation)."""
    return mp.fsum(L_entry(A1, A2, A3, B, x, y, j0, i0) for j0 in range(A1.rows) for i0 in range(A3.cols))


# --- the paper's closed forms, as stated (the claims judge them; nothing here trusts them) ---

def B_x_paper(f, v, c):
    """Def 7.3: B_paper(x) = (1−γ)c·diag(f∘v) − (2γ + c)((f∘v)fᵀ + f(f∘v)ᵀ) + (2γc + γ²)ffᵀ
    + (f∘v)(f∘v)ᵀ, γ = ⟨f, v⟩ (spec def.B_x_paper)."""
    g = dot(f, v)
    fv = hadamard(f, v)
    return (diag(fv) * ((1 - g) * c) - (fv * f.T + f * fv.T) * (2 * g + c)
            + f * f.T * (2 * g * c + g * g) + fv * fv.T)


def B_xy_paper(f, h, c):
    """Def 11.3: B_xy,paper = (f∘h)fᵀ − ⟨f,h⟩ffᵀ − c·diag(f) + c·ffᵀ (spec def.B_xy_paper)."""
    return hadamard(f, h) * f.T - f * f.T * dot(f, h) - diag(f) * c + f * f.T * c


def grad_x_matrix_form(A1, A2, A3, B, X, Y):
    """Lemma 5.4 (alg.grad_x_matrix): A1ᵀ Q A2 with P = C Hᵀ, Q = S∘P − diag((S∘P)1_n) S, where
    S = softmax_matrix, H = A3 Y, C = S H − B."""
    S = softmax_matrix(A1, A2, X)
    H = A3 * Y
    P = (S * H - B) * H.T
    SP = mp.matrix([[S[r, k] * P[r, k] for k in range(S.cols)] for r in range(S.rows)])
    rows = [mp.fsum(SP[r, k] for k in range(S.cols)) for r in range(S.rows)]
    Q = SP - mp.diag(rows) * S
    return A1.T * Q * A2


def grad_y_matrix_form(A1, A2, A3, B, X, Y):
    """Lemma 5.5 (alg.grad_y): A3ᵀ Sᵀ (S A3 Y − B)."""
    S = softmax_matrix(A1, A2, X)
    return A3.T * S.T * (S * A3 * Y - B)
