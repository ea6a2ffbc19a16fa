"""High-precision linear algebra on ``mp.matrix`` (pure mpmath; inputs from :func:`oracle.to_mp`).

Conventions (see the spec's notation sections):
- vectors are n×1 ``mp.matrix`` columns;
- ``sigma_min(M)`` follows the singular-value convention σ_{min(r,c)}(M) by default; with
  ``convention="paper"`` it is min_{‖x‖=1} ‖Mx‖, which is 0 for a wide matrix;
- ``vec`` is row-major (``vec(X)[a*c + b] = X[a, b]``, numpy ``X.reshape(-1)``) and
  ``kron(x, y)[a*len(y) + b] = x[a] y[b]``, so ``kron(x, y) = vec(x yᵀ)``.
"""

from __future__ import annotations

from fractions import Fraction

from mpmath import mp

from .precision import as_float_array

__all__ = [
    "cond",
    "diag",
    "dot",
    "hadamard",
    "norm",
    "ones",
    "stack",
    "eigvalsh",
    "exact_rank",
    "frobenius",
    "identity",
    "kron",
    "loewner_margin",
    "lstsq",
    "norm2",
    "sigma_max",
    "sigma_min",
    "singular_values",
    "solve",
    "spectral_norm",
    "sym",
    "symmetric_part",
    "unvec",
    "vec",
]


def _check_matrix(M, name):
    if not isinstance(M, mp.matrix):
        raise ValueError(f"{name} must be an mp.matrix (convert with oracle.to_mp), got {type(M).__name__}")
    if M.rows == 0 or M.cols == 0:
        raise ValueError(f"{name} must not be empty (shape {M.rows}x{M.cols})")
    for i in range(M.rows):
        for j in range(M.cols):
            if not mp.isfinite(M[i, j]):
                raise ValueError(f"{name} must be finite (entry ({i},{j}) is {M[i, j]})")


def _check_symmetric(S, name):
    _check_matrix(S, name)
    if S.rows != S.cols:
        raise ValueError(f"{name} must be square, got {S.rows}x{S.cols}")
    scale = max((abs(S[i, j]) for i in range(S.rows) for j in range(S.cols)), default=mp.mpf(0))
    tol = scale * mp.mpf(10) ** (-(mp.dps - 5))
    for i in range(S.rows):
        for j in range(i):
            if abs(S[i, j] - S[j, i]) > tol:
                raise ValueError(f"{name} must be symmetric: entries ({i},{j}) and ({j},{i}) differ")


def identity(n):
    return mp.eye(n)


def norm2(v):
    """Euclidean norm of a vector (or Frobenius norm of a matrix)."""
    return mp.sqrt(mp.fsum(x * x for x in v))


def frobenius(M):
    _check_matrix(M, "M")
    return norm2(M)


def singular_values(M):
    """All min(r, c) singular values of ``M``, in decreasing order."""
    _check_matrix(M, "M")
    s = mp.svd_r(M, compute_uv=False)
    return sorted((abs(s[i]) for i in range(len(s))), reverse=True)


def spectral_norm(M):
    """‖M‖₂ = σ_max(M)."""
    return singular_values(M)[0]


sigma_max = spectral_norm


def sigma_min(M, *, convention: str = "sv"):
    """Smallest singular value: σ_{min(r,c)}(M) ("sv") or min_{‖x‖=1}‖Mx‖ ("paper", 0 if wide)."""
    if convention not in ("sv", "paper"):
        raise ValueError(f"convention={convention!r} must be 'sv' or 'paper'")
    if convention == "paper" and M.rows < M.cols:
        _check_matrix(M, "M")
        return mp.mpf(0)
    return singular_values(M)[-1]


def cond(M, *, convention: str = "sv"):
    """κ(M) = σ_max / σ_min (``mp.inf`` when σ_min = 0)."""
    smin = sigma_min(M, convention=convention)
    smax = spectral_norm(M)
    return mp.inf if smin == 0 else smax / smin


def symmetric_part(S):
    return (S + S.T) / 2


def eigvalsh(S):
    """Eigenvalues of a symmetric matrix, increasing."""
    _check_symmetric(S, "S")
    E = mp.eigsy(symmetric_part(S), eigvals_only=True)
    return sorted(E[i] for i in range(S.rows))


def loewner_margin(X, Y):
    """λ_min(Y − X): X ⪯ Y (Loewner order) iff this is ≥ 0."""
    if (X.rows, X.cols) != (Y.rows, Y.cols):
        raise ValueError(f"X ({X.rows}x{X.cols}) and Y ({Y.rows}x{Y.cols}) must have the same shape")
    return eigvalsh(Y - X)[0]


