"""Paper 003's objects in ball arithmetic, for its certificates: the per-row functions of
Defs 4.8–4.12 (u, α, f, h, c, L_{j0,i0}, L_half), the paper's and the true kernels (Defs 7.3, 11.3, spec
def.B_x_true, def.B_xy_true, def.G_xy), the H12 radius, and the Hessians of the loss.

The Hessians are derivation-independent, as the oracle's are (docs/development.md#independence): the loss is evaluated
along a line z + t·u in truncated Taylor series with ``arb`` coefficients (``flint.arb_series``), so
uᵀ∇²L(z)u = 2·[t²]L(z + t·u) is enclosed rigorously without any closed form, and the matrix follows by
polarisation.  Nothing here calls mpmath.

Conventions (spec §1, as :mod:`oracle.attention_optimization`): x = vec_row(X) (x[a·d + b] = X[a, b]),
y stacks the columns of Y (y[i0·d + i1] = Y[i1, i0]); 𝖠_{j0}[r, a·d + b] = A1[j0, a]·A2[r, b]; 0-based
indices.  Inputs are exact (``fmpq``, ``fmpq_mat``); a vector is a Python list of scalars (``fmpq``,
``arb`` or ``arb_series``) so that one definition serves values and Taylor series alike.
"""

from __future__ import annotations

from flint import arb, arb_mat, arb_series, fmpq, fmpq_mat

from oracle import ball
from oracle.precision import UndecidableError

__all__ = ["B_x_paper", "B_x_true", "B_xy_paper", "B_xy_true", "G_xy_four", "L_entry", "L_half", "c_entry",
           "cross_hessian", "entries", "f_row", "h12_quantities", "h_col", "hessian", "kron_block", "second_derivative",
           "sigma_plus_squared", "vec_cols", "vec_row"]


def entries(M) -> list[list]:
    """The entries of an ``fmpq_mat`` or ``arb_mat`` as nested lists (rows)."""
    return [[M[i, j] for j in range(M.ncols())] for i in range(M.nrows())]


def vec_row(X: fmpq_mat) -> list:
    """x = vec_row(X): x[a·d + b] = X[a, b]."""
    return [x for row in entries(X) for x in row]


def vec_cols(Y: fmpq_mat) -> list:
    """y stacking the columns of Y: y[i0·d + i1] = Y[i1, i0]."""
    return [Y[i1, i0] for i0 in range(Y.ncols()) for i1 in range(Y.nrows())]


def kron_block(A1: fmpq_mat, A2: fmpq_mat, j0: int) -> fmpq_mat:
    """𝖠_{j0} = a_{j0} ⊗ A2 ∈ R^{n×d²}, exactly: [r, a·d + b] = A1[j0, a]·A2[r, b]."""
    d = A1.ncols()
    if A2.ncols() != d or not 0 <= j0 < A1.nrows():
        raise ValueError(f"A1, A2 must have d = {d} columns and j0={j0} must be in [0, {A1.nrows()})")
    return fmpq_mat([[A1[j0, a] * A2[r, b] for a in range(d) for b in range(d)] for r in range(A2.nrows())])


def _exp(s):
    return arb(s).exp() if isinstance(s, fmpq) else s.exp()


def _total(values):
    out = values[0]
    for v in values[1:]:
        out = out + v
    return out


def f_row(A1, A2, x: list, j0: int) -> list:
    """f(x)_{j0} = ⟨u, 1⟩⁻¹u, u = exp(𝖠_{j0}x) (Defs 4.8–4.10)."""
    K = entries(kron_block(A1, A2, j0))
    u = [_exp(_total([k * xi for k, xi in zip(row, x)])) for row in K]
    alpha = _total(u)
    return [ur / alpha for ur in u]


def h_col(A3, y: list, i0: int) -> list:
    """h(y)_{i0} = A3·y_{i0}, y_{i0} = y[i0·d : (i0+1)·d] (Def 4.11)."""
    d = A3.ncols()
    yi = y[i0 * d:(i0 + 1) * d]
    return [_total([a * v for a, v in zip(row, yi)]) for row in entries(A3)]


def c_entry(A1, A2, A3, B, x, y, j0: int, i0: int):
    """c(x, y)_{j0,i0} = ⟨f(x)_{j0}, h(y)_{i0}⟩ − B[j0, i0] (Def 4.12)."""
    f, h = f_row(A1, A2, x, j0), h_col(A3, y, i0)
    return _total([a * b for a, b in zip(f, h)]) - B[j0, i0]


