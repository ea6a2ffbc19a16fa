"""Sketch-preconditioned regression solvers of the attention-kernel-regression paper (JAX, float64).

Spec: ``spec/attention_kernel_regression.md`` §3, algorithms ``alg.1`` … ``alg.6``, and the
lemmas F.1, G.1, H.1, I.1, J.1, J.2 (thmJ.2), K.1 of §4.

=============================  ==========================================  =====================
function                       problem                                     spec / paper
=============================  ==========================================  =====================
:func:`fast_linear_regression`  ``min_x ‖Ax − b‖``                          alg.1, Lemma F.1
:func:`fast_psd_regression`     ``min_x ‖AᵀAx − b‖``, ``b ∈ R^d``          alg.2, Lemma G.1
:func:`attention_regression`    ``min_x ‖AAᵀAx − b‖`` (Def 1.1)             alg.3, Lemma H.1
:func:`four_matrices`           ``min_x ‖AᵀAAᵀAx − b‖`` (Def 1.2)           alg.4, Lemma I.1
:func:`even_powers`             ``min_x ‖(AᵀA)^j x − b‖`` (eq. 1)           alg.5, Thm J.2
:func:`odd_powers`              ``min_x ‖A(AᵀA)^j x − b‖`` (eq. 2)          alg.6, Thm K.1
=============================  ==========================================  =====================

Common mechanics. A sketch ``S`` (SRHT by default; OSNAP, CountSketch, Gaussian selectable) with
``m = ⌈c_se · ε_ose^{-2} · dim · ln(n/δ_ose)⌉`` rows (spec §3 "Shared constants": ``ε_ose = 0.1``,
``c_se = 1``; if ``m ≥ n`` the sketch is ``S = I_n``, reported as ``sketch="identity"``) is applied
to ``A``; the thin QR ``SA = Q R̃`` gives the preconditioner ``R = R̃^{-1}`` (applied by triangular
solves, never inverted explicitly). Full column rank (spec G0) is checked on ``R̃``'s diagonal:
``min|R̃_ii| ≤ rank_rtol · max|R̃_ii|`` raises ``ValueError``. Each solver returns a NamedTuple
with the solution and the operation counts spec T3 asks for (matvecs with ``A`` and ``Aᵀ``,
iterations, sketch rows, QR shape), so running-time claims are checked on counts.

Randomness: every function takes ``key`` (a ``jax.random`` key or an int seed). Stages of the
composite algorithms use independent keys ``jax.random.split(key, stages)``; the sketch bits are
drawn by :mod:`solvers.sketches` and are therefore reproducible from the key.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.scipy.linalg import solve_triangular

from . import sketches as sk

__all__ = [
    "ChainResult",
    "SolveResult",
    "attention_regression",
    "even_powers",
    "fast_linear_regression",
    "fast_psd_regression",
    "four_matrices",
    "odd_powers",
    "sketch_size",
]

EPS_OSE = 0.1
C_SE = 1.0
_SKETCH_KINDS = sk.SKETCHES


# ----------------------------------------------------------------------------- results


class SolveResult(NamedTuple):
    """Output of :func:`fast_linear_regression` (alg.1) or :func:`fast_psd_regression` (alg.2).

    ``x``: solution. ``iterations``: iterations run; ``max_iterations``: the iteration bound used
    (alg.1 "gd": ``T₁``; alg.2: ``T₂``; "cg": the cap). ``converged``: the stopping rule was met
    (always ``True`` for alg.1 "gd", which runs exactly ``T₁`` steps). ``residual``: alg.2 the
    relative residual ``‖AᵀAx − b‖/‖b‖`` computed in float64 (``None`` for alg.1).
    ``matvecs_A``, ``matvecs_At``: products with ``A`` and ``Aᵀ`` (the sketch excluded).
    ``sketch``: kind used (``"identity"`` when ``m ≥ n``); ``sketch_rows``: ``m``;
    ``sketch_work``: operations of applying the sketch (:func:`solvers.sketches.sketch_work`);
    ``qr_shape``: shape of the matrix factorised; ``kappa_sketch``: ``κ(R̃) = κ(SA)``;
    ``epsilon``, ``delta``: the tolerances this call was given; ``method``: iteration used.
    """

    x: jax.Array
    iterations: int
    max_iterations: int
    converged: bool
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


class ChainResult(NamedTuple):
    """Output of the composite algorithms alg.3 – alg.6.

    ``x``: solution. ``stages``: the :class:`SolveResult` of every sub-solve, in order.
    ``epsilons``, ``deltas``: tolerance and failure probability passed to each stage.
    ``kappa``: the condition number used to split ε; ``kappa_source``: ``"given"`` (argument)
    or ``"sketch"`` (the safe bound ``κ̂ = κ(R̃)(1+ε_ose)/(1−ε_ose)`` from the first stage's
    sketch, spec alg.3). ``iterations``, ``matvecs_A``, ``matvecs_At``, ``sketch_rows``: totals
    over the stages. ``converged``: every stage met its stopping rule.
    """

    x: jax.Array
    stages: tuple
    epsilons: tuple
    deltas: tuple
    kappa: float
    kappa_source: str
    iterations: int
    matvecs_A: int
    matvecs_At: int
    sketch_rows: int
    converged: bool


def _chain(x, stages, eps, deltas, kappa, source) -> ChainResult:
    return ChainResult(
        x=x,
        stages=tuple(stages),
        epsilons=tuple(float(e) for e in eps),
        deltas=tuple(float(d) for d in deltas),
        kappa=float(kappa),
        kappa_source=source,
        iterations=sum(s.iterations for s in stages),
        matvecs_A=sum(s.matvecs_A for s in stages),
        matvecs_At=sum(s.matvecs_At for s in stages),
        sketch_rows=sum(s.sketch_rows for s in stages),
        converged=all(s.converged for s in stages),
    )


# ----------------------------------------------------------------------------- validation


def _check_unit(value, name: str, *, upper_open: bool = True) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ValueError(f"{name}={value!r} must be a real number")
    v = float(value)
    if not (math.isfinite(v) and 0.0 < v < 1.0):
        raise ValueError(f"{name}={value!r} must be in the open interval (0, 1)")
    return v


def _check_positive(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise ValueError(f"{name}={value!r} must be a real number")
    v = float(value)
    if not (math.isfinite(v) and v > 0.0):
        raise ValueError(f"{name}={value!r} must be finite and > 0")
    return v


def _check_A(A) -> jax.Array:
    A = sk.check_input(A, "A", ndims=(2,))
    n, d = A.shape
    if d > n:
        raise ValueError(f"A.shape={A.shape} must have n >= d (spec G0: A tall with full column rank)")
    return A


def _check_b(b, name: str, length: int, what: str) -> jax.Array:
    b = sk.check_input(b, name, ndims=(1,))
    if b.shape[0] != length:
        raise ValueError(f"{name}.shape[0]={b.shape[0]} must equal {what}={length}")
    return b


class _Opts(NamedTuple):
    sketch: str
    sketch_rows: int | None
    sparsity: int | None
    eps_ose: float
    c_se: float
    rank_rtol: float
    method: str
    max_iterations: int | None


def _opts(sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol, method, max_iterations,
          methods=("gd", "cg")) -> _Opts:
    if sketch not in _SKETCH_KINDS:
        raise ValueError(f"sketch={sketch!r} must be one of {_SKETCH_KINDS}")
    if sketch_rows is not None:
        if isinstance(sketch_rows, bool) or not isinstance(sketch_rows, Integral) or sketch_rows < 1:
            raise ValueError(f"sketch_rows={sketch_rows!r} must be None or an int >= 1")
        sketch_rows = int(sketch_rows)
    if sparsity is not None:
        if isinstance(sparsity, bool) or not isinstance(sparsity, Integral) or sparsity < 1:
            raise ValueError(f"sparsity={sparsity!r} must be None or an int >= 1")
        sparsity = int(sparsity)
    eps_ose = _check_unit(eps_ose, "eps_ose")
    c_se = _check_positive(c_se, "c_se")
    rank_rtol = _check_unit(rank_rtol, "rank_rtol")
    if method not in methods:
        raise ValueError(f"method={method!r} must be one of {methods}")
    if method == "gd" and eps_ose >= 0.29:
        raise ValueError(
            f"eps_ose={eps_ose} must be < 0.29 for method='gd' (unit-step GD contracts only if "
            "(1-eps_ose)^-2 - 1 < 1)"
        )
    if max_iterations is not None:
        if isinstance(max_iterations, bool) or not isinstance(max_iterations, Integral) or max_iterations < 0:
            raise ValueError(f"max_iterations={max_iterations!r} must be None or an int >= 0")
        max_iterations = int(max_iterations)
    return _Opts(sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol, method, max_iterations)


# ----------------------------------------------------------------------------- sketch + QR


def sketch_size(n: int, dim: int, delta: float, *, eps_ose: float = EPS_OSE, c_se: float = C_SE) -> int:
    """Sketch rows ``m = ⌈c_se · eps_ose^{-2} · dim · ln(n/δ)⌉`` (spec §3 shared constants).

    The caller treats ``m ≥ n`` as "use ``S = I_n``".
    """
    return int(math.ceil(c_se * dim * math.log(n / delta) / eps_ose**2))


class _Precond(NamedTuple):
    Q: jax.Array
    Rt: jax.Array  # R̃, upper triangular; the preconditioner is R = R̃^{-1}
    Sb: jax.Array | None
    kind: str
    rows: int
    work: int
    qr_shape: tuple
    kappa: float


@jax.jit
def _qr(SA):
    return jnp.linalg.qr(SA, mode="reduced")


@jax.jit
def _svdvals(M):
    return jnp.linalg.svd(M, compute_uv=False)


def _precondition(A, b, key, opts: _Opts, dim: int, delta_ose: float) -> _Precond:
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
                1, math.ceil(math.log(d / delta_ose) / opts.eps_ose))
            s = min(s, m)
        bits = sk.sketch_bits(kind, key, n, m, s=s)
        SA = sk.sketch_apply(kind, bits, A)
        Sb = None if b is None else sk.sketch_apply(kind, bits, b)
        work = sk.sketch_work(kind, n, d + (0 if b is None else 1), m, s)
    if SA.shape[0] < d:
        raise ValueError(f"sketch_rows={SA.shape[0]} must be >= d={d} (the sketch SA must be tall)")
    Q, Rt = _qr(SA)
    diag = np.abs(np.asarray(jnp.diag(Rt)))
    if not np.all(np.isfinite(diag)) or diag.min() <= opts.rank_rtol * diag.max():
        raise ValueError(
            f"A must have full column rank (spec G0): min|R_ii|/max|R_ii|="
            f"{diag.min() / max(diag.max(), 1e-300):.3e} <= rank_rtol={opts.rank_rtol:g} "
            "for the R factor of the sketched A"
        )
    sv = np.asarray(_svdvals(Rt))
    kappa = float(sv[0] / sv[-1])
    return _Precond(Q, Rt, Sb, kind, int(m), int(work), tuple(SA.shape), kappa)


def _R(Rt, z):
    """R z = R̃^{-1} z."""
    return solve_triangular(Rt, z, lower=False)


def _RT(Rt, v):
    """Rᵀ v = R̃^{-T} v."""
    return solve_triangular(Rt, v, lower=False, trans=1)


# Rows per block of the one-pass products below: a 512 × d block of A stays in cache between
# its two uses (A v, then Aᵀ(·)), so AᵀA v and Aᵀ(A v − b) read A from memory once, not twice
# (memory-bound on CPU: about 2× faster than ``(A @ v) @ A`` for n = 2^18, d = 256).
_BLOCK = 512


def _fused(A, v, b, want_r: bool):
    """One pass over ``A``: ``r = A v − b`` (if ``want_r``, else ``None``) and ``Aᵀ r``.

    Row blocks of ``_BLOCK`` rows are read with ``dynamic_slice`` (no copy of ``A``); each block's
    ``a v − b_blk`` is used at once for ``(a v − b_blk) @ a`` while ``a`` is in cache.
    """
    n, d = A.shape
    nb = n // _BLOCK
    split = nb * _BLOCK
    g = jnp.zeros((d,), A.dtype)
    r = jnp.zeros((n,), A.dtype) if want_r else None
    if nb > 0:
        def body(i, st):
            g, r = st
            a = lax.dynamic_slice(A, (i * _BLOCK, 0), (_BLOCK, d))
            q = a @ v
            if b is not None:
                q = q - lax.dynamic_slice(b, (i * _BLOCK,), (_BLOCK,))
            if want_r:
                r = lax.dynamic_update_slice(r, q, (i * _BLOCK,))
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
    """AᵀA v in one pass over ``A`` (see :func:`_fused`)."""
    return _fused(A, v, None, False)[1]


# ----------------------------------------------------------------------------- Algorithm 1


def lsq_gd_steps(eps: float, eps_ose: float = EPS_OSE) -> int:
    """``T₁ = max(0, ⌈ln(γ/(2ε₁)) / (2 ln(1/c₁))⌉)`` (spec alg.1 step 3).

    ``γ = ((1+ε_ose)/(1−ε_ose))² − 1`` bounds the warm start's excess ``‖ARz₀−b‖²/OPT² − 1``;
    ``c₁ = (1−ε_ose)^{-2} − 1`` is the per-step contraction of ``‖AR(z_t − z*)‖``.
    """
    gamma = ((1 + eps_ose) / (1 - eps_ose)) ** 2 - 1
    c1 = (1 - eps_ose) ** -2 - 1
    return max(0, math.ceil(math.log(gamma / (2 * eps)) / (2 * math.log(1 / c1))))


@jax.jit
def _lsq_gd(A, b, Rt, z0, T):
    def body(_, z):
        # Aᵀ(A R z − b) in one pass over A
        return z - _RT(Rt, _fused(A, _R(Rt, z), b, False)[1])

    return lax.fori_loop(0, T, body, z0)


@jax.jit
def _lsq_cg(A, b, Rt, x0, target, floor, max_iter):
    """Preconditioned CGLS on min ‖ARz − b‖ from x0; stops when ‖(AR)ᵀr‖ ≤ max(target·‖r‖, floor).

    One pass over ``A`` per iteration: ``q = A R p`` and ``Aᵀq`` come from one blocked pass
    (:func:`_fused`) and ``Aᵀr`` is updated by the recurrence ``Aᵀr ← Aᵀr − α Aᵀq`` (the
    residual itself by ``r ← r − α q``, as in CGLS).
    """
    r, t = _fused(A, x0, b, True)
    r, t = -r, -t  # r = b − A x0, t = Aᵀ r
    s = _RT(Rt, t)
    gamma = s @ s

    def cond(st):
        k, _, r, _, _, _, gamma = st
        return (k < max_iter) & (jnp.sqrt(gamma) > jnp.maximum(target * jnp.linalg.norm(r), floor))

    def body(st):
        k, x, r, t, s, p, gamma = st
        Rp = _R(Rt, p)
        q, Atq = _fused(A, Rp, None, True)
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


def _alg1(A, b, eps, delta, key, opts: _Opts) -> tuple[SolveResult, _Precond]:
    n, d = A.shape
    pre = _precondition(A, b, key, opts, d + 1, delta / 2)
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
        x=x, iterations=int(iters), max_iterations=int(cap), converged=conv, residual=None,
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
    A = _check_A(A)
    b = _check_b(b, "b", A.shape[0], "A.shape[0]")
    eps = _check_unit(eps, "eps")
    delta = _check_unit(delta, "delta")
    opts = _opts(sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol, method, max_iterations)
    return _alg1(A, b, eps, delta, sk.as_key(key), opts)[0]


# ----------------------------------------------------------------------------- Algorithm 2


def psd_gd_cap(kappa_sketch: float, eps: float, eps_ose: float = EPS_OSE) -> int:
    """``T₂ = ⌈ln(κ(R̃)/ε₂) / ln(1/c₂)⌉``, ``c₂ = (1−ε_ose)^{-4} − 1`` (spec alg.2 step 4(b))."""
    c2 = (1 - eps_ose) ** -4 - 1
    return max(0, math.ceil(math.log(max(kappa_sketch, 1.0) / eps) / math.log(1 / c2)))


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


def _alg2(A, b, eps, delta, key, opts: _Opts, pre: _Precond | None = None) -> SolveResult:
    n, d = A.shape
    if pre is None:
        pre = _precondition(A, None, key, opts, d, delta / 2)
    bnorm = float(jnp.linalg.norm(b))
    T = psd_gd_cap(pre.kappa, eps, opts.eps_ose) if opts.max_iterations is None else opts.max_iterations
    if bnorm == 0.0:
        x, k, rn = jnp.zeros(d), 0, 0.0
    else:
        x, k, rn = _psd_gd(A, b, pre.Rt, eps * bnorm, T)
        k, rn = int(k), float(rn)
    rel = rn / bnorm if bnorm > 0 else 0.0
    return SolveResult(
        x=x, iterations=k, max_iterations=int(T), converged=bool(rn <= eps * bnorm), residual=rel,
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
       and ``converged=False``; nothing is raised.
    5. Return ``x' = Rz_t``.

    **Arguments:** ``A`` ``(n, d)``, ``n ≥ d``, full column rank; ``b`` ``(d,)``;
    ``eps``, ``delta`` in (0, 1); keywords as :func:`fast_linear_regression` (no ``method``).

    **Returns:** :class:`SolveResult` with ``residual = ‖AᵀAx' − b‖/‖b‖``.
    """
    A = _check_A(A)
    b = _check_b(b, "b", A.shape[1], "A.shape[1]")
    eps = _check_unit(eps, "eps")
    delta = _check_unit(delta, "delta")
    opts = _opts(sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol, "gd", max_iterations)
    return _alg2(A, b, eps, delta, sk.as_key(key), opts)


