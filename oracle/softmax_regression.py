"""mpmath oracle of "Attention Scheme Inspired Softmax Regression" (Deng, Li, Song 2023; paper 001).

Spec: ``shared/spec/softmax_regression.md`` (§1 notation, §2 definitions).  Pure mpmath: inputs are
``mp.matrix`` (convert float64 data exactly with :func:`oracle.to_mp`) or anything :func:`to_mp`
accepts; vectors are n×1 columns.  Everything is computed at the current working precision, so a
check re-evaluates it inside its thunk when the precision is raised.

Objects (W = diag(w), u = A x):
- ``alpha(A, x)`` = ⟨exp(Ax), 1_n⟩;  ``f(A, x)`` = α(x)⁻¹ exp(Ax) (overflow-safe softmax);
  ``c(A, b, x)`` = f(x) − b;
- ``L_exp`` = ½‖f(x) − b‖²;  ``L_reg`` = ½‖W A x‖²;  ``L`` = L_exp + L_reg;
- the spec's closed forms (def.g, def.B, def.B1_B2, def.B_rank_diag, def.G, lem5.15.paperB):
  ``g_closed``, ``grad_closed``, ``B``, ``B1``, ``B2``, ``B_rank1`` …, ``B_paper``, ``G_terms``,
  ``hessian_closed`` = Aᵀ(B(x) + W²)A.  These are *claims under test*: ground truth derivatives are
  :func:`true_gradient` / :func:`true_hessian` (numerical differentiation, :mod:`oracle.derivatives`);
- constants (def.constants): ``beta_paper(R)`` = e^{−R²}, ``R_f`` = β⁻² n^{1.5} e^{3R²},
  ``M_lem71`` = β⁻² n^{1.5} e^{20R²}, ``M_lem810`` = n^{1.5} e^{22R²}, ``M22`` = 22R³, ``R_INF`` = 2,
  ``lem58_bound`` = (3R_∞ + 2) R R_f, ``lem726_bound`` = 16 R R_f;
- ``exact_newton`` (alg.exact_newton): x* to the working precision (numerical-derivative gradient);
- ``generalized_eigs(X, Y)``: eigenvalues of Y^{-1/2} X Y^{-1/2} (Y ≻ 0), for def8.4 / lem8.5.

Bad input raises ``ValueError`` naming the argument and the rule.
"""

from __future__ import annotations

from mpmath import mp

from . import derivatives, linalg
from .linalg import diag as _diag
from .linalg import dot as _dot
from .linalg import entrywise
from .precision import check_int, check_mp, to_mp

__all__ = [
    "R_INF", "B", "B1", "B2", "B_diag", "B_diag1", "B_diag2", "B_paper", "B_rank", "B_rank1", "B_rank2",
    "G_COEFFS", "G_terms", "L", "L_exp", "L_reg", "M22", "M_lem71", "M_lem810", "R_f", "alpha", "beta_paper",
    "c", "check_matrix", "check_problem", "check_vector", "exact_newton", "f", "f_from_u", "g_closed", "generalized_eigs",
    "grad_closed", "hessian_closed", "lem58_bound", "lem726_bound", "softmax_jacobian", "true_gradient",
    "true_hessian", "true_hessian_exp",
]

R_INF = mp.mpf(2)
#: coefficients of B(x) − B(y) = Σ coef_k G_k over G_1 … G_10 (def.G, "true decomposition").
G_COEFFS = (3, -2, -1, 1, 1, 1, 1, 1, -2, -2)


# ---------------------------------------------------------------------------------------------
# input validation

def _real(v, name, *, positive=False):
    v = check_mp(v, name, ndim=0)
    if positive and v <= 0:
        raise ValueError(f"{name}={v} must be > 0")
    return v


def check_vector(v, name: str, n: int | None = None):
    """``v`` as an n×1 ``mp.matrix``; ValueError when not a finite column vector of length ``n``."""
    v = to_mp(v, name, ndim=1)  # a float64 vector, or the exact mpmath image of one (an n×1 column)
    if n is not None and v.rows != n:
        raise ValueError(f"{name} has length {v.rows}, must be {n} (matching A)")
    return v


