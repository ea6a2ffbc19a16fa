"""What the judge keeps to itself (docs/validate.md, "What the judge guarantees"): its own imports come
from its installation, never from the module's directory; its time limits are numbers it can keep; the
module's process works in a private empty directory and cannot stop the watchdog of its time limit."""

import os
import subprocess
import sys
import textwrap

import pytest

from properties.validate import MAX_TIMEOUT, check_timeout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _env(**extra):
    return dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]), **extra)


def _validate(cwd, *args, timeout=300):
    return subprocess.run([sys.executable, "-m", "properties", "validate", *args], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=timeout)


def _suite(cwd, *args, timeout=300):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--pyargs", "properties.suite",
                           *args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("value", ["1e10", "inf", "nan", "0", "-1", str(MAX_TIMEOUT * 2)])
def test_a_timeout_out_of_range_is_one_line_and_exit_2(tmp_path, value):
    proc = _validate(tmp_path, "solvers.adapter", "--timeout", value, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "--timeout" in proc.stderr, proc.stderr


@pytest.mark.parametrize("value", ["1e10", "inf", "0"])
def test_an_impl_timeout_out_of_range_is_one_line_and_exit_2(tmp_path, value):
    proc = _suite(tmp_path, "--impl", "solvers.adapter", "--impl-timeout", value, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--impl-timeout" in proc.stdout + proc.stderr and "Traceback" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("value", [1e10, MAX_TIMEOUT * 1.5, float("inf"), 0.0, True])
def test_check_timeout_refuses_what_the_judge_cannot_keep(value):
    with pytest.raises(ValueError, match="timeout"):
        check_timeout(value)
    check_timeout(MAX_TIMEOUT)
