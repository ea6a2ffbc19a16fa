"""A backward-stable sketch-preconditioned least-squares solver (JAX, float64): SPIR.

SPIR — *sketch-and-precondition with iterative refinement* — of Epperly, Meier and Nakatsukasa,
"Fast randomized least-squares solvers can be just as accurate and stable as classical direct
solvers" (arXiv:2406.03468, 2024), §1 and §5: the sketch-and-precondition iteration run twice,
the second run on the residual of the first, each restarted from a freshly computed residual
``b − A x``.  Plain sketch-and-precondition (one preconditioned Krylov run) is forward stable at
best and not backward stable for ill-conditioned ``A`` (Meier, Nakatsukasa, Townsend, Webb,
SIMAX 45, 2024); the paper shows that the refined run (SPIR, and its Polyak-momentum sibling
FOSSILS) reaches the backward error of Householder QR.

For ``A ∈ R^{n×d}`` (``n ≥ d``, full column rank) and ``b ∈ R^n``:

1. Sketch with ``m = min(n, ⌈oversampling·d⌉)`` rows (:mod:`solvers.sketches`; ``S = I`` when
   ``m ≥ n``, reported as ``sketch="identity"``): ``B = SA``, ``c = Sb``; Householder QR
   ``B = QR``.  ``R`` is the preconditioner (applied by triangular solves, never inverted).
2. Sketch-and-solve start ``x₀ = R⁻¹Qᵀc``.
3. For ``k = 1, 2`` (``refinements``): ``r = b − A x_{k−1}`` in float64, then preconditioned
   CGLS (the Krylov method of the paper's SPIR is LSQR; CGLS is the same Krylov iteration in
   exact arithmetic) on ``min_δ ‖Aδ − r‖`` from ``δ = 0`` with the variable ``y = Rδ``; stop when
   ``‖(AR⁻¹)ᵀρ‖ ≤ tol·‖ρ‖`` for the inner residual ``ρ`` or after ``max_iterations``;
   ``x_k = x_{k−1} + δ``.

Cost: the sketch, a QR of ``m × d``, and one blocked pass over ``A`` per CGLS iteration
(:func:`solvers.least_squares.fused_pass`, which forms ``Av`` and ``Aᵀ(Av)`` reading ``A`` once)
plus one per refinement for the residual.  The problem is solved on ``A``, ``b`` scaled by exact
powers of two (:func:`solvers.least_squares.unit_scale`), so nothing overflows inside.

Randomness: ``key`` (a ``jax.random`` key or an int seed, :func:`solvers.sketches.as_key`).
"""

from __future__ import annotations

import math
from numbers import Real
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.scipy.linalg import solve_triangular

from . import sketches as sk
from .least_squares import check_A, check_b, fused_pass, scale_back, unit_scale

__all__ = ["SKETCHES", "StableResult", "spir"]

SKETCHES = ("countsketch", "osnap", "srht", "gaussian")
_U = 2.0**-53


class StableResult(NamedTuple):
    """Output of :func:`spir`.

    ``x``: solution. ``iterations``: CGLS iterations of each refinement, in order;
    ``converged``: whether each refinement met its stopping rule. ``matvecs``: passes over ``A``
    (each gives ``Av`` and ``Aᵀ(·)``; the sketch excluded). ``sketch``: kind used
    (``"identity"`` when ``m ≥ n``); ``sketch_rows``: ``m``; ``qr_shape``: shape factorised.
    """

    x: jax.Array
    iterations: tuple
    converged: tuple
    matvecs: int
    sketch: str
    sketch_rows: int
    qr_shape: tuple


def _check_real(value, name: str, lo: float, hi: float) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ValueError(f"{name}={value!r} must be a real number")
    v = float(value)
    if not (math.isfinite(v) and lo <= v <= hi):
        raise ValueError(f"{name}={value!r} must be in [{lo}, {hi}]")
    return v


@jax.jit
def _cgls(A, x, b, Rt, tol, cap):
    """One refinement: ``x + δ`` with ``δ ≈ argmin ‖Aδ − (b − Ax)‖`` by CGLS preconditioned with
    ``R⁻¹`` (``Rt`` = R), started at ``δ = 0``; stops when ``‖(AR⁻¹)ᵀρ‖ ≤ tol·‖ρ‖`` or after ``cap``."""
    rho, t = fused_pass(A, x, b, True)
    rho, t = -rho, -t  # ρ = b − A x, t = Aᵀρ
    s = solve_triangular(Rt, t, lower=False, trans=1)
    gamma = s @ s

    def cond(st):
        k, _, rho, _, _, gamma = st
        return (k < cap) & (jnp.sqrt(gamma) > tol * jnp.linalg.norm(rho))

    def body(st):
        k, delta, rho, t, p, gamma = st
        Rp = solve_triangular(Rt, p, lower=False)
        q, Atq = fused_pass(A, Rp, None, True)
        qq = q @ q
        alpha = jnp.where(qq > 0, gamma / jnp.where(qq > 0, qq, 1.0), 0.0)
        delta = delta + alpha * Rp
        rho = rho - alpha * q
        t = t - alpha * Atq
        s = solve_triangular(Rt, t, lower=False, trans=1)
        gamma_new = s @ s
        p = s + jnp.where(gamma > 0, gamma_new / jnp.where(gamma > 0, gamma, 1.0), 0.0) * p
        return k + 1, delta, rho, t, p, gamma_new

    k, delta, rho, _, _, gamma = lax.while_loop(cond, body, (jnp.asarray(0), jnp.zeros_like(x), rho, t, s, gamma))
    return x + delta, k, jnp.sqrt(gamma) <= tol * jnp.linalg.norm(rho)