def check_matrix(A, name: str = "A"):
    """``A`` as a non-empty ``mp.matrix`` of finite reals; ValueError naming ``name`` otherwise."""
    return to_mp(A, name, ndim=2)


def check_problem(A, b=None, w=None, x=None):
    """Validate (A, b, w, x) against one another; returns them as ``mp.matrix`` (None passes through).

    A is n×d; b, w ∈ Rⁿ; x ∈ R^d.  Only finiteness and shapes are required here; hypotheses such as
    b ≥ 0 belong to the claims.
    """
    A = check_matrix(A, "A")
    n, d = A.rows, A.cols
    b = None if b is None else check_vector(b, "b", n)
    w = None if w is None else check_vector(w, "w", n)
    if x is not None:
        x = check_vector(x, "x")
        if x.rows != d:
            raise ValueError(f"x has length {x.rows}, must be d={d} (A's column count)")
    return A, b, w, x


# ---------------------------------------------------------------------------------------------
# small helpers

def _col(vals):
    return mp.matrix(list(vals))


def _outer(u, v):
    return u * v.T


# ---------------------------------------------------------------------------------------------
# definitions (§2)

def alpha(A, x):
    """def.alpha: α(x) = ⟨exp(Ax), 1_n⟩."""
    A, _, _, x = check_problem(A, x=x)
    u = A * x
    return mp.fsum(mp.exp(u[i]) for i in range(u.rows))


def f_from_u(u):
    """softmax(u) = exp(u − max u)/Σ exp(u − max u)."""
    u = check_vector(u, "u")
    m = max(u[i] for i in range(u.rows))
    e = [mp.exp(u[i] - m) for i in range(u.rows)]
    s = mp.fsum(e)
    return _col(v / s for v in e)


def f(A, x):
    """def.f: f(x) = α(x)⁻¹ exp(Ax)."""
    A, _, _, x = check_problem(A, x=x)
    return f_from_u(A * x)


def c(A, b, x):
    """def.c: c(x) = f(x) − b."""
    A, b, _, x = check_problem(A, b=b, x=x)
    return f_from_u(A * x) - b


def L_exp(A, b, x):
    """def.L_exp: ½‖f(x) − b‖²."""
    A, b, _, x = check_problem(A, b=b, x=x)
    return _loss_exp(A, b, x)


def _loss_exp(A, b, x):
    """:func:`L_exp` on validated arguments: the numerical derivatives call it at every stencil point, so the
    arguments are checked once, at the public function.  The operations are exactly :func:`f_from_u`'s and
    ``linalg.dot``'s (``fdot`` for Ax, ``mp.exp``, ``fsum``), on lists of ``mpf``."""
    u = A * x
    u = [u[i, 0] for i in range(u.rows)]
    m = max(u)
    e = [mp.exp(v - m) for v in u]
    s = mp.fsum(e)
    r = [v / s - b[i, 0] for i, v in enumerate(e)]
    return mp.fsum(v * v for v in r) / 2


def L_reg(A, w, x):
    """def.L_reg: ½‖diag(w) A x‖²."""
    A, _, w, x = check_problem(A, w=w, x=x)
    return _loss_reg(A, w, x)


def _loss_reg(A, w, x):
    """:func:`L_reg` on validated arguments (as :func:`_loss_exp`)."""
    u = A * x
    r = [w[i, 0] * u[i, 0] for i in range(u.rows)]
    return mp.fsum(v * v for v in r) / 2


def L(A, b, w, x):
    """def.L: L_exp + L_reg."""
    return L_exp(A, b, x) + L_reg(A, w, x)


def softmax_jacobian(fv):
    """J = diag(f) − f fᵀ (∂f/∂u)."""
    fv = check_vector(fv, "f")
    return _diag(fv) - _outer(fv, fv)


