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

from . import derivatives
from .linalg import converged, diag, dot, entrywise, exp_entrywise, kron, vec
from .precision import as_float_array, check_int, check_mp, to_mp

__all__ = ["alpha_row", "c_entry", "classical_matmul", "f_row", "h_col", "kron_block", "L_entry",
           "loss_matrix_form", "multiple_softmax_loss", "softmax_matrix", "u_row", "vec_cols", "vec_row",
           "L_half", "B_x_paper", "gradient_x", "gradient_y", "B_xy_paper", "grad_x_matrix_form", "grad_y_matrix_form",
           "B_x_true", "B_xy_true", "G_nine", "G_xy_four", "L_reg_xy", "L_tot", "READINGS", "gradient_tot",
           "hessian_blocks", "hessian_entry_xx",
           "hessian_xx", "hessian_xy", "hessian_yy", "hessian_tot", "hessian_xx_paper", "hessian_xy_paper", "instance",
           "reg_hessian", "unvec_cols", "minimiser"]


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


def vec_row(X):
    """x = vec_row(X): x[a·d + b] = X[a, b] (numpy ``X.reshape(-1)``)."""
    return vec(X)


def vec_cols(Y):
    """y stacking the columns of Y: y[i0·d + i1] = Y[i1, i0] (numpy ``Y.T.reshape(-1)``)."""
    check_mp(Y, "Y", ndim=2)
    return mp.matrix([Y[i1, i0] for i0 in range(Y.cols) for i1 in range(Y.rows)])


def kron_block(A1, A2, j0: int):
    """𝖠_{j0} = a_{j0} ⊗ A2 ∈ R^{n×d²} (rows j0·n … j0·n + n − 1 of A1 ⊗ A2), entry
    [r, a·d + b] = A1[j0, a]·A2[r, b]."""
    check_mp(A1, "A1", ndim=2)
    check_mp(A2, "A2", ndim=2)
    if A1.cols != A2.cols:
        raise ValueError(f"A1 (d={A1.cols}) and A2 (d={A2.cols}) must have the same number of columns")
    if not 0 <= j0 < A1.rows:
        raise ValueError(f"j0={j0} must be in [0, {A1.rows})")
    d = A1.cols
    return mp.matrix([[A1[j0, a] * A2[r, b] for a in range(d) for b in range(d)] for r in range(A2.rows)])


def u_row(A1, A2, x, j0: int):
    """u(x)_{j0} = exp(𝖠_{j0} x) (Def 4.8)."""
    K = kron_block(A1, A2, j0)  # validates A1, A2 (mp.matrix) first
    if not isinstance(x, mp.matrix) or x.cols != 1 or x.rows != A1.cols ** 2:
        raise ValueError(f"x must be a d²×1 mp.matrix column, d = A1.cols = {A1.cols} (convert with oracle.to_mp)")
    return exp_entrywise(K * x)


def alpha_row(A1, A2, x, j0: int):
    """α(x)_{j0} = ⟨u(x)_{j0}, 1_n⟩ (Def 4.9)."""
    return mp.fsum(u_row(A1, A2, x, j0))


def f_row(A1, A2, x, j0: int):
    """f(x)_{j0} = α(x)_{j0}⁻¹ u(x)_{j0} (Def 4.10)."""
    u = u_row(A1, A2, x, j0)
    return u / mp.fsum(u)


def h_col(A3, y, i0: int):
    """h(y)_{i0} = A3 y_{i0}, y_{i0} = y[i0·d : (i0+1)·d] (Def 4.11)."""
    check_mp(A3, "A3", ndim=2)
    check_mp(y, "y", ndim=2)
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
    _mats(A1=A1, A2=A2, X=X)
    E = exp_entrywise(A1 * X * A2.T)
    return mp.matrix([[E[r, c] / mp.fsum(E[r, k] for k in range(E.cols)) for c in range(E.cols)]
                      for r in range(E.rows)])


def loss_matrix_form(A1, A2, A3, B, X, Y):
    """L(X, Y) = ‖D(X)⁻¹ exp(A1 X A2ᵀ) A3 Y − B‖_F² (Def 1.2, no ½)."""
    _mats(A3=A3, B=B, Y=Y)
    R = softmax_matrix(A1, A2, X) * A3 * Y - B
    return mp.fsum(R[i, j] ** 2 for i in range(R.rows) for j in range(R.cols))


