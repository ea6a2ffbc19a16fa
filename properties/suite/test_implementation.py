"""The test items of :mod:`properties.suite`: one per adapter function of ``--impl MODULE`` and one per
registered claim that uses only functions it defines (the same judgements as
``python -m properties validate MODULE``, one pytest item each so that pytest-xdist spreads them)."""

from __future__ import annotations

import functools

import pytest

from properties import profiles
from properties.ledger import run_claim
from properties.registry import adapters, load_all
from properties.validate import (
    DEFAULT_TIMEOUT,
    applicable_claims,
    check_function,
    claim_verdicts,
    declared_options,
    find_adapters,
    guarded_implementation,
    import_module,
)

__all__ = ["pytest_generate_tests", "test_claim", "test_function"]


@functools.cache
def _module(name: str):
    module, error = import_module(name)
    if error:
        raise pytest.UsageError(error)
    names = find_adapters(module)
    if not names:
        raise pytest.UsageError(f"error: module {name!r} defines none of the adapter functions "
                                "(list them with: python -m properties adapters)")
    return module, tuple(names)


def _settings(config):
    name = config.getoption("properties_impl", default=None)
    if not name:
        raise pytest.UsageError("properties.suite needs --impl MODULE (the dotted name of the implementation to validate)")
    seed = config.getoption("properties_seed")
    timeout = config.getoption("properties_timeout")
    return (name, config.getoption("properties_profile"), profiles.DEFAULT_SEED if seed is None else seed,
            DEFAULT_TIMEOUT if timeout is None else timeout)


def pytest_generate_tests(metafunc):
    name, *_ = _settings(metafunc.config)
    _, names = _module(name)
    if "adapter_name" in metafunc.fixturenames:
        metafunc.parametrize("adapter_name", names, ids=names)
    if "claim_id" in metafunc.fixturenames:
        ids = [c.id for c in applicable_claims(names)]
        none = pytest.param(None, id="none", marks=pytest.mark.skip(reason=f"no claim uses only the functions {name} defines"))
        metafunc.parametrize("claim_id", ids or [none], ids=ids or None)


def test_function(adapter_name, request):
    """The adapter function ``adapter_name`` of the module: searched inputs against the oracle (a minimal
    failing input on failure), then its statistical checks."""
    name, profile, seed, timeout = _settings(request.config)
    module, _ = _module(name)
    ad = adapters()[adapter_name]
    rep = check_function(ad, getattr(module, adapter_name), profile=profile, seed=seed, timeout=timeout,
                         options=declared_options(module, ad))
    assert rep.passed, f"[{name}] " + "\n".join(rep.lines())


def test_claim(claim_id, request):
    """The claim ``claim_id`` run on the module's own functions: its verdict, and each repair's, must be the
    recorded finding."""
    name, profile, seed, timeout = _settings(request.config)
    module, names = _module(name)
    claim = load_all()[claim_id]
    r = run_claim(claim, profile=profile, impl=guarded_implementation(name, module, names, timeout), seed=seed)
    verdicts = claim_verdicts(r)
    assert all(ok for ok, _ in verdicts), f"[{name}] " + "\n".join(line for ok, line in verdicts if not ok)
