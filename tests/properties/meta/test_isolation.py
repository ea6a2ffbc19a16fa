"""Hostile modules against the validator and the pytest plugin: the module under
judgement runs in its own process, so whatever it does (exit, hang, patch mpmath, lie in ``__array__``,
start a thread, flood the output) the verdict is right, the reason is one line and the exit code is the
judge's: 1 for a FAIL, 2 for a module that cannot be imported.  Each module defines one function,
``kron`` (a cheap oracle), and runs with a short ``--timeout``."""

import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from properties.errors import ImplementationDied, TimedOut, UnplainOutput
from properties.isolation import Worker, clean

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TOY = "tests.properties.meta.toy."
TIMEOUT = "4"

# module -> words the FAIL's reason must contain
FAILS = {
    "hostile_exit_in_call": "ended the implementation's process (exit code 0)",
    "hostile_exit_in_repr": "ended the implementation's process (exit code 0)",
    "hostile_exit_in_array": "ended the implementation's process (exit code 0)",
    "hostile_exit_in_del": "ended the implementation's process (exit code 0)",
    "hostile_atexit": "worst entrywise relative error",
    "hostile_systemexit_in_array": "conversion to an array raised SystemExit",
    "hostile_systemexit_in_len": "not numbers",
    "hostile_systemexit_in_str": "its message could not be printed",
    "hostile_hang_in_str": f"did not return within the time limit of {TIMEOUT} s",
    "hostile_hang_in_array": f"did not return within the time limit of {TIMEOUT} s",
    "hostile_thread": "left non-daemon threads running (hostile-forever)",
    "hostile_patched_mpmath": "worst entrywise relative error",
    "hostile_shifting_array": "converts to a different array each time",
    "hostile_flood": "worst entrywise relative error",
}


def _env():
    return dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))


def _validate(module, timeout=120):
    return subprocess.run([sys.executable, "-m", "properties", "validate", TOY + module, "--timeout", TIMEOUT],
                          cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=timeout)


def _suite(tmp_path, *args, timeout=180):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--pyargs", "properties.suite",
                           *args], cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("module", sorted(FAILS))
def test_a_hostile_module_is_a_fail_with_exit_code_1_in_the_cli(module):
    t0 = time.monotonic()
    proc = _validate(module)
    out = proc.stdout
    assert proc.returncode == 1, f"exit {proc.returncode}, must be 1 (a FAIL):\n{out}\n{proc.stderr[-2000:]}"
    assert "FAIL kron" in out and "0 passed, 1 failed" in out, out
    # the FAIL block: the minimal input, the error, what was returned, the tolerance
    reason = out.split("FAIL kron", 1)[1].split("0 passed, 1 failed", 1)[0]
    assert FAILS[module] in reason, f"{module}: the reason must say {FAILS[module]!r}:\n{out}"
    assert "Traceback" not in out + proc.stderr, out + proc.stderr
    assert time.monotonic() - t0 < 100, "one short search, a hang cut at the time limit"


@pytest.mark.parametrize("module", sorted(FAILS))
def test_a_hostile_module_fails_its_item_in_the_plugin(tmp_path, module):
    proc = _suite(tmp_path, "--impl", TOY + module, "--impl-timeout", TIMEOUT, "-k", "test_function")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, f"exit {proc.returncode}, must be 1 (failed tests):\n{out[-3000:]}"
    assert re.search(r"\b1 failed\b", out) and "test_function[kron]" in out, out[-3000:]
    assert FAILS[module] in out, f"{module}: the failure must say {FAILS[module]!r}:\n{out[-3000:]}"


def test_a_module_ending_its_process_at_import_is_exit_2(tmp_path):
    proc = _validate("hostile_exit_at_import")
    assert proc.returncode == 2 and not proc.stdout, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot import module" in lines[0] and "exit code 0" in lines[0], proc.stderr
    suite = _suite(tmp_path, "--impl", TOY + "hostile_exit_at_import")
    assert suite.returncode == 2 and "exit code 0" in suite.stdout + suite.stderr, suite.stdout + suite.stderr


def test_the_flood_is_cleaned_and_truncated_under_the_fail_line():
    proc = _validate("hostile_flood")
    out = proc.stdout
    assert "\x1b" not in out and "\x07" not in out, "no terminal escape reaches the report"
    shown = [line for line in out.splitlines() if line.startswith("       | ")]
    assert shown and any("PASS kron" in line for line in shown), out[:3000]
    assert sum(1 for line in out.splitlines() if line.lstrip().startswith("PASS")) == 0, "a fake PASS line stays quoted"
    assert len(out) < 20000 and "more bytes not kept" in out, len(out)


def test_clean_removes_escapes_and_control_characters():
    assert clean("\x1b[31mred\x1b[0m\x07 bell\r\nok\x00") == ["red bell", "ok"]
    assert clean("\n".join(map(str, range(30))), lines=3) == ["0", "1", "2", "… (27 more lines)"]


def test_the_worker_restarts_after_a_call_ends_it(tmp_path):
    """One persistent child: it survives ordinary calls, and a call that ends it is one AdapterAbort,
    after which the next call starts a new child."""
    (tmp_path / "flaky_exit.py").write_text(
        "import os\nimport numpy as np\nN = [0]\n\ndef kron(x, y):\n    N[0] += 1\n"
        "    if N[0] == 2:\n        os._exit(7)\n    return np.kron(x, y), os.getpid()\n")
    sys.path.insert(0, str(tmp_path))
    w = Worker("flaky_exit", timeout=30)
    try:
        w.start(["kron"])
        x = np.array([1.0, 2.0])
        first, pid = w.call("kron", x, x)
        assert np.array_equal(first, np.kron(x, x)) and pid != os.getpid()
        with pytest.raises(ImplementationDied, match="exit code 7"):
            w.call("kron", x, x)
        _, pid2 = w.call("kron", x, x)
        assert pid2 != pid, "a new process after the first one ended"
    finally:
        w.close()
        sys.path.remove(str(tmp_path))


def test_values_cross_as_plain_values(tmp_path):
    (tmp_path / "echo_values.py").write_text(
        "import time\nimport numpy as np\n\ndef echo(*a, **k):\n    return a, k\n\n"
        "def scalar():\n    return np.int64(3), np.float64(0.5), 7, [1.5, None, 'x', 1 + 2j]\n\n"
        "def objects():\n    return object()\n\ndef slow():\n    time.sleep(60)\n")
    sys.path.insert(0, str(tmp_path))
    w = Worker("echo_values", timeout=2)
    try:
        w.start(["echo", "scalar", "objects", "slow"])
        args = (np.arange(6.0).reshape(2, 3), {"rows": np.array([1, 2], dtype=np.int64)}, [1, [2.0]], -0.0, float("inf"))
        a, k = w.call("echo", *args, flag=True)
        assert np.array_equal(a[0], args[0]) and a[0].dtype == np.float64 and a[1]["rows"].dtype == np.int64
        assert a[2] == [1, [2.0]] and str(a[3]) == "-0.0" and a[4] == float("inf") and k == {"flag": True}
        i, f, n, rest = w.call("scalar")
        assert type(i) is np.int64 and type(f) is np.float64 and type(n) is int and rest == [1.5, None, "x", 1 + 2j]
        with pytest.raises(UnplainOutput, match="dtype object"):
            w.call("objects")
        with pytest.raises(TypeError, match="cannot pass"):
            w.call("echo", object())
        with pytest.raises(TimedOut):
            w.call("slow")
    finally:
        w.close()
        sys.path.remove(str(tmp_path))