def multiple_softmax_loss(A1, A2, X, B):
    """Def 1.4 Part 2: ‖D(X)⁻¹ exp(A1 X A2ᵀ) − B‖_F², B ∈ R^{n×n}."""
    _mats(B=B)
    R = softmax_matrix(A1, A2, X) - B
    return mp.fsum(R[i, j] ** 2 for i in range(R.rows) for j in range(R.cols))


def L_half(A1, A2, A3, B, x, y):
    """L_half(x, y) = Σ_{j0,i0} L(x, y)_{j0,i0} = ½ L (spec def.loss; all gradient and Hessian
    statements are for this normalisation)."""
    _mats(A1=A1, A2=A2, A3=A3, B=B, x=x, y=y)
    d = A1.cols
    if (A2.cols != d or A3.cols != d or A3.rows != A2.rows or x.rows != d * d or y.rows != d * d or x.cols != 1
            or y.cols != 1 or B.rows < A1.rows or B.cols < d):
        raise ValueError(f"A1 (n×d = {A1.rows}x{d}), A2 and A3 (the same number of rows, d columns), B (at least n×d) "
                         f"and x, y (d²×1 columns) must fit, got A2 {A2.rows}x{A2.cols}, A3 {A3.rows}x{A3.cols}, "
                         f"B {B.rows}x{B.cols}, x {x.rows}x{x.cols}, y {y.rows}x{y.cols}")
    return _loss_half(A1, A2, A3, B, x, y)


def _loss_half(A1, A2, A3, B, x, y):
    """:func:`L_half` on validated arguments: the derivatives of this module call it at every stencil point,
    so the arguments are checked once, at the public function.  The operations are exactly those of
    L_entry's terms (:func:`kron_block` products rounded at the working precision, ``fdot`` for the matrix
    products, ``mp.exp``, ``fsum``), with each f(x)_{j0} and h(y)_{i0} computed once, on lists of ``mpf``
    instead of ``mp.matrix`` (zero terms, which ``mp.matrix`` products skip, add exactly 0)."""
    d = A1.cols
    a1, a2, a3 = A1.tolist(), A2.tolist(), A3.tolist()
    xs = [x[k, 0] for k in range(d * d)]
    ys = [y[k, 0] for k in range(d * d)]
    f = []
    for j0 in range(A1.rows):
        u = [mp.exp(mp.fdot([a1[j0][a] * row[b] for a in range(d) for b in range(d)], xs)) for row in a2]
        s = mp.fsum(u)
        f.append([v / s for v in u])
    h = [[mp.fdot(row, ys[i0 * d:(i0 + 1) * d]) for row in a3] for i0 in range(d)]
    return mp.fsum((mp.fsum(fj[r] * hi[r] for r in range(len(fj))) - B[j0, i0]) ** 2 / 2
                   for j0, fj in enumerate(f) for i0, hi in enumerate(h))


# --- the paper's closed forms, as stated (the claims judge them; nothing here trusts them) ---

def B_x_paper(f, v, c):
    """Def 7.3: B_paper(x) = (1−γ)c·diag(f∘v) − (2γ + c)((f∘v)fᵀ + f(f∘v)ᵀ) + (2γc + γ²)ffᵀ
    + (f∘v)(f∘v)ᵀ, γ = ⟨f, v⟩ (spec def.B_x_paper)."""
    g = dot(f, v)
    fv = entrywise(f, v)
    return (diag(fv) * ((1 - g) * c) - (fv * f.T + f * fv.T) * (2 * g + c)
            + f * f.T * (2 * g * c + g * g) + fv * fv.T)


def B_xy_paper(f, h, c):
    """Def 11.3: B_xy,paper = (f∘h)fᵀ − ⟨f,h⟩ffᵀ − c·diag(f) + c·ffᵀ (spec def.B_xy_paper)."""
    return entrywise(f, h) * f.T - f * f.T * dot(f, h) - diag(f) * c + f * f.T * c


def grad_x_matrix_form(A1, A2, A3, B, X, Y):
    """Lemma 5.4 (alg.grad_x_matrix): A1ᵀ Q A2 with P = C Hᵀ, Q = S∘P − diag((S∘P)1_n) S, where
    S = softmax_matrix, H = A3 Y, C = S H − B."""
    _mats(A3=A3, B=B, Y=Y)
    S = softmax_matrix(A1, A2, X)
    H = A3 * Y
    P = (S * H - B) * H.T
    SP = mp.matrix([[S[r, k] * P[r, k] for k in range(S.cols)] for r in range(S.rows)])
    rows = [mp.fsum(SP[r, k] for k in range(S.cols)) for r in range(S.rows)]
    Q = SP - mp.diag(rows) * S
    return A1.T * Q * A2