# ----------------------------------------------------------------------------- composites


def _kappa_hat(pre: _Precond, opts: _Opts) -> float:
    """Safe bound ``κ̂ = κ(R̃)(1+ε_ose)/(1−ε_ose) ≥ κ(A)`` (valid when the SE holds; spec alg.3)."""
    if pre.kind == "identity":
        return pre.kappa
    return pre.kappa * (1 + opts.eps_ose) / (1 - opts.eps_ose)


def _check_kappa(kappa):
    if kappa is None:
        return None
    k = _check_positive(kappa, "kappa")
    if k < 1.0:
        raise ValueError(f"kappa={kappa!r} must be >= 1 (a condition number)")
    return k


def _common(A, eps, delta, key, kappa, sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol,
            max_iterations, method="gd"):
    eps = _check_unit(eps, "eps")
    delta = _check_unit(delta, "delta")
    opts = _opts(sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol, method, max_iterations)
    return eps, delta, sk.as_key(key), _check_kappa(kappa), opts


_COMMON_DOC = """
    Keywords common to the composite solvers: ``key`` (jax key or int seed; stage ``i`` uses
    ``jax.random.split(key, stages)[i]``); ``kappa``: ``κ(A)`` used to split ε (default: the
    safe sketch bound ``κ̂ = κ(R̃)(1+ε_ose)/(1−ε_ose)`` of the first stage's sketch, spec alg.3);
    ``sketch``, ``sketch_rows``, ``sparsity``, ``eps_ose``, ``c_se``, ``rank_rtol``,
    ``max_iterations`` as in :func:`fast_linear_regression`, applied to every stage.
"""


