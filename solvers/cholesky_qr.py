"""A backward-stable least-squares solver built on randomized Cholesky QR (JAX, float64).

Randomized Cholesky QR (Balabanov, "Randomized Cholesky QR factorizations", arXiv:2210.09953,
2022; Higgins, Szyld, Boman, Yamazaki, "Analysis of randomized Householder-Cholesky QR
factorization with multisketching", arXiv:2309.05868, 2024, ``rand_cholQR``) gives the R factor
of a tall ``A ∈ R^{n×d}`` from two BLAS-3 sweeps, stable for κ(A) up to about ``1/u``:

1. Sketch ``SA`` with a sparse embedding (:mod:`solvers.sketches` CountSketch or OSNAP,
   ``m = ⌈oversampling·d⌉`` rows; ``S = I`` when ``m ≥ n``, reported as ``"identity"``) and take
   its Householder QR ``SA = Q_s R_s``.  ``Y = A R_s⁻¹`` is well conditioned whatever κ(A) is
   (κ(Y) ≤ (1+ε)/(1−ε) for an ε-embedding of range(A)).
2. Cholesky QR of ``Y``: ``G = YᵀY``, ``G = R_cᵀR_c``; ``R = R_c R_s``.  ``Y`` is never stored: one
   blocked pass over ``A`` forms each row block of ``Y`` and adds its Gram to ``G`` while the block is
   in cache.  The Gram products run in float32 (accumulated in float64) for κ(R_s) ≤ ``solve_cond``:
   ``Y`` is well conditioned and of norm about 1, so they lose about ``u₃₂ ≈ 6·10⁻⁸`` of ``G``, which
   only makes ``R`` a slightly worse preconditioner; the float64 refinement of step 3 removes it.  How the block of
   ``Y`` is formed depends on κ(R_s), the sketch's estimate of κ(A) (:attr:`CholQRResult.route`):

   - ``"gram"`` (κ(R_s) ≤ ``gram_cond``, 1e2): no ``Y`` at all; the pass forms the float32 Gram of
     ``A`` (exactly rescaled) and ``G = R_s⁻ᵀ(AᵀA)R_s⁻¹``, an error of about ``κ²u₃₂ ≤ 10⁻³``.
   - ``"product"`` (κ(R_s) ≤ ``solve_cond``, 2e12): ``y = a X`` with ``X`` the computed inverse of
     ``R_s``, a float64 ``gemm`` (XLA's row-by-row triangular solve takes twice as long on CPU, and a
     recursive blocked one no less: 2.4 s against 1.5 s for this pass at 2^19 × 256, measured).
     CGLS is then preconditioned with ``P = X R_c⁻¹``, the operator whose Gram ``G`` is, so ``AP`` is
     orthonormal to the pass's rounding whatever the error of ``X`` as an inverse (``R_c R_s`` in its
     place would not be: tested, the backward error at κ = 3·10¹⁰ grew 1000-fold).  Its backward error
     grows about as κ² beyond 10¹² (worst of 24 instances, 2048 × 16 and 300 × 40, residuals 10⁻¹⁰ to
     1: 1.2u at κ = 10¹², 1.7u at 2·10¹², 4.2u at 3·10¹², 10u at 5·10¹², 122u at 10¹³), hence the bound.
   - ``"solve"`` (κ(R_s) > ``solve_cond``): ``y`` by a triangular solve with ``R_s`` (backward stable row
     by row), its Gram in float64, and CGLS solves with ``R``: three times slower, but the route that
     keeps QR's backward error as κ(A) nears ``1/u`` (measured at κ = 10¹⁵, 2048 × 16, residual 10⁻¹⁰:
     0.1u; the product route 36u, and the solve route with a float32 Gram 131u).
3. The solution: ``R`` preconditions CGLS on ``min ‖Ax − b‖``; ``AR⁻¹`` has orthonormal columns to
   ``O(u·κ(A))`` (and ``u₃₂``), so each CGLS run converges in a few passes.  As in SPIR (Epperly, Meier,
   Nakatsukasa, arXiv:2406.03468, 2024; :mod:`solvers.stable_least_squares`) the run is repeated
   ``refinements`` times (default 2), each from a freshly computed residual ``b − Ax`` in float64:
   iterative refinement, which is what makes the result backward stable (the backward error of
   Householder QR; claims of the ``least_squares`` adapter contract, :mod:`properties.least_squares`).

Cost: one pass for the sketch (a gather of the rows of ``A`` bucket by bucket, :func:`sparse_sketch`;
OSNAP: one per nonzero of a column), which is also the finiteness check (``SA`` is finite exactly
when ``A`` is: every row lands in a bucket with a nonzero weight; a separate check runs only when it
is not), one pass carrying ``2n·d²`` float32 flops of Gram products (and, on the ``"product"`` route,
``2n·d²`` float64 flops of ``A X``), the ``d × d`` work, and one pass over ``A`` per CGLS iteration plus
one per refinement (:func:`solvers.least_squares.fused_pass`).  :attr:`CholQRResult.passes` counts them.

Failure is reported, never returned as NaN: a sketch whose R factor is numerically rank deficient
(``min|R_ii| ≤ rank_rtol·max|R_ii|``), or a Gram matrix whose Cholesky factorisation breaks down
(κ(A) beyond about ``1/u``), raises ``ValueError`` saying which.

Randomness: ``key`` (a ``jax.random`` key or an int seed, :func:`solvers.sketches.as_key`).
"""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.scipy.linalg import solve_triangular

