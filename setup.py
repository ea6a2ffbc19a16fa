"""Packaging step beside pyproject.toml (which holds all the metadata): record, when the package is built,
the commit and version it is built from, so that a non-editable install (``pip install .``, a wheel) can
name them in its report header (``properties.report.provenance``; issue 24, item 4).

The record is ``properties/build_info.py``, written into the build directory (never into the checkout;
the name is git-ignored all the same) and into an sdist's tree, so that a wheel built from the sdist,
where no git repository is at hand, keeps the commit the sdist was made from.  An editable install
writes nothing: it runs from the checkout, where ``git`` answers."""

import os
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = os.path.dirname(os.path.abspath(__file__))
RECORD = os.path.join("properties", "build_info.py")


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def _commit() -> str:
    """HEAD's short hash when this directory is the top of a git checkout (not a tree inside another repository)."""
    top = _git("rev-parse", "--show-toplevel")
    if not top or not os.path.samefile(top, HERE):
        return ""
    return _git("rev-parse", "--short", "HEAD")


def _write(path: str, commit: str, version: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write('"""Written by setup.py when the package was built (issue 24, item 4); not in git."""\n\n'
                 f"COMMIT = {commit!r}\nVERSION = {version!r}\n")


class BuildPyWithInfo(build_py):
    """build_py, then the record of the commit (a checkout's HEAD, else the record an sdist carries)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        commit = _commit()
        target = os.path.join(self.build_lib, RECORD)
        if commit or not os.path.exists(target):  # an sdist's record, copied as a module, is kept without git
            _write(target, commit, self.distribution.get_version())


class SdistWithInfo(sdist):
    """sdist, with the record of the commit in the archive's tree."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        commit = _commit()
        if commit:
            target = os.path.join(base_dir, RECORD)
            if os.path.exists(target):  # a hard link to the checkout's file: replace, never write through it
                os.remove(target)
            _write(target, commit, self.distribution.get_version())


setup(cmdclass={"build_py": BuildPyWithInfo, "sdist": SdistWithInfo})
