"""The test items of :mod:`properties.suite`: one per adapter function of ``--impl MODULE`` and one per
registered claim that uses only functions it defines (the same judgements as
``python -m properties validate MODULE``, one pytest item each so that pytest-xdist spreads them).

The module is imported and called only in a process of its own (:class:`properties.isolation.Worker`,
one per pytest process), so it cannot end, hang or patch the pytest run: a module that exits, hangs or
lies fails its items, and the exit code is pytest's own."""

from __future__ import annotations

import functools

import pytest

from properties import profiles
from properties.errors import UnusableModule
from properties.ledger import run_claim
from properties.registry import adapters, load_all
from properties.suite.plugin import usage_error
from properties.validate import (
    DEFAULT_TIMEOUT,
    applicable_claims,
    check_function,
    claim_verdicts,
    declared_options,
    open_module,
)

__all__ = ["pytest_generate_tests", "test_claim", "test_function"]


@functools.cache
def _worker(name: str, timeout: float, memory: int | None = None):
    try:
        return open_module(name, timeout=timeout, memory=memory)
    except UnusableModule as exc:
        raise pytest.UsageError(str(exc)) from None


def _settings(config):
    error = usage_error(config)
    if error:
        raise pytest.UsageError(error)
    seed = config.getoption("properties_seed")
    timeout = config.getoption("properties_timeout")
    return (config.getoption("properties_impl"), config.getoption("properties_profile"),
            profiles.DEFAULT_SEED if seed is None else seed, DEFAULT_TIMEOUT if timeout is None else timeout)


def _memory(config) -> int | None:
    """``--impl-memory`` in bytes (None: the default, this machine's memory)."""
    mib = config.getoption("properties_memory")
    return None if mib is None else mib << 20


def pytest_generate_tests(metafunc):
    name, _, _, timeout = _settings(metafunc.config)
    names = _worker(name, timeout, _memory(metafunc.config)).functions
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
    worker = _worker(name, timeout, _memory(request.config))
    ad = adapters()[adapter_name]
    worker.capture()
    rep = check_function(ad, worker.function(adapter_name), profile=profile, seed=seed,
                         options=declared_options(worker, ad))
    rep.output = [] if rep.passed else worker.captured()
    if not rep.passed:  # the report's own lines, without pytest's dump of the report object
        pytest.fail(f"[{name}] " + "\n".join(rep.lines()), pytrace=False)


def test_claim(claim_id, request):
    """The claim ``claim_id`` run on the module's own functions: its verdict, and each repair's, must be the
    recorded finding."""
    name, profile, seed, timeout = _settings(request.config)
    worker = _worker(name, timeout, _memory(request.config))
    worker.capture()
    verdicts = claim_verdicts(run_claim(load_all()[claim_id], profile=profile, impl=worker.implementation(worker.functions),
                                        seed=seed))
    if not all(ok for ok, _ in verdicts):
        pytest.fail(f"[{name}] " + "\n".join(line for ok, line in verdicts if not ok)
                    + "".join(f"\n     | {line}" for line in worker.captured()), pytrace=False)
