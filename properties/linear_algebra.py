"""Adapter checks for the basic linear algebra every paper relies on.

Tolerance rules (u = 2⁻⁵³, the float64 unit roundoff; N = max(n, d)):
- ``spectral_norm``, ``sigma_min``: singular values are perfectly conditioned in the absolute sense
  (Weyl), and a backward-stable SVD perturbs A by ≤ c·N·u·‖A‖, so |σ̂ − σ| ≤ 16·N·u·‖A‖.
- ``condition_number``: κ̂ relative error ≤ 16·N·u·‖A‖/σ_min (σ_min's absolute error over σ_min),
  plus 16·N·u for σ_max.
- ``lstsq``: backward stability gives ‖Aᵀ(b − A x̂)‖ ≤ 16·N·u·‖A‖·(‖A‖‖x̂‖ + ‖b‖) — a residual test,
  independent of κ(A), so it neither excuses a wrong answer on a well-conditioned A nor condemns a
  good one on an ill-conditioned A.  A rank-deficient A is allowed (any least-squares solution passes).
- ``kron``: one rounded product per entry: |ẑ − z| ≤ u·|z| entrywise.
The exact side is computed by the oracle from the float64 inputs (held exactly).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import linalg, to_mp

from .contract import AdapterSet, U, output, within
from .toolkit.strategies import conditioned_matrices, dims, matrices, vectors

__all__ = ["ADAPTERS"]

ADAPTERS = AdapterSet()


def _matrices():
    return st.one_of(matrices(dims(1, 5), dims(1, 5)), conditioned_matrices(dims(1, 5), st.just(1)),
                     dims(2, 5).flatmap(lambda n: conditioned_matrices(st.just(n + 1), st.just(n))))


@ADAPTERS("spectral_norm", signature="spectral_norm(A: (n, d) array) -> float",
         doc="‖A‖₂, the largest singular value", tolerance="|σ̂ − σ| ≤ 16·max(n,d)·u·‖A‖",
         strategy=_matrices)
def _spectral_norm(A, fn):
    got = float(output(fn(A.copy()), "spectral_norm", shape=()))
    with mp.workdps(50):
        true = linalg.spectral_norm(to_mp(A))
        tol = 16 * max(A.shape) * U * true
        return within(abs(got - true), tol, f"got {got!r}, oracle {mp.nstr(true, 17)}")


@ADAPTERS("sigma_min", signature="sigma_min(A: (n, d) array) -> float",
         doc="σ_{min(n,d)}(A), the smallest singular value", tolerance="|σ̂ − σ| ≤ 16·max(n,d)·u·‖A‖",
         strategy=_matrices)
def _sigma_min(A, fn):
    got = float(output(fn(A.copy()), "sigma_min", shape=()))
    with mp.workdps(50):
        M = to_mp(A)
        true = linalg.sigma_min(M)
        tol = 16 * max(A.shape) * U * linalg.spectral_norm(M)
        return within(abs(got - true), tol, f"got {got!r}, oracle {mp.nstr(true, 17)}")


@ADAPTERS("condition_number", signature="condition_number(A: (n, d) array) -> float",
         doc="κ(A) = σ_max/σ_min (inf allowed only when σ_min is within rounding of 0)",
         tolerance="|κ̂ − κ|/κ ≤ 16·max(n,d)·u·(1 + ‖A‖/σ_min)",
         strategy=lambda: dims(2, 5).flatmap(lambda n: conditioned_matrices(st.just(n), dims(1, n))))
def _condition_number(A, fn):
    raw = fn(A.copy())
    is_inf = not np.iscomplexobj(raw) and np.shape(raw) == () and np.asarray(raw, dtype=np.float64) == np.inf
    got = float("inf") if is_inf else float(output(raw, "condition_number", shape=()))
    with mp.workdps(50):
        M = to_mp(A)
        smax, smin = linalg.spectral_norm(M), linalg.sigma_min(M)
        true = smax / smin
        tol_rel = 16 * max(A.shape) * U * (1 + smax / smin)
        if got == float("inf"):
            return within(mp.inf, tol_rel, f"got inf, oracle {mp.nstr(true, 17)}")
        return within(abs(got - true) / true, tol_rel, f"got {got!r}, oracle {mp.nstr(true, 17)}")


@ADAPTERS("lstsq", signature="lstsq(A: (n, d) array, b: (n,) array) -> (d,) array",
         doc="a least-squares solution argmin_x ‖Ax − b‖₂",
         tolerance="‖Aᵀ(b − A x̂)‖ ≤ 16·max(n,d)·u·‖A‖·(‖A‖‖x̂‖ + ‖b‖)",
         strategy=lambda: dims(1, 6).flatmap(
             lambda n: st.tuples(st.one_of(matrices(n, dims(1, n)), conditioned_matrices(n, dims(1, n))),
                                 vectors(n))))
def _lstsq(inst, fn):
    A, b = inst
    x = output(fn(A.copy(), b.copy()), "lstsq", shape=(A.shape[1],))
    with mp.workdps(50):
        M, bb, xx = to_mp(A), to_mp(b), to_mp(x)
        normal = linalg.norm2(M.T * (bb - M * xx))
        nA = linalg.spectral_norm(M)
        tol = 16 * max(A.shape) * U * nA * (nA * linalg.norm2(xx) + linalg.norm2(bb))
        return within(normal, tol, f"‖Aᵀ(b − A x̂)‖ = {mp.nstr(normal, 5)} for x̂ = {x.tolist()}")


@ADAPTERS("kron", signature="kron(x: (p,) array, y: (q,) array) -> (p*q,) array",
         doc="x ⊗ y with (x ⊗ y)[a·q + b] = x[a]·y[b] (row-major vec(x yᵀ))",
         tolerance="|ẑ_i − z_i| ≤ u·|z_i| for every i",
         strategy=lambda: st.tuples(vectors(dims(1, 4)), vectors(dims(1, 4))))
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