from . import sketches as sk
from ._validation import check_int, check_real, require_finite
from .least_squares import check_A, check_b, fused_pass, scale_back, unit_scale
from .results import Status, stopping_status
from .stable_least_squares import check_refinement_options, preconditioned_cgls

__all__ = ["SKETCHES", "CholQRResult", "bucket_table", "cholqr_lstsq", "rand_cholesky_qr", "sparse_sketch"]

SKETCHES = ("countsketch", "osnap")


class CholQRResult(NamedTuple):
    """Output of :func:`cholqr_lstsq`.

    ``x``: solution. ``iterations``: CGLS iterations of each refinement, in order; ``status``:
    ``Status.CONVERGED`` when each met its stopping rule, else ``Status.MAX_ITERATIONS``
    (:mod:`solvers.results`). ``passes``: passes over ``A`` in all (sketch, Gram pass,
    one per CGLS iteration and one per refinement; two more when ``A`` had to be rescaled).
    ``sketch``: kind used (``"identity"`` when ``m ≥ n``); ``sketch_rows``: ``m``;
    ``kappa_sketched``: κ(R_s), the sketch's estimate of κ(A) (from the singular values of ``R_s``);
    ``route``: how the Gram pass formed ``G`` (``"gram"``, ``"product"`` or ``"solve"``; module
    docstring, step 2).
    """

    x: jax.Array
    status: Status
    iterations: tuple
    passes: int
    sketch: str
    sketch_rows: int
    kappa_sketched: float
    route: str


# ----------------------------------------------------------------------------- the sketch


