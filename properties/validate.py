"""The validator of outside implementations (DESIGN principle 7).

An implementation is a module defining some of the adapter functions of the contract (numpy arrays
in, numpy arrays or floats out; names, signatures and tolerance rules are listed by
``python -m properties adapters`` and in README).  ``validate(module)`` searches inputs with
Hypothesis for each function it defines, compares the output with the oracle, shrinks any failure
to a minimal input, and then runs every registered claim whose ``uses`` it defines, on the module's
own functions.  ``solvers`` ships ``solvers.adapter`` and is validated through this same path.

The validator cannot be fooled by the module under judgement:

- importing it is guarded: any failure (ImportError, SyntaxError, any exception, ``SystemExit`` at
  import, an empty or relative name) is one line on stderr and exit code 2;
- every call of one of its functions runs in a worker thread with a time limit (``timeout``,
  default :data:`DEFAULT_TIMEOUT` seconds): a call past it is a FAIL naming the function and the
  search stops (a hung thread is abandoned; :func:`abandoned_calls` counts them so the command line
  can exit without waiting for them);
- a ``BaseException`` raised by the function (``SystemExit``, a ``KeyboardInterrupt`` raised in its
  worker thread, which a Ctrl-C never is) is a FAIL naming the function, never an exit;
- a randomised function (the contract's ``Adapter.seeded`` names its seed argument) is called a
  second time with the same arguments, seed included, on every example: a different output is a FAIL.
"""

from __future__ import annotations

import copy
import importlib
import json
import math
import sys
import threading
import types
from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings, target

from oracle import UndecidableError

from . import profiles
from .contract import Adapter, AdapterAbort, within
from .ledger import FALSE_ALARM, binomial_threshold, run_claim
from .ledgerfile import jsonable
from .registry import adapters, claims
from .toolkit import Outcome

__all__ = ["DEFAULT_TIMEOUT", "FunctionReport", "abandoned_calls", "applicable_claims", "check_function", "declared_options",
           "find_adapters", "guard", "guarded_implementation", "import_module", "validate"]

DEFAULT_TIMEOUT = 60.0
"""Seconds one call of an implementation's function may take (generous: first calls JIT-compile)."""

_ABANDONED: list[threading.Thread] = []


class _TimedOut(AdapterAbort):
    """The call ran past its time limit."""


def _check_timeout(timeout) -> None:
    if isinstance(timeout, bool) or not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise ValueError(f"timeout={timeout!r} must be a positive number of seconds")


def abandoned_calls() -> int:
    """How many calls ran past their time limit and are still running in their (daemon) threads."""
    return sum(t.is_alive() for t in _ABANDONED)


def guard(name: str, fn, timeout: float = DEFAULT_TIMEOUT):
    """``fn`` called in a daemon worker thread with a time limit of ``timeout`` seconds.

    Returns its value, re-raises its ``Exception``, and raises :class:`~properties.contract.AdapterAbort`
    naming ``name`` when the call runs past the limit or raises any other ``BaseException``.
    """
    _check_timeout(timeout)

    def call(*args, **kwargs):
        box = {}

        def work():
            try:
                box["value"] = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001  (judged below; a thread never exits the process)
                box["error"] = exc

        worker = threading.Thread(target=work, name=f"validate {name}", daemon=True)
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            _ABANDONED.append(worker)
            raise _TimedOut(f"{name} did not return within the time limit of {timeout:g} s")
        if "error" in box:
            exc = box["error"]
            if isinstance(exc, Exception):
                raise exc
            raise AdapterAbort(f"{name} raised {type(exc).__name__}({', '.join(map(repr, exc.args))})")
        return box["value"]

    call.__name__ = name
    return call