def attention_regression(
    A, b, eps: float, delta: float, *, key, kappa: float | None = None, sketch: str = "srht",
    sketch_rows: int | None = None, sparsity: int | None = None, method: str = "gd",
    eps_ose: float = EPS_OSE, c_se: float = C_SE, max_iterations: int | None = None,
    rank_rtol: float = 1e-12,
) -> ChainResult:
    """Algorithm 3 (FastAttentionRegression): ``min_x ‖AAᵀAx − b‖`` (Def 1.1), ``b ∈ R^n``.

    Spec ``alg.3`` / claim ``lemH.1``: ``‖AAᵀAx' − b‖ ≤ (1+ε)·OPT + ε‖b‖`` w.p. ≥ 1 − δ,
    ``OPT = ‖(I − P_A)b‖``.

    1. ``ε₁ = 0.1ε``, ``δ₁ = δ/2``: ``y' = alg.1(A, b, ε₁, δ₁)`` (``method`` applies here).
    2. ``ε₂ = ε/κ``, ``δ₂ = δ/2``: ``x' = alg.2(A, y', ε₂, δ₂)``.
    """
    A = _check_A(A)
    b = _check_b(b, "b", A.shape[0], "A.shape[0]")
    eps, delta, key, kappa, opts = _common(A, eps, delta, key, kappa, sketch, sketch_rows, sparsity,
                                           eps_ose, c_se, rank_rtol, max_iterations, method)
    k1, k2 = jax.random.split(key)
    e1, d1 = 0.1 * eps, delta / 2
    r1, pre1 = _alg1(A, b, e1, d1, k1, opts)
    kap, src = (kappa, "given") if kappa is not None else (_kappa_hat(pre1, opts), "sketch")
    e2, d2 = eps / kap, delta / 2
    r2 = _alg2(A, r1.x, e2, d2, k2, opts._replace(method="gd"))
    return _chain(r2.x, (r1, r2), (e1, e2), (d1, d2), kap, src)


