"""One iteration driver for Newton-type methods, with a named stopping status.

Modelled on optimistix's ``iterative_solve`` (a solver supplies a step function; the loop, the
termination rule, the callback and the history are written once) and on lineax's ``RESULTS``
(every stop is a named :class:`Status`, never a silent ``break``).  The loop runs on the host:
each step may be a jitted kernel, and the driver reads one float (the termination measure) per
iteration.

Used by the softmax-regression solvers (exact, approximate and split Newton,
:mod:`solvers.softmax_regression`) and by any other Newton method of the project.

A solver provides:

- ``state0``: anything (a tuple of arrays, a NamedTuple, …) that describes the current iterate;
- ``step(t, state)``: the ``t``-th update (``t = 0, 1, …``).  It returns a :class:`Step` (the new
  state and an optional per-update record, e.g. the number of rows sampled) when it took an
  update, or the :class:`Status` that names why no update could be taken
  (``Status.NOT_POSITIVE_DEFINITE``, ``Status.STALLED``, ``Status.NONFINITE``);
- ``measure(state)``: the termination measure (a float, e.g. ``‖∇L(x)‖₂``), recorded in the history;
- ``point(state)``: the iterate ``x`` as a numpy array (what the result and the callback see).

Termination rule, checked at the start point and after every update, in this order:
``measure ≤ tol`` → ``CONVERGED``; a non-finite measure → ``NONFINITE`` (the result then holds
the last iterate with a finite measure); ``callback(x)`` true → ``CALLBACK``; ``max_iter``
updates taken → ``MAX_ITERATIONS``.  ``tol = 0`` runs ``max_iter`` updates unless the measure
reaches exactly 0.

Example (Newton on f(x) = Σ cosh(x_i), measure ‖f'(x)‖)::

    def step(t, x):
        return Step(x - np.tanh(x))          # x − f'(x)/f''(x)
    res = iterate(step, np.ones(3), measure=lambda x: float(np.linalg.norm(np.sinh(x))),
                  point=np.asarray, tol=1e-12, max_iter=50)
    assert res.status is Status.CONVERGED
"""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, NamedTuple

import numpy as np

from .results import Status

__all__ = ["Result", "Status", "Step", "iterate"]


class Step(NamedTuple):
    """An accepted update: the new ``state`` and an optional per-update record ``aux``."""

    state: Any
    aux: Any = None


class Result(NamedTuple):
    """Outcome of :func:`iterate`.

    **Fields:**

    - ``x``: :func:`point` of the final state (numpy array).
    - ``status``: the :class:`Status` that ended the iteration.
    - ``iterations``: number of updates taken.
    - ``history``: the termination measure at the start point and after every update (numpy
      float64, length ``iterations + 1``).
    - ``aux``: the ``Step.aux`` of every update, in order (tuple of length ``iterations``).
    - ``state``: the final state (the solver's own type).
    """

    x: np.ndarray
    status: Status
    iterations: int
    history: np.ndarray
    aux: tuple
    state: Any

    @property
    def converged(self) -> bool:
        """``status is Status.CONVERGED``."""
        return self.status is Status.CONVERGED


def _measure(measure, state) -> float:
    value = measure(state)
    try:
        return float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"measure(state)={value!r} must be a real number") from exc


def iterate(step: Callable[[int, Any], Step | Status], state0: Any, *,
            measure: Callable[[Any], float], point: Callable[[Any], np.ndarray],
            tol: float, max_iter: int,
            callback: Callable[[np.ndarray], bool] | None = None) -> Result:
    """Run ``state ← step(t, state).state`` until the termination rule of the module holds.

    **Arguments:**

    - ``step``: ``step(t, state)`` returns :class:`Step` (an update was taken) or a
      :class:`Status` (none could be: the iteration stops with that status).
    - ``state0``: the start state.
    - ``measure``: ``measure(state)`` → float, the termination measure (``≤ tol`` is converged).
    - ``point``: ``point(state)`` → numpy array, the iterate reported to ``callback`` and in
      the result.
    - ``tol``: finite real ``≥ 0``.
    - ``max_iter``: int ``≥ 0``, the most updates taken.
    - ``callback``: ``callback(x)`` on the start point and after every update; a true return
      value stops the iteration with ``Status.CALLBACK`` (unless it converged at that point).

    **Returns:** :class:`Result`.
    """
    if not callable(step):
        raise ValueError(f"step={step!r} must be callable")
    if isinstance(tol, bool) or not isinstance(tol, Real) or not math.isfinite(tol) or tol < 0:
        raise ValueError(f"tol={tol!r} must be a finite real number >= 0")
    if isinstance(max_iter, bool) or not isinstance(max_iter, Integral) or max_iter < 0:
        raise ValueError(f"max_iter={max_iter!r} must be an integer >= 0")
    if callback is not None and not callable(callback):
        raise ValueError(f"callback={callback!r} must be callable or None")

    state = state0
    history = [_measure(measure, state)]
    aux: list = []

    def verdict(state, value) -> Status | None:
        if value <= tol:
            return Status.CONVERGED
        if not math.isfinite(value):
            return Status.NONFINITE
        if callback is not None and bool(callback(point(state))):
            return Status.CALLBACK
        if len(aux) >= max_iter:
            return Status.MAX_ITERATIONS
        return None

    status = verdict(state, history[0])
    while status is None:
        out = step(len(aux), state)
        if isinstance(out, Status):
            status = out
            break
        if not isinstance(out, Step):
            raise ValueError(f"step(t, state) returned {type(out).__name__}: it must return a Step or a Status")
        value = _measure(measure, out.state)
        if not math.isfinite(value):
            status = Status.NONFINITE  # keep the last iterate with a finite measure
            break
        state = out.state
        history.append(value)
        aux.append(out.aux)
        status = verdict(state, value)
    return Result(point(state), status, len(aux), np.asarray(history, np.float64), tuple(aux), state)