def grad_y_matrix_form(A1, A2, A3, B, X, Y):
    """Lemma 5.5 (alg.grad_y): A3ᵀ Sᵀ (S A3 Y − B)."""
    _mats(A3=A3, B=B, Y=Y)
    S = softmax_matrix(A1, A2, X)
    return A3.T * S.T * (S * A3 * Y - B)


# --- validated entry (float64 data → mpmath) --------------------------------------------------

def instance(A1, A2, A3, B, X=None, Y=None, *, need_n_ge_d: bool = False):
    """The float64 data of one problem as ``mp.matrix`` (exactly), after validating it.

    **Arguments:** A1, A2, A3 (n, d), B (n, d), X, Y (d, d) (optional).  Raises ``ValueError``
    naming the argument for a non-finite or empty array, a wrong number of dimensions, or a shape
    mismatch (A1, A2, A3 and B must all be n×d, X and Y d×d); with ``need_n_ge_d`` also when d > n
    (the claims that need σ_min(A3) > 0 need n ≥ d).

    **Returns:** the tuple of ``mp.matrix`` in the order given (None for an omitted X, Y).
    """
    A1 = as_float_array(A1, "A1", ndim=2)
    n, d = A1.shape
    arrays = {"A2": A2, "A3": A3, "B": B}
    out = [A1]
    for name, arr in arrays.items():
        a = as_float_array(arr, name, ndim=2)
        if a.shape != (n, d):
            raise ValueError(f"{name}.shape={a.shape} must equal A1.shape={(n, d)}")
        out.append(a)
    for name, arr in (("X", X), ("Y", Y)):
        if arr is None:
            out.append(None)
            continue
        a = as_float_array(arr, name, ndim=2)
        if a.shape != (d, d):
            raise ValueError(f"{name}.shape={a.shape} must be (d, d)={(d, d)}")
        out.append(a)
    if need_n_ge_d and d > n:
        raise ValueError(f"A1.shape={(n, d)}: d={d} must be <= n={n}")
    return tuple(None if a is None else to_mp(a) for a in out)


def unvec_cols(y, d: int):
    """Y from y, the inverse of :func:`vec_cols` (y[i0·d + i1] = Y[i1, i0])."""
    check_mp(y, "y", ndim=1)
    if check_int(d, "d", minimum=1) ** 2 != y.rows:
        raise ValueError(f"y has {y.rows} entries, must have d² = {d * d}")
    return mp.matrix([[y[i0 * d + i1] for i0 in range(d)] for i1 in range(d)])


# --- the regularised loss (spec def.reg_x, def.reg_y) ----------------------------------------

READINGS = ("a", "b")
"""The two readings of the x-regulariser (spec def.reg_x): (a) H_reg,x,{j0,i0} = 𝖠_{j0}ᵀW²𝖠_{j0},
(b) H_reg,x,{j0,i0} = 𝖠_{j0}ᵀW𝖠_{j0} (needs W ⪰ 0)."""


def _check_reading(reading):
    if reading not in READINGS:
        raise ValueError(f"reading={reading!r} must be one of {READINGS}")


def L_reg_xy(A1, A2, A3, w, x, y, reading: str = "b"):
    """L_reg,x(x) + L_reg,y(y): L_reg,y = ½‖W A3 Y‖_F²; L_reg,x = (d/2)‖A1 X A2ᵀ W^{1/2}‖_F² (reading b)
    or (d/2)‖A1 X A2ᵀ W‖_F² (reading a), W = diag(w) (spec def.reg_x, def.reg_y), summed as
    first-principles sums over the entries, so their Hessians are independent of the stated ones."""
    _check_reading(reading)
    _mats(A1=A1, A2=A2, A3=A3, w=w, x=x, y=y)
    unvec_cols(y, A1.cols)  # y must hold d² entries
    if reading == "b" and any(w[i] < 0 for i in range(A1.rows)):
        raise ValueError("w must be >= 0 under reading (b) (W^{1/2})")
    return _loss_reg_xy(A1, A2, A3, w, x, y, reading)