attention_regression.__doc__ += _COMMON_DOC


def four_matrices(
    A, b, eps: float, delta: float, *, key, kappa: float | None = None, sketch: str = "srht",
    sketch_rows: int | None = None, sparsity: int | None = None, eps_ose: float = EPS_OSE,
    c_se: float = C_SE, max_iterations: int | None = None, rank_rtol: float = 1e-12,
) -> ChainResult:
    """Algorithm 4 (FourMatrices): ``min_x ‖AᵀAAᵀAx − b‖`` (Def 1.2), ``b ∈ R^d``.

    Spec ``alg.4`` / claim ``lemI.1``: ``‖AᵀAAᵀAx' − b‖ ≤ ε‖b‖`` w.p. ≥ 1 − δ.

    ``ε₂ = 0.1ε/κ²``, ``δ₂ = δ/2``; ``y' = alg.2(A, b, ε₂, δ₂)``; ``x' = alg.2(A, y', ε₂, δ₂)``
    (fresh sketch per stage; with ``kappa=None`` the first stage's sketch gives ``κ̂``).
    """
    A = _check_A(A)
    b = _check_b(b, "b", A.shape[1], "A.shape[1]")
    eps, delta, key, kappa, opts = _common(A, eps, delta, key, kappa, sketch, sketch_rows, sparsity,
                                           eps_ose, c_se, rank_rtol, max_iterations)
    k1, k2 = jax.random.split(key)
    d2 = delta / 2
    pre1 = _precondition(A, None, k1, opts, A.shape[1], d2 / 2)
    kap, src = (kappa, "given") if kappa is not None else (_kappa_hat(pre1, opts), "sketch")
    e2 = 0.1 * eps / kap**2
    r1 = _alg2(A, b, e2, d2, k1, opts, pre=pre1)
    r2 = _alg2(A, r1.x, e2, d2, k2, opts)
    return _chain(r2.x, (r1, r2), (e2, e2), (d2, d2), kap, src)