def _same(a, b) -> bool:
    """Bit-for-bit equal outputs (arrays, numbers, tuples, lists and dicts of them)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b)) and all(_same(x, y) for x, y in zip(a, b))
    try:
        x, y = np.asarray(a), np.asarray(b)
    except Exception:  # noqa: BLE001  (not an array: plain equality)
        return bool(a == b)
    if x.dtype.kind in "biufc" and y.dtype.kind in "biufc":
        return x.shape == y.shape and x.dtype == y.dtype and bool(np.array_equal(x, y, equal_nan=True))
    return bool(np.all(x == y)) if x.shape == y.shape else False


def _deterministic(name: str, seed_arg: str, fn):
    """``fn`` checked for determinism: every call is repeated with copies of the same arguments
    (the seed ``seed_arg`` included) and must give the same output."""

    def call(*args, **kwargs):
        again = copy.deepcopy((args, kwargs))
        out = fn(*args, **kwargs)
        if not _same(out, fn(*again[0], **again[1])):
            raise AdapterAbort(f"{name} is not deterministic: two calls with the same arguments (the same "
                               f"{seed_arg}) gave different outputs")
        return out

    return call


def find_adapters(module) -> list[str]:
    """Names of the contract's adapter functions that ``module`` defines."""
    return [name for name in adapters() if callable(getattr(module, name, None))]


@dataclass
class FunctionReport:
    name: str
    passed: bool
    examples: int
    worst: float | None
    minimal_input: object = None
    outcome: Outcome | None = None
    error: str = ""
    shrunk: bool = True
    timed_out: bool = False
    statistics: int = 0  # statistical checks passed (Adapter.statistical)


class _Stop(BaseException):
    """Ends a search at once (no shrinking): the call was aborted."""


def _finite(x: float) -> float:
    return 1e300 if math.isnan(x) else max(-1e300, min(1e300, float(x)))


def _trials(ad: Adapter, inst, call, opts) -> Outcome:
    """A probabilistic guarantee on one drawn instance (``ad.trials``): the trials with seeds 0 … k−1,
    judged by the ledger's binomial rule (at most ``binomial_threshold(k, δ)`` failures; a guarantee
    holding with probability ≥ 1 − δ shows more only with probability ≤ FALSE_ALARM)."""
    rule = ad.trials
    delta = float(rule.delta(inst))
    q = binomial_threshold(rule.trials, delta)
    failures = []
    for s in range(rule.trials):
        out = ad.compare(rule.with_seed(inst, s), call, **opts)
        if not out.holds:
            failures.append((s, out))
    note = (f"{len(failures)} of {rule.trials} seeded trials (seeds 0…{rule.trials - 1}) failed; a guarantee "
            f"holding with probability ≥ 1 − {delta:g} shows at most {q} except with probability {FALSE_ALARM:g}")
    if failures:
        note += f"; seed {failures[0][0]}: {failures[0][1].note}"
    return within(len(failures), q, note)


