"""The ledger and the validator on a dask.distributed cluster.

``--scheduler ADDRESS`` (the ledger, ``validate`` and ``report``) sends the work as tasks to the
scheduler at ADDRESS instead of the ``--jobs`` worker processes of this machine; ``--jobs`` stays the
default engine and nothing here is imported without ``--scheduler``.

- A task is a pure function of its arguments (for the ledger: claim id, profile, seed, implementation
  module name, :func:`properties.ledger.judge_by_id`), run by :func:`run_tasks` as it arrives; the
  caller's ``finished`` callback (the ledger's: a progress line, then the JSON rewritten atomically)
  sees each result as it finishes, so ``--resume`` works as with ``--jobs``.
- Its key names the work and the :func:`fingerprint` of the code doing it, so two runs of the same
  source may share a result, and a task lost with a dying worker is re-run on another by the
  scheduler (up to its ``allowed-failures``); a task that raises is retried :data:`RETRIES` times.
- A dask worker runs its tasks one at a time whatever its ``--nthreads`` (:func:`_one_at_a_time`):
  the oracle's working precision (mpmath's ``mp.dps``) is process-wide state.  Start workers with
  ``--nthreads 1`` and as many ``--nworkers`` as cores.
- Every result carries the fingerprint of the worker that computed it; a result from another source
  tree or other library versions is refused (a ValueError naming the worker), since the JSON must be
  that of a serial run on this machine, field for field but ``seconds``.
- The scheduler is probed before anything runs: no answer within dask's connect timeout (the setting
  ``distributed.comm.timeouts.connect``, 30 s unless changed, e.g. by the environment variable
  ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=5s``) is a ConnectionError naming ``--scheduler`` (the
  command line: one line, exit 2), never a hang.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib.metadata
import logging
import os
import pathlib
import socket
import sys
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = ["RETRIES", "Task", "connect", "fingerprint", "run_tasks"]

RETRIES = 2
"""Times a task that raised is run again (a task lost with its worker is re-run by the scheduler anyway)."""

_INSTALL = "pip install 'attention-claims[distributed]'"
_LIBRARIES = ("numpy", "scipy", "mpmath", "gmpy2", "hypothesis", "jax", "jaxlib", "python-flint")
_PACKAGES = ("oracle", "solvers", "properties")


class Task(NamedTuple):
    """One unit of work: ``fn(*args)`` on a worker; ``label`` names it (claim id, profile, seed, ...)."""

    label: str
    fn: Callable
    args: tuple


@functools.cache
def fingerprint() -> str:
    """What makes two processes judge alike: the source of the packages (their ``.py`` and ``.tsv`` files,
    by path relative to the directory holding them, so an installed copy and a checkout agree), the
    Python version and the versions of the libraries the verdicts depend on."""
    digest = hashlib.sha256()
    root = pathlib.Path(__file__).resolve().parents[1]
    for package in _PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if path.suffix in (".py", ".tsv") and "__pycache__" not in path.parts:
                digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    versions = [f"python=={sys.version_info.major}.{sys.version_info.minor}"]
    for name in _LIBRARIES:
        try:
            versions.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name} absent")
    digest.update("\n".join(versions).encode())
    return digest.hexdigest()[:16]


_LOCK = threading.Lock()


def _one_at_a_time(fn: Callable, *args) -> tuple[str, str, Any]:
    """``fn(*args)`` on a dask worker, never beside another task of this process (the precision of the
    oracle is process-wide); returns ``(fingerprint, worker's host:pid, result)``."""
    with _LOCK:
        return fingerprint(), f"{socket.gethostname()}:{os.getpid()}", fn(*args)


def _probe(address: str, timeout: float) -> None:
    from distributed.comm import connect as open_comm

    async def knock():
        comm = await open_comm(address, timeout=timeout)
        await comm.close()

    asyncio.run(knock())


def connect(address: str, *, timeout: float | None = None, stream=None):
    """A ``distributed.Client`` of the scheduler at ``address`` (e.g. ``tcp://10.0.0.5:8786``; close it, or
    use it in a ``with``), after a line on ``stream`` (stderr) saying how many workers it has now.
    ``timeout``: seconds to wait for an answer (default: dask's ``distributed.comm.timeouts.connect``).

    Raises:
        ValueError: ``address`` is not a scheduler address, or the ``distributed`` package is missing.
        ConnectionError: nothing answered as a dask scheduler there within ``timeout`` seconds.
    """
    if not isinstance(address, str) or not address.strip():
        raise ValueError(f"--scheduler {address!r}: not a scheduler address (e.g. tcp://127.0.0.1:8786)")
    try:
        import dask.utils
        import distributed
    except ImportError:
        raise ValueError(f"--scheduler needs the dask.distributed package: {_INSTALL}") from None
    if timeout is None:
        timeout = dask.utils.parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="seconds")
    try:
        _probe(address, timeout)
    except ValueError as exc:  # the address itself (no port, an unknown scheme)
        raise ValueError(f"--scheduler {address}: not a scheduler address ({exc})") from None
    except MemoryError:  # dask read a garbage frame length (an HTTP server, …) and tried to allocate it
        raise ConnectionError(f"--scheduler {address}: the server there is not a dask scheduler (it answered "
                              f"with a message dask cannot read)") from None
    except Exception as exc:  # noqa: BLE001  (refused, timed out, not a dask scheduler: all the same to the user)
        raise ConnectionError(f"--scheduler {address}: no dask scheduler answered within {timeout:g} s "
                              f"({type(exc).__name__}: {exc})"[:300]) from None
    # the client logs a traceback at each reconnection try when the scheduler goes away; run_tasks says it in one line
    logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    client = distributed.Client(address, timeout=timeout, set_as_default=False)
    workers = client.scheduler_info().get("workers", {})
    threads = sum(w.get("nthreads", 0) for w in workers.values())
    wait = "" if workers else ": the tasks wait for one to join"
    print(f"scheduler {address}: {len(workers)} workers, {threads} threads{wait}",
          file=sys.stderr if stream is None else stream, flush=True)
    return client