four_matrices.__doc__ += _COMMON_DOC


def even_power_schedule(j: int, eps: float, delta: float, kappa: float, schedule: str = "paper"):
    """Stage tolerances ``(η_k)`` and failure probabilities ``(δ_k)``, k = 1..j, of alg.5.

    ``"paper"`` (as stated): ``δ_k = δ/k``, ``ε_k = ε·0.5^{j−k}``, ``η_k = ε_k/κ^{2k}``.
    ``"corrected"`` (spec alg.5, derived, proven in thmJ.2): ``δ_k = δ/j``,
    ``η_k = ε·2^{−(j−k+2)}/κ^{2(k−1)}``.
    """
    ks = range(1, j + 1)
    if schedule == "paper":
        return ([eps * 0.5 ** (j - k) / kappa ** (2 * k) for k in ks], [delta / k for k in ks])
    if schedule == "corrected":
        return ([eps * 2.0 ** -(j - k + 2) / kappa ** (2 * (k - 1)) for k in ks], [delta / j for _ in ks])
    raise ValueError(f"schedule={schedule!r} must be 'paper' or 'corrected'")


def _even(A, b, j, eps, delta, key, kappa, opts, schedule):
    keys = jax.random.split(key, j)
    deltas = even_power_schedule(j, eps, delta, 1.0, schedule)[1]
    pre1 = _precondition(A, None, keys[0], opts, A.shape[1], deltas[0] / 2)
    kap, src = (kappa, "given") if kappa is not None else (_kappa_hat(pre1, opts), "sketch")
    etas, deltas = even_power_schedule(j, eps, delta, kap, schedule)
    stages = []
    bk = b
    for k in range(j):
        r = _alg2(A, bk, min(etas[k], 0.5), deltas[k], keys[k], opts, pre=pre1 if k == 0 else None)
        stages.append(r)
        bk = r.x
    return _chain(bk, stages, etas, deltas, kap, src)


