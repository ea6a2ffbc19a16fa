"""Sketch-preconditioned least squares (Algorithm 1) and PSD regression (Algorithm 2) of the
attention-kernel-regression paper (JAX, float64), and the machinery the composite algorithms of
:mod:`solvers.regression` share: validation, sketch + QR preconditioner, blocked passes over A.

Spec: ``spec/attention_kernel_regression.md`` §3 (``alg.1``, ``alg.2``, "Shared constants") and
lemmas F.1, G.1 of §4.

A sketch ``S`` (SRHT by default; OSNAP, CountSketch, Gaussian selectable) with
``m = ⌈c_se · ε_ose^{-2} · dim · ln(n/δ_ose)⌉`` rows (``ε_ose = 0.1``, ``c_se = 1``; if ``m ≥ n``
the sketch is ``S = I_n``, reported as ``sketch="identity"``) is applied to ``A``; the thin QR
``SA = Q R̃`` gives the preconditioner ``R = R̃^{-1}`` (applied by triangular solves, never
inverted explicitly).  Full column rank (spec G0) is checked on ``R̃``'s diagonal.

Scale: every problem here is homogeneous in ``A`` and ``b`` (``x(2^a A, 2^c b) = 2^{c − p·a}
x(A, b)`` for the power ``p`` of ``A`` in the operator: 1 for ``Ax``, 2 for ``AᵀAx``), and so is
each algorithm in exact arithmetic.  So the solvers run on ``A`` and ``b`` scaled by exact powers of
two to a largest entry in [1/2, 1) (:func:`unit_scale`) and scale the solution back: no overflow or
underflow inside for any finite input, and ``ValueError`` naming the overflow when the solution
itself is not representable in float64.  Tolerances (``eps`` and every stage tolerance derived
from it) must be normal float64 numbers (≥ 2.2250738585072014e-308).

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
from ._validation import check_array, check_int, check_positive, check_unit
from .results import Status, stopping_status

__all__ = [
    "C_SE",
    "EPS_OSE",
    "TINY",
    "Options",
    "Preconditioner",
    "SolveResult",
    "alg1",
    "alg2",
    "check_A",
    "check_b",
    "check_tolerance",
    "fast_linear_regression",
    "fast_psd_regression",
    "fused_pass",
    "log_ratio",
    "lsq_gd_steps",
    "options",
    "precondition",
    "psd_gd_cap",
    "scale_back",
    "sketch_size",
    "thin_qr",
    "unit_scale",
]

EPS_OSE = 0.1
C_SE = 1.0
_SKETCH_KINDS = sk.SKETCHES


# ----------------------------------------------------------------------------- results


class SolveResult(NamedTuple):
    """Output of :func:`fast_linear_regression` (alg.1) or :func:`fast_psd_regression` (alg.2).

    ``x``: solution. ``iterations``: iterations run; ``max_iterations``: the iteration bound used
    (alg.1 "gd": ``T₁``; alg.2: ``T₂``; "cg": the cap). ``status``: ``Status.CONVERGED`` when the
    stopping rule was met (always for alg.1 "gd", which runs exactly ``T₁`` steps), else
    ``Status.MAX_ITERATIONS`` (:mod:`solvers.results`). ``residual``: alg.2 the
    relative residual ``‖AᵀAx − b‖/‖b‖`` computed in float64 (``None`` for alg.1).
    ``matvecs_A``, ``matvecs_At``: products with ``A`` and ``Aᵀ`` (the sketch excluded).
    ``sketch``: kind used (``"identity"`` when ``m ≥ n``); ``sketch_rows``: ``m``;
    ``sketch_work``: operations of applying the sketch (:func:`solvers.sketches.sketch_work`);
    ``qr_shape``: shape of the matrix factorised; ``kappa_sketch``: ``κ(R̃) = κ(SA)``;
    ``epsilon``, ``delta``: the tolerances this call was given; ``method``: iteration used.
    """

    x: jax.Array
    status: Status
    iterations: int
    max_iterations: int
    residual: float | None
    matvecs_A: int
    matvecs_At: int
    sketch: str
    sketch_rows: int
    sketch_work: int
    qr_shape: tuple
    kappa_sketch: float
    epsilon: float
    delta: float
    method: str



# ----------------------------------------------------------------------------- validation


def check_A(A, finite: bool = True) -> jax.Array:
    """``A`` as a finite real float64 (n, d) array with n ≥ d, or ValueError (``finite=False``: see
    :func:`solvers.sketches.check_input`)."""
    A = check_array("A", A, ndim=2, finite=finite)
    n, d = A.shape
    if d > n:
        raise ValueError(f"A.shape={A.shape} must have n >= d (spec G0: A tall with full column rank)")
    return A


def check_b(b, name: str, length: int, what: str) -> jax.Array:
    """``b`` as a finite real float64 vector of ``length`` entries, or ValueError."""
    b = check_array(name, b, ndim=1)
    if b.shape[0] != length:
        raise ValueError(f"{name}.shape[0]={b.shape[0]} must equal {what}={length}")
    return b


TINY = float(np.finfo(np.float64).tiny)
"""The smallest normal float64, 2.2250738585072014e-308: the least tolerance the solvers accept."""


def check_tolerance(value: float, what: str, fix: str) -> float:
    """``value`` if it is a normal float64 (≥ :data:`TINY`), else ValueError naming ``what``
    (the tolerance and how it was derived) and ``fix`` (which argument to change)."""
    if not value >= TINY:
        raise ValueError(f"{what} = {value!r} underflows float64 (below the smallest normal number "
                         f"{TINY!r}): {fix}")
    return value


def log_ratio(a: float, b: float) -> float:
    """ln(a/b) for a, b > 0, without overflow or underflow of a/b (ln a − ln b when a/b is not a
    positive finite number; ln(a/b) itself otherwise, so step counts stay as they were)."""
    q = a / b
    return math.log(q) if 0.0 < q < math.inf else math.log(a) - math.log(b)


def unit_scale(M) -> tuple[jax.Array, int]:
    """(M·2^{−e}, e) with 2^{e−1} ≤ max|M| < 2^e (e = 0 for M = 0): an exact rescaling of a finite
    array to a largest entry in [1/2, 1).  Done in numpy: XLA on CPU flushes subnormal numbers to
    zero, so an input like A·1e-310 must be scaled up before it reaches a jitted kernel."""
    host = np.asarray(M)
    top = float(np.max(np.abs(host)))
    if top == 0.0:
        return jnp.asarray(host), 0
    e = math.frexp(top)[1]
    return jnp.asarray(np.ldexp(host, -e)), e


def scale_back(x, e: int, what: str) -> jax.Array:
    """x·2^e (exact; in numpy, so a subnormal result survives), or ValueError when it overflows
    float64: ``what`` names the solution."""
    host = np.asarray(x)
    with np.errstate(over="ignore"):
        out = np.ldexp(host, e)
    if not np.all(np.isfinite(out)):
        top = float(np.max(np.abs(host)))
        raise ValueError(f"{what} is not representable in float64: its largest entry is about "
                         f"{top:.3g}·2^{e} (it overflows)")
    return jnp.asarray(out)


class Options(NamedTuple):
    """The validated keyword options of a solver (see :func:`options`)."""

    sketch: str
    sketch_rows: int | None
    sparsity: int | None
    eps_ose: float
    c_se: float
    rank_rtol: float
    method: str
    max_iterations: int | None


def options(sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol, method, max_iterations,
          methods=("gd", "cg")) -> Options:
    """Validate the keyword options shared by the solvers (ValueError naming the argument)."""
    if sketch not in _SKETCH_KINDS:
        raise ValueError(f"sketch={sketch!r} must be one of {_SKETCH_KINDS}")
    sketch_rows = None if sketch_rows is None else check_int("sketch_rows", sketch_rows, lo=1)
    sparsity = None if sparsity is None else check_int("sparsity", sparsity, lo=1)
    eps_ose = check_unit("eps_ose", eps_ose)
    if not (1 - eps_ose) ** -2 - 1 > 0:
        raise ValueError(f"eps_ose={eps_ose!r} must be large enough that (1 - eps_ose)^-2 - 1 > 0 in float64 "
                         "(the contraction factors of alg.1 and alg.2)")
    c_se = check_positive("c_se", c_se)
    rank_rtol = check_unit("rank_rtol", rank_rtol)
    if method not in methods:
        raise ValueError(f"method={method!r} must be one of {methods}")
    if method == "gd" and eps_ose >= 0.29:
        raise ValueError(
            f"eps_ose={eps_ose} must be < 0.29 for method='gd' (unit-step GD contracts only if "
            "(1-eps_ose)^-2 - 1 < 1)"
        )
    if max_iterations is not None:
        max_iterations = check_int("max_iterations", max_iterations, lo=0, hi=2**31 - 1)
    return Options(sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol, method, max_iterations)


# ----------------------------------------------------------------------------- sketch + QR


def sketch_size(n: int, dim: int, delta: float, *, eps_ose: float = EPS_OSE, c_se: float = C_SE) -> int:
    """Sketch rows ``m = ⌈c_se · eps_ose^{-2} · dim · ln(n/δ)⌉`` (spec §3 shared constants).

    The caller treats ``m ≥ n`` as "use ``S = I_n``".  ValueError naming the argument for n, dim < 1,
    delta outside (0, 1), eps_ose or c_se not finite and > 0.
    """
    n, dim = check_int("n", n, lo=1), check_int("dim", dim, lo=1)
    delta, eps_ose, c_se = check_unit("delta", delta), check_positive("eps_ose", eps_ose), check_positive("c_se", c_se)
    m = c_se * dim * log_ratio(n, delta) / eps_ose**2 if eps_ose**2 > 0 else math.inf
    if not m < 2.0**62:
        raise ValueError(f"c_se={c_se!r}, eps_ose={eps_ose!r}: the sketch size c_se·dim·ln(n/δ)/eps_ose² = {m:.3g} "
                         "must be below 2**62 (it overflows)")
    return int(math.ceil(m))


class Preconditioner(NamedTuple):
    Q: jax.Array
    Rt: jax.Array  # R̃, upper triangular; the preconditioner is R = R̃^{-1}
    Sb: jax.Array | None
    kind: str
    rows: int
    work: int
    qr_shape: tuple
    kappa: float


@jax.jit
def thin_qr(SA):
    return jnp.linalg.qr(SA, mode="reduced")


@jax.jit
def _svdvals(M):
    return jnp.linalg.svd(M, compute_uv=False)


def precondition(A, b, key, opts: Options, dim: int, delta_ose: float) -> Preconditioner:
    """Sketch ``A`` (and ``b`` if given), QR, rank check (spec alg.1 steps 1-2, alg.2 step 1)."""
    n, d = A.shape
    m = opts.sketch_rows if opts.sketch_rows is not None else sketch_size(
        n, dim, delta_ose, eps_ose=opts.eps_ose, c_se=opts.c_se)
    if m >= n:
        kind, SA, Sb, m, work = "identity", A, b, n, 0
    else:
        kind = opts.sketch
        s = None
        if kind == "osnap":
            s = opts.sparsity if opts.sparsity is not None else max(
                1, math.ceil(log_ratio(d, delta_ose) / opts.eps_ose))
            s = min(s, m)
        bits = sk.sketch_bits(kind, key, n, m, s=s)
        SA = sk.sketch_apply(kind, bits, A)
        Sb = None if b is None else sk.sketch_apply(kind, bits, b)
        work = sk.sketch_work(kind, n, d + (0 if b is None else 1), m, s)
    if SA.shape[0] < d:
        raise ValueError(f"sketch_rows={SA.shape[0]} must be >= d={d} (the sketch SA must be tall)")
    Q, Rt = thin_qr(SA)
    diag = np.abs(np.asarray(jnp.diag(Rt)))
    if not np.all(np.isfinite(diag)) or diag.min() <= opts.rank_rtol * diag.max():
        raise ValueError(
            f"A must have full column rank (spec G0): min|R_ii|/max|R_ii|="
            f"{diag.min() / max(diag.max(), 1e-300):.3e} <= rank_rtol={opts.rank_rtol:g} "
            "for the R factor of the sketched A"
        )
    sv = np.asarray(_svdvals(Rt))
    kappa = float(sv[0] / sv[-1])
    return Preconditioner(Q, Rt, Sb, kind, int(m), int(work), tuple(SA.shape), kappa)


def _R(Rt, z):
    """R z = R̃^{-1} z."""
    return solve_triangular(Rt, z, lower=False)


def _RT(Rt, v):
    """Rᵀ v = R̃^{-T} v."""
    return solve_triangular(Rt, v, lower=False, trans=1)


def _block_rows(d: int) -> int:
    """Rows per block of the one-pass products below: a block of A stays in cache between its two
    uses (A v, then Aᵀ(·)), so AᵀA v and Aᵀ(A v − b) read A from memory once, not twice (memory-bound
    on CPU: about 2× faster than ``(A @ v) @ A`` for n = 2^18, d = 256).  512 rows up to d = 64, then
    about 256 KiB a block (at least 64 rows): one pass over a 131072 × d matrix measured 7.5 GB/s at
    d = 1024 with 64 rows against 4.5 GB/s with 512, and 8.0 against 7.3 GB/s at d = 256 (one core)."""
    return 512 if d <= 64 else max(64, 2**15 // d)


def fused_pass(A, v, b, want_r: bool):
    """One pass over ``A``: ``r = A v − b`` (if ``want_r``, else ``None``) and ``Aᵀ r``.

    Row blocks of ``_block_rows(d)`` rows are read with ``dynamic_slice`` (no copy of ``A``); each block's
    ``a v − b_blk`` is used at once for ``(a v − b_blk) @ a`` while ``a`` is in cache.
    """
    n, d = A.shape
    block = _block_rows(d)
    nb = n // block
    split = nb * block
    g = jnp.zeros((d,), A.dtype)
    r = jnp.zeros((n,), A.dtype) if want_r else None
    if nb > 0:
        def body(i, st):
            g, r = st
            a = lax.dynamic_slice(A, (i * block, 0), (block, d))
            q = a @ v
            if b is not None:
                q = q - lax.dynamic_slice(b, (i * block,), (block,))
            if want_r:
                r = lax.dynamic_update_slice(r, q, (i * block,))
            return g + q @ a, r

        g, r = lax.fori_loop(0, nb, body, (g, r))
    if split < n:
        a = A[split:]
        q = a @ v
        if b is not None:
            q = q - b[split:]
        g = g + q @ a
        if want_r:
            r = lax.dynamic_update_slice(r, q, (split,))
    return r, g


def _gram(A, v):
    """AᵀA v in one pass over ``A`` (see :func:`fused_pass`)."""
    return fused_pass(A, v, None, False)[1]


# ----------------------------------------------------------------------------- Algorithm 1


def lsq_gd_steps(eps: float, eps_ose: float = EPS_OSE) -> int:
    """``T₁ = max(0, ⌈ln(γ/(2ε₁)) / (2 ln(1/c₁))⌉)`` (spec alg.1 step 3).

    ``γ = ((1+ε_ose)/(1−ε_ose))² − 1`` bounds the warm start's excess ``‖ARz₀−b‖²/OPT² − 1``;
    ``c₁ = (1−ε_ose)^{-2} − 1`` is the per-step contraction of ``‖AR(z_t − z*)‖``.
    """
    gamma = ((1 + eps_ose) / (1 - eps_ose)) ** 2 - 1
    c1 = (1 - eps_ose) ** -2 - 1
    return max(0, math.ceil(log_ratio(gamma, 2 * eps) / (2 * math.log(1 / c1))))


@jax.jit
def _lsq_gd(A, b, Rt, z0, T):
    def body(_, z):
        # Aᵀ(A R z − b) in one pass over A
        return z - _RT(Rt, fused_pass(A, _R(Rt, z), b, False)[1])

    return lax.fori_loop(0, T, body, z0)


@jax.jit
def _lsq_cg(A, b, Rt, x0, target, floor, max_iter):
    """Preconditioned CGLS on min ‖ARz − b‖ from x0; stops when ‖(AR)ᵀr‖ ≤ max(target·‖r‖, floor).

    One pass over ``A`` per iteration: ``q = A R p`` and ``Aᵀq`` come from one blocked pass
    (:func:`fused_pass`) and ``Aᵀr`` is updated by the recurrence ``Aᵀr ← Aᵀr − α Aᵀq`` (the
    residual itself by ``r ← r − α q``, as in CGLS).
    """
    r, t = fused_pass(A, x0, b, True)
    r, t = -r, -t  # r = b − A x0, t = Aᵀ r
    s = _RT(Rt, t)
    gamma = s @ s

    def cond(st):
        k, _, r, _, _, _, gamma = st
        return (k < max_iter) & (jnp.sqrt(gamma) > jnp.maximum(target * jnp.linalg.norm(r), floor))

    def body(st):
        k, x, r, t, s, p, gamma = st
        Rp = _R(Rt, p)
        q, Atq = fused_pass(A, Rp, None, True)
        alpha = gamma / (q @ q)
        x = x + alpha * Rp
        r = r - alpha * q
        t = t - alpha * Atq
        s = _RT(Rt, t)
        gamma_new = s @ s
        p = s + (gamma_new / gamma) * p
        return k + 1, x, r, t, s, p, gamma_new

    k, x, r, t, s, p, gamma = lax.while_loop(cond, body, (jnp.asarray(0), x0, r, t, s, s, gamma))
    return x, k, jnp.sqrt(gamma), jnp.linalg.norm(r)


def alg1(A, a_exp: int, b, eps, delta, key, opts: Options) -> tuple[SolveResult, Preconditioner]:
    """Algorithm 1 on the unit-scaled ``A`` (``A·2^a_exp`` is the caller's matrix, see
    :func:`unit_scale`) and the caller's ``b``; returns (result for the caller's A, b; the
    preconditioner of the scaled A)."""
    n, d = A.shape
    b, b_exp = unit_scale(b)
    pre = precondition(A, b, key, opts, d + 1, delta / 2)
    z0 = pre.Q.T @ pre.Sb  # argmin_z ‖S A R z − S b‖ (spec alg.1 step 4)
    if opts.method == "gd":
        T = lsq_gd_steps(eps, opts.eps_ose) if opts.max_iterations is None else opts.max_iterations
        z = _lsq_gd(A, b, pre.Rt, z0, T)
        x = _R(pre.Rt, z)
        iters, conv, cap = T, True, T
        mv = T
    else:
        cap = opts.max_iterations if opts.max_iterations is not None else 200
        # Stop when ‖AR(z − z*)‖ ≤ ‖s‖/σ_min(AR) ≤ sqrt(1 − (1+ε)^{-2})·‖r‖, which gives
        # ‖r‖² = OPT² + ‖AR(z−z*)‖² ≤ (1+ε)²·OPT²; σ_min(AR) ≥ 1/(1+ε_ose) under the SE.
        target = math.sqrt(1 - (1 + eps) ** -2) / (1 + opts.eps_ose)
        floor = 64 * np.finfo(np.float64).eps * float(jnp.linalg.norm(b))
        x0 = _R(pre.Rt, z0)
        x, k, sn, rn = _lsq_cg(A, b, pre.Rt, x0, target, floor, cap)
        iters = int(k)
        conv = bool(float(sn) <= max(target * float(rn), floor))
        mv = iters + 1
    res = SolveResult(
        x=scale_back(x, b_exp - a_exp, "the solution x of min ‖Ax − b‖"), iterations=int(iters),
        max_iterations=int(cap), status=stopping_status(conv), residual=None,
        matvecs_A=int(mv), matvecs_At=int(mv), sketch=pre.kind, sketch_rows=pre.rows,
        sketch_work=pre.work, qr_shape=pre.qr_shape, kappa_sketch=pre.kappa,
        epsilon=float(eps), delta=float(delta), method=opts.method,
    )
    return res, pre


def fast_linear_regression(
    A, b, eps: float, delta: float, *, key, sketch: str = "srht", sketch_rows: int | None = None,
    sparsity: int | None = None, method: str = "gd", eps_ose: float = EPS_OSE, c_se: float = C_SE,
    max_iterations: int | None = None, rank_rtol: float = 1e-12,
) -> SolveResult:
    """Algorithm 1 (FastLinearRegression): ``x'`` with ``‖Ax' − b‖ ≤ (1+ε)·min_x ‖Ax − b‖`` w.p. ≥ 1−δ.

    Spec ``attention_kernel_regression.alg.1`` / claim ``lemF.1``.

    1. ``S₁`` with ``m₁ = ⌈c_se ε_ose^{-2} (d+1) ln(n/δ_ose)⌉`` rows, ``δ_ose = δ/2`` (``d+1``:
       the warm start needs the SE for span[A, b]). QR ``S₁A = Q R̃``, ``R = R̃^{-1}``.
    2. ``z₀ = Qᵀ(S₁b) = argmin_z ‖S₁ARz − S₁b‖``.
    3. ``method="gd"`` (the paper): ``z_{t+1} = z_t − RᵀAᵀ(ARz_t − b)`` for exactly
       ``T₁ = max(0, ⌈ln(γ/(2ε))/(2 ln(1/c₁))⌉)`` steps (:func:`lsq_gd_steps`).
       **Reading of an inconsistency (spec alg.1, "Paper inconsistency"):** the paper's loop
       ``while ‖ARz_t − b‖ ≥ ε₁`` never ends when ``OPT ≥ ε₁`` and its ``T₁ = Θ(log 1/ε₁)`` is
       unused; we run the fixed count ``T₁``. Cost per step: one ``A`` and one ``Aᵀ`` product.
       ``method="cg"`` (faster, not the paper's): preconditioned CGLS on ``min ‖ARz − b‖``
       warm-started at ``z₀``, stopped once ``‖(AR)ᵀr‖ ≤ (1+ε_ose)^{-1}·sqrt(1−(1+ε)^{-2})·‖r‖``
       (which implies the ``(1+ε)`` guarantee when ``S₁`` is an ``ε_ose``-SE), or at a
       float64 floor ``64·eps_mach·‖b‖``, or after ``max_iterations`` (default 200).
    4. Return ``x' = R z``.

    **Arguments:** ``A`` ``(n, d)`` with ``n ≥ d`` and full column rank; ``b`` ``(n,)``;
    ``eps``, ``delta`` in (0, 1); ``key``: jax key or int seed. Keywords: ``sketch`` (``"srht"``,
    ``"osnap"``, ``"countsketch"``, ``"gaussian"``); ``sketch_rows`` overrides ``m₁``;
    ``sparsity``: OSNAP's ``s`` (default ``⌈ln(d/δ_ose)/ε_ose⌉``, spec lemC.5.osnap);
    ``eps_ose`` (0.1) and ``c_se`` (1) fix the sizing and the step counts; ``max_iterations``
    overrides ``T₁`` / the CG cap; ``rank_rtol`` is the full-rank test on ``R̃``.

    **Returns:** :class:`SolveResult`.
    """
    A = check_A(A)
    b = check_b(b, "b", A.shape[0], "A.shape[0]")
    eps = check_tolerance(check_unit("eps", eps), "eps", f"eps must be >= {TINY!r}")
    delta = check_unit("delta", delta)
    opts = options(sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol, method, max_iterations)
    return alg1(*unit_scale(A), b, eps, delta, sk.as_key(key), opts)[0]


# ----------------------------------------------------------------------------- Algorithm 2


def psd_gd_cap(kappa_sketch: float, eps: float, eps_ose: float = EPS_OSE) -> int:
    """``T₂ = ⌈ln(κ(R̃)/ε₂) / ln(1/c₂)⌉``, ``c₂ = (1−ε_ose)^{-4} − 1`` (spec alg.2 step 4(b))."""
    c2 = (1 - eps_ose) ** -4 - 1
    return max(0, math.ceil(log_ratio(max(kappa_sketch, 1.0), eps) / math.log(1 / c2)))


@jax.jit
def _psd_gd(A, b, Rt, thresh, T):
    c = _RT(Rt, b)
    d = b.shape[0]

    def cond(st):
        k, _, w = st
        return (k < T) & (jnp.linalg.norm(w - b) > thresh)

    def body(st):
        k, z, w = st
        g = _RT(Rt, w) - c  # Φ z − c
        h = _RT(Rt, _gram(A, _R(Rt, g)))  # Φ (Φ z − c)
        z = z - h
        return k + 1, z, _gram(A, _R(Rt, z))

    z0 = jnp.zeros(d, b.dtype)
    k, z, w = lax.while_loop(cond, body, (jnp.asarray(0), z0, jnp.zeros_like(b)))
    return _R(Rt, z), k, jnp.linalg.norm(w - b)


def alg2(A, a_exp: int, b, eps, delta, key, opts: Options, pre: Preconditioner | None = None) -> SolveResult:
    """Algorithm 2 on the unit-scaled ``A`` (``A·2^a_exp`` is the caller's matrix) and the
    caller's ``b``; ``pre``: a preconditioner of the scaled A to reuse."""
    n, d = A.shape
    b, b_exp = unit_scale(b)
    if pre is None:
        pre = precondition(A, None, key, opts, d, delta / 2)
    bnorm = float(jnp.linalg.norm(b))
    T = psd_gd_cap(pre.kappa, eps, opts.eps_ose) if opts.max_iterations is None else opts.max_iterations
    if bnorm == 0.0:
        x, k, rn = jnp.zeros(d), 0, 0.0
    else:
        x, k, rn = _psd_gd(A, b, pre.Rt, eps * bnorm, T)
        k, rn = int(k), float(rn)
    rel = rn / bnorm if bnorm > 0 else 0.0
    return SolveResult(
        x=scale_back(x, b_exp - 2 * a_exp, "the solution x of AᵀAx = b"), iterations=k,
        max_iterations=int(T), status=stopping_status(rn <= eps * bnorm), residual=rel,
        matvecs_A=2 * k, matvecs_At=2 * k, sketch=pre.kind, sketch_rows=pre.rows,
        sketch_work=pre.work, qr_shape=pre.qr_shape, kappa_sketch=pre.kappa,
        epsilon=float(eps), delta=float(delta), method="gd",
    )


def fast_psd_regression(
    A, b, eps: float, delta: float, *, key, sketch: str = "srht", sketch_rows: int | None = None,
    sparsity: int | None = None, eps_ose: float = EPS_OSE, c_se: float = C_SE,
    max_iterations: int | None = None, rank_rtol: float = 1e-12,
) -> SolveResult:
    """Algorithm 2 (FastPSDRegression): ``x'`` with ``‖AᵀAx' − b‖ ≤ ε‖b‖`` w.p. ≥ 1 − δ.

    Spec ``attention_kernel_regression.alg.2`` / claim ``lemG.1``.

    1. ``S₂`` with ``m₂ = ⌈c_se ε_ose^{-2} d ln(n/(δ/2))⌉`` rows; QR ``S₂A = QR̃``, ``R = R̃^{-1}``.
    2. ``c = Rᵀb``, ``Φ(v) = RᵀAᵀARv`` (never formed). ``z₀ = 0``.
    3. ``z_{t+1} = z_t − Φ(Φz_t − c)``; four matvecs (2 with ``A``, 2 with ``Aᵀ``) per step.
    4. **Stopping rule (spec alg.2 step 4, reading recorded):** the residual rule (a)
       ``‖AᵀARz_t − b‖ ≤ ε‖b‖`` (the paper's ``while ‖AᵀARz_t − b₂‖ ≥ ε₂`` lacks ``‖b₂‖``,
       spec inconsistency (i)), capped by the count (b) ``T₂ = ⌈ln(κ(R̃)/ε)/ln(1/c₂)⌉``,
       ``c₂ = (1−ε_ose)^{-4} − 1`` (:func:`psd_gd_cap`), which suffices under the SE. When
       float64 cannot reach ``ε‖b‖`` (``κ(A)²·1e-16 ≳ ε``, spec T4) the loop stops at ``T₂``
       with ``status=Status.MAX_ITERATIONS``; nothing is raised.
    5. Return ``x' = Rz_t``.

    **Arguments:** ``A`` ``(n, d)``, ``n ≥ d``, full column rank; ``b`` ``(d,)``;
    ``eps``, ``delta`` in (0, 1); keywords as :func:`fast_linear_regression` (no ``method``).

    **Returns:** :class:`SolveResult` with ``residual = ‖AᵀAx' − b‖/‖b‖``.
    """
    A = check_A(A)
    b = check_b(b, "b", A.shape[1], "A.shape[1]")
    eps = check_tolerance(check_unit("eps", eps), "eps", f"eps must be >= {TINY!r}")
    delta = check_unit("delta", delta)
    opts = options(sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol, "gd", max_iterations)
    return alg2(*unit_scale(A), b, eps, delta, sk.as_key(key), opts)


