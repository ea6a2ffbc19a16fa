"""pytest plugin of :mod:`properties.suite` (entry point ``pytest11``): the options naming the
implementation under judgement, checked once before any test runs.  The test items live in
:mod:`properties.suite.test_implementation` and are collected only by ``pytest --pyargs properties.suite``.

A missing ``--impl``, ``--impl-seed`` below 0 or an ``--impl-timeout`` that is not a positive number of
seconds (at most one day) is a usage error: one line, exit code 2, printed once by the controlling process (not once per
pytest-xdist worker)."""

from __future__ import annotations

import pytest

__all__ = ["pytest_addoption", "pytest_configure", "usage_error"]


def pytest_addoption(parser):
    group = parser.getgroup("properties", "properties.suite (validate an implementation of the adapter contract)")
    group.addoption("--impl", dest="properties_impl", default=None, metavar="MODULE",
                    help="dotted name of the module to validate (with: pytest --pyargs properties.suite)")
    group.addoption("--impl-profile", dest="properties_profile", default="ci", choices=("ci", "dev", "thorough"),
                    help="search profile of the suite (default ci)")
    group.addoption("--impl-seed", dest="properties_seed", default=None, type=int, metavar="N",
                    help="seed of every search (default: the validator's)")
    group.addoption("--impl-timeout", dest="properties_timeout", default=None, type=float, metavar="SECONDS",
                    help="time limit of one call of the implementation (default: the validator's)")
    group.addoption("--impl-memory", dest="properties_memory", default=None, type=int, metavar="MIB",
                    help="mebibytes the implementation's process may address (default: this machine's memory)")


def usage_error(config) -> str | None:
    """The one-line usage error of the suite's options, or None when they are usable."""
    from properties.isolation import MAX_TIMEOUT

    if not config.getoption("properties_impl", default=None):
        return "properties.suite needs --impl MODULE (the dotted name of the implementation to validate)"
    seed = config.getoption("properties_seed")
    if seed is not None and seed < 0:
        return f"--impl-seed={seed} must be a non-negative integer"
    timeout = config.getoption("properties_timeout")
    if timeout is not None and not 0 < timeout <= MAX_TIMEOUT:
        return f"--impl-timeout={timeout:g} must be a positive number of seconds, at most {MAX_TIMEOUT:g} (one day)"
    memory = config.getoption("properties_memory")
    if memory is not None and memory < 1:
        return f"--impl-memory={memory} must be a positive number of mebibytes"
    return None


def _runs_the_suite(config) -> bool:
    if config.getoption("properties_impl", default=None):
        return True
    return any("properties.suite" in str(a) or "properties/suite" in str(a).replace("\\", "/") for a in config.args)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if not _runs_the_suite(config):
        return
    # before the judge's dependencies are imported (Hypothesis's own plugin imports it when configured): from
    # the judge's installation, not from the directory pytest was started in (properties.own_imports)
    from properties.own_imports import foreign_judge_modules, judge_imports_first

    judge_imports_first()
    foreign = foreign_judge_modules()
    if foreign:
        pytest.exit(f"error: the judge's own modules were imported from the module's directory: {', '.join(foreign)} "
                    f"(run pytest as python -P -m pytest, or from another directory)", returncode=2)
    if hasattr(config, "workerinput"):  # an xdist worker: its controller checked the options
        return
    error = usage_error(config)
    if error:
        pytest.exit(f"error: {error}", returncode=2)
