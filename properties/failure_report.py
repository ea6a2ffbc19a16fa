"""The validator's verdict on one adapter function, and a FAIL report a user can act on.

A FAIL shows, besides the verdict's one-line reason:

- the failing call's arguments under the contract's own names (``A = [[…]], b = […], w = […], x = […]``),
  taken from the call the module actually received (:class:`CallLog`), not from the drawn instance, which
  may carry search parameters the arguments were built from (the ε₀ of an approximate Hessian, the log10 of
  a tolerance): those are listed apart, labelled as not passed to the function;
- what was returned beside what was expected (the oracle's value, when the adapter's comparison states
  it: :class:`properties.contract.Comparison`), for an array the worst entry with its index, and both
  arrays in full when they are small (at most :data:`SMALL` entries on each side, e.g. 6 × 6);
- the error, the tolerance and how it was computed: the contract's rule and the values of its symbols
  at this input.

For a randomised guarantee judged over seeded trials the seed argument reads ``seed = 0…k−1`` and the
returned/expected values are those of the first failing trial.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

import numpy as np

from .contract import Adapter
from .ledgerfile import jsonable
from .toolkit import Outcome

__all__ = ["SMALL", "Call", "CallLog", "FunctionReport", "argument_names", "read_arguments"]

SMALL = 6
"""Arrays with at most SMALL rows and SMALL columns are printed in full under a FAIL."""

_WIDTH = 2000
"""Characters of one printed value at most (a large input is cut, with its shape said)."""


def argument_names(signature: str) -> list[str]:
    """The parameter names of a contract signature, in order: ``"f(A: (n, d), b, seed: int) -> x"`` →
    ``["A", "b", "seed"]`` (commas inside brackets belong to the annotation)."""
    inside = signature[signature.index("(") + 1:]
    depth, part, parts = 0, "", []
    for ch in inside:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += ch
    parts.append(part)
    return [m.group(0) for m in (re.match(r"[A-Za-z_]\w*", p.strip()) for p in parts) if m]


def read_arguments(text: str) -> dict:
    """The arguments of a printed argument line (``A = [[1.0]], b = [0.5]``) as a dict of JSON values: the
    inverse of the report's line, for scripts that replay a counterexample."""
    pieces = re.split(r"(?:^|, )([A-Za-z_]\w*) = ", text.strip())
    return {name: json.loads(value) for name, value in zip(pieces[1::2], pieces[2::2])}


def _plain(value):
    """``value`` as JSON-ready lists and numbers, NaN and ±inf kept (printed NaN, Infinity)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist() if value.dtype.kind in "biufc" else repr(value)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value if value is None or isinstance(value, (bool, int, float, str)) else jsonable(value)


def _show(value) -> str:
    text = json.dumps(_plain(value), ensure_ascii=False, default=repr)
    if len(text) <= _WIDTH:
        return text
    shape = f" (an array of shape {np.shape(value)})" if isinstance(value, np.ndarray) else ""
    return text[:_WIDTH] + f" …{shape}"


@dataclass
class Call:
    """One call of the module's function: its arguments, and what it returned or raised."""

    args: tuple
    kwargs: dict
    returned: object = None
    raised: str = ""


class CallLog:
    """``fn`` wrapped so that every call is kept: the calls of the current example (:meth:`begin` starts
    one), and of the first failing seeded trial (:meth:`trial_failed`); :meth:`keep` stores them with the
    failing instance so that the report can name what the module received."""

    def __init__(self, fn):
        self.fn = fn
        self.calls: list[Call] = []
        self.trial: tuple | None = None  # (seed, calls, outcome) of the example's first failing trial
        self.kept: tuple | None = None  # (instance, calls, trial seed, trial outcome)

    def __call__(self, *args, **kwargs):
        call = Call(args, kwargs)
        self.calls.append(call)
        try:
            call.returned = self.fn(*args, **kwargs)
        except Exception as exc:
            call.raised = f"{type(exc).__name__}: {exc}"
            raise
        return call.returned

    def begin(self) -> None:
        """A new example: forget the calls of the previous one."""
        self.calls, self.trial = [], None

    def trial_failed(self, seed: int, start: int, outcome: Outcome) -> None:
        """Trial ``seed`` (its calls from index ``start`` on) failed; the first such trial is the one shown."""
        if self.trial is None:
            self.trial = (seed, self.calls[start:], outcome)

    def keep(self, instance) -> None:
        """``instance`` failed: keep its calls (those of its first failing trial, if it was judged by trials)."""
        seed, calls, outcome = self.trial if self.trial is not None else (None, self.calls, None)
        self.kept = (instance, list(calls), seed, outcome)

    def judged(self, check):
        """``check(instance) -> Outcome`` that begins an example, and keeps it when it fails or raises."""

        def run(instance):
            self.begin()
            try:
                out = check(instance)
            except BaseException:
                self.keep(instance)
                raise
            if not out.holds:
                self.keep(instance)
            return out

        return run