def solve(A, b):
    """Solve the square system A x = b (raises ValueError when A is singular)."""
    _check_matrix(A, "A")
    if A.rows != A.cols:
        raise ValueError(f"A must be square, got {A.rows}x{A.cols}")
    if b.rows != A.rows:
        raise ValueError(f"b has {b.rows} rows, must match A's {A.rows}")
    try:
        return mp.lu_solve(A, b)
    except ZeroDivisionError:
        raise ValueError("A must be nonsingular") from None


def lstsq(A, b):
    """Minimum-norm least-squares solution argmin ‖Ax − b‖ through the SVD (any rank)."""
    _check_matrix(A, "A")
    if b.rows != A.rows:
        raise ValueError(f"b has {b.rows} rows, must match A's {A.rows}")
    U, S, V = mp.svd_r(A, full_matrices=False)
    smax = max(abs(S[i]) for i in range(len(S)))
    tol = smax * max(A.rows, A.cols) * mp.mpf(10) ** (-(mp.dps - 5))
    Utb = U.T * b
    x = mp.matrix(A.cols, b.cols)
    for k in range(len(S)):
        if abs(S[k]) > tol:
            x += V[k, :].T * (Utb[k, :] / S[k])
    return x


def kron(A, B):
    """Kronecker product with the spec's convention (row-major; kron(x, y) = vec(x yᵀ))."""
    out = mp.matrix(A.rows * B.rows, A.cols * B.cols)
    for i in range(A.rows):
        for j in range(A.cols):
            for k in range(B.rows):
                for l in range(B.cols):
                    out[i * B.rows + k, j * B.cols + l] = A[i, j] * B[k, l]
    return out


def vec(X):
    """Row-major vectorisation: vec(X)[a*c + b] = X[a, b] (numpy ``X.reshape(-1)``)."""
    return mp.matrix([X[a, b] for a in range(X.rows) for b in range(X.cols)])


def unvec(x, rows, cols):
    """Inverse of :func:`vec`."""
    if x.rows * x.cols != rows * cols:
        raise ValueError(f"x has {x.rows * x.cols} entries, must be rows*cols={rows * cols}")
    return mp.matrix([[x[a * cols + b] for b in range(cols)] for a in range(rows)])


def exact_rank(M) -> int:
    """Exact rank over the rationals (Gaussian elimination on Fractions) of a float64 matrix, or of a
    matrix given as rows of ``fractions.Fraction`` (an exact product of float64 matrices, say)."""
    if isinstance(M, (list, tuple)) and M and all(isinstance(v, Fraction) for row in M for v in row):
        rows = [list(row) for row in M]
    else:
        rows = [[Fraction(float(v)) for v in row] for row in as_float_array(M, "M", ndim=2)]
    rank, ncols = 0, len(rows[0]) if rows else 0
    for col in range(ncols):
        pivot = next((r for r in range(rank, len(rows)) if rows[r][col] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for r in range(rank + 1, len(rows)):
            if rows[r][col] != 0:
                q = rows[r][col] / rows[rank][col]
                rows[r] = [a - q * b for a, b in zip(rows[r], rows[rank])]
        rank += 1
    return rank


# ---------------------------------------------------------------------------------------------
# Vector primitives on n×1 columns (used by every paper's claims; written once, here)


def dot(u, v):
    """⟨u, v⟩ = Σ u_i v_i, summed with ``mp.fsum``."""
    if u.rows != v.rows:
        raise ValueError(f"u has {u.rows} rows and v has {v.rows}; they must match")
    return mp.fsum(u[i] * v[i] for i in range(u.rows))


def hadamard(u, v):
    """u ∘ v, the entrywise product of two columns."""
    if u.rows != v.rows:
        raise ValueError(f"u has {u.rows} rows and v has {v.rows}; they must match")
    return mp.matrix([u[i] * v[i] for i in range(u.rows)])


def diag(u):
    """diag(u), the n×n matrix with the column u on its diagonal."""
    return mp.diag([u[i] for i in range(u.rows)])


def ones(n: int):
    """1_n, the column of n ones."""
    return mp.matrix([mp.mpf(1)] * n)


def stack(*vs):
    """Columns (or matrices, read row by row) stacked into one column: several equalities of one
    claim compared as one vector identity."""
    return mp.matrix([v[i, j] for v in vs for i in range(v.rows) for j in range(v.cols)])


def sym(M):
    """(M + Mᵀ)/2."""
    return (M + M.T) / 2


def norm(M):
    """The Euclidean norm of a column, the spectral norm of any other matrix."""
    return norm2(M) if M.cols == 1 else spectral_norm(M)
