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
4. The backward-error rule (ours, not the paper's): from the second refinement on, each ``x_k`` is
   judged by the sketched Karlson–Waldén estimate ``η̂ = ‖(RᵀR + μ²I)^{-1/2} Aᵀr_k‖/(‖x_k‖·‖R‖)``,
   ``μ = ‖r_k‖/‖x_k‖`` (the Karlson–Waldén estimate ``‖(AᵀA + μ²I)^{-1/2}Aᵀr‖/‖x‖``, within √2 of the
   optimal backward error, with ``AᵀA`` replaced by its sketch ``RᵀR``; from the fresh residual
   ``r_k`` that the next refinement starts from anyway, and the SVD of the ``d × d`` factor ``R``).
   While ``η̂ > 2u``, refinements continue, up to ``max_refinements``; the iterate with the smallest
   ``η̂`` is returned.  Why: in the regime ``κ²u‖r‖/‖A‖ ≳ ‖x‖`` each refinement moves ``x`` along the
   smallest singular directions by a fresh rounding-noise sample of about that size, and when the
   correction ``δ`` is much longer than the new ``x``, the rounding of ``x + δ``, about ``u‖δ‖``,
   lands in the well-conditioned directions too: a backward error of about ``u‖δ‖/‖x‖``.  Measured
   on ``n = 2048``, ``d = 16``, ``κ = 1e10``, ``‖r‖ = ‖Ax‖`` (12 instances × 4 keys): two refinements
   reach up to 53·u (median 0.6·u, Householder QR ≤ 1.8·u); the estimate tracks the Karlson–Waldén
   estimate within a factor 1.4 there, and a further refinement brings such an iterate back to
   about 0.3·u.

Cost: the sketch, a QR (and an SVD) of ``m × d`` (``d × d``), and one blocked pass over ``A`` per
CGLS iteration (:func:`solvers.least_squares.fused_pass`, which forms ``Av`` and ``Aᵀ(Av)`` reading
``A`` once) plus one per refinement for the residual and one more for the last iterate's.  The
problem is solved on ``A``, ``b`` scaled by exact powers of two
(:func:`solvers.least_squares.unit_scale`), so nothing overflows inside.

Randomness: ``key`` (a ``jax.random`` key or an int seed, :func:`solvers.sketches.as_key`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.scipy.linalg import solve_triangular

from . import sketches as sk
from ._validation import check_int, check_real
from .least_squares import check_A, check_b, fused_pass, scale_back, unit_scale
from .results import Status, stopping_status

__all__ = ["SKETCHES", "StableResult", "check_refinement_options", "preconditioned_cgls", "spir"]

SKETCHES = ("countsketch", "osnap", "srht", "gaussian")
_U = 2.0**-53


def check_refinement_options(sketch: str, sketches: tuple, oversampling, sparsity, refinements, tol, max_iterations,
                             rank_rtol) -> tuple:
    """The options of the sketch-precondition-refine solvers (:func:`spir`, ``cholqr_lstsq``), checked:
    ``sketch`` one of ``sketches``, ``oversampling`` in [1, 10⁶], ``sparsity`` ≥ 1, ``refinements`` in
    [1, 16], ``tol`` in [2⁻⁵³, 1], ``max_iterations`` ≥ 0, ``rank_rtol`` in [0, 1].  Returns them after
    ``sketch`` in that order; ValueError naming the argument and the rule."""
    if sketch not in sketches:
        raise ValueError(f"sketch={sketch!r} must be one of {sketches}")
    return (check_real("oversampling", oversampling, lo=1.0, hi=1e6), check_int("sparsity", sparsity, lo=1, hi=2**31 - 1),
            check_int("refinements", refinements, lo=1, hi=16), check_real("tol", tol, lo=_U, hi=1.0),
            check_int("max_iterations", max_iterations, lo=0, hi=2**31 - 1),
            check_real("rank_rtol", rank_rtol, lo=0.0, hi=1.0))
_ETA_STOP = 2 * _U  # the backward-error rule: refine while the estimate η̂ exceeds 2u


class StableResult(NamedTuple):
    """Output of :func:`spir`.

    ``x``: solution. ``iterations``: CGLS iterations of each refinement run, in order;
    ``status``: ``Status.CONVERGED`` when each refinement met its stopping rule, else
    ``Status.MAX_ITERATIONS`` (:mod:`solvers.results`). ``matvecs``: passes over ``A``
    (each gives ``Av`` and ``Aᵀ(·)``; the sketch excluded). ``sketch``: kind used
    (``"identity"`` when ``m ≥ n``); ``sketch_rows``: ``m``; ``qr_shape``: shape factorised.
    ``backward_error``: the sketched Karlson–Waldén estimate ``η̂`` of ``x`` (module docstring,
    step 4), relative to ``‖A‖``.
    """

    x: jax.Array
    status: Status
    iterations: tuple
    matvecs: int
    sketch: str
    sketch_rows: int
    qr_shape: tuple
    backward_error: float


@jax.jit
def _residual(A, x, b):
    """``(ρ, t)``: the fresh residual ``ρ = b − Ax`` and ``t = Aᵀρ``, in one pass over ``A``."""
    rho, t = fused_pass(A, x, b, True)
    return -rho, -t


@jax.jit
def preconditioned_cgls(A, x, rho, t, Rt, tol, cap, inverse=None):
    """One refinement: ``x + δ`` with ``δ ≈ argmin ‖Aδ − ρ‖`` (``ρ = b − Ax``, ``t = Aᵀρ``) by CGLS
    preconditioned with ``R⁻¹`` (``Rt`` = R, upper triangular), started at ``δ = 0``; stops when
    ``‖(AR⁻¹)ᵀρ‖ ≤ tol·‖ρ‖`` or after ``cap`` iterations.  Returns ``(x + δ, iterations, converged)``.
    ``inverse``: ``R⁻¹`` itself as a matrix (then ``Rt`` is ignored), applied by products instead
    of triangular solves — for a preconditioner known as an explicit product, as in
    :mod:`solvers.cholesky_qr`, so that the operator iterated on is exactly ``A·inverse``.
    Shared by SPIR and :mod:`solvers.cholesky_qr`."""
    if inverse is None:
        forward = lambda v: solve_triangular(Rt, v, lower=False)  # noqa: E731  R⁻¹v
        adjoint = lambda v: solve_triangular(Rt, v, lower=False, trans=1)  # noqa: E731  R⁻ᵀv
    else:
        forward = lambda v: inverse @ v  # noqa: E731
        adjoint = lambda v: v @ inverse  # noqa: E731
    s = adjoint(t)
    gamma = s @ s

    def cond(st):
        k, _, rho, _, _, gamma = st
        return (k < cap) & (jnp.sqrt(gamma) > tol * jnp.linalg.norm(rho))

    def body(st):
        k, delta, rho, t, p, gamma = st
        Rp = forward(p)
        q, Atq = fused_pass(A, Rp, None, True)
        qq = q @ q
        alpha = jnp.where(qq > 0, gamma / jnp.where(qq > 0, qq, 1.0), 0.0)
        delta = delta + alpha * Rp
        rho = rho - alpha * q
        t = t - alpha * Atq
        s = adjoint(t)
        gamma_new = s @ s
        p = s + jnp.where(gamma > 0, gamma_new / jnp.where(gamma > 0, gamma, 1.0), 0.0) * p
        return k + 1, delta, rho, t, p, gamma_new

    k, delta, rho, _, _, gamma = lax.while_loop(cond, body, (jnp.asarray(0), jnp.zeros_like(x), rho, t, s, gamma))
    return x + delta, k, jnp.sqrt(gamma) <= tol * jnp.linalg.norm(rho)


@jax.jit
def _backward_estimate(x, rho, t, Zt, sv):
    """The sketched Karlson–Waldén estimate ``‖(RᵀR + μ²I)^{-1/2}Aᵀρ‖/(‖x‖·‖R‖)``, ``μ = ‖ρ‖/‖x‖``,
    from ``R = W diag(sv) Zt`` (module docstring, step 4); ``x = 0``: ``‖Aᵀb‖/(‖b‖·‖R‖)``."""
    nx = jnp.linalg.norm(x)
    safe = jnp.where(nx > 0, nx, 1.0)
    mu = jnp.linalg.norm(rho) / safe
    kw = jnp.linalg.norm((Zt @ t) / jnp.sqrt(sv**2 + mu**2)) / safe
    nr = jnp.linalg.norm(rho)
    at_zero = jnp.linalg.norm(t) / jnp.where(nr > 0, nr, 1.0)
    return jnp.where(nx > 0, kw, at_zero) / sv[0]


@jax.jit
def _qr_start(SA, Sb):
    Q, Rt = jnp.linalg.qr(SA, mode="reduced")
    return Rt, solve_triangular(Rt, Q.T @ Sb, lower=False)


def spir(A, b, *, key, sketch: str = "countsketch", oversampling: float = 4.0, sparsity: int = 8,
         refinements: int = 2, max_refinements: int | None = None, tol: float = 2.0**-50,
         max_iterations: int = 100, rank_rtol: float = 1e-15) -> StableResult:
    """SPIR (Epperly, Meier, Nakatsukasa 2024): ``argmin_x ‖Ax − b‖`` to the backward error of
    Householder QR, by sketch-and-precondition with iterative refinement (module docstring).

    **Arguments:** ``A`` ``(n, d)``, finite, ``n ≥ d``, full column rank; ``b`` ``(n,)``, finite;
    ``key``: jax key or int seed. Keywords: ``sketch`` (``"countsketch"``, ``"osnap"`` — the
    sparse sign embedding, ``sparsity`` nonzeros per column —, ``"srht"``, ``"gaussian"``);
    ``oversampling`` ≥ 1: ``m = ⌈oversampling·d⌉`` sketch rows; ``refinements`` (2, as in the
    paper; 1 is plain sketch-and-precondition from the sketch-and-solve start, kept for
    comparison); ``max_refinements`` (≥ ``refinements``; default ``refinements + 2`` for
    ``refinements ≥ 2``, and 1 for plain sketch-and-precondition): further refinements while the
    backward-error estimate exceeds 2u (module docstring, step 4); ``tol`` in [2⁻⁵³, 1): the CGLS
    stopping rule; ``max_iterations``: CGLS cap per refinement; ``rank_rtol``: ``ValueError`` when
    ``min|R_ii| ≤ rank_rtol·max|R_ii|`` for the R factor of ``SA`` (``A`` numerically rank deficient).

    **Returns:** :class:`StableResult`.
    """
    A = check_A(A)
    n, d = A.shape
    b = check_b(b, "b", n, "A.shape[0]")
    oversampling, sparsity, refinements, tol, max_iterations, rank_rtol = check_refinement_options(
        sketch, SKETCHES, oversampling, sparsity, refinements, tol, max_iterations, rank_rtol)
    if max_refinements is None:
        max_refinements = refinements + 2 if refinements >= 2 else refinements
    max_refinements = check_int("max_refinements", max_refinements, lo=refinements, hi=16)
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
    _, sv, Zt = jnp.linalg.svd(Rt)
    iters, conv = [], []
    best = (math.inf, x)
    rho, t = _residual(A, x, b)
    for j in range(max_refinements):
        x, k, ok = preconditioned_cgls(A, x, rho, t, Rt, tol, max_iterations)
        iters.append(int(k))
        conv.append(bool(ok))
        rho, t = _residual(A, x, b)  # the next refinement's start, and the estimate's
        if j + 1 < refinements:
            continue
        eta = float(_backward_estimate(x, rho, t, Zt, sv))
        if j + 1 == refinements or eta < best[0]:
            best = (eta, x)
        if eta <= _ETA_STOP:
            break
    return StableResult(
        x=scale_back(best[1], b_exp - a_exp, "the solution x of min ‖Ax − b‖"), iterations=tuple(iters),
        status=stopping_status(all(conv)), matvecs=sum(iters) + len(iters) + 1, sketch=kind, sketch_rows=int(m),
        qr_shape=tuple(SA.shape), backward_error=best[0])
