"""The pytest entry point for users' CI: ``pytest --pyargs properties.suite --impl MODULE``
runs one item per adapter function and per applicable claim, in parallel with pytest-xdist, and writes
JUnit XML; run here in a subprocess from an outside directory, as a user's CI would."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _suite(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--pyargs", "properties.suite", *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


def _junit(path):
    """{test name: 'passed' | 'failed' | 'error' | 'skipped'} of a JUnit XML file."""
    cases = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        status = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        cases[case.get("name")] = {"failure": "failed"}.get(status, status)
    return cases


EXPECTED = {"test_function[countsketch]", "test_function[softmax_iteration_flops]", "test_function[kron]",
            "test_claim[softmax_regression.thm9.1.time]"}


def test_the_suite_fails_a_planted_module_in_parallel_with_junit_xml(tmp_path):
    planted = _suite(tmp_path, "--impl", "tests.properties.meta.toy.suite_planted", "-p", "xdist", "-n", "2",
                     "--junitxml", str(tmp_path / "planted.xml"))
    assert planted.returncode == 1, planted.stdout[-3000:] + planted.stderr[-2000:]
    assert "created: 2/2 workers" in planted.stdout, "pytest-xdist must run the items on 2 workers"
    cases = _junit(tmp_path / "planted.xml")
    assert set(cases) == EXPECTED, cases
    assert cases == {"test_function[countsketch]": "failed", "test_function[softmax_iteration_flops]": "passed",
                     "test_function[kron]": "passed", "test_claim[softmax_regression.thm9.1.time]": "failed"}, cases
    assert "fails sign" in planted.stdout and "exponent in n: 2.000" in planted.stdout, planted.stdout[-3000:]


def test_the_suite_passes_a_correct_module_in_parallel_with_junit_xml(tmp_path):
    correct = _suite(tmp_path, "--impl", "tests.properties.meta.toy.suite_correct", "-p", "xdist", "-n", "2",
                     "--junitxml", str(tmp_path / "correct.xml"))
    assert correct.returncode == 0, correct.stdout[-3000:] + correct.stderr[-2000:]
    assert "created: 2/2 workers" in correct.stdout, "pytest-xdist must run the items on 2 workers"
    assert _junit(tmp_path / "correct.xml") == dict.fromkeys(EXPECTED, "passed")


@pytest.mark.parametrize("args, message", [
    ((), "properties.suite needs --impl MODULE"),
    (("--impl", "no_such_module_xyz"), "cannot import module 'no_such_module_xyz'"),
    (("--impl", "tests.properties.meta.toy.no_adapters"), "defines none of the adapter functions"),
    (("--impl", "tests.properties.meta.toy.suite_correct", "--impl-timeout", "0"), "--impl-timeout=0 must be a positive number"),
    (("--impl", "tests.properties.meta.toy.suite_correct", "--impl-timeout", "nan"),
     "--impl-timeout=nan must be a positive number"),
    (("--impl", "tests.properties.meta.toy.suite_correct", "--impl-seed", "-1"), "--impl-seed=-1 must be a non-negative integer"),
])
def test_a_missing_or_unusable_module_is_a_usage_error(tmp_path, args, message):
    proc = _suite(tmp_path, *args)
    assert proc.returncode == 2, f"exit {proc.returncode}: a collection error, not passed tests\n{proc.stdout}"
    assert message in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_a_missing_impl_with_xdist_is_one_usage_error(tmp_path):
    """Checked once by the controlling process before pytest-xdist starts its workers."""
    proc = _suite(tmp_path, "-p", "xdist", "-n", "2")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, f"exit {proc.returncode}:\n{out}"
    assert out.count("properties.suite needs --impl MODULE") == 1, out


def test_a_module_beside_the_command_is_found_as_by_the_pytest_script(tmp_path):
    """README's route: ``pytest --pyargs properties.suite --impl mysoftmax`` in the module's directory.  The
    ``pytest`` console script does not put that directory on ``sys.path`` (``python -P`` reproduces it); the
    module under judgement is still found there, as ``python -m properties validate`` finds it."""
    (tmp_path / "mysoftmax_here.py").write_text(
        "import numpy as np\n\n\ndef kron(a, b):\n    return np.kron(np.asarray(a), np.asarray(b))\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-P", "-m", "pytest", "-p", "no:cacheprovider", "--pyargs", "properties.suite",
                           "--impl", "mysoftmax_here"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout, proc.stdout[-2000:]
