"""The implementation under judgement in a process of its own (docs/development.md#one-contract).

:class:`Worker` spawns one child interpreter (:mod:`properties.worker`, run from its file so that the
child imports nothing of the judge), imports the module there, and calls its functions on request:
arguments go down and results come back as trees of plain values (numbers, strings, containers and
numeric numpy arrays, never pickles), converted in the child inside the time limit.  The oracle, the
search and the verdict stay in the parent.  One persistent child serves every call; it is started
again only after a call ended it.

What a call can do, and what the parent makes of it (each a one-line reason):

- return plain values: the value (a numpy scalar stays a numpy scalar, a jax array arrives as a numpy
  array);
- raise an ``Exception``: the same builtin class is raised here (``ValueError`` for numpy's
  ``LinAlgError``, :class:`~properties.errors.ImplementationError` for a class with no builtin base),
  so a compare function that catches ``ValueError`` still does;
- raise a ``BaseException`` (``SystemExit``, ``KeyboardInterrupt``): :class:`~properties.errors.AdapterAbort`;
- return what does not convert (a conversion that raises, even ``SystemExit``; a non-numeric dtype; an
  object converting to two different arrays): :class:`~properties.errors.UnplainOutput`;
- not answer within ``timeout`` seconds (a hang in the call, in ``__array__`` or in an exception's
  ``__str__``): the child is killed, :class:`~properties.errors.TimedOut`;
- end the child (any exit code, ``os._exit(0)`` included, from the call, an ``__array__``, a ``__del__``
  or an exception's ``__repr__``): :class:`~properties.errors.ImplementationDied`;
- leave non-daemon threads running: :class:`~properties.errors.AdapterAbort` naming them.

The child starts with ``python -P`` in a private, empty temporary working directory (removed when it is
closed), in a session of its own; a watchdog process (:data:`WATCHDOG_GRACE`) kills that session when
a call outlives its limit and the judge did not (a module that stopped the judge), or when the judge
dies.  :func:`fingerprint` and :func:`changed_files` find what the module changed beside it
(docs/validate.md, "What the judge guarantees").

The child's stdout and stderr are captured (at most :data:`CAPTURE` bytes per :meth:`Worker.capture`),
cleaned of control characters by :func:`clean` and shown under the FAIL line they belong to.
"""

from __future__ import annotations

import atexit
import builtins
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types

from . import worker as _codec
from .errors import AdapterAbort, ImplementationDied, ImplementationError, TimedOut, UnplainOutput, UnusableModule
from .own_imports import module_path

__all__ = ["CAPTURE", "IMPORT_TIMEOUT", "MARK", "MAX_TIMEOUT", "WATCHDOG_GRACE", "Worker", "changed_files", "clean",
           "default_memory", "fingerprint"]

CAPTURE = 16384
"""Bytes of the child's output kept per capture (the rest is counted, not kept)."""

IMPORT_TIMEOUT = 120.0
"""Seconds the child may take to start and import the module (JAX alone takes seconds on a busy machine)."""

MAX_TIMEOUT = 86400.0
"""The longest time limit of one call, in seconds (one day): a limit the judge's clocks and ``select`` can keep."""

WATCHDOG_GRACE = 10.0
"""Seconds past a call's time limit after which the watchdog process ends the module's processes itself
(the judge ends them at the limit; the watchdog acts when the judge could not, e.g. stopped by SIGSTOP)."""

