"""Ctrl-C during a parallel ledger run: the worker processes are stopped at once, not
waited for until their claims finish, and the JSON ledger keeps the claims that finished."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FAST = "attention_pruning.emp.real_llama"  # not applicable: done at once
SLOW = ("attention_kernel_regression.thmL.3", "attention_kernel_regression.thmL.8")  # about 1 and 3 min at ci


def _ledger_inside_the_slow_claims(path):
    """A ``--jobs 2`` ledger run writing ``path``, returned once the fast claim is written and both workers
    are inside a slow claim."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = [a for cid in (FAST, *SLOW) for a in ("--claims", cid)]
    proc = subprocess.Popen([sys.executable, "-m", "properties", *args, "--jobs", "2", "--json", str(path)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not path.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run must still be judging the slow claims"
    time.sleep(1.0)
    return proc


def test_ctrl_c_with_jobs_2_exits_within_seconds_keeping_what_finished(tmp_path):
    path = tmp_path / "ledger.json"
    proc = _ledger_inside_the_slow_claims(path)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 130 and "rerun with --resume" in err, err
    assert elapsed < 20, f"exited {elapsed:.0f} s after Ctrl-C: the workers' claims were waited for"
    done = [c["id"] for c in json.loads(path.read_text())["claims"]]
    assert done == [FAST], done


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc (Linux)")
def test_sigterm_with_jobs_2_leaves_no_worker_alive(tmp_path):
    proc = _ledger_inside_the_slow_claims(tmp_path / "ledger.json")
    workers = _children(proc.pid)
    assert workers, "the workers of --jobs 2"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert "Traceback" not in err, err
    deadline = time.monotonic() + 20
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [w for w in workers if _alive(w)], f"workers {workers} outlived the ledger"
