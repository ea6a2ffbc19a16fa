"""Exact Newton on the softmax-regression loss, and the Newton step every variant shares.

Spec ``spec/softmax_regression.md`` §3 (``alg.exact_newton``, ``def8.3.exact_newton``).  The
iteration itself is :func:`solvers.newton.iterate`; this module supplies the step: the
(safeguarded) Newton direction, the Armijo line search, and the loops of exact and approximate
Newton built on them.  A stop is always a :class:`solvers.newton.Status`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._validation import check_int, check_real
from ..newton import Step, iterate
from ..results import Status
from .objective import (
    hessian_from_u,
    loss_u,
    newton_state,
    newton_state_fused,
    squared_weights,
    validate_problem,
    validate_x,
)

__all__ = [
    "ARMIJO_C",
    "MAX_HALVINGS",
    "NewtonResult",
    "armijo_step",
    "check_start",
    "direction_and_step",
    "exact_newton",
    "host_direction",
    "newton_loop",
    "newton_loop_fused",
    "prepare_solve",
    "shifted_eigenvalues",
]

# Safeguard for a Hessian (model) that is not numerically PD: shift past λ_min by this fraction of
# max|λ| (measured on family (b) of the benchmark, n = 2^12 … 2^20: 6-7 Newton steps instead of
# 7-11 with the earlier λ ↦ max(|λ|, 1e-10 max|λ|) rule; 0.003 and 0.01 are equal, 0.03 is worse).
_SHIFT = 0.01
# Armijo constant and maximal number of halvings of the safeguarded line search.
ARMIJO_C = 1e-4
MAX_HALVINGS = 40

# Outcome codes of the jitted step (index into _STEP_STATUS): 0 an update was taken.
_OK, _NOT_PD, _STALLED, _NONFINITE = 0, 1, 2, 3
_STEP_STATUS = (None, Status.NOT_POSITIVE_DEFINITE, Status.STALLED, Status.NONFINITE)


class NewtonResult(NamedTuple):
    """Result of :func:`exact_newton`, :func:`~solvers.softmax_regression.approximate_newton` and
    :func:`~solvers.softmax_regression.split_newton`.

    **Fields:**

    - ``x``: the last iterate, a float64 numpy array of shape ``(d,)`` (always finite).
    - ``status``: the :class:`solvers.newton.Status` that ended the iteration (``CONVERGED``,
      ``MAX_ITERATIONS``, ``CALLBACK``, ``NOT_POSITIVE_DEFINITE`` without safeguard, ``STALLED``
      when no step decreases L to rounding, ``NONFINITE``).
    - ``iterations``: number of Newton updates performed.
    - ``grad_norm_history``: ``‖∇L(x_t)‖₂`` for ``t = 0, …, iterations`` (numpy, length
      ``iterations + 1``).
    - ``sample_sizes``: number of rows of ``A`` used to build each Hessian (numpy int array,
      length ``iterations``); always ``n`` for exact Newton.

    ``converged`` is ``status is Status.CONVERGED`` (the final gradient norm is ``≤ tol``).
    """

    x: np.ndarray
    status: Status
    iterations: int
    grad_norm_history: np.ndarray
    sample_sizes: np.ndarray

    @property
    def converged(self) -> bool:
        return self.status is Status.CONVERGED

    @classmethod
    def of(cls, res) -> NewtonResult:
        """From a :class:`solvers.newton.Result` whose ``aux`` holds the rows used per update."""
        return cls(x=res.x, status=res.status, iterations=res.iterations,
                   grad_norm_history=res.history, sample_sizes=np.asarray(res.aux, dtype=np.int64))


def prepare_solve(A, b, w, x0, tol, max_iter, callback, check_A_finite: bool = True):
    """Validate the arguments every Newton solver shares; returns (A, b, w², x0, tol, max_iter)."""
    A, b, w = validate_problem(A, b, w, check_A_finite)
    d = A.shape[1]
    x = jnp.zeros((d,), jnp.float64) if x0 is None else validate_x(x0, d, "x0")
    tol = check_real("tol", tol, lo=0.0)
    max_iter = check_int("max_iter", max_iter, lo=0)
    if callback is not None and not callable(callback):
        raise ValueError(f"callback={callback!r} must be callable or None")
    return A, b, squared_weights(w), x, tol, max_iter


def check_start(L0, gn, u, x) -> None:
    """ValueError naming the overflow when L or ∇L is not finite at the start point ``x0``."""
    if not (np.isfinite(float(L0)) and np.isfinite(float(gn))):
        raise ValueError(
            f"x0 (max |x0_i| = {float(jnp.max(jnp.abs(x))):.3g}) must give a finite L(x0) and ∇L(x0) in float64: "
            f"they overflow (max |(A x0)_i| = {float(jnp.max(jnp.abs(u))):.3g}); start closer to 0")


@partial(jax.jit, static_argnames=("safeguard",))
def direction_and_step(A, b, w2, x, u, L0, g, H, *, safeguard: bool):
    """Solve H p = −g (safeguarded) and take a step; returns (x_new, code).

    With ``safeguard``: the Newton direction if H is numerically PD (Cholesky succeeds), else
    the shifted direction p = −(H + μI)⁻¹ g with μ = −λ_min(H) + _SHIFT·max|λ(H)|
    (Levenberg–Marquardt shift just past the most negative eigenvalue: the form of a trust-region
    step, Moré–Sorensen; a descent direction); then a backtracking (halving) Armijo line search
    on L along p (:func:`armijo_step`).  Without ``safeguard``: the plain update x − H⁻¹g.
    ``code`` indexes ``_STEP_STATUS``: 0 an update was taken, else the reason none was
    (H not numerically PD without safeguard; no descent / no Armijo step; a non-finite p).
    """
    Lc = jnp.linalg.cholesky(H)
    pd = jnp.all(jnp.isfinite(Lc))

    def newton_dir(_):
        y = jax.scipy.linalg.solve_triangular(Lc, -g, lower=True)
        return jax.scipy.linalg.solve_triangular(Lc.T, y, lower=False)

    if not safeguard:
        p = newton_dir(None)
        finite = jnp.all(jnp.isfinite(p))
        code = jnp.where(~pd, _NOT_PD, jnp.where(finite, _OK, _NONFINITE))
        return jnp.where(code == _OK, x + p, x), code

    def modified_dir(_):
        # H not numerically PD: shifted Newton, (H + μI) p = −g, μ = −λ_min + _SHIFT·max|λ|
        lam, V = jnp.linalg.eigh(H)
        return -(V @ ((V.T @ g) / shifted_eigenvalues(jnp, lam)))

    p = jax.lax.cond(pd, newton_dir, modified_dir, None)
    x_new, code, _ = armijo_step(A, b, w2, x, u, L0, g, p)
    return x_new, code


@jax.jit
def _armijo_step_jit(A, b, w2, x, u, L0, g, p):
    return armijo_step(A, b, w2, x, u, L0, g, p)


def host_direction(H, g, safeguard: bool):
    """The direction of :func:`direction_and_step` computed on the host (LAPACK via scipy;
    XLA's CPU Cholesky/eigh of a d × d matrix are ~100× slower at d = 128).  Returns p, or
    None when H is not numerically PD and ``safeguard`` is False."""
    import scipy.linalg

    H = np.asarray(H)
    g = np.asarray(g)
    try:
        c = scipy.linalg.cho_factor(H, lower=True, check_finite=False)
        p = -scipy.linalg.cho_solve(c, g, check_finite=False)
        if np.all(np.isfinite(p)):
            return p
    except (np.linalg.LinAlgError, ValueError):
        pass
    if not safeguard:
        return None
    lam, V = np.linalg.eigh(H)
    return -(V @ ((V.T @ g) / shifted_eigenvalues(np, lam)))


def shifted_eigenvalues(xp, lam):
    """Eigenvalues of H + μI, μ = −λ_min + _SHIFT·max|λ| (floored at the smallest normal
    number so that H = 0 gives a huge but finite step that the line search cuts back)."""
    shift = xp.maximum(_SHIFT * xp.max(xp.abs(lam)), xp.finfo(xp.float64).tiny)
    return lam - xp.min(lam) + shift


def armijo_step(A, b, w2, x, u, L0, g, p):
    """Backtracking Armijo line search along p: t = 1, ½, ¼, … (at most MAX_HALVINGS halvings)
    until L(x + t p) ≤ L(x) + ARMIJO_C·t·∇Lᵀp.  The full step is accepted when the predicted
    decrease −gᵀp is at the rounding level of L (near x*, where comparisons of L are
    meaningless).  Returns (x_new, code, u_new) with u_new = u + t·Ap (code as in
    :func:`direction_and_step`; x and u unchanged unless code is 0)."""
    finite = jnp.all(jnp.isfinite(p))
    gtp = jnp.dot(g, p)
    Ap = A @ p
    noise = 64.0 * jnp.finfo(jnp.float64).eps * (jnp.abs(L0) + jnp.finfo(jnp.float64).tiny)

    def accept(t, Lt):
        armijo = Lt <= L0 + ARMIJO_C * t * gtp
        tiny = (t == 1.0) & (-gtp <= noise) & jnp.isfinite(Lt)
        return (armijo & jnp.isfinite(Lt)) | tiny

    def ls_cond(state):
        t, Lt, k = state
        return (~accept(t, Lt)) & (k < MAX_HALVINGS)

    def ls_body(state):
        t, _, k = state
        t = 0.5 * t
        return t, loss_u(u + t * Ap, b, w2), k + 1

    t0 = jnp.ones(())
    t, Lt, _ = jax.lax.while_loop(ls_cond, ls_body, (t0, loss_u(u + Ap, b, w2), jnp.zeros((), jnp.int32)))
    ok = finite & jnp.isfinite(gtp) & (gtp < 0) & accept(t, Lt)
    code = jnp.where(ok, _OK, jnp.where(finite, _STALLED, _NONFINITE))
    return jnp.where(ok, x + t * p, x), code, jnp.where(ok, u + t * Ap, u)


def _point(state) -> np.ndarray:
    return np.asarray(state[0])


def newton_loop(A, b, w2, x, tol, max_iter, callback, safeguard, hessian_fn) -> NewtonResult:
    """Newton with the jitted step :func:`direction_and_step`, driven by
    :func:`solvers.newton.iterate`.  State (x, u, L, ∇L, ‖∇L‖); ``hessian_fn(t, u)`` returns
    (H, rows used or None for all n)."""
    n = A.shape[0]
    state0 = (x, *newton_state(A, b, w2, x))
    check_start(state0[2], state0[4], state0[1], x)

    def step(t, state):
        x, u, L0, g, _ = state
        H, k = hessian_fn(t, u)
        x_new, code = direction_and_step(A, b, w2, x, u, L0, g, H, safeguard=safeguard)
        code = int(code)
        if code != _OK:
            return _STEP_STATUS[code]
        return Step((x_new, *newton_state(A, b, w2, x_new)), n if k is None else k)

    res = iterate(step, state0, measure=lambda s: s[4], point=_point, tol=tol, max_iter=max_iter,
                  callback=callback)
    return NewtonResult.of(res)


def newton_loop_fused(A, b, w2, x, tol, max_iter, callback, safeguard, hessian_fn) -> NewtonResult:
    """:func:`newton_loop` with two passes over A per iteration: [r; f; v] A (gradient and
    rank-2 part together) and A p (line search; u is carried as u + t·Ap); the d × d direction
    solve runs on the host (:func:`host_direction`, same rule as :func:`direction_and_step`).
    u is recomputed exactly as A x every 8 iterations, so rounding drift of the carried u stays
    negligible.  State (x, u, L, ∇L, ‖∇L‖, Aᵀf, Aᵀv); ``hessian_fn(t, u, af, av)`` returns
    (H, rows used or None)."""
    n = A.shape[0]
    u = A @ x
    state0 = (x, u, *newton_state_fused(A, b, w2, u))
    check_start(state0[2], state0[4], u, x)

    def step(t, state):
        x, u, L0, g, _, af, av = state
        H, k = hessian_fn(t, u, af, av)
        p = host_direction(H, g, safeguard)
        if p is None:
            return Status.NOT_POSITIVE_DEFINITE
        p = jnp.asarray(p)
        if safeguard:
            x_new, code, u_new = _armijo_step_jit(A, b, w2, x, u, L0, g, p)
            code = int(code)
            if code != _OK:
                return _STEP_STATUS[code]
        else:
            x_new, u_new = x + p, u + A @ p
        u_new = A @ x_new if (t + 1) % 8 == 0 else u_new
        return Step((x_new, u_new, *newton_state_fused(A, b, w2, u_new)), n if k is None else k)

    res = iterate(step, state0, measure=lambda s: s[4], point=_point, tol=tol, max_iter=max_iter,
                  callback=callback)
    return NewtonResult.of(res)


def exact_newton(A, b, w, *, x0=None, tol: float = 1e-10, max_iter: int = 100,
                 safeguard: bool = True,
                 callback: Callable[[np.ndarray], bool] | None = None) -> NewtonResult:
    """Exact (safeguarded) Newton method on L (spec ``alg.exact_newton``, ``def8.3.exact_newton``).

    x_{t+1} = x_t + s_t p_t with H(x_t) p_t = −∇L(x_t), H = Aᵀ(B(x_t) + W²)A formed
    in O(n d²) (see :func:`~solvers.softmax_regression.hessian`).  Safeguard (for instances
    outside the theory, e.g. weak regularisation where H is not PD): when the Cholesky
    factorisation of H fails, p_t is the shifted direction −(H + μI)⁻¹∇L,
    μ = −λ_min(H) + 0.01·max|λ(H)| (the form of a trust-region step), a descent direction; step
    s_t by halving from 1 until the Armijo condition L(x + s p) ≤ L(x) + 1e-4 s ∇Lᵀp holds.
    Under lem6.3.part1 (w_i² ≥ 4 + l/σ_min(A)²) H ⪰ l I, so p_t is the Newton direction, and
    near x* the full step is taken, so the iteration is the plain Newton method with quadratic
    convergence.

    **Arguments:**

    - ``A`` (n, d), ``b`` (n,), ``w`` (n,): the instance (real, finite, non-empty).
    - ``x0``: start (d,), default zeros; ValueError if L(x0) or ∇L(x0) overflows float64.
    - ``tol``: stop when ‖∇L(x_t)‖₂ ≤ tol (absolute; ``tol=0`` runs ``max_iter`` steps).
    - ``max_iter``: maximal number of Newton updates.
    - ``safeguard``: if False, take plain steps x − H⁻¹∇L and stop with
      ``Status.NOT_POSITIVE_DEFINITE`` when H is not numerically PD.
    - ``callback``: called with the numpy iterate after every update (and on ``x0``); a true
      return value stops the iteration (``Status.CALLBACK``).

    **Returns:** :class:`NewtonResult`.
    """
    A, b, w2, x, tol, max_iter = prepare_solve(A, b, w, x0, tol, max_iter, callback)

    def hess(_t, u):
        return hessian_from_u(A, b, w2, u), None

    return newton_loop(A, b, w2, x, tol, max_iter, callback, bool(safeguard), hess)
