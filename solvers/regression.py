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

Algorithms 1 and 2 and the machinery they share (sketch + QR preconditioner, validation, exact
power-of-two rescaling of ``A`` and ``b``) live in :mod:`solvers.least_squares` and are re-exported
here; this module holds the composite algorithms 3–6.  Full column rank (spec G0) is checked on
``R̃``'s diagonal: ``min|R̃_ii| ≤ rank_rtol · max|R̃_ii|`` raises ``ValueError``. Each solver
returns a NamedTuple with the solution and the operation counts spec T3 asks for (matvecs with
``A`` and ``Aᵀ``, iterations, sketch rows, QR shape), so running-time claims are checked on counts.

Bad input: every stage tolerance (``0.1ε``, ``ε/κ``, ``0.1ε/κ²``, ``η_k = ε·0.5^{j−k}/κ^{2k}``)
must be a normal float64; a ``kappa`` or ``j`` that drives one below 2.2e-308 raises ``ValueError``
naming it (never ``OverflowError``).  The solution is scaled back from the unit-scaled problem and
``ValueError`` names an overflow when it is not representable.

Randomness: every function takes ``key`` (a ``jax.random`` key or an int seed). Stages of the
composite algorithms use independent keys ``jax.random.split(key, stages)``; the sketch bits are
drawn by :mod:`solvers.sketches` and are therefore reproducible from the key.
"""

from __future__ import annotations

from typing import NamedTuple

import jax

from . import sketches as sk
from ._validation import check_int, check_positive, check_unit
from .least_squares import (
    C_SE,
    EPS_OSE,
    Options,
    Preconditioner,
    SolveResult,
    alg1,
    alg2,
    check_A,
    check_b,
    check_tolerance,
    fast_linear_regression,
    fast_psd_regression,
    options,
    precondition,
    sketch_size,
    unit_scale,
)
from .results import Status, stopping_status

__all__ = [
    "ChainResult",
    "SolveResult",
    "attention_regression",
    "even_power_schedule",
    "even_powers",
    "fast_linear_regression",
    "fast_psd_regression",
    "four_matrices",
    "odd_powers",
    "sketch_size",
]


class ChainResult(NamedTuple):
    """Output of the composite algorithms alg.3 – alg.6.

    ``x``: solution. ``stages``: the :class:`SolveResult` of every sub-solve, in order.
    ``epsilons``, ``deltas``: tolerance and failure probability passed to each stage.
    ``kappa``: the condition number used to split ε; ``kappa_source``: ``"given"`` (argument)
    or ``"sketch"`` (the safe bound ``κ̂ = κ(R̃)(1+ε_ose)/(1−ε_ose)`` from the first stage's
    sketch, spec alg.3). ``iterations``, ``matvecs_A``, ``matvecs_At``, ``sketch_rows``: totals
    over the stages. ``status``: ``Status.CONVERGED`` when every stage met its stopping rule, else
    ``Status.MAX_ITERATIONS`` (:mod:`solvers.results`).
    """

    x: jax.Array
    status: Status
    stages: tuple
    epsilons: tuple
    deltas: tuple
    kappa: float
    kappa_source: str
    iterations: int
    matvecs_A: int
    matvecs_At: int
    sketch_rows: int


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
        status=stopping_status(all(s.status is Status.CONVERGED for s in stages)),
    )

# ----------------------------------------------------------------------------- composites


def _kappa_hat(pre: Preconditioner, opts: Options) -> float:
    """Safe bound ``κ̂ = κ(R̃)(1+ε_ose)/(1−ε_ose) ≥ κ(A)`` (valid when the SE holds; spec alg.3)."""
    if pre.kind == "identity":
        return pre.kappa
    return pre.kappa * (1 + opts.eps_ose) / (1 - opts.eps_ose)


def _check_kappa(kappa):
    if kappa is None:
        return None
    k = check_positive("kappa", kappa)
    if k < 1.0:
        raise ValueError(f"kappa={kappa!r} must be >= 1 (a condition number)")
    return k


def _common(A, eps, delta, key, kappa, sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol,
            max_iterations, method="gd"):
    eps = check_unit("eps", eps)
    delta = check_unit("delta", delta)
    opts = options(sketch, sketch_rows, sparsity, eps_ose, c_se, rank_rtol, method, max_iterations)
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
    A = check_A(A)
    b = check_b(b, "b", A.shape[0], "A.shape[0]")
    eps, delta, key, kappa, opts = _common(A, eps, delta, key, kappa, sketch, sketch_rows, sparsity,
                                           eps_ose, c_se, rank_rtol, max_iterations, method)
    A, a_exp = unit_scale(A)
    k1, k2 = jax.random.split(key)
    e1, d1 = _stage_eps(0.1 * eps, f"eps={eps!r}: the stage tolerance ε₁ = 0.1·ε", "eps must be larger"), delta / 2
    r1, pre1 = alg1(A, a_exp, b, e1, d1, k1, opts)
    kap, src = (kappa, "given") if kappa is not None else (_kappa_hat(pre1, opts), "sketch")
    e2, d2 = _stage_eps(eps / kap, f"{_kap(kappa, kap)}, eps={eps!r}: the stage tolerance ε₂ = ε/κ", _FIX), delta / 2
    r2 = alg2(A, a_exp, r1.x, e2, d2, k2, opts._replace(method="gd"))
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
    A = check_A(A)
    b = check_b(b, "b", A.shape[1], "A.shape[1]")
    eps, delta, key, kappa, opts = _common(A, eps, delta, key, kappa, sketch, sketch_rows, sparsity,
                                           eps_ose, c_se, rank_rtol, max_iterations)
    A, a_exp = unit_scale(A)
    k1, k2 = jax.random.split(key)
    d2 = delta / 2
    pre1 = precondition(A, None, k1, opts, A.shape[1], d2 / 2)
    kap, src = (kappa, "given") if kappa is not None else (_kappa_hat(pre1, opts), "sketch")
    e2 = _stage_eps(_ratio(0.1 * eps, kap, 2), f"{_kap(kappa, kap)}, eps={eps!r}: the stage tolerance ε₂ = 0.1·ε/κ²", _FIX)
    r1 = alg2(A, a_exp, b, e2, d2, k1, opts, pre=pre1)
    r2 = alg2(A, a_exp, r1.x, e2, d2, k2, opts)
    return _chain(r2.x, (r1, r2), (e2, e2), (d2, d2), kap, src)


four_matrices.__doc__ += _COMMON_DOC


def even_power_schedule(j: int, eps: float, delta: float, kappa: float, schedule: str = "paper"):
    """Stage tolerances ``(η_k)`` and failure probabilities ``(δ_k)``, k = 1..j, of alg.5.

    ``"paper"`` (as stated): ``δ_k = δ/k``, ``ε_k = ε·0.5^{j−k}``, ``η_k = ε_k/κ^{2k}``.
    ``"corrected"`` (spec alg.5, derived, proven in thmJ.2): ``δ_k = δ/j``,
    ``η_k = ε·2^{−(j−k+2)}/κ^{2(k−1)}``.  ValueError naming ``j`` and ``kappa`` when some
    ``η_k`` underflows float64 (is below 2.2e-308); ValueError naming the argument for j < 1, eps or
    delta outside (0, 1), kappa < 1.
    """
    j = check_int("j", j, lo=1)
    eps, delta, kappa = check_unit("eps", eps), check_unit("delta", delta), _check_kappa(kappa)
    if kappa is None:
        raise ValueError("kappa=None must be a condition number >= 1")
    ks = range(1, j + 1)
    if schedule == "paper":
        parts, deltas = [(0.5 ** (j - k), 2 * k) for k in ks], [delta / k for k in ks]
    elif schedule == "corrected":
        parts, deltas = [(2.0 ** -(j - k + 2), 2 * (k - 1)) for k in ks], [delta / j for _ in ks]
    else:
        raise ValueError(f"schedule={schedule!r} must be 'paper' or 'corrected'")
    etas = [_stage_eps(_ratio(eps * f, kappa, p), f"j={j}, kappa={kappa!r}, eps={eps!r}: the stage tolerance "
                       f"η_{k} = ε·{f:.3g}/κ^{p} (schedule {schedule!r})", "j or kappa must be smaller, or eps larger")
            for k, (f, p) in zip(ks, parts)]
    return etas, deltas


def _ratio(num: float, kappa: float, p: int) -> float:
    """num / κ^p, 0.0 when κ^p overflows (the quotient then underflows anyway)."""
    try:
        return num / kappa ** p
    except OverflowError:
        return 0.0


_FIX = "kappa must be smaller or eps larger"


def _stage_eps(value: float, what: str, fix: str) -> float:
    """A stage tolerance, which must be a normal float64 (:func:`~solvers.least_squares.check_tolerance`)."""
    return check_tolerance(value, what, fix)


def _kap(kappa, kap: float) -> str:
    return f"kappa={kappa!r}" if kappa is not None else f"kappa=None (κ̂ = {kap:.6g} from the sketch)"


def _even(A, a_exp, b, j, eps, delta, key, kappa, opts, schedule):
    deltas = even_power_schedule(j, eps, delta, 1.0, schedule)[1]
    keys = jax.random.split(key, j)
    pre1 = precondition(A, None, keys[0], opts, A.shape[1], deltas[0] / 2)
    kap, src = (kappa, "given") if kappa is not None else (_kappa_hat(pre1, opts), "sketch")
    etas, deltas = even_power_schedule(j, eps, delta, kap, schedule)
    stages = []
    bk = b
    for k in range(j):
        r = alg2(A, a_exp, bk, min(etas[k], 0.5), deltas[k], keys[k], opts, pre=pre1 if k == 0 else None)
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
    ``status=Status.MAX_ITERATIONS``.
    """
    A = check_A(A)
    b = check_b(b, "b", A.shape[1], "A.shape[1]")
    j = check_int("j", j, lo=1)
    eps, delta, key, kappa, opts = _common(A, eps, delta, key, kappa, sketch, sketch_rows, sparsity,
                                           eps_ose, c_se, rank_rtol, max_iterations)
    if schedule not in ("paper", "corrected"):
        raise ValueError(f"schedule={schedule!r} must be 'paper' or 'corrected'")
    return _even(*unit_scale(A), b, int(j), eps, delta, key, kappa, opts, schedule)


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
    A = check_A(A)
    b = check_b(b, "b", A.shape[0], "A.shape[0]")
    j = check_int("j", j, lo=0)
    eps, delta, key, kappa, opts = _common(A, eps, delta, key, kappa, sketch, sketch_rows, sparsity,
                                           eps_ose, c_se, rank_rtol, max_iterations, method)
    if schedule not in ("paper", "corrected"):
        raise ValueError(f"schedule={schedule!r} must be 'paper' or 'corrected'")
    A, a_exp = unit_scale(A)
    k1, k2 = jax.random.split(key)
    e1, d1 = _stage_eps(0.1 * eps, f"eps={eps!r}: the stage tolerance ε₁ = 0.1·ε", "eps must be larger"), delta / 2
    r1, pre1 = alg1(A, a_exp, b, e1, d1, k1, opts)
    kap, src = (kappa, "given") if kappa is not None else (_kappa_hat(pre1, opts), "sketch")
    if j == 0:
        return _chain(r1.x, (r1,), (e1,), (d1,), kap, src)
    e_even = _stage_eps(eps / kap, f"{_kap(kappa, kap)}, eps={eps!r}: the tolerance ε/κ of the even-power stages", _FIX)
    d_even = delta / 2
    ev = _even(A, a_exp, r1.x, int(j), e_even, d_even, k2, kap, opts._replace(method="gd"), schedule)
    return _chain(ev.x, (r1,) + ev.stages, (e1,) + ev.epsilons, (d1,) + ev.deltas, kap, src)


odd_powers.__doc__ += _COMMON_DOC
