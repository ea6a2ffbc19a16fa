"""Adapter checks for full-column-rank least squares judged by forward AND backward error.

The ``lstsq`` adapter of :mod:`properties.linear_algebra` judges the normal-equations residual
``‖Aᵀ(b − Ax̂)‖``, which a backward-unstable solver (the normal equations themselves, plain
sketch-and-precondition) can meet on an ill-conditioned ``A``.  ``least_squares`` here is judged,
against the exact solution ``x* = A⁺b`` (``oracle.linalg.lstsq`` in mpmath on the float64 data,
held exactly), by the two errors a backward-stable solver (Householder QR) guarantees
(u = 2⁻⁵³, N = max(n, d), ε = 16·N·u, κ = κ₂(A), r* = b − Ax*):

- forward error ``‖x̂ − x*‖/‖x*‖ ≤ κε/(1 − κε) · (2 + (κ + 1)·‖r*‖/(‖A‖‖x*‖))`` — the
  perturbation bound for ``‖ΔA‖ ≤ ε‖A‖``, ``‖Δb‖ ≤ ε‖b‖`` (Higham, *Accuracy and Stability of
  Numerical Algorithms*, 2nd ed., Thm 20.1), i.e. what a backward error of ε allows; the normal
  equations' ``κ²u`` error on a small-residual problem exceeds it once ``κ ≳ 16N``;
- backward error ``η(x̂) ≤ ε‖A‖_F``, with ``η(x̂) = min{‖ΔA‖_F : x̂ minimises ‖(A+ΔA)x − b‖}``
  computed exactly by the formula of Waldén, Karlson and Sun (Numer. Linear Algebra Appl. 2, 1995;
  Higham Thm 20.5 with ``θ = ∞``): ``η = min{μ, σ_n([A, μ(I − r̂r̂ᵀ/‖r̂‖²)])}``, ``μ = ‖r̂‖/‖x̂‖``,
  ``r̂ = b − Ax̂`` (exact); ``η = 0`` when ``r̂ = 0``, and ``η(0) = ‖Aᵀb‖/‖b‖`` (the smallest
  ``ΔA`` with ``(A+ΔA)ᵀb = 0`` is ``−b bᵀA/‖b‖²``).

Instances: ``A = U diag(σ) Vᵀ`` with ``κ`` up to 1e12 (and the corner families "square
ill-conditioned" and "n = 1"), ``b = Ax + r`` with ``r`` orthogonal to range(A) in float64 and of
relative size 1e-12 … 10, so both the small-residual regime (where ``κ`` rules) and the
large-residual one (where ``κ²‖r‖`` rules) are drawn; ``n`` up to 16 rows with ``d ≤ 4``, so a
solver that sketches to a few times ``d`` rows does sketch.  Every validation first runs fixed
corners (:func:`corners`): 16 × 3 with κ = 1e10 and a residual as large as ``‖Ax*‖``, where plain
sketch-and-precondition (one preconditioned Krylov run) misses the backward-error rule by 10²–10⁴,
16 × 3 with κ = 1e10 and a tiny residual, where the normal equations miss the forward rule by
~10⁵, a square 4 × 4 with κ = 1e12, and a 1 × 1.  The search is steered (``target``) towards large
κ and large residuals.  An ``x* = 0`` or a numerically rank-deficient ``A`` does not meet the
contract's hypotheses and is skipped.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from mpmath import mp

from oracle import linalg, to_mp

from .contract import AdapterSet, U, output, within
from .toolkit import require, worst
from .toolkit.strategies import (
    conditioned_matrices,
    corner_matrices,
    dims,
    fixed_matrix,
    log10_cond,
    scalars,
    vectors,
    with_corners,
)

__all__ = ["ADAPTERS", "backward_error", "corners", "problems"]

ADAPTERS = AdapterSet()


@st.composite
def problems(draw, *, max_rows: int = 16, max_cols: int = 4, max_log10_cond: float = 12.0):
    """``(A, b, seed)``: a full-column-rank ``A`` (n ≤ max_rows, d ≤ max_cols, κ ≤ 10^max_log10_cond,
    square and one-row corners included) and ``b = Ax + r`` with ``r ⟂ range(A)`` of drawn size."""
    shape = dims(1, max_rows).flatmap(lambda n: st.tuples(st.just(n), dims(1, min(n, max_cols))))
    n, d = draw(shape, label="shape")
    corners = st.one_of(corner_matrices(n, n, kinds=("square ill-conditioned",), max_log10_cond=max_log10_cond),
                        corner_matrices(1, 1, kinds=("n = 1",)))
    A = draw(with_corners(conditioned_matrices(n, d, max_log10_cond=max_log10_cond), corners, weight=0.2), label="A")
    x = draw(vectors(st.just(A.shape[1])), label="x")
    g = draw(vectors(st.just(A.shape[0])), label="residual direction")
    size = 10.0 ** draw(scalars(-12.0, 1.0), label="log10 residual size")
    Q = np.linalg.qr(A)[0]
    r = g - Q @ (Q.T @ g)
    Ax = A @ x
    nr = np.linalg.norm(r)
    b = Ax + (size * max(np.linalg.norm(Ax), 1.0) / nr) * r if nr > 0 else Ax
    return A, b, draw(st.integers(0, 2**32 - 1), label="seed")


def corners():
    """The fixed instances every validation runs first (module docstring), built from seeds."""
    out = []
    for n, d, log_kappa, size, seed in ((16, 3, 10, 1.0, 0), (16, 3, 10, 1.0, 1), (16, 3, 10, 1e-10, 2),
                                        (4, 4, 12, 0.0, 3), (1, 1, 0, 0.0, 4)):
        rng = np.random.default_rng(seed)
        U = np.linalg.qr(rng.standard_normal((n, n)))[0]
        V = np.linalg.qr(rng.standard_normal((d, d)))[0]
        A = (U[:, :d] * np.logspace(0.0, -log_kappa, d)) @ V.T
        Ax = A @ rng.standard_normal(d)
        out.append((A, Ax + size * np.linalg.norm(Ax) * U[:, -1], seed))
    return out


def _targets(inst):
    """Search targets: log10 κ(A) and log10 of the relative residual (both large is the hard case)."""
    A, b, _ = inst
    x = np.linalg.lstsq(A, b, rcond=None)[0]
    ratio = np.linalg.norm(b - A @ x) / max(np.linalg.norm(b), 1e-300)
    return {"log10 cond": log10_cond(A), "log10 residual": float(np.log10(max(ratio, 1e-17)))}


def backward_error(M, bb, xx):
    """The exact normwise backward error ``η(x̂) = min{‖ΔA‖_F : x̂ ∈ argmin ‖(A+ΔA)x − b‖}``
    (Waldén–Karlson–Sun 1995; Higham Thm 20.5, θ = ∞), in mpmath: the residual of the float64 data
    exactly (4600 more bits hold every product and sum), ``σ_n`` at the working precision raised by
    ``log10(μ/‖A‖_F)`` digits, so its absolute error stays about ``10^-dps·‖A‖_F`` however large ``μ``
    is (at 60 digits alone, A = [[−1], [−4.08e-280]], b = [−4.08e-280, 1] and the correctly rounded
    x̂ = 2⁻⁹⁸¹ gave η/‖A‖_F = 1 for a true 8e-855)."""
    with mp.workprec(mp.prec + 4600):
        r = bb - M * xx
        nr, nx, nF = linalg.norm2(r), linalg.norm2(xx), linalg.norm2(M)
    if nr == 0:
        return mp.mpf(0)
    if nx == 0:
        return linalg.norm2(M.T * bb) / linalg.norm2(bb)
    mu = nr / nx
    n = M.rows
    with mp.workdps(mp.dps + (int(mp.log10(mu / nF)) + 1 if mu > nF > 0 else 0)):
        P = mp.matrix(n, M.cols + n)
        for i in range(n):
            for j in range(M.cols):
                P[i, j] = M[i, j]
            for j in range(n):
                P[i, M.cols + j] = mu * ((1 if i == j else 0) - r[i] * r[j] / nr**2)
        eta = min(mu, linalg.sigma_min(P))
    return +eta


def _magnitude_corners():
    """(A, b, seed) with A and b near 1e150 (‖A‖_F² and ‖b‖² overflow, x* of order 1), near 1e-150 (their squares
    underflow), and entries above 10 (11 + a fixed matrix)."""
    A, b = fixed_matrix(4, 2), np.cos(np.arange(4.0))
    return [(A * 1e150, b * 1e150, 3), (A * 1e-150, b * 1e-150, 3), (A + 11.0, b * 12.0, 3)]


def _size_corners():
    """n = 7 … 32 rows at d = 2; stops at 32: the 60-digit σ_min of the n × (n + d) matrix of the backward error
    costs about 2 s from n = 33."""
    return [(fixed_matrix(n, 2), np.cos(np.arange(float(n))), 3) for n in (7, 8, 9, 16, 17, 32)]


@ADAPTERS("least_squares", signature="least_squares(A: (n, d) array, b: (n,) array, seed: int) -> (d,) array",
          doc="argmin_x ‖Ax − b‖₂ for a full-column-rank A (n ≥ d), to the accuracy of a backward-stable "
              "solver; seed fixes any randomness",
          tolerance="ε = 16·max(n,d)·u: ‖x̂ − x*‖/‖x*‖ ≤ κε/(1−κε)·(2 + (κ+1)‖r*‖/(‖A‖‖x*‖)) and "
                    "backward error η(x̂) ≤ ε‖A‖_F (exact Waldén–Karlson–Sun formula)",
          strategy=problems, seeded="seed", corners=corners, targets=_targets, magnitude_corners=_magnitude_corners,
          size_corners=_size_corners)
def _least_squares(inst, fn):
    A, b, seed = inst
    with mp.workdps(60):
        M, bb = to_mp(A), to_mp(b)
        sv = linalg.singular_values(M)
        require(sv[-1] > 1e-13 * sv[0], "A has full column rank with κ(A) ≤ 1e13")
        xs = linalg.lstsq(M, bb)
        nxs = linalg.norm2(xs)
        require(nxs > 0, "x* = A⁺b is nonzero (the relative forward error is defined)")
        x = output(fn(A.copy(), b.copy(), seed), "least_squares", shape=(A.shape[1],))
        xx = to_mp(x)
        kappa, nA = sv[0] / sv[-1], sv[0]
        eps = 16 * max(A.shape) * U
        rs = linalg.norm2(bb - M * xs)
        ke = kappa * eps
        fwd_tol = ke / (1 - ke) * (2 + (kappa + 1) * rs / (nA * nxs)) if ke < 1 else mp.inf
        fwd = linalg.norm2(xx - xs) / nxs
        bwd = backward_error(M, bb, xx)
        nF = linalg.norm2(M)
        note = f"κ = {mp.nstr(kappa, 3)}, ‖r*‖/(‖A‖‖x*‖) = {mp.nstr(rs / (nA * nxs), 3)}"
        return worst(within(fwd, fwd_tol, f"forward error {mp.nstr(fwd, 3)}; {note}"),
                     within(bwd, eps * nF, f"backward error η/‖A‖_F = {mp.nstr(bwd / nF, 3)}; {note}"))