# --- the spec's closed forms (claims under test) ----------------------------------------------

def g_closed(A, b, x):
    """def.g: Aᵀ(diag(f) c − ⟨c, f⟩ f), the closed-form gradient of L_exp."""
    A, b, _, x = check_problem(A, b=b, x=x)
    fv = f_from_u(A * x)
    cv = fv - b
    return A.T * (entrywise(fv, cv) - fv * _dot(cv, fv))


def grad_closed(A, b, w, x):
    """def.grad_L: g(x) + AᵀW²Ax."""
    A, b, w, x = check_problem(A, b, w, x)
    return g_closed(A, b, x) + A.T * entrywise(entrywise(w, w), A * x)


def _fv(fv, b):
    fv = check_vector(fv, "f")
    b = check_vector(b, "b", fv.rows)
    return fv, b


def B_rank1(fv, b):
    """⟨3f − 2b, f⟩ f fᵀ."""
    fv, b = _fv(fv, b)
    return _outer(fv, fv) * _dot(fv * 3 - b * 2, fv)


def B_rank2(fv, b):
    """−v fᵀ − f vᵀ, v = f∘(2f − b)."""
    fv, b = _fv(fv, b)
    v = entrywise(fv, fv * 2 - b)
    return -(_outer(v, fv) + _outer(fv, v))


def B_diag1(fv, b):
    """−⟨f − b, f⟩ diag(f)."""
    fv, b = _fv(fv, b)
    return _diag(fv) * (-_dot(fv - b, fv))


def B_diag2(fv, b):
    """diag((2f − b)∘f)."""
    fv, b = _fv(fv, b)
    return _diag(entrywise(fv * 2 - b, fv))


def B_rank(fv, b):
    return B_rank1(fv, b) + B_rank2(fv, b)


def B_diag(fv, b):
    return B_diag1(fv, b) + B_diag2(fv, b)


def _symmetric_sum(u, v):
    """uvᵀ + vuᵀ, exactly symmetric at any precision (P + Pᵀ with P = uvᵀ: entry (i, j) and (j, i) are the
    same two roundings added), so the B matrices stay symmetric where their entries cancel (deep run:
    f = (1, 2⁻⁵²) made B's (1,0) and (0,1) entries differ past the symmetry tolerance)."""
    P = _outer(u, v)
    return P + P.T


def B(fv, b):
    """def.B: ⟨3f − 2b, f⟩ffᵀ − vfᵀ − fvᵀ + diag(v) − ⟨c, f⟩diag(f), v = f∘(2f − b), c = f − b."""
    fv, b = _fv(fv, b)
    cv = fv - b
    v = entrywise(fv, fv * 2 - b)
    return (_outer(fv, fv) * _dot(fv * 3 - b * 2, fv) - _symmetric_sum(v, fv) + _diag(v)
            - _diag(fv) * _dot(cv, fv))


def B1(fv, b):
    """def.B1_B2: diag(f∘f) + ‖f‖² f fᵀ − (f∘f) fᵀ − f (f∘f)ᵀ."""
    fv, b = _fv(fv, b)
    ff = entrywise(fv, fv)
    return _diag(ff) + _outer(fv, fv) * _dot(fv, fv) - _symmetric_sum(ff, fv)


def B2(fv, b):
    """def.B1_B2: diag(c∘f) − ⟨c,f⟩diag(f) + 2⟨c,f⟩ffᵀ − (c∘f)fᵀ − f(c∘f)ᵀ."""
    fv, b = _fv(fv, b)
    cv = fv - b
    cf = entrywise(cv, fv)
    k = _dot(cv, fv)
    return _diag(cf) - _diag(fv) * k + _outer(fv, fv) * (2 * k) - _symmetric_sum(cf, fv)


def B_paper(fv, b):
    """lem5.15.paperB: the paper's likely B (built from the eight G-terms only)."""
    fv, b = _fv(fv, b)
    bf = entrywise(b, fv)
    return (_outer(fv, fv) * _dot(fv * 3 - b * 2, fv) + _outer(bf, fv) + _outer(fv, bf)
            - _diag(fv) * _dot(fv - b, fv) + _diag(entrywise(fv * 2 - b, fv)))


