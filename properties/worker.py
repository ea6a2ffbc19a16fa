"""The child process of the validator and the pytest plugin: it imports the implementation under
judgement and calls its functions, so that nothing the module does (exit, hang, patch a module, lie
in ``__array__``) reaches the judge (docs/development.md#one-contract).

This module imports the standard library and numpy only, and the child runs it from its file path
(:mod:`properties.isolation` starts ``python -c`` with a loader), not as part of the package: the
child's interpreter holds nothing of the judge (no oracle, no Hypothesis).  The parent and the child
talk over two pipes of their own in frames (:func:`write_frame`, :func:`read_frame`), each a tree of
plain values (:func:`encode`, :func:`decode`): None, bools, ints, floats, complex numbers, strings,
tuples, lists, dicts with string keys and numeric numpy arrays (bool, int, uint, float, complex) sent
as raw bytes, never pickles, so decoding what the child sends runs no code of the child's.

The child converts what a function returns into such a tree itself (:func:`plain`), inside the
parent's time limit: an object is converted twice and must give the same array both times; a
conversion that raises, even ``SystemExit``, is reported as an error of the call.
"""

from __future__ import annotations

import json
import math
import os
import signal
import struct
import sys
import threading
import time

import numpy as np

__all__ = ["MAX_FRAME", "MAX_RESULT_BYTES", "NotPlain", "decode", "encode", "exit_with_parent", "plain", "read_frame", "serve",
           "write_frame"]

MAX_RESULT_BYTES = 1 << 28
"""The largest result a call may return (256 MiB of array data; the contract's results are far smaller): a
bigger one is refused in the child, before it is copied or sent, as a result too large."""

MAX_FRAME = 1 << 31
"""The largest frame either side accepts (2 GiB): a bigger one is a protocol error."""

_KINDS = "biufc"
_MAX_DEPTH = 32


class NotPlain(ValueError):
    """A value that is not a tree of plain values (see the module docstring)."""


# -- the codec ---------------------------------------------------------------------------------

def encode(value) -> bytes:
    """``value`` (a tree of plain values) as bytes: an 8-byte length, a JSON header, the arrays' bytes."""
    blobs: list[bytes] = []
    size = [0]

    def node(x, depth):
        if depth > _MAX_DEPTH:
            raise NotPlain(f"nested deeper than {_MAX_DEPTH} levels")
        if x is None or type(x) in (bool, int, str):
            return x
        if type(x) is float:
            return x if math.isfinite(x) else {"f": repr(x)}
        if type(x) is complex:
            return {"c": [repr(x.real), repr(x.imag)]}
        if type(x) in (tuple, list):
            return {"t" if type(x) is tuple else "l": [node(v, depth + 1) for v in x]}
        if type(x) is dict:
            if not all(type(k) is str for k in x):
                raise NotPlain("a dict with a key that is not a string")
            return {"d": [[k, node(v, depth + 1)] for k, v in x.items()]}
        if isinstance(x, (np.ndarray, np.generic)) and type(x).__module__ == "numpy":
            arr = np.asarray(x)  # tobytes() below is C order whatever the strides (ascontiguousarray would make 0-d 1-d)
            if arr.dtype.kind not in _KINDS or arr.dtype.hasobject:
                raise NotPlain(f"an array of dtype {arr.dtype} (numbers only: bool, int, float, complex)")
            data = arr.tobytes()
            blobs.append(data)
            size[0] += len(data)
            return {"a": [size[0] - len(data), len(data)], "dtype": arr.dtype.str, "shape": list(arr.shape),
                    "scalar": isinstance(x, np.generic)}
        raise NotPlain(f"a value of type {type(x).__name__}")

    header = json.dumps(node(value, 0), allow_nan=False).encode()
    return struct.pack("<Q", len(header)) + header + b"".join(blobs)