def _loss_reg_xy(A1, A2, A3, w, x, y, reading):
    """:func:`L_reg_xy` on validated arguments (the derivatives' stencil points)."""
    n, d = A1.rows, A1.cols
    X = mp.matrix([[x[a * d + b] for b in range(d)] for a in range(d)])
    Y = mp.matrix([[y[i0 * d + i1] for i0 in range(d)] for i1 in range(d)])  # unvec_cols(y, d)
    Z = A1 * X * A2.T  # L_reg,x = (d/2) Σ_{j0,k} Z[j0,k]² W[k,k]^p, p = 1 (b) or 2 (a)
    p = 1 if reading == "b" else 2
    rx = mp.fsum(Z[j, k] ** 2 * w[k] ** p for j in range(n) for k in range(n)) * d / 2
    H = A3 * Y
    ry = mp.fsum((w[k] * H[k, i]) ** 2 for k in range(n) for i in range(d)) / 2
    return rx + ry


def L_tot(A1, A2, A3, B, w, x, y, reading: str = "b"):
    """L_tot = L_half + L_reg_xy (the objective of alg.newton; w = None: no regulariser)."""
    base = L_half(A1, A2, A3, B, x, y)
    return base if w is None else base + L_reg_xy(A1, A2, A3, w, x, y, reading)


def _mats(**values):
    """Each value an mp.matrix of finite reals (numpy data: convert with oracle.to_mp), or ValueError naming it."""
    for name, value in values.items():
        check_mp(value, name, ndim=2)


def _z_fn(A1, A2, A3, B, w, reading, x, y):
    """z = (x, y) ↦ L_tot, the arguments validated once here (by :func:`L_tot` at (x, y)), not at every point."""
    L_tot(A1, A2, A3, B, w, x, y, reading)
    k = A1.cols ** 2
    if w is None:
        return lambda z: _loss_half(A1, A2, A3, B, z[0:k, 0], z[k:2 * k, 0])
    return lambda z: (_loss_half(A1, A2, A3, B, z[0:k, 0], z[k:2 * k, 0])
                      + _loss_reg_xy(A1, A2, A3, w, z[0:k, 0], z[k:2 * k, 0], reading))


@derivatives.cached_at_point
def gradient_x(A1, A2, A3, B, x, y, *, accuracy=None):
    """∇_x L_half (d² × 1) by numerical differentiation, resolved to the working precision relative to its
    largest entry as :func:`hessian_tot`'s blocks, and with ``accuracy`` to that absolute accuracy per entry
    (at B = 1e87 the zero floor relative to L_half ≈ 1e174 was 1e-5)."""
    _mats(A1=A1, A2=A2, A3=A3, B=B, x=x, y=y)
    return derivatives.resolved(lambda z: _loss_half(A1, A2, A3, B, z, y), x, lambda f, z: [derivatives.gradient(f, z)],
                                accuracy)[0]


@derivatives.cached_at_point
def gradient_y(A1, A2, A3, B, x, y, *, accuracy=None):
    """∇_y L_half (d² × 1, y stacking Y's columns) by numerical differentiation, resolved as :func:`gradient_x`."""
    _mats(A1=A1, A2=A2, A3=A3, B=B, x=x, y=y)
    return derivatives.resolved(lambda z: _loss_half(A1, A2, A3, B, x, z), y, lambda f, z: [derivatives.gradient(f, z)],
                                accuracy)[0]


@derivatives.cached_at_point
def gradient_tot(A1, A2, A3, B, w, x, y, reading: str = "b"):
    """∇L_tot at z = (x, y) by numerical differentiation (2d² × 1)."""
    return derivatives.gradient(_z_fn(A1, A2, A3, B, w, reading, x, y), mp.matrix(list(x) + list(y)))


@derivatives.cached_at_point
def hessian_tot(A1, A2, A3, B, w, x, y, reading: str = "b"):
    """∇²L_tot at z = (x, y) by numerical differentiation (2d² × 2d²; w = None: of L_half alone), each block
    (x–x, x–y, y–y) resolved to the working precision relative to its largest entry (:func:`oracle.derivatives.resolved`).

    **Raises:** :class:`~oracle.UndecidableError` when a block cannot be resolved within MAX_PREC_FACTOR times
    the working precision."""
    fn = _z_fn(A1, A2, A3, B, w, reading, x, y)  # validates the arguments
    k = A1.cols ** 2

    def blocks(f, z):
        H = derivatives.hessian(f, z)
        return [H, H[0:k, 0:k], H[0:k, k:2 * k], H[k:2 * k, k:2 * k]]

    return derivatives.resolved(fn, mp.matrix(list(x) + list(y)), blocks)[0]


