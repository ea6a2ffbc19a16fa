"""The ledger on a real dask.distributed cluster: a scheduler and two workers
started as processes on 127.0.0.1; ``--scheduler`` gives the serial ledger field for field but
``seconds``, also when a worker is killed while it judges a claim; the command line's refusals."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("distributed", reason="--scheduler needs the distributed extra: pip install 'attention-claims[distributed]'")

from distributed import Client  # noqa: E402

from properties import distributed as engine  # noqa: E402
from properties.ledger import judge_by_id  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
           DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="5s")
# six search claims of one paper, 1-2 s each at ci: long enough that a worker is killed inside one
CLAIMS = ("--claims", "attention_optimization.lem10.1.*")
N_CLAIMS = 6


def _cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "properties", *args], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=timeout)


def _timeless(path):
    return [{k: v for k, v in c.items() if k != "seconds"} for c in json.loads(path.read_text())["claims"]]


def _start(args, log):
    return subprocess.Popen([sys.executable, "-m", *args], cwd=ROOT, env=ENV, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A dask scheduler and two single-threaded workers without nannies (a killed worker stays dead), each
    its own process group, all killed at teardown; yields the address, a client and the worker processes."""
    tmp = tmp_path_factory.mktemp("cluster")
    log = open(tmp / "cluster.log", "w")
    procs = [_start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(tmp / "scheduler.json")], log)]
    try:
        deadline = time.monotonic() + 60
        while not (tmp / "scheduler.json").exists():
            assert time.monotonic() < deadline and procs[0].poll() is None, "the scheduler did not start"
            time.sleep(0.1)
        address = json.loads((tmp / "scheduler.json").read_text())["address"]
        workers = [_start(["distributed.cli.dask_worker", address, "--nworkers", "1", "--nthreads", "1", "--no-nanny",
                           "--no-dashboard", "--host", "127.0.0.1"], log) for _ in range(2)]
        procs += workers
        client = Client(address, timeout=30, set_as_default=False)
        client.wait_for_workers(2, timeout=120)
        yield address, client, workers
        client.close()
    finally:
        for proc in reversed(procs):
            _stop(proc)
        log.close()


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    path = tmp_path_factory.mktemp("serial") / "ledger.json"
    proc = _cli(*CLAIMS, "--jobs", "1", "--json", str(path))
    assert proc.returncode == 0, proc.stderr
    return proc, path


def test_scheduler_gives_the_serial_ledger(cluster, serial, tmp_path):
    address, _, _ = cluster
    proc1, path1 = serial
    proc = _cli(*CLAIMS, "--scheduler", address, "--json", str(tmp_path / "d.json"))
    assert proc.returncode == 0, proc.stderr
    got = _timeless(tmp_path / "d.json")
    assert len(got) == N_CLAIMS and got == _timeless(path1), "the cluster's ledger is the serial one but for seconds"
    assert proc.stdout == proc1.stdout, "the same summary table"
    assert f"scheduler {address}: 2 workers, 2 threads" in proc.stderr, proc.stderr
    assert proc.stderr.count("] attention_optimization.lem10.1.") == N_CLAIMS, "one progress line per claim"