def decode(data: bytes):
    """The tree :func:`encode` wrote; raises :class:`NotPlain` on anything malformed."""
    if len(data) < 8:
        raise NotPlain("a frame shorter than its header")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise NotPlain("a header longer than its frame")
    try:
        tree = json.loads(data[8:8 + n])
    except (ValueError, RecursionError) as exc:
        raise NotPlain(f"a malformed header ({type(exc).__name__})") from None
    blob = memoryview(data)[8 + n:]

    def node(x, depth):
        if depth > _MAX_DEPTH:
            raise NotPlain(f"nested deeper than {_MAX_DEPTH} levels")
        if x is None or type(x) in (bool, int, float, str):
            return x
        if type(x) is not dict or len(x) == 0:
            raise NotPlain("a malformed node")
        if "f" in x:
            return float(x["f"])
        if "c" in x:
            return complex(float(x["c"][0]), float(x["c"][1]))
        if "t" in x or "l" in x:
            items = [node(v, depth + 1) for v in x.get("t", x.get("l"))]
            return tuple(items) if "t" in x else items
        if "d" in x:
            return {str(k): node(v, depth + 1) for k, v in x["d"]}
        if "a" in x:
            return _array(x, blob)
        raise NotPlain("a malformed node")

    try:
        return node(tree, 0)
    except NotPlain:
        raise
    except (TypeError, ValueError, KeyError, IndexError, OverflowError) as exc:
        raise NotPlain(f"a malformed node ({type(exc).__name__})") from None


def _array(x, blob):
    dtype = np.dtype(str(x["dtype"]))
    if dtype.kind not in _KINDS or dtype.hasobject:
        raise NotPlain(f"an array of dtype {dtype}")
    shape = tuple(int(s) for s in x["shape"])
    off, nbytes = (int(v) for v in x["a"])
    if any(s < 0 for s in shape) or off < 0 or off + nbytes > len(blob) or nbytes != math.prod(shape) * dtype.itemsize:
        raise NotPlain("an array whose size does not match its bytes")
    arr = np.frombuffer(blob[off:off + nbytes], dtype=dtype).reshape(shape).copy()
    return arr[()] if x.get("scalar") and arr.ndim == 0 else arr


def write_frame(fd: int, data: bytes) -> None:
    """Write one frame (its 8-byte length, then ``data``) to the file descriptor ``fd``."""
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def read_frame(fd: int, deadline: float | None = None) -> bytes | None:
    """Read one frame from ``fd``; None at end of file.  With ``deadline`` (a ``time.monotonic()``
    value) raise ``TimeoutError`` when the frame has not arrived by then."""
    head = _read(fd, 8, deadline)
    if head is None:
        return None
    (n,) = struct.unpack("<Q", head)
    if n > MAX_FRAME:
        raise NotPlain(f"a frame of {n} bytes (at most {MAX_FRAME})")
    body = _read(fd, n, deadline)
    if body is None:
        return None
    return body


def _read(fd, n, deadline):
    import select

    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


# -- the child's side ----------------------------------------------------------------------------