def check_function(ad: Adapter, fn, *, profile: str = "ci", seed: int = profiles.DEFAULT_SEED,
                   timeout: float = DEFAULT_TIMEOUT, options: dict | None = None) -> FunctionReport:
    """Search inputs of adapter ``ad`` and compare ``fn``'s output with the oracle (guarded calls).

    ``options`` are the module's declared values of ``ad.options`` (e.g. ``SOLVE_TOLERANCE``);
    undeclared ones take their documented defaults.
    """
    state = {"n": 0, "worst": None, "fail": None, "timed_out": False, "corner": False}
    call = guard(ad.name, fn, timeout)
    if ad.seeded is not None:
        call = _deterministic(ad.name, ad.seeded, call)
    opts = {key: (options or {}).get(key, default) for key, default in ad.options}

    class _Fail(Exception):
        pass

    def prop(inst):
        try:
            out = ad.compare(inst, call, **opts) if ad.trials is None else _trials(ad, inst, call, opts)
        except UndecidableError:
            return
        except AdapterAbort as exc:
            state["fail"] = (inst, None, str(exc))
            state["timed_out"] = isinstance(exc, _TimedOut)
            raise _Stop() from None
        except Exception as exc:  # the implementation crashed or returned garbage on valid input
            state["fail"] = (inst, None, f"{type(exc).__name__}: {exc}")
            raise _Fail() from exc
        state["n"] += 1
        state["worst"] = out.ratio if state["worst"] is None else max(state["worst"], out.ratio)
        if not state["corner"]:
            target(_finite(out.ratio), label="error/tolerance")
            for label, value in (ad.targets(inst) if ad.targets is not None else {}).items():
                target(_finite(value), label=label)
        if not out.holds:
            state["fail"] = (inst, out, out.note)
            if ad.trials is not None:  # not shrunk: each candidate would cost another k trials
                raise _Stop()
            raise _Fail()

    n = profiles.examples_for(profile, ad.max_examples)
    test = profiles.seeded(settings(profiles.load(profile), max_examples=n)(given(ad.strategy())(prop)), seed)
    stopped = False
    try:
        test()  # a failure the search finds is shrunk to a minimal input
        state["corner"] = True
        for inst in ad.corners() if ad.corners is not None else []:  # then the corners it may not reach
            prop(inst)
    except _Fail:
        pass
    except _Stop:
        stopped = True
    if state["fail"] is None:
        return _statistical(ad, guard(ad.name, fn, timeout), FunctionReport(ad.name, True, state["n"], state["worst"]))
    inst, out, note = state["fail"]
    return FunctionReport(ad.name, False, state["n"], state["worst"], inst, out, note,
                          shrunk=not (stopped or state["corner"]), timed_out=state["timed_out"])


def _statistical(ad: Adapter, call, rep: FunctionReport) -> FunctionReport:
    """``rep`` of a passed search, then judged by ``ad.statistical`` (each check once, in order): the first
    failing check, a crash or an aborted call makes it a FAIL naming the check."""
    for check in ad.statistical:
        what = {"statistical check": check.__name__.lstrip("_")}
        try:
            out = check(call)
        except AdapterAbort as exc:
            return FunctionReport(ad.name, False, rep.examples, rep.worst, what, None, str(exc), shrunk=False,
                                  timed_out=isinstance(exc, _TimedOut))
        except Exception as exc:  # the implementation crashed or returned garbage on a fixed instance
            return FunctionReport(ad.name, False, rep.examples, rep.worst, what, None, f"{type(exc).__name__}: {exc}",
                                  shrunk=False)
        if not out.holds:
            return FunctionReport(ad.name, False, rep.examples, rep.worst, what, out, out.note, shrunk=False)
        rep.statistics += 1
    return rep


def declared_options(module, ad: Adapter) -> dict:
    """The module's own values of the adapter's options (e.g. ``SOLVE_TOLERANCE``); the others take defaults."""
    return {key: getattr(module, key) for key, _ in ad.options if hasattr(module, key)}


def applicable_claims(names) -> list:
    """The registered claims whose ``uses`` are all among the adapter functions ``names``."""
    return [c for c in claims() if c.uses and set(c.uses) <= set(names)]


def guarded_implementation(module_name: str, module, names, timeout: float = DEFAULT_TIMEOUT):
    """The implementation a claim is run on: the functions ``names`` of ``module``, each under :func:`guard`."""
    return types.SimpleNamespace(__name__=module_name, **{n: guard(n, getattr(module, n), timeout) for n in names})


def import_module(module_name):
    """Import the module under judgement; ``(module, None)`` or ``(None, one-line error)``.

    Any failure counts (a bad name, ImportError, SyntaxError, an exception or ``SystemExit`` raised
    while importing); only a ``KeyboardInterrupt`` (a Ctrl-C of the user) propagates.
    """
    if not isinstance(module_name, str) or not module_name.strip() or module_name.startswith("."):
        return None, f"error: module name {module_name!r} must be an absolute dotted name, e.g. mypkg.impl"
    try:
        return importlib.import_module(module_name), None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001  (whatever importing the module raised, it is one line)
        detail = " ".join(str(exc).split()) or "(no message)"
        return None, f"error: cannot import module {module_name!r}: {type(exc).__name__}: {detail}"


