"""High-precision linear algebra on ``mp.matrix`` (pure mpmath; inputs from :func:`oracle.to_mp`).

Conventions (see the spec's notation sections):
- vectors are n×1 ``mp.matrix`` columns;
- ``sigma_min(M)`` follows the singular-value convention σ_{min(r,c)}(M) by default; with
  ``convention="paper"`` it is min_{‖x‖=1} ‖Mx‖, which is 0 for a wide matrix;
- ``vec`` is row-major (``vec(X)[a*c + b] = X[a, b]``, numpy ``X.reshape(-1)``) and
  ``kron(x, y)[a*len(y) + b] = x[a] y[b]``, so ``kron(x, y) = vec(x yᵀ)``.

Every function validates its arguments (docs/development.md#bad-input): a matrix argument must be a non-empty
``mp.matrix`` of finite real ``mpf`` entries (NaN, ±inf and ``mpc`` entries raise ``ValueError``
naming the argument), shapes must match, integer arguments must be ints.

:func:`solve` and :func:`lstsq` are exact: every ``mpf`` is a dyadic rational, so the system is
solved in rational arithmetic and the solution rounded correctly to the working precision.  An
ill-conditioned but nonsingular system (``diag(1, 1e-60)``) is solved, never called singular, and
a singular one is refused (``solve``) or given its exact minimum-norm solution (``lstsq``).
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd

import mpmath
import numpy as np
from mpmath import mp
from mpmath.libmp import from_rational, round_nearest

from .precision import UndecidableError, as_float_array, check_entries, check_int, check_mp

__all__ = [
    "cond",
    "converged",
    "diag",
    "dot",
    "entrywise",
    "exp_entrywise",
    "norm",
    "norm_inf",
    "ones",
    "stack",
    "eigvalsh",
    "exact_rank",
    "frobenius",
    "gram",
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
    "stable_rank",
    "sym",
    "symmetric_part",
    "unvec",
    "vec",
    "walsh_hadamard",
]


def _same_rows(u, v):
    check_mp(u, "u", ndim=1)
    check_mp(v, "v", ndim=1)
    if u.rows != v.rows:
        raise ValueError(f"u has {u.rows} rows and v has {v.rows}; they must match")


def _check_symmetric(S, name):
    check_mp(S, name, ndim=2)
    if S.rows != S.cols:
        raise ValueError(f"{name} must be square, got {S.rows}x{S.cols}")
    scale = max((abs(S[i, j]) for i in range(S.rows) for j in range(S.cols)), default=mp.mpf(0))
    tol = scale * mp.mpf(10) ** (-(mp.dps - 5))
    for i in range(S.rows):
        for j in range(i):
            if abs(S[i, j] - S[j, i]) > tol:
                raise ValueError(f"{name} must be symmetric: entries ({i},{j}) and ({j},{i}) differ")


def identity(n):
    """I_n (``n`` an int >= 1, n² at most :data:`~oracle.precision.MAX_ENTRIES`)."""
    n = check_int(n, "n", minimum=1)
    check_entries(n * n, "identity(n)", n=n)
    return mp.eye(n)


def norm2(v):
    """Euclidean norm of a vector (or Frobenius norm of a matrix)."""
    check_mp(v, "v", ndim=2)
    return mp.sqrt(mp.fsum(x * x for x in v))


def frobenius(M):
    check_mp(M, "M", ndim=2)
    return norm2(M)


def singular_values(M):
    """All min(r, c) singular values of ``M``, in decreasing order."""
    check_mp(M, "M", ndim=2)
    s = converged(lambda: mp.svd_r(M, compute_uv=False), "svd")
    return sorted((abs(s[i]) for i in range(len(s))), reverse=True)


def converged(thunk, what: str):
    """``thunk()`` (an mpmath iterative decomposition), retried at 2× and 4× the working precision when
    mpmath reports no convergence (its QR iteration can stall on matrices with exact zeros at one precision
    and not at another: the thorough run met one in attention_optimization.lem10.1.p4); a refusal, never a
    crash, when it does not converge at all."""
    if not callable(thunk):
        raise ValueError(f"thunk={thunk!r} must be callable (the decomposition to run)")
    prec = mp.prec
    for factor in (1, 2, 4):
        try:
            with mp.workprec(factor * prec):
                return thunk()
        except RuntimeError as exc:
            last = exc
    raise UndecidableError(f"{what} did not converge at {prec}, {2 * prec} or {4 * prec} bits ({last})")


def spectral_norm(M):
    """‖M‖₂ = σ_max(M)."""
    return singular_values(M)[0]


sigma_max = spectral_norm


def sigma_min(M, *, convention: str = "sv"):
    """Smallest singular value: σ_{min(r,c)}(M) ("sv") or min_{‖x‖=1}‖Mx‖ ("paper", 0 if wide)."""
    if convention not in ("sv", "paper"):
        raise ValueError(f"convention={convention!r} must be 'sv' or 'paper'")
    check_mp(M, "M", ndim=2)
    if convention == "paper" and M.rows < M.cols:
        return mp.mpf(0)
    return singular_values(M)[-1]


def cond(M, *, convention: str = "sv"):
    """κ(M) = σ_max / σ_min (``mp.inf`` when σ_min = 0)."""
    smin = sigma_min(M, convention=convention)
    smax = spectral_norm(M)
    return mp.inf if smin == 0 else smax / smin


def stable_rank(K):
    """srank(K) = ‖K‖_F²/‖K‖² (spec def.srank of papers 004 and its Section L); K = 0 is refused."""
    check_mp(K, "K", ndim=2)
    nrm = spectral_norm(K)
    if nrm == 0:
        raise ValueError("K must be nonzero (srank(0) is 0/0)")
    return frobenius(K) ** 2 / nrm**2


def walsh_hadamard(N):
    """The unnormalised Sylvester–Walsh–Hadamard matrix ``H[a, b] = (−1)^{popcount(a & b)}`` of order
    ``N`` (a power of two; spec def.hadamard of paper 004, the H of every SRHT)."""
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 1 or (N & (N - 1)):
        raise ValueError(f"N={N!r} must be a power of two >= 1")
    N = int(N)
    check_entries(N * N, "walsh_hadamard(N)", N=N)
    return mp.matrix([[-1 if (a & b).bit_count() % 2 else 1 for b in range(N)] for a in range(N)])


def gram(M):
    """MᵀM with every entry the exact dot product of two columns, rounded once.

    An mpf is an integer times a power of two, so each column is written exactly as integers times
    one power of two (its smallest exponent) and the dot products are summed in integers: no
    cancellation can cost digits, and it is several times faster than ``M.T * M`` for tall M."""
    check_mp(M, "M", ndim=2)
    cols = []
    for j in range(M.cols):
        parts = [mp.mpf(M[i, j])._mpf_ for i in range(M.rows)]  # (sign, mantissa, exponent, bits)
        e = min((ex for _, man, ex, _ in parts if man), default=0)
        cols.append((np.array([(-1) ** sign * (man << (ex - e)) if man else 0 for sign, man, ex, _ in parts], dtype=object), e))
    G = mp.matrix(M.cols, M.cols)
    for i, (a, ea) in enumerate(cols):
        for j in range(i, M.cols):
            b, eb = cols[j]
            G[i, j] = G[j, i] = mp.ldexp(mp.mpf(int(np.dot(a, b))), ea + eb)
    return G


def symmetric_part(S):
    """(S + Sᵀ)/2 of a square matrix."""
    check_mp(S, "S", ndim=2)
    if S.rows != S.cols:
        raise ValueError(f"S must be square, got {S.rows}x{S.cols}")
    return (S + S.T) / 2


def eigvalsh(S):
    """Eigenvalues of a symmetric matrix, increasing."""
    _check_symmetric(S, "S")
    E = converged(lambda: mp.eigsy(symmetric_part(S), eigvals_only=True), "eigsy")
    return sorted(E[i] for i in range(S.rows))


def loewner_margin(X, Y):
    """λ_min(Y − X): X ⪯ Y (Loewner order) iff this is ≥ 0."""
    check_mp(X, "X", ndim=2)
    check_mp(Y, "Y", ndim=2)
    if (X.rows, X.cols) != (Y.rows, Y.cols):
        raise ValueError(f"X ({X.rows}x{X.cols}) and Y ({Y.rows}x{Y.cols}) must have the same shape")
    return eigvalsh(Y - X)[0]


# ---------------------------------------------------------------------------------------------
# exact rational solves (every mpf is a dyadic rational)


class _Singular(ArithmeticError):
    def __init__(self, rank):
        super().__init__(rank)
        self.rank = rank


def _fraction(v) -> Fraction:
    sign, man, exp, _ = v._mpf_
    man = -int(man) if sign else int(man)
    return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)


def _fractions(M):
    return [[_fraction(M[i, j]) for j in range(M.cols)] for i in range(M.rows)]


def _integer_rows(rows):
    """Each row multiplied by the lcm of its denominators (the solution of a system is unchanged)."""
    out = []
    for row in rows:
        den = 1
        for q in row:
            den = den * q.denominator // gcd(den, q.denominator)
        out.append([int(q * den) for q in row])
    return out


def _solve_exact(A, B):
    """X with A X = B exactly (A n×n, B n×k, lists of Fractions); raises _Singular(rank).

    Fraction-free Bareiss elimination on the integer-scaled augmented matrix, then exact
    back-substitution.
    """
    n, k = len(A), len(B[0])
    M = _integer_rows([list(A[i]) + list(B[i]) for i in range(n)])
    prev = 1
    for c in range(n):
        p = next((r for r in range(c, n) if M[r][c] != 0), None)
        if p is None:
            raise _Singular(_rank([row[:n] for row in M]))
        M[c], M[p] = M[p], M[c]
        piv, row_c = M[c][c], M[c]
        for r in range(c + 1, n):
            row_r = M[r]
            a = row_r[c]
            for j in range(c + 1, n + k):
                row_r[j] = (row_r[j] * piv - a * row_c[j]) // prev
            row_r[c] = 0
        prev = piv
    X = [[Fraction(0)] * k for _ in range(n)]
    for c in range(n - 1, -1, -1):
        for q in range(k):
            s = Fraction(M[c][n + q]) - sum((M[c][j] * X[j][q] for j in range(c + 1, n)), Fraction(0))
            X[c][q] = s / M[c][c]
    return X


def _rank(rows) -> int:
    return len(_pivot_columns(rows))


def _pivot_columns(rows):
    """Column indices of a maximal set of independent columns (the pivots of exact elimination)."""
    rows = [[Fraction(v) for v in r] for r in rows]
    pivots, rank = [], 0
    for col in range(len(rows[0])):
        pivot = next((r for r in range(rank, len(rows)) if rows[r][col] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for r in range(rank + 1, len(rows)):
            if rows[r][col] != 0:
                q = rows[r][col] / rows[rank][col]
                rows[r] = [a - q * b for a, b in zip(rows[r], rows[rank])]
        pivots.append(col)
        rank += 1
    return pivots


def _matmul(X, Y):
    return [[sum((X[i][t] * Y[t][j] for t in range(len(Y))), Fraction(0)) for j in range(len(Y[0]))]
            for i in range(len(X))]


def _transpose(X):
    return [list(col) for col in zip(*X)]


def _to_mp(X):
    prec = mp.prec
    return mp.matrix([[mp.make_mpf(from_rational(q.numerator, q.denominator, prec, round_nearest)) for q in row]
                      for row in X])


def _rhs(A, b):
    check_mp(b, "b", ndim=2)
    if b.rows != A.rows:
        raise ValueError(f"b has {b.rows} rows, must match A's {A.rows}")


def solve(A, b):
    """The solution of the square system A x = b (b a column or an n×k matrix), exactly.

    Computed in rational arithmetic and rounded correctly to the working precision, so a
    nonsingular system is solved however ill-conditioned it is.

    **Raises:** ``ValueError`` when A is not square, b does not match it, either holds NaN, inf or
    complex entries, or A is (exactly) singular.
    """
    check_mp(A, "A", ndim=2)
    if A.rows != A.cols:
        raise ValueError(f"A must be square, got {A.rows}x{A.cols}")
    _rhs(A, b)
    try:
        return _to_mp(_solve_exact(_fractions(A), _fractions(b)))
    except _Singular as exc:
        raise ValueError(f"A must be nonsingular (it is exactly singular: rank {exc.rank} < {A.rows})") from None


def lstsq(A, b):
    """The minimum-norm least-squares solution argmin ‖Ax − b‖ (any shape, any rank), exactly.

    With exact pivot columns C of A (A = C F, F = (CᵀC)⁻¹CᵀA of full row rank), the solution is
    A⁺b = Fᵀ(FFᵀ)⁻¹(CᵀC)⁻¹Cᵀb, computed in rational arithmetic and rounded correctly: the rank is
    exact, so an ill-conditioned full-rank A (``diag(1, 1e-60)``) is never truncated.

    **Raises:** ``ValueError`` for shapes that do not match and NaN, inf or complex entries.
    """
    check_mp(A, "A", ndim=2)
    _rhs(A, b)
    Af, bf = _fractions(A), _fractions(b)
    pivots = _pivot_columns(Af)
    if not pivots:
        return mp.matrix(A.cols, b.cols)
    C = [[row[j] for j in pivots] for row in Af]
    Ct = _transpose(C)
    CtC = _matmul(Ct, C)
    y = _solve_exact(CtC, _matmul(Ct, bf))
    if len(pivots) == A.cols:
        return _to_mp(y)
    F = _solve_exact(CtC, _matmul(Ct, Af))
    z = _solve_exact(_matmul(F, _transpose(F)), y)
    return _to_mp(_matmul(_transpose(F), z))


def kron(A, B):
    """Kronecker product with the spec's convention (row-major; kron(x, y) = vec(x yᵀ))."""
    check_mp(A, "A", ndim=2)
    check_mp(B, "B", ndim=2)
    check_entries(A.rows * B.rows * A.cols * B.cols, f"kron of A ({A.rows}×{A.cols}) and B ({B.rows}×{B.cols})",
                  **{"A.rows": A.rows, "A.cols": A.cols, "B.rows": B.rows, "B.cols": B.cols})
    out = mp.matrix(A.rows * B.rows, A.cols * B.cols)
    for i in range(A.rows):
        for j in range(A.cols):
            for k in range(B.rows):
                for l in range(B.cols):
                    out[i * B.rows + k, j * B.cols + l] = A[i, j] * B[k, l]
    return out