_WATCHDOG = """
import os, select, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
judge, group, mark, deadline, pending = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode(), None, b''
def marked():
    found = []
    for pid in os.listdir('/proc') if os.path.isdir('/proc') else []:
        try:
            with open(f'/proc/{pid}/environ', 'rb') as fh:
                if mark in fh.read().split(b'\\0'):
                    found.append(int(pid))
        except (OSError, ValueError):
            pass
    return found
def end():
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
    for _ in range(20):
        found = marked()
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)
while True:
    wait = None if deadline is None else max(0.0, deadline - time.monotonic())
    if not select.select([0], [], [], wait)[0]:
        end()
        deadline = None
        try:
            os.kill(judge, signal.SIGCONT)
        except OSError:
            pass
        continue
    data = os.read(0, 4096)
    if not data:
        end()
        break
    *lines, pending = (pending + data).split(b'\\n')
    for line in lines:
        deadline = None if line == b'off' else time.monotonic() + float(line)
"""
"""The watchdog's program (``python -P -c``; standard library only): ``SECONDS`` on its standard input arms it,
``off`` disarms it; at the deadline it kills the module's process group and sends SIGCONT to the judge; at
the end of its input (the judge closed the worker, or died) it kills the group and exits.  Killing "the
group" also sweeps, where ``/proc`` exists (Linux), every process whose environment holds the worker's
:data:`MARK` variable: what the module started and moved out of its group (``setsid``, a double fork)."""

MARK = "PROPERTIES_JUDGED_MODULE"
"""The environment variable every process of the module inherits (value: one per worker), by which the
watchdog finds them."""

_BOOT = ("import importlib.util as u, sys; s = u.spec_from_file_location('_properties_worker', sys.argv[1]); "
         "m = u.module_from_spec(s); s.loader.exec_module(m); m.serve(int(sys.argv[2]), int(sys.argv[3]))")

_RERAISED = ("ValueError", "TypeError", "ArithmeticError", "ZeroDivisionError", "OverflowError", "FloatingPointError",
             "IndexError", "KeyError", "LookupError", "RuntimeError", "NotImplementedError", "RecursionError",
             "MemoryError", "AssertionError", "AttributeError")

_ANSI = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|.)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str, *, lines: int = 12, width: int = 160) -> list[str]:
    """Captured output as at most ``lines`` lines of at most ``width`` characters, escape sequences and
    control characters removed (so a module cannot fake or erase the report's own lines)."""
    out = [_CONTROL.sub("", _ANSI.sub("", line)).rstrip() for line in text.replace("\r", "\n").split("\n")]
    out = [line[:width] + (" …" if len(line) > width else "") for line in out if line.strip()]
    if len(out) > lines:
        out = out[:lines] + [f"… ({len(out) - lines} more lines)"]
    return out


def _one_line(text) -> str:
    """A message from the child (an exception's text, which the module controls) as one clean line."""
    return " ".join(clean(str(text), lines=1, width=1000)[:1])


def _exit_text(code) -> str:
    if code is None:
        return "it did not exit"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"



def fingerprint(directory: str) -> dict[str, tuple[int, int, int]]:
    """``(size, mtime_ns, inode)`` of each regular file directly in ``directory`` (the files of the directory a
    command was started from: a ledger, certificates), to find what the module's process changed."""
    out = {}
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return out
    for entry in entries:
        try:
            if entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                out[entry.name] = (st.st_size, st.st_mtime_ns, st.st_ino)
        except OSError:
            continue
    return out


def changed_files(before: dict, after: dict) -> list[str]:
    """``name (modified|deleted|created)`` for each file whose :func:`fingerprint` differs."""
    out = [f"{name} ({'deleted' if name not in after else 'modified'})" for name in sorted(before)
           if after.get(name) != before[name]]
    return out + [f"{name} (created)" for name in sorted(set(after) - set(before))]