def bucket_table(kind: str, bits: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The sparse embedding of ``bits`` (:func:`solvers.sketches.countsketch_bits` or
    :func:`~solvers.sketches.osnap_bits`) as a padded table ``(I, W)`` of shape ``(c, m)``:
    ``S @ A = Σ_t W[t][:, None] * A[I[t]]``, i.e. row ``t`` of the table lists, for every bucket
    (row of ``S``), one row of ``A`` that lands there and its weight (sign, ÷√s for OSNAP); a
    bucket with fewer than ``c`` rows is padded with weight 0.  ``c`` is the fullest bucket's
    count or ``λ + 4√λ`` (``λ = s·n/m``, the mean load), whichever is larger, rounded up to a
    multiple of 8: the same for almost every key, so the gathers compile once per shape."""
    m = int(bits["m"])
    if kind == "countsketch":
        rows, signs, s = np.asarray(bits["rows"])[None], np.asarray(bits["signs"])[None], 1
    elif kind == "osnap":
        rows, signs = np.asarray(bits["rows"]), np.asarray(bits["signs"])
        s = rows.shape[0]
    else:
        raise ValueError(f"kind={kind!r} must be one of {SKETCHES}")
    if rows.shape != (s, n) or signs.shape != (s, n):
        raise ValueError(f"bits['rows'].shape={rows.shape}, bits['signs'].shape={signs.shape} must be ({s}, {n})")
    bucket = rows.ravel()
    if bucket.min() < 0 or bucket.max() >= m:
        raise ValueError(f"bits['rows'] must lie in [0, m={m})")
    source = np.tile(np.arange(n, dtype=np.int64), s)
    weight = signs.ravel().astype(np.float64) / math.sqrt(s)
    order = np.argsort(bucket, kind="stable")
    count = np.bincount(bucket, minlength=m)
    first = np.concatenate([[0], np.cumsum(count)[:-1]])
    slot = np.arange(bucket.size) - np.repeat(first, count)
    lam = bucket.size / m  # the mean load; c padded to a size that depends on the key only when rare
    c = -(-max(int(count.max()), math.ceil(lam + 4 * math.sqrt(lam))) // 8) * 8  # (one compiled shape)
    I = np.zeros((c, m), np.int64)
    W = np.zeros((c, m), np.float64)
    I[slot, bucket[order]] = source[order]
    W[slot, bucket[order]] = weight[order]
    return I, W


@partial(jax.jit, static_argnames=("chunk",))
def _gather_sketch(A, I, W, chunk):
    c, m = I.shape
    d = A.shape[1]

    def one_chunk(iw):  # the buckets of one chunk: their sums stay in cache over the c gathers
        Ic, Wc = iw
        body = lambda t, acc: acc + Wc[t][:, None] * A[Ic[t]]  # noqa: E731
        return lax.fori_loop(0, c, body, jnp.zeros((Ic.shape[1], d), A.dtype))

    k = m // chunk
    out = lax.map(one_chunk, (I[:, :k * chunk].reshape(c, k, chunk).transpose(1, 0, 2),
                              W[:, :k * chunk].reshape(c, k, chunk).transpose(1, 0, 2))).reshape(k * chunk, d)
    if k * chunk < m:
        out = jnp.concatenate([out, one_chunk((I[:, k * chunk:], W[:, k * chunk:]))])
    return out


def sparse_sketch(A, I, W) -> jax.Array:
    """``S @ A`` for the table ``(I, W)`` of :func:`bucket_table`, reading each row of ``A`` once
    per nonzero of its column of ``S`` (no scatter): buckets in chunks of about 1 MiB of output,
    each chunk summed over the table's ``c`` rows by gathers from ``A``."""
    chunk = max(1, min(I.shape[1], 2**17 // A.shape[1]))
    return _gather_sketch(A, jnp.asarray(I), jnp.asarray(W), chunk)


# ----------------------------------------------------------------------------- the factorisation


def _block_rows(d: int) -> int:
    """Rows per block of the Gram pass: about 2 MiB of ``A`` (≥ 64 rows)."""
    return max(64, 2**18 // d)


@partial(jax.jit, static_argnames=("block", "route"))
def _gram_pass(A, Rs, X, b, scale, block, route):
    """``(G, c) ≈ (YᵀY, Yᵀb)`` for ``Y ≈ A R_s⁻¹``, one row block at a time (``Y`` is never stored;
    module docstring, step 2): ``Yᵀb`` in float64; the Gram products in float32 (accumulated block by
    block in float64) except on the ``"solve"`` route.  ``route``: ``"product"``, ``y = a X`` (``X`` the
    computed ``R_s⁻¹``); ``"solve"``, ``y R_s = a`` by a triangular solve; ``"gram"``, the Gram of ``scale·A`` and ``scale·Aᵀb``
    (``scale`` a power of two with ``scale·‖R_s‖ < 1``: every entry far inside float32's range), then
    ``Xᵀ(·)X`` and ``Xᵀ(·)`` in float64."""
    n, d = A.shape
    nb = n // block

    def gram(a, bb, G, c):
        if route == "solve":  # y R_s = a, and its Gram in float64
            y = lax.linalg.triangular_solve(Rs, a, left_side=False, lower=False)
            return G + y.T @ y, c + bb @ y
        y = a @ X if route == "product" else a * scale
        y32 = y.astype(jnp.float32)
        return G + (y32.T @ y32).astype(A.dtype), c + bb @ y

    G, c = jnp.zeros((d, d), A.dtype), jnp.zeros((d,), A.dtype)
    if nb > 0:
        def body(i, st):
            return gram(lax.dynamic_slice(A, (i * block, 0), (block, d)), lax.dynamic_slice(b, (i * block,), (block,)),
                        *st)

        G, c = lax.fori_loop(0, nb, body, (G, c))
    if nb * block < n:
        G, c = gram(A[nb * block:], b[nb * block:], G, c)
    if route == "gram":
        G = X.T @ (G / scale**2) @ X
        c = X.T @ (c / scale)
    return (G + G.T) / 2, c


@jax.jit
def _sketch_qr(SA):
    """``(R_s, X, σ(R_s))``: ``R_s`` with a positive diagonal and its inverse ``X`` (a triangular solve
    of the identity: ``d³/3`` flops, against ``n·d²`` for ``A R_s⁻¹`` row by row)."""
    Rs = jnp.linalg.qr(SA, mode="r")
    Rs = Rs * jnp.where(jnp.diag(Rs) < 0, -1.0, 1.0)[:, None]
    X = solve_triangular(Rs, jnp.eye(Rs.shape[0], dtype=Rs.dtype), lower=False)
    return Rs, X, jnp.linalg.svd(Rs, compute_uv=False)


@partial(jax.jit, static_argnames=("route",))
def _combine(G, Rs, X, c, route):
    """``(R, P, x₀)``: ``R = R_c R_s`` (``G = R_cᵀR_c``); the preconditioner ``P = X R_c⁻¹`` (``≈ R⁻¹``,
    and exactly the product whose Gram ``G`` approximates, so ``AP`` is orthonormal to the pass's
    rounding) or, on the ``"solve"`` route, ``None`` (CGLS then solves with ``R``, as the pass solved
    with ``R_s``); the start ``x₀ = R⁻¹R_c⁻ᵀ c``, applied the same way."""
    Rc = jnp.linalg.cholesky(G).T
    Rc_inv = solve_triangular(Rc, jnp.eye(Rc.shape[0], dtype=Rc.dtype), lower=False)
    R = Rc @ Rs
    if route == "solve":
        return R, None, solve_triangular(R, c @ Rc_inv, lower=False)
    P = X @ Rc_inv
    return R, P, P @ (c @ Rc_inv)


def _checked_diag(R, what: str, rank_rtol: float, kind: str, m: int) -> None:
    diag = np.abs(np.asarray(jnp.diag(R)))
    if not np.all(np.isfinite(diag)) or diag.min() <= rank_rtol * diag.max():
        ratio = diag.min() / max(diag.max(), 1e-300) if np.all(np.isfinite(diag)) else float("nan")
        raise ValueError(f"A must have full column rank: {what} (sketch {kind}, {m} rows): "
                         f"min|R_ii|/max|R_ii| = {ratio:.3e} <= rank_rtol={rank_rtol:g} or not finite")


def rand_cholesky_qr(A, *, key, sketch: str = "countsketch", oversampling: float = 4.0, sparsity: int = 4,
                     rank_rtol: float = 1e-15, gram_cond: float = 1e2, solve_cond: float = 2e12):
    """The R factor of ``A`` by randomized Cholesky QR (module docstring, steps 1–2).

    **Arguments:** ``A`` ``(n, d)`` finite, ``n ≥ d``, full column rank; ``key``; ``sketch``
    (``"countsketch"`` or ``"osnap"`` with ``sparsity`` nonzeros per column); ``oversampling`` ≥ 1;
    ``rank_rtol``: the rank test on ``R_s`` and on ``R``; ``gram_cond`` ≥ 0 and ``solve_cond`` ≥ 0:
    the bounds on κ(R_s) that choose the Gram pass's route (``"gram"`` up to ``gram_cond``, then
    ``"product"`` up to ``solve_cond``, then ``"solve"``; module docstring, step 2).

    **Returns:** ``(R, info)``: ``R`` upper triangular ``(d, d)`` with a positive diagonal and
    ``AR⁻¹`` orthonormal to about ``u·κ(A)`` (and the float32 Gram's ``u₃₂``); ``info`` a dict
    (``sketch``, ``sketch_rows``, ``passes``, ``kappa_sketched``, ``route``).  ``ValueError`` for bad
    input or a rank-deficient sketch or Gram matrix (module docstring).
    """
    A = check_A(A, finite=False)
    if sketch not in SKETCHES:
        raise ValueError(f"sketch={sketch!r} must be one of {SKETCHES}")
    oversampling = check_real("oversampling", oversampling, lo=1.0, hi=1e6)
    sparsity = check_int("sparsity", sparsity, lo=1, hi=2**31 - 1)
    rank_rtol = check_real("rank_rtol", rank_rtol, lo=0.0, hi=1.0)
    bounds = check_real("gram_cond", gram_cond, lo=0.0), check_real("solve_cond", solve_cond, lo=0.0)
    _, e, R, _, _, info = _factor(A, jnp.zeros(A.shape[0], A.dtype), sk.as_key(key), sketch, oversampling, sparsity,
                                  rank_rtol, bounds)
    return scale_back(R, e, "the R factor of A"), info


def _sketch(A, key, sketch, oversampling, sparsity):
    """``(kind, m, SA, passes)``."""
    n, d = A.shape
    m = math.ceil(oversampling * d)
    if m >= n:
        return "identity", n, A, 0
    bits = sk.sketch_bits(sketch, key, n, m, s=min(sparsity, m) if sketch == "osnap" else None)
    I, W = bucket_table(sketch, bits, n)
    return sketch, m, sparse_sketch(A, I, W), 1 if sketch == "countsketch" else min(sparsity, m)


def _factor(A, b, key, sketch, oversampling, sparsity, rank_rtol, bounds):
    """``(A·2^{−e}, e, R, P, x₀, info)`` (``bounds = (gram_cond, solve_cond)``): the factorisation of
    ``A`` rescaled by an exact power of two when ``max|SA|`` (within a factor ``√(md)`` of
    ``‖SA‖_F ≈ ‖A‖_F``) lies outside ``[2⁻³⁸⁰, 2³⁸⁰]`` or the sketch overflowed; else ``e = 0`` and
    ``A`` itself (no copy).  A non-finite ``SA`` is where a non-finite ``A`` is caught (module docstring)."""
    kind, m, SA, passes = _sketch(A, key, sketch, oversampling, sparsity)
    size = float(jnp.max(jnp.abs(SA)))  # not a norm: squares of tiny entries would flush to 0
    e = 0
    if not (size == 0.0 or 2.0**-380 <= size <= 2.0**380):  # a copy of A: only near float64's ends
        if not math.isfinite(size):  # NaN or inf in A, or a finite A whose sketch overflowed
            require_finite("A", A, what="must be finite (it holds NaN or inf)")
            passes += 1
        A, e = unit_scale(A)
        kind, m, SA, more = _sketch(A, key, sketch, oversampling, sparsity)
        passes += more + 1
    Rs, X, sv = _sketch_qr(SA)
    _checked_diag(Rs, "the R factor of the sketch SA", rank_rtol, kind, m)
    sv = np.asarray(sv)
    kappa = float(sv[0] / sv[-1])
    route = "gram" if kappa <= bounds[0] else "product" if kappa <= bounds[1] else "solve"
    scale = 2.0 ** -math.frexp(float(sv[0]))[1]  # scale·‖R_s‖ in [1/2, 1): scale·A fits float32 (1 ± ε)
    G, c = _gram_pass(A, Rs, X, b, scale, _block_rows(A.shape[1]), route)
    R, P, x0 = _combine(G, Rs, X, c, route)
    _checked_diag(R, "the Cholesky factor of (A R_s⁻¹)ᵀ(A R_s⁻¹) (κ(A) near 1/u or beyond)", rank_rtol, kind, m)
    info = dict(sketch=kind, sketch_rows=int(m), passes=passes + 1, kappa_sketched=kappa, route=route)
    return A, e, R, P, x0, info


# ----------------------------------------------------------------------------- the solve


@jax.jit
def _cgls(A, x, b, R, P, tol, cap):
    """One refinement of ``x`` by CGLS preconditioned with ``P ≈ R⁻¹`` (with ``R`` itself when ``P`` is
    ``None``; SPIR's, from ``ρ = b − Ax``): ``(x + δ, iterations, converged)``."""
    rho, t = fused_pass(A, x, b, True)
    return preconditioned_cgls(A, x, -rho, -t, R, tol, cap, inverse=P)  # ρ = b − Ax, t = Aᵀρ


def cholqr_lstsq(A, b, *, key, sketch: str = "countsketch", oversampling: float = 4.0, sparsity: int = 4,
                 refinements: int = 2, tol: float = 2.0**-50, max_iterations: int = 50,
                 rank_rtol: float = 1e-15, gram_cond: float = 1e2, solve_cond: float = 2e12) -> CholQRResult:
    """``argmin_x ‖Ax − b‖₂`` to the backward error of Householder QR, by randomized Cholesky QR
    and ``refinements`` runs of CGLS preconditioned with its ``R`` (module docstring).

    **Arguments:** ``A`` ``(n, d)``, finite, ``n ≥ d``, full column rank; ``b`` ``(n,)``, finite;
    ``key``: jax key or int seed.  Keywords: ``sketch`` (``"countsketch"`` or ``"osnap"``),
    ``oversampling`` ≥ 1 (``m = ⌈oversampling·d⌉`` sketch rows), ``sparsity`` (OSNAP's nonzeros
    per column), ``refinements`` in [1, 16], ``tol`` in [2⁻⁵³, 1) (CGLS stopping rule),
    ``max_iterations`` (CGLS cap per refinement), ``rank_rtol``, ``gram_cond`` and ``solve_cond``
    (see :func:`rand_cholesky_qr`).

    **Returns:** :class:`CholQRResult`.  **Raises:** ``ValueError`` for bad input, and for an ``A``
    that is numerically rank deficient (the sketch's or the Gram matrix's factor fails the rank test).
    """
    A = check_A(A, finite=False)
    n, d = A.shape
    b = check_b(b, "b", n, "A.shape[0]")
    oversampling, sparsity, refinements, tol, max_iterations, rank_rtol = check_refinement_options(
        sketch, SKETCHES, oversampling, sparsity, refinements, tol, max_iterations, rank_rtol)
    key = sk.as_key(key)
    b, b_exp = unit_scale(b)
    bounds = check_real("gram_cond", gram_cond, lo=0.0), check_real("solve_cond", solve_cond, lo=0.0)
    A, a_exp, R, P, x, info = _factor(A, b, key, sketch, oversampling, sparsity, rank_rtol, bounds)
    iters, conv = [], []
    for _ in range(refinements):
        x, k, ok = _cgls(A, x, b, R, P, tol, max_iterations)
        iters.append(int(k))
        conv.append(bool(ok))
    return CholQRResult(
        x=scale_back(x, b_exp - a_exp, "the solution x of min ‖Ax − b‖"), iterations=tuple(iters),
        status=stopping_status(all(conv)), passes=info["passes"] + sum(iters) + refinements, sketch=info["sketch"],
        sketch_rows=info["sketch_rows"], kappa_sketched=info["kappa_sketched"],
        route=info["route"])
