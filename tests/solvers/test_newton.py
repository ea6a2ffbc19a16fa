"""The Newton driver ``solvers.newton.iterate``: every stop is a named status (optimistix-style
loop, lineax-style result code)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from solvers.newton import Result, Status, Step, iterate


def _cosh_newton(t, x):
    return Step(x - np.tanh(x), aux=t)  # Newton on Σ cosh(x_i): x − sinh/cosh


def _grad_norm(x):
    return float(np.linalg.norm(np.sinh(x)))


def test_converged_quadratically_with_history_and_aux():
    res = iterate(_cosh_newton, np.ones(3), measure=_grad_norm, point=np.asarray, tol=1e-12, max_iter=50)
    assert isinstance(res, Result) and res.status is Status.CONVERGED and res.converged, f"status={res.status}"
    assert res.history.shape == (res.iterations + 1,), f"history {res.history.shape} for {res.iterations} updates"
    assert res.aux == tuple(range(res.iterations)), f"aux={res.aux} should record every update in order"
    assert res.history[-1] <= 1e-12 and res.iterations <= 6, f"history={res.history}: not quadratic"
    assert np.array_equal(res.x, res.state), "x must be point(final state)"


def test_max_iterations_and_tol_zero():
    res = iterate(_cosh_newton, np.ones(3), measure=_grad_norm, point=np.asarray, tol=0.0, max_iter=2)
    assert res.status is Status.MAX_ITERATIONS and res.iterations == 2, f"{res.status}, {res.iterations}"
    res0 = iterate(_cosh_newton, np.ones(3), measure=_grad_norm, point=np.asarray, tol=0.0, max_iter=0)
    assert res0.status is Status.MAX_ITERATIONS and res0.iterations == 0 and res0.history.size == 1


def test_converged_at_start_takes_no_step():
    def never(t, x):
        raise AssertionError("step must not be called at a converged start")
    res = iterate(never, np.zeros(2), measure=_grad_norm, point=np.asarray, tol=0.0, max_iter=5)
    assert res.status is Status.CONVERGED and res.iterations == 0


def test_callback_sees_every_iterate_and_can_stop():
    seen = []
    res = iterate(_cosh_newton, np.ones(2), measure=_grad_norm, point=np.asarray, tol=0.0, max_iter=10,
                  callback=lambda x: seen.append(x.copy()) or len(seen) == 3)
    assert res.status is Status.CALLBACK and res.iterations == 2 and len(seen) == 3, f"{res.status}, {len(seen)}"


@pytest.mark.parametrize("status", [Status.STALLED, Status.NOT_POSITIVE_DEFINITE, Status.NONFINITE])
def test_step_failure_is_the_status(status):
    def step(t, x):
        return Step(x - np.tanh(x)) if t < 1 else status
    res = iterate(step, np.ones(2), measure=_grad_norm, point=np.asarray, tol=0.0, max_iter=10)
    assert res.status is status and res.iterations == 1 and not res.converged, f"{res.status}"


def test_nonfinite_measure_keeps_last_finite_iterate():
    def step(t, x):
        return Step(x * 1e200)
    res = iterate(step, np.ones(2), measure=_grad_norm, point=np.asarray, tol=0.0, max_iter=10)
    assert res.status is Status.NONFINITE, f"status={res.status}"
    assert np.all(np.isfinite(res.x)) and math.isfinite(res.history[-1]), f"x={res.x}, history={res.history}"
    start = iterate(step, np.full(2, 1e300), measure=_grad_norm, point=np.asarray, tol=0.0, max_iter=10)
    assert start.status is Status.NONFINITE and start.iterations == 0


@pytest.mark.parametrize("kwargs, match", [
    (dict(tol=-1.0, max_iter=1), "tol=-1.0 must be"),
    (dict(tol=math.nan, max_iter=1), "tol=nan must be"),
    (dict(tol=0.0, max_iter=-1), "max_iter=-1 must be"),
    (dict(tol=0.0, max_iter=1.5), "max_iter=1.5 must be"),
    (dict(tol=0.0, max_iter=1, callback=3), "callback=3 must be"),
])
def test_arguments_validated(kwargs, match):
    with pytest.raises(ValueError, match=match):
        iterate(_cosh_newton, np.ones(2), measure=_grad_norm, point=np.asarray, **kwargs)


def test_step_must_return_step_or_status():
    with pytest.raises(ValueError, match="must return a Step or a Status"):
        iterate(lambda t, x: x, np.ones(2), measure=_grad_norm, point=np.asarray, tol=0.0, max_iter=3)