@dataclass
class FunctionReport:
    """The verdict on one adapter function: ``passed``, the decided ``examples``, the ``worst``
    error/tolerance, and on failure the (``shrunk`` or not) ``minimal_input`` (the drawn instance), the
    ``outcome`` (None when the call crashed or was aborted) and the one-line ``error``; ``statistics``
    counts the statistical checks passed (``Adapter.statistical``); ``output`` holds what the module printed
    meanwhile (cleaned lines, shown under a FAIL).  ``call`` is the failing call as the module received it
    (None when unknown: a statistical check, a search that ended without a verdict), ``adapter`` the
    contract entry whose argument names and rule the report prints; ``trials`` is k of a randomised
    guarantee's seeded trials, ``trial_seed`` and ``trial_outcome`` belong to its first failing trial."""

    name: str
    passed: bool
    examples: int
    worst: float | None
    minimal_input: object = None
    outcome: Outcome | None = None
    error: str = ""
    shrunk: bool = True
    timed_out: bool = False
    statistics: int = 0
    output: list = field(default_factory=list)
    call: Call | None = None
    adapter: Adapter | None = None
    trials: int | None = None
    trial_seed: int | None = None
    trial_outcome: Outcome | None = None

    def lines(self) -> list[str]:
        """The report's lines, as the command line prints them and the pytest plugin asserts them."""
        if self.passed:
            worst = "-" if self.worst is None else f"{self.worst:.3g}"
            stats = f"; {self.statistics} statistical checks passed" if self.statistics else ""
            unjudged = [] if self.adapter is None or not self.adapter.not_judged else [
                f"     not judged: {self.adapter.not_judged}"]
            return [f"PASS {self.name:<28} {self.examples:>4} examples, worst error/tolerance {worst}{stats}"] + unjudged
        label = "minimal failing input" if self.shrunk else "failing input"
        detail = self.error or (self.outcome and self.outcome.note) or ""
        if self.outcome is not None and self.outcome.bound == 0 and math.isfinite(self.outcome.measured):
            detail = f"exact rule broken; {detail}"
        elif self.outcome is not None:
            detail = f"error/tolerance {self.outcome.ratio:.3g}; {detail}"
        if self.call is None or self.adapter is None:
            head = [f"FAIL {self.name:<28} {label}: {jsonable(self.minimal_input)}"]
        else:
            head = [f"FAIL {self.name:<28} {label}:", *self._arguments()]
        return head + [f"     {detail}"] + self._comparison() + [f"     | {line}" for line in self.output]

    def _arguments(self) -> list[str]:
        """``A = …, b = …`` of the failing call, then the drawn instance's fields not passed to the function."""
        names = argument_names(self.adapter.signature)
        args = self.call.args
        named = [(names[i] if i < len(names) else f"argument {i + 1}", v) for i, v in enumerate(args)]
        named += list(self.call.kwargs.items())
        shown = [f"{name} = 0…{self.trials - 1}" if self.trials and name == self.adapter.seeded
                 else f"{name} = {_show(value)}" for name, value in named]
        lines = ["       " + ", ".join(shown)]
        extra = _extras(self.minimal_input, [v for _, v in named])
        if extra:
            lines.append("       drawn with (search parameters, not passed to the function): "
                         + ", ".join(f"{_field(path, self.adapter.instance_fields)} = {_show(v)}" for path, v in extra))
        return lines

    def _comparison(self) -> list[str]:
        """Returned beside expected, and the tolerance with its rule's symbols."""
        if self.call is None or self.adapter is None:
            return []
        out = self.trial_outcome if self.trial_outcome is not None else self.outcome
        lines = []
        if self.trial_seed is not None:
            lines.append(f"     first failing trial: {self.adapter.seeded} = {self.trial_seed}")
        if self.call.raised and self.call.raised != self.error:  # not the head line again
            lines.append(f"     raised: {self.call.raised}")
        else:
            lines += _side_by_side(self.call.returned, getattr(out, "expected", None),
                                   None if out is None else out.bound)
        # a verdict without a comparison (measured ≤ bound) has no numbers to show; neither has an exact rule
        # (tolerance 0, the head line counts what is wrong) nor a rule judged as a ratio (tolerance 1, the head
        # line's error/tolerance is the whole comparison)
        if (out is not None and not self.call.raised and math.isfinite(out.bound) and out.measured > out.bound
                and self.outcome is not None and out.bound not in (0.0, 1.0)):
            symbols = getattr(out, "symbols", ())
            values = f" with {', '.join(f'{s} = {_number(v)}' for s, v in symbols)}" if symbols else ""
            lines.append(f"     error {out.measured:.3g}, tolerance {out.bound:.3g}{values}")
        lines.append(f"     tolerance rule: {self.adapter.tolerance}")
        return lines