def G_terms(fx, fy, b):
    """def.G: [G_1, …, G_10] for f_x, f_y (G_9, G_10 are the terms the paper misses)."""
    fx, b = _fv(fx, b)
    fy, _ = _fv(fy, b)

    def one(p):
        pp = entrywise(p, p)
        pb = entrywise(p, b)
        np_, pb_ = _dot(p, p), _dot(p, b)
        return [
            _outer(p, p) * np_,
            _outer(p, p) * pb_,
            _diag(p) * np_,
            _diag(p) * pb_,
            _diag(entrywise(p, p - b)),
            _diag(pp),
            _outer(p, pb),
            _outer(pb, p),
            _outer(p, pp),
            _outer(pp, p),
        ]

    return [X - Y for X, Y in zip(one(fx), one(fy))]


def hessian_closed(A, b, w, x):
    """def.hessian_L: Aᵀ(B(x) + W²)A."""
    A, b, w, x = check_problem(A, b, w, x)
    fv = f_from_u(A * x)
    return A.T * (B(fv, b) + _diag(entrywise(w, w))) * A


# --- ground truth derivatives ------------------------------------------------------------------

@derivatives.cached_at_point
def true_gradient(A, b, w, x):
    """∇L(x) by numerical differentiation (never the closed form)."""
    A, b, w, x = check_problem(A, b, w, x)
    return derivatives.gradient(lambda z: _loss_exp(A, b, z) + _loss_reg(A, w, z), x)


@derivatives.cached_at_point
def true_hessian_exp(A, b, x, *, accuracy=None):
    """∇²L_exp(x) by numerical differentiation, resolved to the working precision relative to its largest
    entry and, with ``accuracy``, to that absolute accuracy per entry (:func:`oracle.derivatives.resolved`:
    with A of entries 1e-88 and x = 0 the Hessian, ~1e-177, lies just above the zero floor relative to
    L_exp ≈ 0.3, and came back with 12 digits)."""
    A, b, _, x = check_problem(A, b=b, x=x)
    return derivatives.resolved(lambda z: _loss_exp(A, b, z), x, lambda f, z: [derivatives.hessian(f, z)], accuracy)[0]


def true_hessian(A, b, w, x, *, accuracy=None):
    """∇²L(x) = (numerical ∇²L_exp) + AᵀW²A (``accuracy`` as :func:`true_hessian_exp`'s).

    L_reg is the quadratic form ½xᵀ(AᵀW²A)x, so its Hessian is exact algebra (and lem4.9 checks
    it against numerical differentiation); differentiating L_exp alone keeps the numerical
    derivative's error relative to L_exp's scale, not to the (possibly 10⁸ times larger) L_reg.
    """
    A, b, w, x = check_problem(A, b, w, x)
    return true_hessian_exp(A, b, x, accuracy=accuracy) + A.T * _diag(entrywise(w, w)) * A


# ---------------------------------------------------------------------------------------------
# constants (def.constants)

def beta_paper(R):
    """lem8.9: β = exp(−R²)."""
    return mp.exp(-_real(R, "R") ** 2)


def R_f(beta, n, R):
    """R_f = β⁻² n^{1.5} exp(3R²)."""
    return _real(beta, "beta", positive=True) ** -2 * _real(n, "n", positive=True) ** 1.5 * mp.exp(3 * _real(R, "R") ** 2)


def M_lem71(beta, n, R):
    """lem7.1: β⁻² n^{1.5} exp(20R²)."""
    return _real(beta, "beta", positive=True) ** -2 * _real(n, "n", positive=True) ** 1.5 * mp.exp(20 * _real(R, "R") ** 2)


def M_lem810(n, R):
    """lem8.10 (reading): n^{1.5} exp(22R²)."""
    return _real(n, "n", positive=True) ** 1.5 * mp.exp(22 * _real(R, "R") ** 2)