@jax.jit
def _qr_start(SA, Sb):
    Q, Rt = jnp.linalg.qr(SA, mode="reduced")
    return Rt, solve_triangular(Rt, Q.T @ Sb, lower=False)


def spir(A, b, *, key, sketch: str = "countsketch", oversampling: float = 4.0, sparsity: int = 8,
         refinements: int = 2, tol: float = 2.0**-50, max_iterations: int = 100,
         rank_rtol: float = 1e-15) -> StableResult:
    """SPIR (Epperly, Meier, Nakatsukasa 2024): ``argmin_x ‖Ax − b‖`` to the backward error of
    Householder QR, by sketch-and-precondition with iterative refinement (module docstring).

    **Arguments:** ``A`` ``(n, d)``, finite, ``n ≥ d``, full column rank; ``b`` ``(n,)``, finite;
    ``key``: jax key or int seed. Keywords: ``sketch`` (``"countsketch"``, ``"osnap"`` — the
    sparse sign embedding, ``sparsity`` nonzeros per column —, ``"srht"``, ``"gaussian"``);
    ``oversampling`` ≥ 1: ``m = ⌈oversampling·d⌉`` sketch rows; ``refinements`` (2, as in the
    paper; 1 is plain sketch-and-precondition from the sketch-and-solve start, kept for
    comparison); ``tol`` in [2⁻⁵³, 1): the CGLS stopping rule; ``max_iterations``: CGLS cap per
    refinement; ``rank_rtol``: ``ValueError`` when ``min|R_ii| ≤ rank_rtol·max|R_ii|`` for the R
    factor of ``SA`` (``A`` numerically rank deficient).

    **Returns:** :class:`StableResult`.
    """
    A = check_A(A)
    n, d = A.shape
    b = check_b(b, "b", n, "A.shape[0]")
    if sketch not in SKETCHES:
        raise ValueError(f"sketch={sketch!r} must be one of {SKETCHES}")
    oversampling = _check_real(oversampling, "oversampling", 1.0, 1e6)
    sparsity = sk.check_int(sparsity, "sparsity", 1, 2**31 - 1)
    refinements = sk.check_int(refinements, "refinements", 1, 16)
    tol = _check_real(tol, "tol", _U, 1.0)
    max_iterations = sk.check_int(max_iterations, "max_iterations", 0, 2**31 - 1)
    rank_rtol = _check_real(rank_rtol, "rank_rtol", 0.0, 1.0)
    key = sk.as_key(key)
    A, a_exp = unit_scale(A)
    b, b_exp = unit_scale(b)
    m = math.ceil(oversampling * d)
    if m >= n:
        kind, m, SA, Sb = "identity", n, A, b
    else:
        kind = sketch
        bits = sk.sketch_bits(kind, key, n, m, s=min(sparsity, m) if kind == "osnap" else None)
        SA, Sb = sk.sketch_apply(kind, bits, A), sk.sketch_apply(kind, bits, b)
    Rt, x = _qr_start(SA, Sb)
    diag = np.abs(np.asarray(jnp.diag(Rt)))
    if not np.all(np.isfinite(diag)) or diag.min() <= rank_rtol * diag.max():
        raise ValueError(f"A must have full column rank: min|R_ii|/max|R_ii| = "
                         f"{diag.min() / max(diag.max(), 1e-300):.3e} <= rank_rtol={rank_rtol:g} for the R "
                         f"factor of the sketched A ({kind}, {m} rows)")
    iters, conv = [], []
    for _ in range(refinements):
        x, k, ok = _cgls(A, x, b, Rt, tol, max_iterations)
        iters.append(int(k))
        conv.append(bool(ok))
    return StableResult(
        x=scale_back(x, b_exp - a_exp, "the solution x of min ‖Ax − b‖"), iterations=tuple(iters),
        converged=tuple(conv), matvecs=sum(iters) + refinements, sketch=kind, sketch_rows=int(m),
        qr_shape=tuple(SA.shape))
