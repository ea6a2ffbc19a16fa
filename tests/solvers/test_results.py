"""The solvers' one result shape (:mod:`solvers.results`): every ``*Result`` carries a ``status`` of
type :class:`Status`, and numerical breakdown is reported there, bad arguments as ValueError."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing

import jax.numpy as jnp
import numpy as np
import pytest

import solvers
from solvers import attention_pruning as AP
from solvers.attention_pruning import _baselines
from solvers.results import Status


def _result_types() -> dict[str, type]:
    """Every class named ``*Result`` defined in a module of ``solvers/``."""
    found = {}
    for info in pkgutil.walk_packages(solvers.__path__, "solvers."):
        module = importlib.import_module(info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if name.endswith("Result") and cls.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = cls
    return found


def test_the_result_types_are_found():
    names = {name.rsplit(".", 1)[1] for name in _result_types()}
    assert {"Result", "SolveResult", "ChainResult", "CholQRResult", "StableResult", "GDResult",
            "SparseGPTResult", "NewtonResult"} <= names, sorted(names)


@pytest.mark.parametrize("name", sorted(_result_types()))
def test_every_result_has_a_status_field(name):
    cls = _result_types()[name]
    assert "status" in cls._fields, f"{name} has no status field: {cls._fields}"
    assert typing.get_type_hints(cls)["status"] is Status, f"{name}.status is not a Status"
    assert cls._fields.index("status") == 1, f"{name}: status should follow the solution, {cls._fields}"


def test_gd_divergence_is_a_status_with_the_last_finite_iterate():
    rng = np.random.default_rng(7)
    X, W = rng.standard_normal((6, 3)), rng.standard_normal((3, 3))
    res = AP.run_gd(X, W, 10.0, 1.0, 2000)  # a step size far beyond 1/L: the iterates blow up
    assert res.status is Status.NONFINITE, res.status
    assert 0 <= res.steps < 2000 and len(res.losses) == len(res.min_f) == res.steps + 1, res.steps
    assert np.all(np.isfinite(res.M)) and np.all(np.isfinite(res.losses)), res.losses[-3:]
    with pytest.raises(ValueError, match=r"^a GD iterate \(eta=1.0, momentum=0.0\) is not finite in float64"):
        AP.final_iterate(res)
    ok = AP.run_gd(X, W, 0.1, 0.01, 5)
    assert ok.status is Status.CONVERGED and ok.steps == 5 and np.array_equal(AP.final_iterate(ok), ok.M)


def test_sparsegpt_factorisation_failure_is_a_status(monkeypatch):
    """A damped Hessian whose factorisation fails at every p < 1 (simulated: the factor is NaN)."""
    rng = np.random.default_rng(0)
    W, X = rng.standard_normal((4, 3)), rng.standard_normal((6, 4))
    good = _baselines._sparsegpt

    def failing(*args, **kwargs):
        Wt, mask, loss, U = good(*args, **kwargs)
        return Wt, mask, loss, U * jnp.nan

    monkeypatch.setattr(_baselines, "_sparsegpt", failing)
    res = AP.sparsegpt(W, X, 0.5)
    assert res.status is Status.NOT_POSITIVE_DEFINITE and 0.98 < res.percdamp < 1, res
    assert np.array_equal(res.W, W) and not res.mask.any() and res.loss == 0.0, res
    with pytest.raises(ValueError, match="damped Hessian factorisation failed"):
        AP.pruned_weight(res)


def test_sparsegpt_percdamp_of_one_or_more_is_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"^percdamp=1.0 must be"):
        AP.sparsegpt(rng.standard_normal((4, 3)), rng.standard_normal((6, 4)), 0.5, percdamp=1.0)
