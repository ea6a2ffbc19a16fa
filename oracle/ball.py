"""Rigorous enclosures with ball (interval) arithmetic: the certificates' evaluator.

The rest of :mod:`oracle` decides a sign by agreement of two mpmath precisions, a careful heuristic.
This module proves it: every function returns python-flint balls (``arb``, ``arb_mat``) that contain
the exact value of the quantity for the exact (rational) input, and an ``arb`` comparison is true
only when it is certain.  Inputs are exact: a float64 is a dyadic rational and is converted without
rounding (:func:`exact`, :func:`rational_matrix`), so a certificate is a statement about the very
instance the search found.

The primitives are those of :mod:`oracle.linalg` (one home each there, for mpmath), evaluated in
``arb`` (one home each here): :func:`entrywise`, :func:`exp_entrywise`, :func:`norm2`,
:func:`frobenius`, :func:`norm_inf`, :func:`spectral_norm`, :func:`eigvalsh`, :func:`softmax`, plus
what a proof needs and an evaluation does not: :func:`quadratic_form` for witness vectors,
:func:`positive_definite_exact` (an exact LDLᵀ in rationals), the enclosures of the least and the greatest
of balls (:func:`least`, :func:`greatest`, :func:`least_eigenvalue`) and the ball matrices the certificates
build (:func:`diag`, :func:`kron`, :func:`entries`, :func:`frobenius_squared`): one home each, for every
paper's certificates.

Precision: ``arb`` works at ``flint.ctx.prec`` bits; :func:`at_bits` sets it for a block and
restores it.  A function that cannot resolve its result at the current precision (eigenvalues that
cannot be isolated) raises :class:`UndecidableError`; the certifier then raises the precision.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction

import numpy as np
from flint import acb_mat, arb, arb_mat, ctx, fmpq, fmpq_mat

from .precision import UndecidableError

__all__ = ["at_bits", "ball", "diag", "eigvalsh", "entries", "entrywise", "exact", "exp_entrywise", "frobenius",
           "frobenius_squared", "from_fraction", "greatest", "kron", "least", "least_eigenvalue", "matrix",
           "midpoint_fraction", "norm2", "norm_inf", "positive_definite_exact", "positive_semidefinite_exact",
           "quadratic_form", "radius_fraction", "rational_matrix", "rational_vector", "softmax", "spectral_norm",
           "symmetric_pivots", "to_fraction"]


@contextlib.contextmanager
def at_bits(bits: int):
    """Evaluate the block with ``arb`` at ``bits`` bits of working precision (restored after)."""
    if isinstance(bits, bool) or not isinstance(bits, int) or bits < 53:
        raise ValueError(f"bits={bits!r} must be an integer ≥ 53 (a float64 is exact only from 53 bits)")
    saved = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = saved


# -- exact inputs --------------------------------------------------------------------------------

def exact(x) -> fmpq:
    """A finite float, int, ``Fraction`` or ``fmpq`` as the exact rational it is (a float64 is dyadic)."""
    if isinstance(x, fmpq):
        return x
    if isinstance(x, bool):
        raise ValueError(f"x={x!r} must be a number, not a bool")
    if isinstance(x, (int, np.integer)):
        return fmpq(int(x))
    if isinstance(x, Fraction):
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, (float, np.floating)):
        if not math.isfinite(float(x)):
            raise ValueError(f"x={x!r} must be finite to be an exact rational")
        return fmpq(*float(x).as_integer_ratio())
    raise ValueError(f"x of type {type(x).__name__} must be a float, int, Fraction or fmpq")


def to_fraction(q: fmpq) -> Fraction:
    """An ``fmpq`` as a ``Fraction`` (for JSON as "p/q")."""
    return Fraction(int(q.p), int(q.q))


def from_fraction(text: str) -> fmpq:
    """The rational written ``"p/q"`` or ``"p"`` (the certificates' exact format)."""
    if not isinstance(text, str):
        raise ValueError(f"text={text!r} must be a string 'p/q'")
    f = Fraction(text)
    return fmpq(f.numerator, f.denominator)


def rational_matrix(a) -> fmpq_mat:
    """A real 2-D array (a 1-D one as a column, a number as 1×1) of finite floats, ints or rationals,
    exactly, as an ``fmpq_mat``."""
    if isinstance(a, fmpq_mat):
        return a
    if isinstance(a, arb_mat):
        raise ValueError("a must be exact (floats, ints or rationals), not an arb_mat")
    rows = _rows(a)
    return fmpq_mat(len(rows), len(rows[0]) if rows else 0, [exact(x) for row in rows for x in row])


def _rows(a) -> list[list]:
    if isinstance(a, np.ndarray):
        if a.dtype.kind not in "fiu":
            raise ValueError(f"a must be a real array, not dtype {a.dtype}")
        a = a.tolist()
    if not isinstance(a, (list, tuple)):
        return [[a]]
    if not a:
        raise ValueError("a must not be empty")
    if not isinstance(a[0], (list, tuple)):
        return [[x] for x in a]
    widths = {len(r) for r in a}
    if len(widths) != 1:
        raise ValueError(f"a must be rectangular, found row lengths {sorted(widths)}")
    return [list(r) for r in a]


def matrix(a) -> arb_mat:
    """An exact input (see :func:`rational_matrix`), rows holding balls (``arb``) among exact numbers, or an
    ``arb_mat``, as an ``arb_mat`` at the current precision (dyadic entries of at most ``ctx.prec`` bits stay
    exact; other rationals are enclosed)."""
    if isinstance(a, arb_mat):
        return a
    if isinstance(a, (list, tuple)):
        rows = _rows(a)
        if any(isinstance(x, arb) for row in rows for x in row):
            return arb_mat([[x if isinstance(x, arb) else arb(exact(x)) for x in row] for row in rows])
    return arb_mat(rational_matrix(a))


# -- the primitives of oracle.linalg, in balls -----------------------------------------------------

def entries(a) -> list:
    """The entries of an ``arb_mat`` or ``fmpq_mat``, row by row, as one flat list (a column's: its entries)."""
    return [a[i, j] for i in range(a.nrows()) for j in range(a.ncols())]



def _map(fn, a: arb_mat) -> arb_mat:
    return arb_mat(a.nrows(), a.ncols(), [fn(x) for x in entries(a)])


def entrywise(a, b) -> arb_mat:
    """The Hadamard product a ∘ b (oracle.linalg.entrywise)."""
    a, b = matrix(a), matrix(b)
    if (a.nrows(), a.ncols()) != (b.nrows(), b.ncols()):
        raise ValueError(f"a and b must have one shape, got {a.nrows()}×{a.ncols()} and {b.nrows()}×{b.ncols()}")
    return arb_mat(a.nrows(), a.ncols(), [x * y for x, y in zip(entries(a), entries(b))])


def exp_entrywise(a) -> arb_mat:
    """exp applied entrywise (oracle.linalg.exp_entrywise)."""
    return _map(lambda x: x.exp(), matrix(a))


def softmax(v) -> arb_mat:
    """exp(v)/⟨exp(v), 1⟩ of a column v (the softmax of paper 001's Definition 3.3)."""
    e = exp_entrywise(v)
    return e * (1 / sum(entries(e), arb(0)))


def norm2(v) -> arb:
    """The Euclidean norm of a vector (oracle.linalg.norm2)."""
    return frobenius(v)


def frobenius(a) -> arb:
    """‖a‖_F: the square root of the sum of squares (oracle.linalg.frobenius); the sum is cut to its
    nonnegative part first, so a norm enclosing 0 is a ball around 0, not NaN."""
    return sum((x * x for x in entries(matrix(a))), arb(0)).nonnegative_part().sqrt()


def norm_inf(v) -> arb:
    """max_i |v_i| (oracle.linalg.norm_inf)."""
    return greatest(abs(x) for x in entries(matrix(v)))


def frobenius_squared(q) -> fmpq:
    """‖q‖_F² of an exact matrix (or column), exactly: the sum of the squares of its entries."""
    return sum((x * x for x in entries(rational_matrix(q))), fmpq(0))


# -- the least and the greatest of balls -------------------------------------------------------------

def _extreme(balls: Iterable[arb], pick, what: str) -> arb:
    """The ball from ``pick`` (min or max) of the lower ends to ``pick`` of the upper ends (exact endpoints)."""
    balls = list(balls)
    if not balls:
        raise ValueError(f"balls must not be empty (the {what} of no balls is undefined)")
    lo = pick((b.lower() for b in balls), key=lambda x: x.mid())
    hi = pick((b.upper() for b in balls), key=lambda x: x.mid())
    return lo.union(hi)


def least(balls: Iterable[arb]) -> arb:
    """The enclosure of the least of the reals the balls enclose: from the least lower end to the least
    upper end (rigorous and tight; the balls' order does not matter)."""
    return _extreme(balls, min, "least")


def greatest(balls: Iterable[arb]) -> arb:
    """The enclosure of the greatest of the reals the balls enclose: from the greatest lower end to the
    greatest upper end."""
    return _extreme(balls, max, "greatest")


def quadratic_form(v, m) -> arb:
    """vᵀ m v for a column v (a witness's value: vᵀ(Y − X)v < 0 proves X ⪯ Y false)."""
    v, m = matrix(v), matrix(m)
    return (v.transpose() * m * v)[0, 0]


def eigvalsh(s) -> list[arb]:
    """Enclosures of the eigenvalues of a symmetric matrix, with multiplicity (order unspecified; the
    rigorous twin of oracle.linalg.eigvalsh).

    Computed by ``acb_mat.eig`` with a rigorous algorithm (clusters of equal eigenvalues handled by
    ``multiple=True``); raises :class:`UndecidableError` when they cannot be isolated at this precision."""
    s = matrix(s)
    n = s.nrows()
    if n != s.ncols():
        raise ValueError(f"s must be square, got {n}×{s.ncols()}")
    if not all((s[i, j] - s[j, i]).contains(0) for i in range(n) for j in range(i)):
        raise ValueError("s must be symmetric")
    try:
        values = acb_mat(s).eig(multiple=True)
    except (ValueError, ZeroDivisionError):
        # Arb's approximate start fails on some exactly structured matrices (diagonal ones with a repeated
        # eigenvalue): the exact similarity P⁻¹sP, P = I + a fixed rational perturbation, has the same
        # eigenvalues and no such structure
        p = fmpq_mat(n, n, [fmpq(1) if i == j else fmpq(1, 3 + i + 2 * j) for i in range(n) for j in range(n)])
        try:
            values = acb_mat(arb_mat(p.inv()) * s * arb_mat(p)).eig(multiple=True)
        except (ValueError, ZeroDivisionError) as exc:
            raise UndecidableError(f"eigenvalues not isolated at {ctx.prec} bits ({exc})") from None
    # a real symmetric matrix has real eigenvalues: the imaginary parts only widen the real balls
    return [z.real for z in values]


def spectral_norm(a) -> arb:
    """‖a‖₂ = √λ_max(aᵀa) (oracle.linalg.spectral_norm), enclosed through :func:`eigvalsh`."""
    a = matrix(a)
    gram = a.transpose() * a if a.nrows() >= a.ncols() else a * a.transpose()
    top = greatest(eigvalsh(gram))
    return top.nonnegative_part().sqrt()


def least_eigenvalue(s) -> arb:
    """An enclosure of λ_min of a symmetric matrix: the :func:`least` of its :func:`eigvalsh` balls."""
    return least(eigvalsh(s))


# -- building ball matrices ------------------------------------------------------------------------

def diag(values) -> arb_mat:
    """diag(values): the square ball matrix with ``values`` (balls or exact numbers) on its diagonal
    (oracle.linalg.diag)."""
    values = list(values)
    D = arb_mat(len(values), len(values))
    for k, v in enumerate(values):
        D[k, k] = v if isinstance(v, arb) else arb(exact(v))
    return D


def kron(P, Q):
    """The Kronecker product P ⊗ Q of two ``arb_mat`` or of two ``fmpq_mat`` (of their type):
    ``(P ⊗ Q)[a·q_r + c, b·q_c + e] = P[a, b]·Q[c, e]`` (oracle.linalg.kron)."""
    rows = [[P[a, b] * Q[c, e] for b in range(P.ncols()) for e in range(Q.ncols())]
            for a in range(P.nrows()) for c in range(Q.nrows())]
    return type(P)(rows) if rows and rows[0] else type(P)(P.nrows() * Q.nrows(), P.ncols() * Q.ncols())


# -- exact proofs ----------------------------------------------------------------------------------

def symmetric_pivots(s) -> tuple[list[fmpq], bool]:
    """The pivots of the symmetric elimination (LDLᵀ, no row exchanges) of a rational symmetric matrix,
    exactly, and whether every zero pivot met a zero remaining row (that row is then dropped; a zero
    pivot with a nonzero row makes the matrix indefinite)."""
    q = rational_matrix(s)
    n = q.nrows()
    if n != q.ncols():
        raise ValueError(f"s must be square, got {n}×{q.ncols()}")
    rows = [[q[i, j] for j in range(n)] for i in range(n)]
    if any(rows[i][j] != rows[j][i] for i in range(n) for j in range(i)):
        raise ValueError("s must be symmetric")
    pivots, consistent = [], True
    for k in range(n):
        pivot = rows[k][k]
        pivots.append(pivot)
        if pivot == 0:
            consistent = consistent and all(rows[k][j] == 0 for j in range(k + 1, n))
            continue
        for i in range(k + 1, n):
            factor = rows[i][k] / pivot
            for j in range(k + 1, n):
                rows[i][j] -= factor * rows[k][j]
    return pivots, consistent


def positive_definite_exact(s) -> bool:
    """True iff the rational symmetric matrix ``s`` is positive definite, decided exactly: every pivot of
    its LDLᵀ elimination positive (Sylvester)."""
    pivots, _ = symmetric_pivots(s)
    return all(p > 0 for p in pivots)


def positive_semidefinite_exact(s) -> bool:
    """True iff the rational symmetric matrix ``s`` is positive semidefinite, decided exactly: every pivot
    of its LDLᵀ elimination ≥ 0, and a zero pivot only with its remaining row zero."""
    pivots, consistent = symmetric_pivots(s)
    return consistent and all(p >= 0 for p in pivots)


def rational_vector(values: Sequence) -> fmpq_mat:
    """A witness column of rationals (e.g. an eigenvector rounded to float64, then exact)."""
    return rational_matrix([[x] for x in values])


def midpoint_fraction(x: arb) -> Fraction:
    """The midpoint of a ball, exactly (a dyadic rational), for recording an enclosure."""
    man, exp = x.mid().man_exp()
    return Fraction(int(man)) * (Fraction(2) ** int(exp))


def radius_fraction(x: arb) -> Fraction:
    """The radius of a ball, exactly (an upper bound on the distance from the midpoint)."""
    man, exp = x.rad().man_exp()
    return Fraction(int(man)) * (Fraction(2) ** int(exp))


def ball(mid: Fraction, rad: Fraction) -> arb:
    """The ball [mid ± rad] from exact rationals, enclosed outward at the current precision."""
    m = arb(fmpq(mid.numerator, mid.denominator))
    r = arb(fmpq(rad.numerator, rad.denominator))
    return m + arb(0, r.upper().mid()) if rad else m