@derivatives.cached_at_point
def hessian_blocks(A1, A2, A3, B, x, y, *, accuracy=None):
    """The true Hessian blocks (H_xx, H_xy, H_yy) of L_half at (x, y) (spec def.H_xx, def.H_xy,
    def.H_yy), by numerical differentiation of the loss — never from a closed form — each resolved to the
    working precision relative to its own largest entry (:func:`hessian_tot`), and with ``accuracy`` to that
    absolute accuracy per entry."""
    fn = _z_fn(A1, A2, A3, B, None, "b", x, y)  # validates the arguments
    k = A1.cols ** 2

    def blocks(f, z):
        H = derivatives.hessian(f, z)
        return [H[0:k, 0:k], H[0:k, k:2 * k], H[k:2 * k, k:2 * k]]

    return tuple(derivatives.resolved(fn, mp.matrix(list(x) + list(y)), blocks, accuracy))


@derivatives.cached_at_point
def hessian_xy(A1, A2, A3, B, x, y):
    """H_xy = ∂²L_half/∂x∂yᵀ (d² × d²) alone, by numerical differentiation (d⁴ mixed partials), resolved as
    :func:`hessian_tot`'s blocks."""
    _mats(A1=A1, A2=A2, A3=A3, B=B, x=x, y=y)
    k = x.rows
    fn = lambda w: _loss_half(A1, A2, A3, B, w[0:k, 0], w[k:w.rows, 0])  # noqa: E731
    cross = lambda f, w: [derivatives.cross_hessian(  # noqa: E731
        lambda xx, yy: f(mp.matrix(list(xx) + list(yy))), w[0:k, 0], w[k:w.rows, 0])]
    return derivatives.resolved(fn, mp.matrix(list(x) + list(y)), cross)[0]


@derivatives.cached_at_point
def hessian_yy(A1, A2, A3, B, x, y):
    """H_yy = ∂²L_half/∂y∂yᵀ (d² × d²) alone, by numerical differentiation, resolved as :func:`hessian_tot`'s blocks."""
    _mats(A1=A1, A2=A2, A3=A3, B=B, x=x, y=y)
    return derivatives.resolved(lambda z: _loss_half(A1, A2, A3, B, x, z), y, lambda f, z: [derivatives.hessian(f, z)])[0]


@derivatives.cached_at_point
def hessian_xx(A1, A2, A3, B, x, y):
    """H_xx = ∂²L_half/∂x∂xᵀ (d² × d²) alone, by numerical differentiation, resolved as :func:`hessian_tot`'s blocks."""
    _mats(A1=A1, A2=A2, A3=A3, B=B, x=x, y=y)
    return derivatives.resolved(lambda z: _loss_half(A1, A2, A3, B, z, y), x, lambda f, z: [derivatives.hessian(f, z)])[0]


@derivatives.cached_at_point
def hessian_entry_xx(A1, A2, A3, B, x, y, j0: int, i0: int):
    """∇²_x L_{j0,i0} (d² × d²) by numerical differentiation (the true H_{j0,i0}(x))."""
    return derivatives.hessian(lambda z: L_entry(A1, A2, A3, B, z, y, j0, i0), x)


def reg_hessian(A1, A2, A3, w, reading: str = "b"):
    """The regulariser's Hessian as stated (spec def.reg_x, def.reg_y): blockdiag(H_reg,x, H_reg,y),
    H_reg,x = d·(A1ᵀA1) ⊗ (A2ᵀW^pA2) (p = 1 reading b, 2 reading a), H_reg,y = I_d ⊗ A3ᵀW²A3."""
    _check_reading(reading)
    _mats(A1=A1, A2=A2, A3=A3, w=w)
    d = A1.cols
    p = 1 if reading == "b" else 2
    Hx = kron(A1.T * A1, A2.T * mp.diag([w[i] ** p for i in range(w.rows)]) * A2) * d
    Hy = kron(mp.eye(d), A3.T * mp.diag([w[i] ** 2 for i in range(w.rows)]) * A3)
    k = d * d
    H = mp.zeros(2 * k, 2 * k)
    H[0:k, 0:k] = Hx
    H[k:2 * k, k:2 * k] = Hy
    return H