def run_tasks(client, tasks: list[Task], finished: Callable[[Any], None]) -> None:
    """Run ``tasks`` on ``client``'s cluster and call ``finished(result)`` here as each ends (in the order
    they end).

    On any exception here (Ctrl-C, a failed write in ``finished``) the tasks not yet finished are
    cancelled and the exception raised; a task that raised on every try is a RuntimeError naming it.
    A task already running on a worker runs to its end there (a worker thread cannot be stopped);
    its result is dropped.
    """
    from distributed import as_completed

    fp = fingerprint()
    futures = {client.submit(_one_at_a_time, t.fn, *t.args, key=f"attention-claims-{fp}-{t.label}",
                             retries=RETRIES): t.label for t in tasks}
    try:
        for future in as_completed(list(futures), loop=client.loop):
            if future.status == "cancelled":
                raise ConnectionError(f"the dask scheduler stopped answering (task {futures[future]!r} cancelled); "
                                      f"what finished is kept: rerun with --resume")
            if future.status == "error":
                exc = future.exception()
                raise RuntimeError(f"the cluster's task {futures[future]!r} failed on every try "
                                   f"({type(exc).__name__}: {exc}); what finished is kept: rerun with --resume")
            theirs, worker, result = future.result()
            if theirs != fp:
                raise ValueError(f"worker {worker} judges with other code or libraries than this machine "
                                 f"(fingerprint {theirs}, here {fp}): install the same attention-claims and "
                                 f"libraries on every worker ({_INSTALL})")
            finished(result)
    except (RuntimeError, ValueError, KeyboardInterrupt):
        client.cancel(list(futures))
        raise
    except (ConnectionError, OSError, asyncio.CancelledError) as exc:  # the scheduler is gone (CommClosedError is an OSError)
        raise ConnectionError(str(exc) if isinstance(exc, ConnectionError) else
                              f"the dask scheduler stopped answering ({type(exc).__name__}); what finished is kept: "
                              f"rerun with --resume") from None
