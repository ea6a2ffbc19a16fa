"""The ledger's JSON vocabulary: values as JSON, the non-finite rule, atomic writes, reading for
``--resume``, and an entry's instance read back (:func:`raw_instance`) or shown (:func:`instance_text`).

The ledger, the report, the docs and the certificates all speak of entries through this module.

The document is ``{"profile": ..., "seed": ..., "claims": [entry, ...]}`` with one entry per claim
(the fields of :class:`properties.ledger.Result`), in the order of ``claims.tsv``.

**Non-finite numbers** (one rule, everywhere in the document): a float that is ``inf``, ``-inf`` or
``nan`` is written as ``null``, and the JSON object holding it gains a member ``"nonfinite"`` that
maps the key to ``"inf"``, ``"-inf"`` or ``"nan"``; when the value under that key is an array, the
key maps to a list of ``{"index": [i, j, ...], "value": "inf"}``, one per non-finite element.  So a
numeric field is always a number or null, never a string, e.g.
``{"worst_ratio": null, "nonfinite": {"worst_ratio": "inf"}, ...}``.  Finite floats are written
with ``repr``, which round-trips float64 exactly.

The file is written atomically (a temporary file in the same directory, then ``os.replace``), so a
reader sees the previous complete ledger or the new one, never a truncated one; the ledger rewrites
it after every claim, so an interrupted run leaves a valid ledger of the claims that finished.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import tempfile
from fractions import Fraction

import flint
import numpy as np
from mpmath import mp

from .toolkit import Outcome

__all__ = ["ENTRY_FIELDS", "MAX_INPUT_BYTES", "MAX_JSON_DEPTH", "check_output_directory", "check_writable", "counterexample_text",
           "instance_text", "jsonable", "raw_instance", "read_json", "read_ledger", "write_atomic"]

#: every entry's fields and the JSON types each may take (the fields of :class:`properties.ledger.Result`;
#: tests/properties/test_cli_errors.py holds the two equal): what ``--resume`` and ``report --from`` rely on.
_TEXT, _INT, _NUMBER, _ANY = (str,), (int,), (int, float), None
ENTRY_FIELDS = {
    "id": _TEXT, "paper": _TEXT, "section": _TEXT, "kind": _TEXT, "mode": _TEXT, "verdict": _TEXT,
    "examples": _INT, "worst_ratio": _NUMBER + (type(None),), "digits": _INT + (type(None),),
    "counterexample": _ANY, "instance": (dict, type(None)), "worst_example": _ANY,
    "worst_instance": (dict, type(None)), "counterexample_source": _TEXT + (type(None),),
    "counterexample_outcome": (dict, type(None)),
    "recheck_dps": _INT + (type(None),), "reason": _TEXT, "expected": _TEXT, "seconds": _NUMBER, "statement": _TEXT,
    "extra": (dict,), "repairs": (list,), "reading": _TEXT, "readings": (list,), "provenance": _TEXT,
    "source": _TEXT, "basis": _TEXT, "basis_note": _TEXT, "conventions": (dict,), "strength": _TEXT + (type(None),),
}

#: fields a ledger written before them lacks: the named instances of the certified errata (read as null), and
#: what a verdict is about (``reading`` … ``strength``: the report and the docs take them from the registry,
#: :func:`properties.toolkit.provenance.annotate`)
OPTIONAL_FIELDS = ("instance", "worst_example", "worst_instance", "reading", "readings", "provenance", "source",
                   "basis", "basis_note", "conventions", "strength")


def _scalar_flag(x: float) -> str:
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def _convert(obj):
    """(JSON value, flags): flags is None when nothing non-finite sits directly in ``obj`` (objects
    record their own), a string for a non-finite float, a list of index flags for an array."""
    if isinstance(obj, np.ndarray):
        return _convert(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj), None
    if isinstance(obj, (np.integer, int)):
        return int(obj), None
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return (f, None) if math.isfinite(f) else (None, _scalar_flag(f))
    if isinstance(obj, Outcome):
        return _convert(dict(obj.__dict__))
    if isinstance(obj, (flint.fmpq, mp.mpf)):  # an exact statement object shown as its nearest float
        return _convert(float(obj))
    if isinstance(obj, (flint.fmpq_mat, mp.matrix)):
        return _convert(np.array(obj.tolist(), dtype=float))
    if isinstance(obj, dict):
        out, nonfinite = {}, {}
        for k, v in obj.items():
            out[str(k)], flags = _convert(v)
            if flags is not None:
                nonfinite[str(k)] = flags
        if nonfinite:
            out["nonfinite"] = nonfinite
        return out, None
    if isinstance(obj, (list, tuple)):
        out, flags = [], []
        for i, v in enumerate(obj):
            value, f = _convert(v)
            out.append(value)
            if isinstance(f, str):
                flags.append({"index": [i], "value": f})
            elif f:
                flags.extend({"index": [i, *g["index"]], "value": g["value"]} for g in f)
        return out, (flags or None)
    if obj is None or isinstance(obj, str):
        return obj, None
    if hasattr(obj, "as_dict"):
        return _convert(obj.as_dict())
    return repr(obj), None


def jsonable(obj):
    """``obj`` (numbers, arrays, tuples, dicts, Outcome records) as a JSON value under the module's
    non-finite rule; anything else as its ``repr``.  A bare non-finite float becomes ``None``."""
    return _convert(obj)[0]


def check_writable(path: str) -> None:
    """Raise ``ValueError`` unless ``path`` can be written: its directory exists and accepts a new
    file, and ``path`` is not a directory (nor names one with a trailing ``/``); a symbolic link is judged
    by its target, which :func:`write_atomic` writes.  Called before any claim runs."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"json path={path!r} must be a non-empty file name")
    if path.endswith(("/", os.sep)):
        raise ValueError(f"json path={path!r} ends with a separator: it must name a file, not a directory")
    path = os.path.realpath(path)
    directory = os.path.dirname(path)
    if os.path.isdir(path):
        raise ValueError(f"json path={path!r} is a directory, but should be a file name")
    if not os.path.isdir(directory):
        raise ValueError(f"json path={path!r}: directory {directory!r} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".ledger-probe-"):
            pass
    except OSError as exc:
        raise ValueError(f"json path={path!r}: directory {directory!r} is not writable ({exc.strerror})") from None


def check_output_directory(path: str, option: str = "--out") -> None:
    """Make the directory ``path`` (and its parents) and check that it accepts a new file; ``ValueError``
    naming ``option`` otherwise (an existing file, a parent that is a file, no permission)."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"{option}={path!r} must be a non-empty directory name")
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".probe-"):
            pass
    except OSError as exc:
        raise ValueError(f"{option}={path!r} cannot be a directory written to ({exc.strerror or exc})") from None


def write_atomic(path: str, document: dict) -> None:
    """Write ``document`` as JSON to ``path`` atomically (temp file in the same directory, fsync,
    ``os.replace``).  If anything fails, ``path`` keeps its previous content and the error propagates."""
    text = json.dumps(jsonable(document), indent=1, allow_nan=False) + "\n"
    path = os.path.realpath(path)  # a symbolic link: its target is the ledger, the link stays
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _entry_problem(entry) -> str | None:
    """What is wrong with one entry (missing fields, a field of the wrong JSON type), or None."""
    if not isinstance(entry, dict):
        return f"is a {type(entry).__name__}, not an object"
    missing = [name for name in ENTRY_FIELDS if name not in entry and name not in OPTIONAL_FIELDS]
    if missing:
        return "lacks the field" + ("s " if len(missing) > 1 else " ") + ", ".join(repr(m) for m in missing)
    for name, types in ENTRY_FIELDS.items():
        if name in OPTIONAL_FIELDS and name not in entry:
            continue
        value = entry.get(name)
        if types is not None and (not isinstance(value, types) or (isinstance(value, bool) and bool not in types)):
            return f"has {name}={value!r}, which must be of JSON type {' or '.join(t.__name__ for t in types)}"
    return None


MAX_INPUT_BYTES = 64 << 20
"""The largest file a command reads (64 MiB; a ledger of every claim is well under 1 MiB)."""

MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects a JSON input may have (a ledger entry's is under 10)."""

_JSON_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def read_json(path: str, what: str = "json path"):
    """The JSON document in the file ``path``, checked before it is read: a regular file (not a FIFO, a
    device or a link to one: opened without blocking and checked on the open file), at most
    :data:`MAX_INPUT_BYTES` bytes, UTF-8, nested at most :data:`MAX_JSON_DEPTH` deep.  ``ValueError``
    naming ``what``, the path and the rule otherwise; every command reading a user's file reads it here."""
    where = f"{what}={path!r}"
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise ValueError(f"{where} cannot be read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{where} must be a regular file (it is a FIFO, a device or a directory)")
        if st.st_size > MAX_INPUT_BYTES:
            raise ValueError(f"{where} is larger than {MAX_INPUT_BYTES} bytes ({st.st_size}): refused")
        data = fh.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise ValueError(f"{where} is larger than {MAX_INPUT_BYTES} bytes: refused")
    depth = 0
    for token in _JSON_TOKENS.finditer(data):
        mark = token.group()
        depth += 1 if mark in (b"[", b"{") else -1 if mark in (b"]", b"}") else 0
        if depth > MAX_JSON_DEPTH:
            raise ValueError(f"{where} holds JSON nested deeper than {MAX_JSON_DEPTH} levels: refused")
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, an integer of too many digits
        raise ValueError(f"{where} is not JSON: {' '.join(str(exc).split())[:300]}") from None


def read_ledger(path: str) -> dict:
    """A ledger written by :func:`write_atomic`, checked enough to resume from or report on: ``ValueError``
    naming the path and the first bad entry when it is not such a document (an entry lacking one of
    :data:`ENTRY_FIELDS` or holding a value of the wrong JSON type)."""
    doc = read_json(path)
    if not (isinstance(doc, dict) and isinstance(doc.get("claims"), list)):
        raise ValueError(f"json path={path!r} cannot be read as a ledger: not an object with a list of claims")
    for i, entry in enumerate(doc["claims"]):
        problem = _entry_problem(entry)
        if problem:
            cid = entry.get("id") if isinstance(entry, dict) else None
            raise ValueError(f"json path={path!r} cannot be read as a ledger: claims[{i}]"
                             + (f" ({cid!r})" if isinstance(cid, str) else "") + f" {problem}")
    return doc


# -- an entry's instance: as the drawn instance, and as text ----------------------------------------

def raw_instance(value, arity: int | None = None):
    """A ledger counterexample (JSON) as the drawn instance: a list of ``arity`` elements (the claim's
    fields) as a tuple of them, and numeric rectangular nested lists as float64 arrays (a JSON list does
    not say whether it was a tuple or an array: the claim's arity settles the top level)."""
    if arity is not None and arity > 1 and isinstance(value, list) and len(value) == arity:
        return tuple(raw_instance(v) for v in value)
    if isinstance(value, list):
        flat = np.asarray(value, dtype=object).ravel() if _rectangular(value) else None
        if flat is not None and flat.size and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                  for x in flat):
            return np.asarray(value, dtype=float)
        return tuple(raw_instance(v) for v in value)
    return value