def L_entry(A1, A2, A3, B, x, y, j0: int, i0: int):
    """L(x, y)_{j0,i0} = ½c² (Defs 4.7, 4.13)."""
    c = c_entry(A1, A2, A3, B, x, y, j0, i0)
    return c * c / 2


def L_half(A1, A2, A3, B, x, y):
    """L_half = Σ_{j0,i0} ½c²_{j0,i0} (spec def.loss)."""
    n, d = A1.nrows(), A1.ncols()
    f = [f_row(A1, A2, x, j0) for j0 in range(n)]
    h = [h_col(A3, y, i0) for i0 in range(d)]
    cs = [_total([a * b for a, b in zip(f[j0], h[i0])]) - B[j0, i0] for j0 in range(n) for i0 in range(d)]
    return _total([c * c for c in cs]) / 2


# -- derivatives by Taylor series ------------------------------------------------------------------

def second_derivative(fn, z: list, u: list) -> arb:
    """uᵀ∇²fn(z)u, enclosed: twice the t² coefficient of fn(z + t·u) in ``arb_series`` (no closed form)."""
    if len(z) != len(u):
        raise ValueError(f"z and u must have one length, got {len(z)} and {len(u)}")
    line = [arb_series([arb(a), arb(b)], prec=3) for a, b in zip(z, u)]
    coeffs = fn(line).coeffs()
    return 2 * coeffs[2] if len(coeffs) > 2 else arb(0)


def _unit(k: int, i: int) -> list:
    return [fmpq(int(j == i)) for j in range(k)]


def hessian(fn, z: list) -> arb_mat:
    """∇²fn(z) by polarisation of :func:`second_derivative`: H_il = (D²[e_i + e_l] − D²[e_i] − D²[e_l])/2."""
    k = len(z)
    diag = [second_derivative(fn, z, _unit(k, i)) for i in range(k)]
    H = arb_mat(k, k)
    for i in range(k):
        H[i, i] = diag[i]
        for j in range(i):
            both = [a + b for a, b in zip(_unit(k, i), _unit(k, j))]
            H[i, j] = H[j, i] = (second_derivative(fn, z, both) - diag[i] - diag[j]) / 2
    return H


def cross_hessian(fn, x: list, y: list, p: list | None = None, q: list | None = None):
    """∂²fn(x, y)/∂x∂yᵀ (len x × len y) by polarisation in z = (x, y); with ``p``, ``q`` only the bilinear
    value pᵀ(∂²fn/∂x∂yᵀ)q = (D²[(p, q)] − D²[(p, 0)] − D²[(0, q)])/2."""
    kx, ky = len(x), len(y)
    g = lambda z: fn(z[:kx], z[kx:])  # noqa: E731
    zero_x, zero_y = [fmpq(0)] * kx, [fmpq(0)] * ky
    if p is not None:
        return (second_derivative(g, x + y, p + q) - second_derivative(g, x + y, p + zero_y)
                - second_derivative(g, x + y, zero_x + q)) / 2
    dx = [second_derivative(g, x + y, _unit(kx, a) + zero_y) for a in range(kx)]
    dy = [second_derivative(g, x + y, zero_x + _unit(ky, b)) for b in range(ky)]
    H = arb_mat(kx, ky)
    for a in range(kx):
        for b in range(ky):
            H[a, b] = (second_derivative(g, x + y, _unit(kx, a) + _unit(ky, b)) - dx[a] - dy[b]) / 2
    return H


# -- the kernels (f, v: arb_mat columns; c: arb) ------------------------------------------------------

def _outer(a: arb_mat, b: arb_mat) -> arb_mat:
    return a * b.transpose()


def _dot(a: arb_mat, b: arb_mat) -> arb:
    return (a.transpose() * b)[0, 0]


def B_x_paper(f: arb_mat, v: arb_mat, c: arb) -> arb_mat:
    """Def 7.3 as stated: (1−γ)c·diag(f∘v) − (2γ + c)((f∘v)fᵀ + f(f∘v)ᵀ) + (2γc + γ²)ffᵀ + (f∘v)(f∘v)ᵀ."""
    g, fv = _dot(f, v), ball.entrywise(f, v)
    return (ball.diag(ball.entries(fv)) * ((1 - g) * c) - (_outer(fv, f) + _outer(f, fv)) * (2 * g + c)
            + _outer(f, f) * (2 * g * c + g * g) + _outer(fv, fv))