def validate(module_name: str, *, profile: str = "ci", seed: int = profiles.DEFAULT_SEED,
             timeout: float = DEFAULT_TIMEOUT, functions=None, include_claims: bool = True, stream=None) -> int:
    """Validate ``module_name``; print a report; return the exit code (0 pass, 1 fail, 2 usage).

    ``functions`` restricts the adapter checks to those names (default: every adapter function the
    module defines); ``include_claims=False`` skips the claims that use them.  ``timeout`` is the
    limit of each call in seconds.
    """
    stream = sys.stdout if stream is None else stream
    profiles.load(profile)
    _check_timeout(timeout)
    module, error = import_module(module_name)
    if error:
        print(error, file=sys.stderr)
        return 2
    names = find_adapters(module)
    if functions is not None:
        missing = sorted(set(functions) - set(names))
        if missing:
            print(f"error: module {module_name!r} does not define adapter functions {missing}", file=sys.stderr)
            return 2
        names = [n for n in names if n in set(functions)]
    if not names:
        print(f"error: module {module_name!r} defines none of the adapter functions "
              f"(list them with: python -m properties adapters)", file=sys.stderr)
        return 2
    print(f"validating {module_name}: {len(names)} adapter functions ({', '.join(names)})", file=stream)
    failed, hung, repaired = 0, set(), 0
    for name in names:
        ad = adapters()[name]
        rep = check_function(ad, getattr(module, name), profile=profile, seed=seed, timeout=timeout,
                             options=declared_options(module, ad))
        if rep.passed:
            worst = "-" if rep.worst is None else f"{rep.worst:.3g}"
            stats = f"; {rep.statistics} statistical checks passed" if rep.statistics else ""
            print(f"  PASS {name:<28} {rep.examples:>4} examples, worst error/tolerance {worst}{stats}", file=stream)
            continue
        failed += 1
        if rep.timed_out:
            hung.add(name)
        label = "minimal failing input" if rep.shrunk else "failing input"
        print(f"  FAIL {name:<28} {label}: {jsonable(rep.minimal_input)}", file=stream)
        detail = rep.error or (rep.outcome and rep.outcome.note) or ""
        if rep.outcome is not None:
            detail = f"error/tolerance {rep.outcome.ratio:.3g}; {detail}"
        print(f"       {detail}", file=stream)
    applicable = applicable_claims(names) if include_claims else []
    if applicable:
        print(f"claims that use these functions ({len(applicable)}):", file=stream)
    impl = guarded_implementation(module_name, module, names, timeout)
    for c in applicable:
        if hung & set(c.uses):
            failed += 1
            print(f"  FAIL {c.id:<56} not run: {', '.join(sorted(hung & set(c.uses)))} ran past the time limit",
                  file=stream)
            continue
        r = run_claim(c, profile=profile, impl=impl, seed=seed)
        ok = r.verdict == c.expected
        failed += not ok
        cex = f"; counterexample {jsonable(r.counterexample)}" if (r.counterexample is not None and not ok) else ""
        print(f"  {'PASS' if ok else 'FAIL'} {c.id:<56} {r.verdict} (recorded finding: {c.expected}){cex}"
              + (f" {r.reason}" if not ok and r.reason else ""), file=stream)
        for rep in r.repairs:  # a claim false in general is also judged by its repaired statements
            rok = rep["verdict"] == rep["expected"]
            failed += not rok
            repaired += 1
            rcex = f"; counterexample {json.dumps(rep['counterexample'])}" if not rok and rep["counterexample"] else ""
            print(f"  {'PASS' if rok else 'FAIL'} {c.id + ' (repair)':<56} {rep['verdict']} (recorded finding: "
                  f"{rep['expected']}){rcex}" + (f" {rep['reason']}" if not rok and rep["reason"] else ""), file=stream)
    total = len(names) + len(applicable) + repaired
    print(f"{total - failed} passed, {failed} failed", file=stream)
    return 1 if failed else 0