def plain(value, depth: int = 0):
    """What a function returned, as a tree of plain values (numpy arrays for anything array-like).

    An object that is not a builtin scalar or container is converted with ``np.array`` twice: a
    non-numeric dtype or two different results raise :class:`NotPlain`.
    """
    if depth > _MAX_DEPTH:
        raise NotPlain(f"nested deeper than {_MAX_DEPTH} levels")
    if value is None or type(value) in (bool, int, float, complex, str):
        return value
    if type(value) in (tuple, list):
        return type(value)(plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return {_key(k): plain(v, depth + 1) for k, v in value.items()}
    if type(value) in (np.ndarray,) or (isinstance(value, np.generic) and type(value).__module__ == "numpy"):
        _fits(value.nbytes)
        arr = np.array(value, copy=True)
        if arr.dtype.kind not in _KINDS:
            raise NotPlain(f"returned an array of dtype {arr.dtype}, not numbers")
        return arr[()] if isinstance(value, np.generic) else arr
    first = np.array(value, copy=True)
    _fits(first.nbytes)
    second = np.array(value, copy=True)
    if first.dtype.kind not in _KINDS:
        raise NotPlain(f"returned a {type(value).__name__} that converts to an array of dtype {first.dtype}, "
                       f"not numbers")
    if first.dtype != second.dtype or first.shape != second.shape or first.tobytes() != second.tobytes():
        raise NotPlain(f"returned a {type(value).__name__} that converts to a different array each time")
    return first


def _fits(nbytes: int) -> None:
    if nbytes > MAX_RESULT_BYTES:
        raise NotPlain(f"returned an array of {nbytes} bytes, more than MAX_RESULT_BYTES={MAX_RESULT_BYTES}: a result "
                       f"too large")


def _key(k):
    if type(k) is not str:
        raise NotPlain(f"returned a dict with a key of type {type(k).__name__}, not str")
    return k


def _say(exc: BaseException) -> str:
    """``Type: message`` of an exception, on one line (``str`` may raise: then its type alone)."""
    try:
        text = " ".join(str(exc).split())
    except BaseException:  # noqa: BLE001  (the module's own exception class may raise anything)
        text = "(its message could not be printed)"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _abort_text(name: str, exc: BaseException) -> str:
    try:
        args = ", ".join(map(repr, exc.args))
    except BaseException:  # noqa: BLE001
        args = "..."
    return f"{name} raised {type(exc).__name__}({args})"


def _builtin_base(exc: BaseException) -> str:
    """The nearest builtin ``Exception`` class of ``exc`` (so that the parent can raise one a compare
    function catches, e.g. ``ValueError`` for numpy's ``LinAlgError``)."""
    import builtins

    for cls in type(exc).__mro__:
        if getattr(builtins, cls.__name__, None) is cls and issubclass(cls, Exception):
            return cls.__name__
    return "Exception"


def _threads() -> list[str]:
    return sorted(t.name for t in threading.enumerate()
                  if t is not threading.main_thread() and not t.daemon and t.is_alive())


def exit_with_parent(parent: int) -> None:
    """End this process (exit code 3) once its parent ``parent`` is gone, polling every second: run in a daemon
    thread, so that a killed judge or ledger leaves no child or worker process behind."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(3)


def _call(module, name, args, kwargs) -> tuple:
    """One call of ``module.name`` and the conversion of its value, as a reply (without the threads)."""
    try:
        value = getattr(module, name)(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001  (the function raised: the parent re-raises it)
        return ("raised", _builtin_base(exc), _say(exc))
    except BaseException as exc:  # noqa: BLE001  (SystemExit, KeyboardInterrupt raised by the function)
        return ("abort", _abort_text(name, exc))
    try:
        out = ("ok", plain(value))
    except NotPlain as exc:
        out = ("unplain", f"{name} {exc}")
    except BaseException as exc:  # noqa: BLE001  (__array__, __len__, ... of the returned object raised)
        out = ("unplain", f"{name} returned a {type(value).__name__} whose conversion to an array raised {_say(exc)}")
    del value  # its __del__ runs now, inside the call's time limit
    return out


def serve(down: int, up: int) -> None:
    """The child's loop: answer the parent's requests on ``down`` through ``up`` until end of file.

    Requests: ``("import", module, sys_path, names, options)`` → ``("ok", functions, option values,
    threads)``; ``("call", name, args, kwargs)`` → ``("ok", value, threads)``, ``("raised", base,
    "Type: message", threads)`` or ``("abort", text, threads)``.  Anything the module does to the
    process (an exit, a signal) simply ends it: the parent sees the end of file and the exit code.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the judge's to handle
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True, name="orphan watch").start()
    module = None
    while True:
        frame = read_frame(down)
        if frame is None:
            return
        request = decode(frame)
        if request[0] == "import":
            _, name, path, names, options = request
            sys.path[:] = list(path)
            try:
                import importlib

                module = importlib.import_module(name)
                functions = [n for n in names if callable(getattr(module, n, None))]
                values = {k: plain(getattr(module, k)) for k in options if hasattr(module, k)}
                reply = ("ok", functions, values, _threads())
            except BaseException as exc:  # noqa: BLE001  (whatever importing raised is one line for the parent)
                reply = ("error", _say(exc), _threads())
        else:
            reply = _call(module, *request[1:]) + (_threads(),)
        try:
            data = encode(reply)
        except NotPlain as exc:
            data = encode(("unplain", f"{request[1]} returned {exc}", _threads()))
        write_frame(up, data)