def even_powers(
    A, b, j: int, eps: float, delta: float, *, key, kappa: float | None = None,
    schedule: str = "paper", sketch: str = "srht", sketch_rows: int | None = None,
    sparsity: int | None = None, eps_ose: float = EPS_OSE, c_se: float = C_SE,
    max_iterations: int | None = None, rank_rtol: float = 1e-12,
) -> ChainResult:
    """Algorithm 5 (EvenPowers): ``min_x ‖(AᵀA)^j x − b‖`` (eq. 1), ``b ∈ R^d``, ``j ≥ 1``.

    Spec ``alg.5`` / claim ``thmJ.2``: ``‖(AᵀA)^j x' − b‖ ≤ ε‖b‖`` w.p. ≥ 1 − δ.

    ``b₀ = b``; for k = 1..j: ``b_k = alg.2(A, b_{k−1}, η_k, δ_k)``; return ``b_j``.
    ``schedule="paper"`` (default, as stated): ``δ_k = δ/k``, ``η_k = ε·0.5^{j−k}/κ^{2k}``.
    **Inconsistencies (spec alg.5):** these ``δ_k`` sum to ``δ·H_j > δ``; ``ε_k`` doubles with k
    (against Lemma J.1 bullet 3); with ``κ² < 10`` the stage tolerance exceeds what the J.1
    proof assumes. ``schedule="corrected"``: ``δ_k = δ/j``,
    ``η_k = ε·2^{−(j−k+2)}/κ^{2(k−1)}`` (proven in spec thmJ.2). Stage tolerances are
    clipped to ≤ 0.5 (only matters for ``η_k`` ≥ 1, which alg.2's domain excludes).
    Tolerances below float64 reach (spec T4) make stages stop at ``T₂`` with
    ``converged=False``.
    """
    A = _check_A(A)
    b = _check_b(b, "b", A.shape[1], "A.shape[1]")
    if isinstance(j, bool) or not isinstance(j, Integral) or j < 1:
        raise ValueError(f"j={j!r} must be an int >= 1")
    eps, delta, key, kappa, opts = _common(A, eps, delta, key, kappa, sketch, sketch_rows, sparsity,
                                           eps_ose, c_se, rank_rtol, max_iterations)
    if schedule not in ("paper", "corrected"):
        raise ValueError(f"schedule={schedule!r} must be 'paper' or 'corrected'")
    return _even(A, b, int(j), eps, delta, key, kappa, opts, schedule)


