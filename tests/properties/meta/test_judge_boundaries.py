"""What the judge keeps to itself (docs/validate.md, "What the judge guarantees"): its own imports come
from its installation, never from the module's directory; its time limits are numbers it can keep; the
module's process works in a private empty directory and cannot stop the watchdog of its time limit."""

import os
import subprocess
import sys

import pytest

from properties.isolation import MAX_TIMEOUT
from properties.validate import check_timeout

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


SHADOWS = {
    "mpmath.py": "import sys\nsys.exit(0)  # a fake mpmath: the judge must not import it\n",
    "hypothesis.py": "raise SystemExit(0)\n",
    "flint.py": "raise SystemExit(0)\n",
    "oracle.py": '"""The user\'s own oracle module, innocently named."""\nVALUE = 1\n',
    "wrong_kron.py": "import numpy as np\n\n\ndef kron(x, y):\n    return np.kron(x, y) + 1.0\n",
}


def _shadowed(tmp_path):
    for name, text in SHADOWS.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_judge_imports_its_dependencies_from_its_installation_in_the_cli(tmp_path):
    proc = _validate(_shadowed(tmp_path), "wrong_kron", "--timeout", "30")
    assert proc.returncode == 1, f"exit {proc.returncode}, must be 1 (a FAIL):\n{proc.stdout}\n{proc.stderr[-3000:]}"
    assert "FAIL kron" in proc.stdout and "0 passed, 1 failed" in proc.stdout, proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr


def test_the_judge_imports_its_dependencies_from_its_installation_in_the_plugin(tmp_path):
    proc = _suite(_shadowed(tmp_path), "--impl", "wrong_kron", "--impl-timeout", "30", "-k", "test_function")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, f"exit {proc.returncode}, must be 1 (failed tests):\n{out[-3000:]}"
    assert "1 failed" in out and "test_function[kron]" in out, out[-3000:]


def test_a_module_stopping_the_judge_is_a_fail_at_the_time_limit():
    proc = _validate(ROOT, "tests.properties.meta.toy.hostile_stops_the_judge", "--timeout", "3", timeout=240)
    assert proc.returncode == 1, f"exit {proc.returncode}, must be 1 (a FAIL):\n{proc.stdout}\n{proc.stderr[-3000:]}"
    assert "FAIL kron" in proc.stdout and "did not return within the time limit of 3 s" in proc.stdout, proc.stdout


WRITER = '''import os

import numpy as np

with open("ledger.json", "w") as out:  # relative: the module's private working directory
    out.write("{}")
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "certificate.json"), "w") as out:
    out.write("{}")


def kron(x, y):
    return np.kron(x, y)
'''


def test_the_module_works_in_a_private_directory_and_a_changed_file_is_a_fail(tmp_path):
    (tmp_path / "writer.py").write_text(WRITER)
    (tmp_path / "ledger.json").write_text('{"the user": "ledger"}')
    (tmp_path / "certificate.json").write_text('{"the user": "certificate"}')
    proc = _validate(tmp_path, "writer", "--timeout", "30")
    assert (tmp_path / "ledger.json").read_text() == '{"the user": "ledger"}', "written in the user's directory"
    assert proc.returncode == 1, f"exit {proc.returncode}, must be 1 (a FAIL):\n{proc.stdout}\n{proc.stderr[-3000:]}"
    changed = [line for line in proc.stdout.splitlines() if "certificate.json" in line]
    assert changed and changed[0].lstrip().startswith("FAIL") and "changed" in changed[0], proc.stdout


def test_a_sigint_from_the_module_is_one_line_not_a_traceback():
    proc = _validate(ROOT, "tests.properties.meta.toy.hostile_interrupts_the_judge", "--timeout", "30")
    assert proc.returncode == 130 and "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.strip().splitlines()[-1] == "interrupted: no verdict", proc.stderr


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="the sweep by environment needs /proc (Linux)")
def test_no_process_of_the_module_survives_the_judge(tmp_path):
    pid_file = tmp_path / "daemon.pid"
    proc = subprocess.run([sys.executable, "-m", "properties", "validate",
                           "tests.properties.meta.toy.hostile_leaves_a_daemon", "--timeout", "30"], cwd=ROOT,
                          env=_env(HOSTILE_PID_FILE=str(pid_file)), capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1) and pid_file.exists(), proc.stdout + proc.stderr[-3000:]
    pid = int(pid_file.read_text())
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        state = "gone"
    assert state in ("gone", "Z"), f"the module's daemon {pid} survived the judge (state {state})"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is set with prlimit (Linux)")
def test_the_module_memory_limit_makes_an_allocation_beyond_it_a_fail():
    proc = _validate(ROOT, "tests.properties.meta.toy.greedy_allocation", "--timeout", "30", "--memory", "1024")
    assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
    assert "FAIL kron" in proc.stdout and "MemoryError" in proc.stdout, proc.stdout


def test_a_huge_result_is_too_large_not_a_timeout():
    proc = _validate(ROOT, "tests.properties.meta.toy.huge_result", "--timeout", "20")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "FAIL kron" in proc.stdout, out[-3000:]
    assert "too large" in proc.stdout and "time limit" not in out and "Traceback" not in out, out[-3000:]


def test_experiment_impl_is_still_found_in_the_commands_directory(tmp_path):
    (tmp_path / "my_pruning.py").write_text("def attention_pruning_prune(W, rho):\n    return W\n")
    proc = subprocess.run([sys.executable, "-m", "properties", "experiment", "attention_pruning", "--impl",
                           "my_pruning", "--skip-real-model", "--quick", "--out", str(tmp_path / "out")],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "lacks the adapter functions" in proc.stderr, proc.stderr[-3000:]