def _rectangular(value) -> bool:
    try:
        arr = np.asarray(value, dtype=object)
    except ValueError:
        return False
    return arr.ndim >= 1 and not any(isinstance(x, list) for x in arr.ravel())


_SMALL = 16  # counterexamples with at most this many numbers also get exact fractions


def _numbers(obj) -> list:
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return []
    if isinstance(obj, (int, float)):
        return [obj]
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in _numbers(v)]
    if isinstance(obj, (list, tuple)):
        return [x for v in obj for x in _numbers(v)]
    return []


def _exact(x) -> str:
    """An exact rendering of a float64: a fraction with a small denominator, else its hex form."""
    if isinstance(x, int) or not math.isfinite(x) or x == int(x):
        return repr(x)
    f = Fraction(x)
    if f.denominator == 1 or f.denominator <= 2**20:
        return str(f)
    return float(x).hex()


def counterexample_text(cex) -> str:
    """The counterexample as JSON with round-trip floats; small ones also value by value, exactly."""
    text = json.dumps(cex, ensure_ascii=False)
    nums = [x for x in _numbers(cex) if isinstance(x, float)]
    if 0 < len(nums) <= _SMALL and any(_exact(x) != repr(x) for x in nums):
        exact = ", ".join(f"{x!r} = {_exact(x)}" for x in dict.fromkeys(nums) if _exact(x) != repr(x))
        text += f"\n  exactly: {exact}"
    return text


def _value_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return json.dumps(v, ensure_ascii=False)


def instance_text(entry: dict, field: str = "instance") -> str:
    """The entry's instance in the statement's objects, by name (``X = [[…]], W = […], λ = 1.0,
    causal = false``), or its unnamed counterexample when the ledger has no names."""
    named = entry.get(field)
    if isinstance(named, dict) and named:
        return ", ".join(f"{k} = {_value_text(v)}" for k, v in named.items() if k != "nonfinite")
    return counterexample_text(entry.get("counterexample" if field == "instance" else "worst_example"))