def vec(X):
    """Row-major vectorisation: vec(X)[a*c + b] = X[a, b] (numpy ``X.reshape(-1)``)."""
    check_mp(X, "X", ndim=2)
    return mp.matrix([X[a, b] for a in range(X.rows) for b in range(X.cols)])


def unvec(x, rows, cols):
    """Inverse of :func:`vec`."""
    check_mp(x, "x", ndim=2)
    rows, cols = check_int(rows, "rows", minimum=1), check_int(cols, "cols", minimum=1)
    if x.rows * x.cols != rows * cols:
        raise ValueError(f"x has {x.rows * x.cols} entries, must be rows*cols={rows * cols}")
    return mp.matrix([[x[a * cols + b] for b in range(cols)] for a in range(rows)])


def exact_rank(M) -> int:
    """Exact rank over the rationals (Gaussian elimination on Fractions) of a float64 matrix, of an
    ``mp.matrix``, or of a matrix given as rows of ``fractions.Fraction`` (an exact product of
    float64 matrices, say)."""
    if isinstance(M, (list, tuple)) and M and all(isinstance(v, Fraction) for row in M for v in row):
        return _rank(M)
    if isinstance(M, mpmath.matrix):
        return _rank(_fractions(check_mp(M, "M", ndim=2)))
    return _rank([[Fraction(float(v)) for v in row] for row in as_float_array(M, "M", ndim=2)])