def default_memory() -> int:
    """The default limit of the module's address space, in bytes: this machine's physical memory (1 TiB where
    the platform does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 1 << 40


def _limit_memory(pid: int, nbytes: int) -> None:
    """``RLIMIT_AS`` of the process ``pid`` set to ``nbytes`` where the platform has ``prlimit`` (Linux): an
    allocation beyond it is a ``MemoryError`` in the module's call, not the machine's memory exhausted."""
    try:
        import resource

        resource.prlimit(pid, resource.RLIMIT_AS, (nbytes, nbytes))
    except (ImportError, AttributeError, OSError, ValueError):  # no prlimit here: no limit (docs/validate.md)
        pass


class Worker:
    """One child process holding the module ``module_name``; :meth:`start` imports it there.

    ``timeout`` is the limit of each call in seconds; ``memory`` the limit of the child's address space in
    bytes (default :func:`default_memory`).  After :meth:`start`, ``functions`` lists the
    requested names the module defines as callables, and ``options`` the requested module attributes
    it declares (as plain values).
    """

    def __init__(self, module_name: str, *, timeout: float, memory: int | None = None):
        self.module_name = module_name
        self.timeout = timeout
        self.memory = default_memory() if memory is None else memory
        self.functions: list[str] = []
        self.options: dict = {}
        self._names: tuple = ()
        self._option_names: tuple = ()
        self._proc = self._watchdog = self._home = None
        self._lock = threading.Lock()
        self._kept = bytearray()
        self._dropped = 0

    # -- the process ------------------------------------------------------------------------

    def start(self, names, option_names=()) -> None:
        """Spawn the child and import the module; raise :class:`~properties.errors.UnusableModule` (one
        line) when it cannot be imported: an error while importing, an exit, or no answer within
        :data:`IMPORT_TIMEOUT` seconds."""
        self._names, self._option_names = tuple(names), tuple(option_names)
        reply = self._spawn()
        if reply[0] != "ok":
            self.close()
            raise UnusableModule(f"error: cannot import module {self.module_name!r}: {_one_line(reply[1])}")
        self.functions, self.options = list(reply[1]), dict(reply[2])

    def _spawn(self):
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
        self._home = tempfile.mkdtemp(prefix="properties-module-")
        mark = f"{os.getpid()}-{secrets.token_hex(8)}"
        try:
            # -P: the module's directory is not on the path before the module is imported (module_path puts it
            # there for the import); a private, empty working directory for whatever the module writes
            self._proc = subprocess.Popen(
                [sys.executable, "-P", "-c", _BOOT, path, str(down_r), str(up_w)], pass_fds=(down_r, up_w),
                cwd=self._home, env=dict(os.environ, **{MARK: mark}),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                start_new_session=True)
            _limit_memory(self._proc.pid, self.memory)
            self._watchdog = subprocess.Popen([sys.executable, "-P", "-c", _WATCHDOG, str(os.getpid()),
                                               str(self._proc.pid), f"{MARK}={mark}"], stdin=subprocess.PIPE,
                                              cwd=self._home)
        finally:
            os.close(down_r)
            os.close(up_w)
        self._down, self._up = down_w, up_r
        _LIVE.add(self)
        threading.Thread(target=self._drain, args=(self._proc,), daemon=True, name="worker output").start()
        request = ("import", self.module_name, module_path(), list(self._names), list(self._option_names))
        try:
            return self._exchange(request, IMPORT_TIMEOUT)
        except AdapterAbort as exc:  # it ended, hung or answered garbage while importing
            self.close()
            return ("error", str(exc))

    def _arm(self, line: str) -> None:
        """Tell the watchdog process a deadline (seconds from now) or ``off``."""
        try:
            self._watchdog.stdin.write(line.encode() + b"\n")
            self._watchdog.stdin.flush()
        except (OSError, ValueError):  # it is gone (the module killed it): the judge's own limit still holds
            pass

    def _drain(self, proc) -> None:
        with proc.stdout as stream:
            for chunk in iter(lambda: stream.read1(65536), b""):
                self._keep(chunk)

    def _keep(self, chunk: bytes) -> None:
        with self._lock:
            room = max(0, CAPTURE - len(self._kept))
            self._kept += chunk[:room]
            self._dropped += max(0, len(chunk) - room)

    def close(self) -> None:
        """End the child (and anything it started in its session) and release its pipes."""
        proc, self._proc = self._proc, None
        _LIVE.discard(self)
        if proc is None:
            return
        for fd in (self._down, self._up):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for process in (proc, self._watchdog):
            if process is None:
                continue
            if process is self._watchdog:
                try:
                    process.stdin.close()  # the end of its input: it kills the group once more and exits
                except OSError:
                    pass
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        self._watchdog = None
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)

    # -- output --------------------------------------------------------------------------------

    def capture(self) -> None:
        """Start a new capture of the child's output (what :meth:`captured` returns from now on)."""
        with self._lock:
            self._kept, self._dropped = bytearray(), 0

    def captured(self) -> list[str]:
        """The child's output since :meth:`capture`, cleaned (:func:`clean`); [] when it printed nothing."""
        time.sleep(0.05)  # let the reader take what the child wrote just before it answered or died
        with self._lock:
            text, dropped = bytes(self._kept).decode("utf-8", errors="replace"), self._dropped
        lines = clean(text)
        if dropped:
            lines.append(f"… ({dropped} more bytes not kept)")
        return lines

    # -- calls ----------------------------------------------------------------------------------

    def call(self, name: str, *args, **kwargs):
        """``module.name(*args, **kwargs)`` in the child; see the module docstring for what it raises."""
        if self._proc is None:  # a previous call ended the child: start it again
            reply = self._spawn()
            if reply[0] != "ok":
                raise AdapterAbort(f"{name}: the module could not be imported again in a new process: {reply[1]}")
        try:
            request = _codec.encode(("call", name, tuple(args), dict(kwargs)))
        except _codec.NotPlain as exc:
            raise TypeError(f"cannot pass {exc} to {name} in its process") from None
        reply = self._exchange(request, self.timeout, name)
        threads = reply[-1]
        if threads:
            self.close()
            raise AdapterAbort(f"{name}: the module left non-daemon threads running ({', '.join(threads)})")
        kind = reply[0]
        if kind == "ok":
            return reply[1]
        if kind == "raised":
            base, text = reply[1], _one_line(reply[2])
            if base in _RERAISED:
                message = "" if text == base else text[len(base) + 2:] if text.startswith(base + ": ") else text
                raise getattr(builtins, base)(message)
            raise ImplementationError(text)
        if kind == "unplain":
            raise UnplainOutput(_one_line(reply[1]))
        raise AdapterAbort(_one_line(reply[1]))

    def function(self, name: str):
        """A callable that calls ``name`` in the child."""

        def call(*args, **kwargs):
            return self.call(name, *args, **kwargs)

        call.__name__ = name
        return call

    def implementation(self, names):
        """The implementation a claim is run on: a namespace of :meth:`function` for each of ``names``."""
        return types.SimpleNamespace(__name__=self.module_name, **{n: self.function(n) for n in names})

    def _exchange(self, request, timeout: float, name: str | None = None):
        """Send ``request`` (a tree or its encoding) and wait for the reply; AdapterAbort subclasses
        (the child killed) when it does not come."""
        what = "importing the module" if name is None else name
        data = request if isinstance(request, bytes) else _codec.encode(request)
        deadline = time.monotonic() + timeout
        try:
            self._arm(f"{timeout + WATCHDOG_GRACE!r}")
            _codec.write_frame(self._down, data)
            frame = _codec.read_frame(self._up, deadline)
            self._arm("off")
        except TimeoutError:
            self.close()
            raise TimedOut(f"{what} did not return within the time limit of {timeout:g} s") from None
        except (OSError, _codec.NotPlain):
            frame = None
        if frame is None and time.monotonic() > deadline + WATCHDOG_GRACE:  # the judge was stopped: the watchdog acted
            self.close()
            raise TimedOut(f"{what} did not return within the time limit of {timeout:g} s (its processes were "
                           f"ended by the judge's watchdog: the judge itself had been stopped)")
        if frame is None:
            proc = self._proc
            try:
                code = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                code = None
            self.close()
            raise ImplementationDied(f"{what} ended the implementation's process ({_exit_text(code)})")
        try:
            reply = _codec.decode(frame)
            if not (isinstance(reply, tuple) and reply and reply[0] in ("ok", "error", "raised", "unplain", "abort")
                    and isinstance(reply[-1], list)):
                raise _codec.NotPlain("a reply of the wrong shape")
        except _codec.NotPlain as exc:
            self.close()
            raise AdapterAbort(f"{what}: the implementation's process sent a malformed reply ({exc})") from None
        return reply


_LIVE: set[Worker] = set()


@atexit.register
def _close_all() -> None:
    for w in list(_LIVE):
        w.close()