def test_a_killed_workers_claim_is_judged_by_the_other(cluster, serial, tmp_path):
    address, client, workers = cluster
    _, path1 = serial
    path = tmp_path / "d.json"
    run = subprocess.Popen([sys.executable, "-m", "properties", *CLAIMS, "--scheduler", address, "--json", str(path)],
                           cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        victim = lost = None
        while victim is None:  # the first entry is written and a worker is inside a claim
            assert run.poll() is None and time.monotonic() < deadline, "the run ended before a worker could be killed"
            busy = {addr: keys for addr, keys in client.processing().items() if keys}
            if path.exists() and busy:
                pids = client.run(os.getpid)
                addr, keys = next(iter(busy.items()))
                victim = next(w for w in workers if w.pid == pids[addr])
                lost = list(keys)
            time.sleep(0.05)
        os.kill(victim.pid, signal.SIGKILL)
        out, err = run.communicate(timeout=180)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, err
    got = _timeless(path)
    assert len(got) == N_CLAIMS and got == _timeless(path1), "complete, and the serial ledger but for seconds"
    lost_claims = {key.split("ledger ")[1].split()[0] for key in lost}
    assert lost_claims <= {c["id"] for c in got}, f"the killed worker's claims {lost_claims} are in the ledger"
    assert victim.wait(timeout=30) == -signal.SIGKILL and len(client.scheduler_info()["workers"]) == 1


def test_results_of_other_code_are_refused(cluster, monkeypatch):
    """A worker whose source or libraries differ from the client's (here: the client's fingerprint changed)."""
    _, client, _ = cluster
    monkeypatch.setattr(engine, "fingerprint", lambda: "0123456789abcdef")
    task = engine.Task("test fingerprint", judge_by_id, ("attention_optimization.lem10.1.p1", "ci", 0, None))
    with pytest.raises(ValueError, match="judges with other code or libraries than this machine"):
        engine.run_tasks(client, [task], lambda entry: None)


def test_jobs_with_scheduler_is_refused():
    proc = _cli(*CLAIMS, "--jobs", "2", "--scheduler", "tcp://127.0.0.1:8786")
    assert proc.returncode == 2 and "--jobs and --scheduler exclude each other" in proc.stderr, proc.stderr


def test_an_unreachable_scheduler_is_one_line_and_exit_2():
    t0 = time.monotonic()
    proc = _cli(*CLAIMS, "--scheduler", "tcp://127.0.0.1:9", timeout=120)  # the connect timeout is 5 s (ENV)
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("error: --scheduler tcp://127.0.0.1:9: no dask scheduler answered within 5 s"), proc.stderr
    assert "Traceback" not in proc.stderr and time.monotonic() - t0 < 60, proc.stderr


@pytest.mark.parametrize("address", ["127.0.0.1", "http://127.0.0.1:8786", ""])
def test_what_is_no_scheduler_address_is_a_value_error(address):
    with pytest.raises(ValueError, match=r"^--scheduler .*: not a scheduler address"):
        engine.connect(address, timeout=5)


def test_a_server_that_is_not_a_dask_scheduler_is_one_line_and_exit_2():
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer():  # an HTTP server's answer to whatever is sent, to every connection
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi" + b"\xff" * 64)
            time.sleep(0.2)
            conn.close()

    threading.Thread(target=answer, daemon=True).start()
    try:
        proc = _cli(*CLAIMS, "--scheduler", f"tcp://127.0.0.1:{port}", timeout=120)
    finally:
        server.close()
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith(f"error: --scheduler tcp://127.0.0.1:{port}: ") and "dask scheduler" in line, proc.stderr
    assert "EiB" not in line and len(line) < 400, line


def test_a_scheduler_killed_mid_run_is_one_line_exit_2_and_the_json_resumable(tmp_path):
    log = open(tmp_path / "cluster.log", "w")
    procs = [_start(["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--scheduler-file", str(tmp_path / "scheduler.json")], log)]
    try:
        deadline = time.monotonic() + 120
        while not (tmp_path / "scheduler.json").exists():
            assert time.monotonic() < deadline and procs[0].poll() is None, "the scheduler did not start"
            time.sleep(0.2)
        address = json.loads((tmp_path / "scheduler.json").read_text())["address"]
        procs.append(_start(["distributed.cli.dask_worker", address, "--nworkers", "1", "--nthreads", "1",
                             "--no-nanny"], log))
        path = tmp_path / "ledger.json"
        run = subprocess.Popen([sys.executable, "-m", "properties", *CLAIMS, "--scheduler", address, "--json",
                                str(path)], cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while not path.exists() and run.poll() is None and time.monotonic() < deadline + 180:
            time.sleep(0.1)
        assert run.poll() is None, f"the run must still be going when its scheduler is killed: {run.communicate()}"
        _stop(procs[0])
        _, err = run.communicate(timeout=180)
    finally:
        for proc in procs:
            _stop(proc)
        log.close()
    assert run.returncode == 2 and "Traceback" not in err, err[-4000:]
    assert err.strip().splitlines()[-1].startswith("error: "), err[-2000:]
    assert json.loads(path.read_text())["claims"], "the claims that finished are kept"