def M22(R):
    """derived.M22: 22R³."""
    return 22 * _real(R, "R") ** 3


def lem58_bound(R_inf, R, Rf):
    """lem5.8 (reading): (3R_∞ + 2) R R_f."""
    return (3 * _real(R_inf, "R_inf") + 2) * _real(R, "R") * _real(Rf, "Rf")


def lem726_bound(R, Rf):
    """lem7.2 part 6: 16 R R_f."""
    return 16 * _real(R, "R") * _real(Rf, "Rf")


# ---------------------------------------------------------------------------------------------
# linear algebra helpers

def generalized_eigs(X, Y):
    """Eigenvalues (increasing) of the pencil (X, Y), Y ≻ 0: those of C⁻¹ X C⁻ᵀ with Y = C Cᵀ."""
    X, Y = check_matrix(X, "X"), check_matrix(Y, "Y")
    if X.rows != Y.rows or X.cols != Y.cols or X.rows != X.cols:
        raise ValueError(f"X ({X.rows}x{X.cols}) and Y ({Y.rows}x{Y.cols}) must be square of one size")
    try:
        C = mp.cholesky(linalg.symmetric_part(Y))
    except ValueError:
        raise ValueError("Y must be positive definite") from None
    Ci = mp.inverse(C)
    return linalg.eigvalsh(linalg.symmetric_part(Ci * X * Ci.T))


def exact_newton(A, b, w, x0=None, *, tol_digits: int | None = None, max_iter: int = 200):
    """alg.exact_newton in mpmath: x* with ∇L(x*) = 0 to the working precision.

    Newton steps use the closed-form Hessian only as a preconditioner (any nonsingular matrix
    near the Hessian gives the same fixed point); the gradient whose zero is found is the
    numerical-differentiation gradient, so x* does not depend on the paper's formulas.  Steps are
    damped (backtracking on L) until the full step is accepted.  The iteration stops when the step is below
    ``10^−tol_digits·(‖x‖ + 1/‖A‖_F)``: relative to x, and to x's natural length 1/‖A‖_F where x* is near 0
    (L depends on x through Ax only), so that scaling A by s and x* by 1/s changes nothing (a test against
    ``1 + ‖x‖`` held after the first step once ‖x*‖ ≲ 10^−tol_digits, e.g. for A of entries 1e100, and
    returned that step's x, not x*).

    **Raises:** ``ValueError`` when the Hessian is singular or the iteration does not converge.
    """
    A, b, w, _ = check_problem(A, b, w)
    max_iter = check_int(max_iter, "max_iter", minimum=1)
    if tol_digits is not None:
        tol_digits = check_int(tol_digits, "tol_digits", minimum=1)
    d = A.cols
    x = mp.matrix(d, 1) if x0 is None else check_problem(A, x=x0)[3]
    tol = mp.mpf(10) ** (-(tol_digits if tol_digits is not None else mp.dps - 15))
    norm_a = linalg.frobenius(A)
    length = 1 / norm_a if norm_a else mp.mpf(1)
    fx = L(A, b, w, x)
    for _ in range(max_iter):
        g = true_gradient(A, b, w, x)
        H = hessian_closed(A, b, w, x)
        try:
            step = linalg.solve(H, g)
        except ValueError:
            raise ValueError("exact_newton: the Hessian must be nonsingular (A of full column rank, w ≠ 0)") from None
        size = linalg.norm2(step)
        if size <= tol * (linalg.norm2(x) + length):
            return x - step
        t = mp.mpf(1)
        slack = abs(fx) * mp.mpf(10) ** (-(mp.dps - 5))
        for _half in range(60):
            xn = x - step * t
            fn = L(A, b, w, xn)
            if fn <= fx + slack:
                break
            t /= 2
        x, fx = xn, fn
    raise ValueError(f"exact_newton did not converge in max_iter={max_iter} iterations")