# ---------------------------------------------------------------------------------------------
# Primitives every paper's claims use, on n×1 columns or matrices (each written once, here)


def dot(u, v):
    """⟨u, v⟩ = Σ u_i v_i, summed with ``mp.fsum``."""
    _same_rows(u, v)
    return mp.fsum(u[i] * v[i] for i in range(u.rows))


def entrywise(A, B):
    """A ∘ B, the entrywise (Hadamard, Schur) product of two matrices or columns of one shape.

    Not the Walsh–Hadamard matrix: that is :func:`walsh_hadamard`."""
    check_mp(A, "A", ndim=2)
    check_mp(B, "B", ndim=2)
    if (A.rows, A.cols) != (B.rows, B.cols):
        raise ValueError(f"A ({A.rows}x{A.cols}) and B ({B.rows}x{B.cols}) must have the same shape")
    return mp.matrix([[A[i, j] * B[i, j] for j in range(A.cols)] for i in range(A.rows)])


def exp_entrywise(M):
    """exp(M), entrywise, of a matrix or column (the u = exp(Ax) of every paper's softmax)."""
    check_mp(M, "M", ndim=2)
    return mp.matrix([[mp.exp(M[i, j]) for j in range(M.cols)] for i in range(M.rows)])


def diag(u):
    """diag(u), the n×n matrix with the column u on its diagonal."""
    check_mp(u, "u", ndim=1)
    return mp.diag([u[i] for i in range(u.rows)])


def ones(n: int):
    """1_n, the column of n ones."""
    return mp.matrix([mp.mpf(1)] * check_int(n, "n", minimum=1))


def stack(*vs):
    """Columns (or matrices, read row by row) stacked into one column: several equalities of one
    claim compared as one vector identity."""
    if not vs:
        raise ValueError("stack needs at least one matrix")
    for k, v in enumerate(vs):
        check_mp(v, f"vs[{k}]", ndim=2)
    return mp.matrix([v[i, j] for v in vs for i in range(v.rows) for j in range(v.cols)])


def sym(M):
    """(M + Mᵀ)/2."""
    return symmetric_part(M)


def norm_inf(u):
    """‖u‖_∞ = max_i |u_i| of a column (max_ij |M_ij| of a matrix)."""
    check_mp(u, "u", ndim=2)
    return max(abs(u[i, j]) for i in range(u.rows) for j in range(u.cols))


def norm(M):
    """The Euclidean norm of a column, the spectral norm of any other matrix."""
    check_mp(M, "M", ndim=2)
    return norm2(M) if M.cols == 1 else spectral_norm(M)
