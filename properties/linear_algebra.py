"""Adapter checks for the basic linear algebra every paper relies on.

Tolerance rules (u = 2⁻⁵³, the float64 unit roundoff; N = max(n, d)):
- ``spectral_norm``, ``sigma_min``: singular values are perfectly conditioned in the absolute sense
  (Weyl), and a backward-stable SVD perturbs A by ≤ c·N·u·‖A‖, so |σ̂ − σ| ≤ 16·N·u·‖A‖.
- ``condition_number``: κ̂ relative error ≤ 16·N·u·‖A‖/σ_min (σ_min's absolute error over σ_min),
  plus 16·N·u for σ_max.
- ``lstsq``: backward stability gives ‖Aᵀ(b − A x̂)‖ ≤ 16·N·u·‖A‖·(‖A‖‖x̂‖ + ‖b‖) — a residual test,
  independent of κ(A), so it neither excuses a wrong answer on a well-conditioned A nor condemns a
  good one on an ill-conditioned A.  A rank-deficient A is allowed (any least-squares solution passes).
  On a square nonsingular A the system is consistent and backward stability (QR, SVD) also gives
  ‖b − A x̂‖ ≤ 16·N·u·(‖A‖‖x̂‖ + ‖b‖); the normal equations (which square κ) miss it by a factor ≈ κ,
  while their normal-equation residual is still small — so both are judged.
Fixed corners (entries whose squares overflow or underflow, square κ up to 1e12, n = 1, zeros, ties,
Hadamard columns; entries of 1e±250 and above 10; the sizes of ``_SIZES``) are judged after every search;
the searches of ``condition_number`` and ``lstsq`` also mix in
:func:`~properties.toolkit.strategies.corner_matrices` with weight 0.3, those of ``spectral_norm`` and
``sigma_min`` the fixed corners and corner matrices with weight 0.1, and all push ``target()`` on log10 κ(A)
and on the magnitude of A.
- ``kron``: one rounded product per entry: |ẑ − z| ≤ u·|z| entrywise.
The exact side is computed by the oracle from the float64 inputs (held exactly).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import linalg, to_mp

from .contract import AdapterSet, U, output, within
from .toolkit import require
from .toolkit.strategies import (
    conditioned_matrices,
    corner_matrices,
    dims,
    fixed_matrix,
    log10_cond,
    matrices,
    vectors,
    walsh_hadamard_columns,
    with_corners,
)

__all__ = ["ADAPTERS"]

ADAPTERS = AdapterSet()


_FULL_RANK_CORNERS = ("square ill-conditioned", "n = 1", "huge", "tiny", "hadamard")


def _matrices():
    """General and tall conditioned matrices for the singular values, mixed with weight 0.1 with their
    corners (:func:`_corners` and drawn corner matrices: squares past overflow and underflow, κ up to 1e12,
    one row, Hadamard columns).  The weight is small and the corner branch is the top of the selector, so
    a failure of the plain branch still shrinks to its minimal witness (two unit entries for a Frobenius
    norm taken for the spectral one, tests/properties/meta/test_validator.py)."""
    plain = st.one_of(matrices(dims(1, 5), dims(1, 5)), conditioned_matrices(dims(1, 5), st.just(1)),
                      dims(2, 5).flatmap(lambda n: conditioned_matrices(st.just(n + 1), st.just(n))))
    corners = st.one_of(st.sampled_from(_corners()), corner_matrices(dims(1, 5), dims(1, 5), kinds=_FULL_RANK_CORNERS))
    return with_corners(plain, corners, weight=0.1)


def _square(n: int, log10_cond: float) -> np.ndarray:
    """A fixed square n × n matrix with singular values 1 … 10^−log10_cond, rotated on both sides
    (so no entry is small): the square ill-conditioned corner."""
    q1, _ = np.linalg.qr(np.vander(np.linspace(1.0, 2.0, n), increasing=True) + np.eye(n))
    q2, _ = np.linalg.qr(np.cos(np.add.outer(np.arange(n), 2.0 * np.arange(n))) + 2 * np.eye(n))
    return (q1 * 10.0 ** (-log10_cond * np.linspace(0.0, 1.0, n))) @ q2.T


def _corners():
    """Fixed corners judged after every search: squares past overflow / below underflow, κ = 1e12
    square, one row, ties, zeros, Hadamard columns."""
    return [np.array([[1e200]]), np.array([[1e-200, 0.0], [0.0, 3e-201]]), np.array([[3e160, 4e160], [1.0, 0.0]]),
            _square(4, 12.0), np.array([[3.0, 4.0]]), np.ones((3, 2)), np.zeros((2, 2)), walsh_hadamard_columns(4, 2)]


def _lstsq_corners():
    """Square systems with κ = 1e3, 1e6, 1e12 (where the normal equations lose κ² digits), one
    equation, huge entries."""
    b4 = np.array([1.0, -2.0, 0.5, 3.0])
    return [(_square(2, 3.0), b4[:2]), (_square(3, 6.0), b4[:3]), (_square(4, 12.0), b4),
            (np.array([[1e200]]), np.array([5.0])), (np.array([[2.0], [1.0]]), np.array([1.0, 0.0]))]


_SIZES = ((7, 7), (8, 8), (9, 9), (16, 3), (17, 3), (32, 2), (33, 2), (64, 2), (65, 2), (3, 17), (2, 65))
"""(n, d) of the size corners: rows and columns crossing :data:`~properties.toolkit.strategies.PATH_SIZES`;
squares stop at 9 (a 50-digit SVD of a 17 × 17 matrix costs seconds)."""


def _magnitudes():
    """The fixed matrix scaled to entries of ~1e250 and ~1e-250 (squares and ‖A‖_F² overflow or underflow:
    a norm needs scaling), and to entries above 10 (12 + the matrix)."""
    A = fixed_matrix(3, 2)
    return [A * 1e250, A * 1e-250, A + 12.0, np.array([[1e300, -1e300], [1e-300, 5.0]])]


def _sizes():
    return [fixed_matrix(n, d) for n, d in _SIZES]


def _targets(A):
    """log10 κ(A) and log10 max|A_ij|: where squaring (normal equations, ‖A‖² sums) fails first."""
    top = float(np.max(np.abs(A))) if A.size else 0.0
    return {"log10 cond(A)": log10_cond(A), "log10 max|A|": float(np.log10(top)) if top > 0 else -400.0}


def _lstsq_targets(inst):
    return _targets(inst[0])


def _lstsq_instances():
    square = dims(2, 5).flatmap(lambda n: st.tuples(
        corner_matrices(n, n, kinds=("square ill-conditioned",)), vectors(st.just(n))))
    general = dims(1, 6).flatmap(lambda n: st.one_of(
        matrices(st.just(n), dims(1, n)), conditioned_matrices(n, dims(1, n)), corner_matrices(n, dims(1, n)))).flatmap(
        lambda A: st.tuples(st.just(A), vectors(st.just(A.shape[0]))))  # a corner may round its rows up (Hadamard)
    return with_corners(general, square, weight=0.3)


def _singular_value_adapter(name, *, doc, value):
    """Register ``name(A) -> float`` for the singular value ``value(M)`` of A (mpmath, 50 digits), judged
    |σ̂ − σ| ≤ 16·max(n,d)·u·‖A‖: a backward-stable SVD moves every σ_i by at most ‖ΔA‖ (Weyl)."""
    def compare(A, fn):
        got = float(output(fn(A.copy()), name, shape=()))
        with mp.workdps(50):
            M = to_mp(A)
            true = value(M)
            tol = 16 * max(A.shape) * U * linalg.spectral_norm(M)
            return within(abs(got - true), tol, f"got {got!r}, oracle {mp.nstr(true, 17)}", expected=float(true),
                          symbols=(("n", A.shape[0]), ("d", A.shape[1]), ("‖A‖", linalg.spectral_norm(M))))

    compare.__name__ = compare.__qualname__ = f"_{name}"
    ADAPTERS(name, signature=f"{name}(A: (n, d) array) -> float", doc=doc, tolerance="|σ̂ − σ| ≤ 16·max(n,d)·u·‖A‖",
             strategy=_matrices, targets=_targets, corners=_corners, magnitude_corners=_magnitudes,
             size_corners=_sizes)(compare)


_singular_value_adapter("spectral_norm", doc="‖A‖₂, the largest singular value", value=linalg.spectral_norm)
_singular_value_adapter("sigma_min", doc="σ_{min(n,d)}(A), the smallest singular value", value=linalg.sigma_min)


@ADAPTERS("condition_number", signature="condition_number(A: (n, d) array) -> float",
         doc="κ(A) = σ_max/σ_min (inf allowed only when σ_min is within rounding of 0)",
         tolerance="|κ̂ − κ|/κ ≤ 16·max(n,d)·u·(1 + ‖A‖/σ_min)",
         strategy=lambda: with_corners(dims(2, 5).flatmap(lambda n: conditioned_matrices(st.just(n), dims(1, n))),
                                       corner_matrices(dims(1, 5), dims(1, 5), kinds=_FULL_RANK_CORNERS), weight=0.3),
         targets=_targets, corners=lambda: [_square(4, 12.0), _square(2, 3.0), np.array([[1e200, 0.0], [0.0, 1e199]]),
                                            np.array([[3.0, 4.0]]).T, walsh_hadamard_columns(4, 2)],
         magnitude_corners=lambda: _magnitudes()[:3], size_corners=_sizes)
def _condition_number(A, fn):
    raw = fn(A.copy())
    is_inf = not np.iscomplexobj(raw) and np.shape(raw) == () and np.asarray(raw, dtype=np.float64) == np.inf
    got = float("inf") if is_inf else float(output(raw, "condition_number", shape=()))
    with mp.workdps(50):
        M = to_mp(A)
        smax, smin = linalg.spectral_norm(M), linalg.sigma_min(M)
        require(smin > 0, "κ(A) is finite only for a full-rank A")
        true = smax / smin
        tol_rel = 16 * max(A.shape) * U * (1 + smax / smin)
        if got == float("inf"):
            return within(mp.inf, tol_rel, f"got inf, oracle {mp.nstr(true, 17)}")
        return within(abs(got - true) / true, tol_rel, f"got {got!r}, oracle {mp.nstr(true, 17)}")


@ADAPTERS("lstsq", signature="lstsq(A: (n, d) array, b: (n,) array) -> (d,) array",
         doc="a least-squares solution argmin_x ‖Ax − b‖₂",
         tolerance="‖Aᵀ(b − A x̂)‖ ≤ 16·max(n,d)·u·‖A‖·(‖A‖‖x̂‖ + ‖b‖), and on a square nonsingular A also "
                   "‖b − A x̂‖ ≤ 16·n·u·(‖A‖‖x̂‖ + ‖b‖) (backward stability of a consistent system)",
         strategy=_lstsq_instances, targets=_lstsq_targets, corners=_lstsq_corners,
         magnitude_corners=lambda: [(A, np.arange(1.0, A.shape[0] + 1) * A[0, 0]) for A in _magnitudes()[:3]],
         size_corners=lambda: [(A, np.cos(np.arange(A.shape[0]))) for A in _sizes()])
def _lstsq(inst, fn):
    A, b = inst
    x = output(fn(A.copy(), b.copy()), "lstsq", shape=(A.shape[1],))
    with mp.workdps(50):
        M, bb, xx = to_mp(A), to_mp(b), to_mp(x)
        r = bb - M * xx
        normal = linalg.norm2(M.T * r)
        nA = linalg.spectral_norm(M)
        scale = nA * linalg.norm2(xx) + linalg.norm2(bb)
        c = 16 * max(A.shape) * U
        out = within(normal, c * nA * scale, f"‖Aᵀ(b − A x̂)‖ = {mp.nstr(normal, 5)} for x̂ = {x.tolist()}")
        if A.shape[0] == A.shape[1] and out.holds and linalg.sigma_min(M) > 0:
            res = linalg.norm2(r)
            out = within(res, c * scale,
                         f"square nonsingular A: ‖b − A x̂‖ = {mp.nstr(res, 5)}, tolerance 16·n·u·(‖A‖‖x̂‖ + ‖b‖) = "
                         f"{mp.nstr(c * scale, 5)}, for x̂ = {x.tolist()} (κ(A) ≈ {10 ** log10_cond(A):.3g})")
        return out


@ADAPTERS("kron", signature="kron(x: (p,) array, y: (q,) array) -> (p*q,) array",
         doc="x ⊗ y with (x ⊗ y)[a·q + b] = x[a]·y[b] (row-major vec(x yᵀ))",
         tolerance="|ẑ_i − z_i| ≤ u·|z_i| for every i",
         strategy=lambda: st.tuples(vectors(dims(1, 4)), vectors(dims(1, 4))),
         magnitude_corners=lambda: [(np.array([1e150, -11.0, 3e-150, 0.0, 12.5]), np.array([1e150, -13.0, 1e-100])),
                                    (np.array([1e300]), np.array([-1.5, 1e-300, 100.0])),
                                    (np.array([10.1, -30.3]), np.array([11.7, 0.1]))],
         size_corners=lambda: [(np.sin(np.arange(1.0, p + 1)), np.cos(np.arange(1.0, q + 1)))
                               for p, q in ((7, 9), (8, 8), (9, 7), (16, 17), (17, 16), (32, 33), (33, 32), (64, 65),
                                            (65, 1), (1, 65))])
def _kron(inst, fn):
    x, y = inst
    z = output(fn(x.copy(), y.copy()), "kron", shape=(x.size * y.size,))
    with mp.workdps(50):
        exact = linalg.kron(to_mp(x), to_mp(y))
        worst = mp.mpf(0)
        for i in range(exact.rows):
            err = abs(mp.mpf(z[i]) - exact[i])
            scale = abs(exact[i])
            worst = max(worst, err / scale if scale else (mp.inf if err else mp.mpf(0)))
        return within(worst / U, mp.mpf(1), f"worst entrywise relative error {mp.nstr(worst, 5)}")
