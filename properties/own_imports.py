"""The judge imports its own code from its installation, never from the directory of the module under
judgement (docs/validate.md, "What the judge guarantees").

``python -m properties`` and ``python -m pytest`` put the current directory first on ``sys.path`` when
the interpreter starts, so a file ``mpmath.py``, ``hypothesis.py`` or ``oracle.py`` beside the user's
module would be what the judge imports.  :func:`judge_imports_first` takes that entry out before the
judge imports numpy, mpmath, Hypothesis, python-flint, the oracle or the harness (unless the current
directory is where the harness itself is installed, a checkout); :func:`module_path` is the path the
module's own process imports the module with: its directory first.  :func:`foreign_judge_modules`
names any of the judge's modules that were imported from there all the same (by a plugin loaded
earlier), so that the judge refuses to run instead of judging with them.

Standard library only: this module runs before anything else of the judge is imported.
"""

from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["JUDGE_MODULES", "foreign_judge_modules", "installation_root", "judge_imports_first",
           "module_directory", "module_directory_on_path", "module_path"]

JUDGE_MODULES = ("numpy", "mpmath", "hypothesis", "flint", "oracle", "properties", "jax", "scipy")
"""Top-level packages the judge imports itself: each must come from its installation."""

_START = os.path.abspath(os.getcwd())


def module_directory() -> str:
    """The directory the command was started from, where ``MODULE`` is looked up (absolute)."""
    return _START


def installation_root() -> str:
    """The directory holding the ``properties`` package the judge runs from (site-packages, or a checkout)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _is_module_directory(entry: str) -> bool:
    return os.path.abspath(entry or os.curdir) == _START and _START != installation_root()


def judge_imports_first() -> None:
    """Take the module's directory (``''``, ``.`` or its absolute path) out of ``sys.path``, unless the
    judge itself is installed there; idempotent."""
    sys.path[:] = [entry for entry in sys.path if not _is_module_directory(entry)]


def module_path() -> list[str]:
    """The ``sys.path`` the module's own process imports the module with: its directory, then this process's
    path (absolute entries)."""
    rest = [os.path.abspath(entry or os.curdir) for entry in sys.path]
    return [_START, *[entry for entry in rest if entry != _START]]


@contextlib.contextmanager
def module_directory_on_path():
    """``sys.path`` with the module's directory first while a trusted in-process import of a user's module runs
    (``experiment --impl``), as the judge's path afterwards."""
    saved = list(sys.path)
    sys.path.insert(0, _START)
    try:
        yield
    finally:
        sys.path[:] = saved


def foreign_judge_modules() -> list[str]:
    """``name (path)`` of each already imported module of :data:`JUDGE_MODULES` whose file lies in the module's
    directory (and not in the judge's installation)."""
    if _START == installation_root():
        return []
    out = []
    for name in JUDGE_MODULES:
        module = sys.modules.get(name)
        where = getattr(module, "__file__", None) or ""
        if where and os.path.dirname(os.path.abspath(where)) in (_START, os.path.join(_START, name)):
            out.append(f"{name} ({where})")
    return out