even_powers.__doc__ += _COMMON_DOC


def odd_powers(
    A, b, j: int, eps: float, delta: float, *, key, kappa: float | None = None,
    schedule: str = "paper", sketch: str = "srht", sketch_rows: int | None = None,
    sparsity: int | None = None, method: str = "gd", eps_ose: float = EPS_OSE, c_se: float = C_SE,
    max_iterations: int | None = None, rank_rtol: float = 1e-12,
) -> ChainResult:
    """Algorithm 6 (OddPowers): ``min_x ‖A(AᵀA)^j x − b‖`` (eq. 2), ``b ∈ R^n``, ``j ≥ 0``.

    Spec ``alg.6`` / claim ``thmK.1`` (sensible reading): ``‖A(AᵀA)^j x' − b‖ ≤ (1+ε)·OPT + ε‖b‖``
    w.p. ≥ 1 − δ, ``OPT = ‖(I − P_A)b‖`` (the stated ``‖(AᵀA)^j x' − b‖ ≤ ε‖b‖`` is ill-typed).

    1. ``ε₁ = 0.1ε``, ``δ₁ = δ/2``: ``b₁ = alg.1(A, b, ε₁, δ₁)``. For ``j = 0`` return ``b₁``.
    2. ``ε_even = ε/κ``, ``δ_even = δ/2``: ``x' = alg.5(A, b₁, j, ε_even, δ_even)`` with the same
       ``schedule`` and ``κ`` (``κ̂`` from alg.1's sketch when ``kappa=None``).
    ``stages`` holds alg.1's result followed by alg.5's stages; ``epsilons``/``deltas`` likewise.
    """
    A = _check_A(A)
    b = _check_b(b, "b", A.shape[0], "A.shape[0]")
    if isinstance(j, bool) or not isinstance(j, Integral) or j < 0:
        raise ValueError(f"j={j!r} must be an int >= 0")
    eps, delta, key, kappa, opts = _common(A, eps, delta, key, kappa, sketch, sketch_rows, sparsity,
                                           eps_ose, c_se, rank_rtol, max_iterations, method)
    if schedule not in ("paper", "corrected"):
        raise ValueError(f"schedule={schedule!r} must be 'paper' or 'corrected'")
    k1, k2 = jax.random.split(key)
    e1, d1 = 0.1 * eps, delta / 2
    r1, pre1 = _alg1(A, b, e1, d1, k1, opts)
    kap, src = (kappa, "given") if kappa is not None else (_kappa_hat(pre1, opts), "sketch")
    if j == 0:
        return _chain(r1.x, (r1,), (e1,), (d1,), kap, src)
    e_even, d_even = eps / kap, delta / 2
    ev = _even(A, r1.x, int(j), e_even, d_even, k2, kap, opts._replace(method="gd"), schedule)
    return _chain(ev.x, (r1,) + ev.stages, (e1,) + ev.epsilons, (d1,) + ev.deltas, kap, src)


odd_powers.__doc__ += _COMMON_DOC
