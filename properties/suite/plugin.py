"""pytest plugin of :mod:`properties.suite` (entry point ``pytest11``): the options naming the
implementation under judgement.  It adds options only; the test items live in
:mod:`properties.suite.test_implementation` and are collected only by ``pytest --pyargs properties.suite``."""

from __future__ import annotations

__all__ = ["pytest_addoption"]


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