@derivatives.cached_at_point
def minimiser(A1, A2, A3, B, w, x0, y0, reading: str = "b", *, tol=None, max_iter: int = 60):
    """z* = argmin L_tot near (x0, y0): Newton's method at the working precision with numerical
    derivatives (no closed form), stopped when ‖∇L_tot‖ ≤ tol (default 10^{−(dps − 10)}).
    Raises ``ValueError`` if it does not converge or the Hessian is not positive definite there."""
    tol = mp.mpf(10) ** (-(mp.dps - 10)) if tol is None else tol
    fn = _z_fn(A1, A2, A3, B, w, reading, x0, y0)
    k = A1.cols ** 2
    z = mp.matrix(list(x0) + list(y0))
    for _ in range(max_iter):
        g = derivatives.gradient(fn, z)
        if mp.norm(g) <= tol:
            H = derivatives.hessian(fn, z)
            if min(converged(lambda H=H: mp.eigsy(H, eigvals_only=True), "eigsy")) <= 0:
                raise ValueError("the stationary point found is not a strict local minimum")
            return z[0:k, 0], z[k:2 * k, 0]
        z = z - mp.lu_solve(derivatives.hessian(fn, z), g)
    raise ValueError(f"Newton did not reach ‖∇L_tot‖ ≤ {mp.nstr(tol, 3)} in {max_iter} steps")


# --- the paper's kernels and terms, as stated (judged, never trusted) -------------------------

def B_x_true(f, v, c):
    """Spec def.B_x_true (derived, verified against numerical Hessians by lem7.1): (f∘v)(f∘v)ᵀ −
    (γ + c)((f∘v)fᵀ + f(f∘v)ᵀ) + (γ² + 2γc)ffᵀ + c·diag(f∘v) − γc·diag(f), γ = ⟨f, v⟩."""
    g = dot(f, v)
    fv = entrywise(f, v)
    return (fv * fv.T - (fv * f.T + f * fv.T) * (g + c) + f * f.T * (g * g + 2 * g * c) + diag(fv) * c
            - diag(f) * (g * c))


def B_xy_true(f, h, c):
    """Spec def.B_xy_true (derived): (diag f − ffᵀ)(hfᵀ + c·I_n)."""
    return (diag(f) - f * f.T) * (h * f.T + mp.eye(f.rows) * c)


def G_nine(f, v, c):
    """Sec 8.2 (spec def.G_nine): G1 … G9 with Σ G_k = B_paper(x); γ = ⟨f, v⟩."""
    g = dot(f, v)
    fv = entrywise(f, v)
    return [diag(fv) * c, diag(fv) * (-g * c), fv * f.T * (-2 * g), fv * f.T * (-c), f * fv.T * (-2 * g),
            f * fv.T * (-c), f * f.T * (2 * g * c), f * f.T * (g * g), fv * fv.T]


def G_xy_four(f, h, c):
    """Sec 12 (spec def.B_xy_paper): the four pieces (f∘h)fᵀ, −⟨f,h⟩ffᵀ, −c·diag(f), c·ffᵀ of B_xy,paper."""
    return [entrywise(f, h) * f.T, f * f.T * (-dot(f, h)), diag(f) * (-c), f * f.T * c]


def hessian_xx_paper(A1, A2, A3, B, x, y):
    """The paper's H(x) = Σ_{j0,i0} 𝖠_{j0}ᵀ B_paper 𝖠_{j0} (Def 7.3, Lemma 7.4)."""
    _mats(A1=A1, A2=A2, A3=A3, B=B, x=x, y=y)
    d = A1.cols
    H = mp.zeros(d * d, d * d)
    for j0 in range(A1.rows):
        K = kron_block(A1, A2, j0)
        f = f_row(A1, A2, x, j0)
        for i0 in range(d):
            H += K.T * B_x_paper(f, h_col(A3, y, i0), c_entry(A1, A2, A3, B, x, y, j0, i0)) * K
    return H


def hessian_xy_paper(A1, A2, A3, B, x, y):
    """The paper's H_xy = [H_{x,y_1}, …, H_{x,y_d}], H_{x,y_{i0}} = Σ_{j0} 𝖠_{j0}ᵀ B_xy,paper A3 (Def 11.3)."""
    _mats(A1=A1, A2=A2, A3=A3, B=B, x=x, y=y)
    d = A1.cols
    H = mp.zeros(d * d, d * d)
    for i0 in range(d):
        h = h_col(A3, y, i0)
        blk = mp.zeros(d * d, d)
        for j0 in range(A1.rows):
            blk += kron_block(A1, A2, j0).T * B_xy_paper(f_row(A1, A2, x, j0), h,
                                                         c_entry(A1, A2, A3, B, x, y, j0, i0)) * A3
        H[:, i0 * d:(i0 + 1) * d] = blk
    return H