def B_x_true(f: arb_mat, v: arb_mat, c: arb) -> arb_mat:
    """Spec def.B_x_true: (f∘v)(f∘v)ᵀ − (γ + c)((f∘v)fᵀ + f(f∘v)ᵀ) + (γ² + 2γc)ffᵀ + c·diag(f∘v) − γc·diag(f)."""
    g, fv = _dot(f, v), ball.entrywise(f, v)
    return (_outer(fv, fv) - (_outer(fv, f) + _outer(f, fv)) * (g + c) + _outer(f, f) * (g * g + 2 * g * c)
            + ball.diag(ball.entries(fv)) * c - ball.diag(ball.entries(f)) * (g * c))


def G_xy_four(f: arb_mat, h: arb_mat, c: arb) -> list[arb_mat]:
    """Sec 12: the four pieces (f∘h)fᵀ, −⟨f,h⟩ffᵀ, −c·diag(f), c·ffᵀ of B_xy,paper (Def 11.3)."""
    return [_outer(ball.entrywise(f, h), f), _outer(f, f) * (-_dot(f, h)), ball.diag(ball.entries(f)) * (-c), _outer(f, f) * c]


def B_xy_paper(f: arb_mat, h: arb_mat, c: arb) -> arb_mat:
    """Def 11.3 as stated: (f∘h)fᵀ − ⟨f,h⟩ffᵀ − c·diag(f) + c·ffᵀ."""
    G1, G2, G3, G4 = G_xy_four(f, h, c)
    return G1 + G2 + G3 + G4


def B_xy_true(f: arb_mat, h: arb_mat, c: arb) -> arb_mat:
    """Spec def.B_xy_true: (diag f − ffᵀ)(hfᵀ + c·I_n)."""
    n = f.nrows()
    return (ball.diag(ball.entries(f)) - _outer(f, f)) * (_outer(h, f) + ball.diag([c] * n))


# -- hypotheses ---------------------------------------------------------------------------------------

def h12_quantities(A1, A2, A3, B, x: list, y: list) -> list[tuple[str, arb]]:
    """The quantities hypothesis H12 bounds by R (spec §4, as ``oracle.attention_optimization_bounds``),
    by name: ‖A1‖, ‖A2‖, ‖A3‖, max‖𝖠_{j0}‖ = max‖a_{j0}‖₂‖A2‖, ‖x‖₂, max|b|, √max‖h(y)_{i0}‖₂ (from
    ‖h‖₂ ≤ R²) and max‖y_{i0}‖₂, plus R ≥ 4 of Lemma 8.5 as ("4", 4)."""
    n, d = A1.nrows(), A1.ncols()
    nA2 = ball.spectral_norm(A2)
    top = lambda balls: ball.norm_inf(arb_mat([[b] for b in balls]))  # noqa: E731  (max of nonnegative balls)
    rows = top([ball.norm2(fmpq_mat([[A1[j, a]] for a in range(d)])) for j in range(n)])
    hs = [ball.norm2(ball.matrix(h_col(A3, y, i0))) for i0 in range(d)]
    ys = [ball.norm2(ball.matrix(y[i0 * d:(i0 + 1) * d])) for i0 in range(d)]
    return [("4", arb(4)), ("‖A1‖₂", ball.spectral_norm(A1)), ("‖A2‖₂", nA2), ("‖A3‖₂", ball.spectral_norm(A3)),
            ("max‖𝖠_{j0}‖₂", rows * nA2), ("‖x‖₂", ball.norm2(ball.matrix(x))), ("max|b|", ball.norm_inf(B)),
            ("√max‖h(y)_{i0}‖₂", top(hs).sqrt()), ("max‖y_{i0}‖₂", top(ys))]


def sigma_plus_squared(K: fmpq_mat) -> arb:
    """σ_+(K)², the square of the smallest nonzero singular value of a nonzero exact K: of the eigenvalues
    of KKᵀ (or KᵀK), exactly rank(K) are nonzero (the rank is exact, in rationals), so rank(K) enclosures
    certainly > 0 are those, and the least of them encloses σ_+².  Raises
    ``ValueError`` for K = 0 and :class:`UndecidableError` while the least nonzero one is not separated from 0."""
    r = K.rank()
    if r == 0:
        raise ValueError("K must be nonzero to have a nonzero singular value")
    gram = K * K.transpose() if K.nrows() <= K.ncols() else K.transpose() * K
    values = sorted(ball.eigvalsh(gram), key=lambda b: b.mid(), reverse=True)[:r]
    low = min(values, key=lambda b: b.mid())
    if not low > 0:
        raise UndecidableError("the least nonzero eigenvalue of KKᵀ is not separated from 0")
    return low