def _field(path: str, names: tuple) -> str:
    """A leaf's path in the drawn instance (``[3]``, ``[5][0]``) under the adapter's field names (``rho``,
    ``form of H̃[0]``; a tuple of names names the fields of a nested tuple: ``[0][1]`` under
    ``(("kind", "n"), "M")`` is ``n``); the path itself when the adapter names none."""
    head = re.match(r"\[(\d+)\]", path)
    if head is None or int(head.group(1)) >= len(names):
        return f"instance{path}"
    name, rest = names[int(head.group(1))], path[head.end():]
    if isinstance(name, tuple):
        inner = re.match(r"\[(\d+)\]", rest)
        if inner is not None and int(inner.group(1)) < len(name):
            return name[int(inner.group(1))] + rest[inner.end():]
        return f"({', '.join(name)})" + rest
    return name + rest


def _number(v) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return f"{int(f)}" if f.is_integer() and abs(f) < 1e15 else f"{f:.6g}"


def _side_by_side(returned, expected, bound=None) -> list[str]:
    """``returned``/``expected`` lines: arrays in full when small, the worst entry with its index; a small
    array also side by side with the entries that break the rule marked (:func:`_marked`).  ``bound`` is the
    rule's tolerance: 0 for an exact rule (every differing entry is wrong; only the marked table is shown)."""
    if expected is None:
        return [f"     returned: {_small(returned)}"]
    got, want = np.asarray(returned, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if want.size == got.size and want.shape != got.shape:  # an oracle's matrix as a flat or column array
        want = want.reshape(got.shape)
    small = got.shape == want.shape and 1 <= got.ndim <= 2 and got.size and max(got.shape) <= SMALL
    if small and bound == 0:
        return _marked(got, want, got != want, "entries differ")
    lines = [f"     returned: {_small(got)}", f"     expected: {_small(want)}"]
    if got.shape == want.shape and got.ndim >= 1 and got.size:
        with np.errstate(invalid="ignore"):
            diff = np.abs(got - want)
        i = np.unravel_index(int(np.nanargmax(diff)) if np.isfinite(diff).any() else 0, diff.shape)
        if small and got.size > 1:
            wrong, what = ~(diff <= bound), "entries differ by more than the whole tolerance"
            if bound is None or not math.isfinite(bound) or bound == 1.0 or not wrong.any():
                wrong, what = np.zeros(got.shape, dtype=bool), "entry has the largest error"
                wrong[i] = True
            lines += _marked(got, want, wrong, what)
        where = ", ".join(map(str, i))
        lines.append(f"     worst entry [{where}]: returned {float(got[i])!r}, expected {float(want[i])!r} "
                     f"(|difference| {diff[i]:.3g})")
    return lines


def _marked(got: np.ndarray, want: np.ndarray, wrong: np.ndarray, what: str) -> list[str]:
    """A small returned and expected array side by side, row by row, the ``wrong`` entries marked with ``*``
    (a mask or a Hessian shows which entries are wrong at a glance); ``what`` says what a mark means."""
    rows_got, rows_want, differ = np.atleast_2d(got), np.atleast_2d(want), np.atleast_2d(wrong)

    size = max(len(f"{float(v):.6g}") for v in np.concatenate([rows_got.ravel(), rows_want.ravel()]))

    def cell(v, mark):
        return f"{float(v):.6g}".rjust(size) + ("*" if mark else " ")

    left = ["[" + "  ".join(cell(v, m) for v, m in zip(r, dm)) + "]" for r, dm in zip(rows_got, differ)]
    right = ["[" + "  ".join(cell(v, m) for v, m in zip(r, dm)) + "]" for r, dm in zip(rows_want, differ)]
    width = max(len(text) for text in left + ["returned"])
    lines = [f"     {'returned':<{width}}   expected   ({int(differ.sum())} of {got.size} {what}, marked *)"]
    lines += [f"     {a:<{width}}   {b}" for a, b in zip(left, right)]
    return lines


def _small(value) -> str:
    arr = np.asarray(value) if isinstance(value, (np.ndarray, list, tuple)) else None
    if arr is not None and arr.dtype.kind in "biuf" and (arr.ndim > 2 or any(s > SMALL for s in arr.shape)):
        return f"an array of shape {arr.shape} (not shown: more than {SMALL} rows or columns)"
    return _show(value)


def _leaves(value, path=""):
    """(path, leaf) of a drawn instance: tuples and lists opened, arrays, numbers, strings and dicts as leaves."""
    if isinstance(value, tuple) or (isinstance(value, list) and not all(isinstance(v, (int, float)) for v in value)):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path or "instance", value


def _equal(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return np.shape(a) == np.shape(b) and bool(np.array_equal(np.asarray(a), np.asarray(b)))
        except (TypeError, ValueError):
            return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # dicts of arrays, and what does not compare
        return False


def _extras(instance, arguments) -> list:
    """The leaves of the drawn instance that are not among the arguments (a search parameter the arguments
    were built from, or a quantity only the judge uses); None-valued leaves left out."""
    passed = [leaf for a in arguments for _, leaf in _leaves(a)]
    return [(path, v) for path, v in _leaves(instance)
            if v is not None and not any(_equal(v, p) for p in passed)]
