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

from . import engine, profiles
from .contract import Adapter, within
from .engine import FALSE_ALARM
from .errors import AdapterAbort, TimedOut
from .ledger import run_claim
from .ledgerfile import jsonable
from .registry import adapters, claims
from .toolkit import Outcome

__all__ = ["DEFAULT_TIMEOUT", "FunctionReport", "abandoned_calls", "applicable_claims", "check_function", "claim_verdicts",
           "declared_options",
           "find_adapters", "guard", "guarded_implementation", "import_module", "validate"]

DEFAULT_TIMEOUT = 60.0
"""Seconds one call of an implementation's function may take (generous: first calls JIT-compile)."""

_ABANDONED: list[threading.Thread] = []


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
            raise TimedOut(f"{name} did not return within the time limit of {timeout:g} s")
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
    """The verdict on one adapter function: ``passed``, the decided ``examples``, the ``worst``
    error/tolerance, and on failure the (``shrunk`` or not) ``minimal_input``, the ``outcome`` (None when
    the call crashed or was aborted) and the one-line ``error``; ``statistics`` counts the statistical
    checks passed (``Adapter.statistical``)."""

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

    def lines(self) -> list[str]:
        """The report's lines, as the command line prints them and the pytest plugin asserts them."""
        if self.passed:
            worst = "-" if self.worst is None else f"{self.worst:.3g}"
            stats = f"; {self.statistics} statistical checks passed" if self.statistics else ""
            return [f"PASS {self.name:<28} {self.examples:>4} examples, worst error/tolerance {worst}{stats}"]
        label = "minimal failing input" if self.shrunk else "failing input"
        detail = self.error or (self.outcome and self.outcome.note) or ""
        if self.outcome is not None:
            detail = f"error/tolerance {self.outcome.ratio:.3g}; {detail}"
        return [f"FAIL {self.name:<28} {label}: {jsonable(self.minimal_input)}", f"     {detail}"]


def _trials(ad: Adapter, inst, call, opts, profile: str) -> Outcome:
    """A probabilistic guarantee on one drawn instance (``ad.trials``): the trials with seeds 0 … k−1,
    judged by the engine's binomial rule (at most ``binomial_threshold(k, δ)`` failures; a guarantee
    holding with probability ≥ 1 − δ shows more only with probability ≤ FALSE_ALARM)."""
    rule = ad.trials
    delta = float(rule.delta(inst))
    rep = engine.trials(lambda s: ad.compare(rule.with_seed(inst, s), call, **opts), trials=rule.trials,
                        delta=delta, profile=profile)
    k, q = rep.examples, rep.threshold
    note = (f"{len(rep.failures)} of {k} seeded trials (seeds 0…{k - 1}) failed; a guarantee "
            f"holding with probability ≥ 1 − {delta:g} shows at most {q} except with probability {FALSE_ALARM:g}")
    if rep.failures:
        note += f"; seed {rep.failures[0][0]}: {rep.failures[0][1].note}"
    return within(len(rep.failures), q, note)


def check_function(ad: Adapter, fn, *, profile: str = "ci", seed: int = profiles.DEFAULT_SEED,
                   timeout: float = DEFAULT_TIMEOUT, options: dict | None = None) -> FunctionReport:
    """Search inputs of adapter ``ad`` and compare ``fn``'s output with the oracle (guarded calls),
    through the engine (:func:`properties.engine.search`): a failure is shrunk to a minimal input, then
    the adapter's corners are judged, then its statistical checks.

    ``options`` are the module's declared values of ``ad.options`` (e.g. ``SOLVE_TOLERANCE``);
    undeclared ones take their documented defaults.
    """
    call = guard(ad.name, fn, timeout)
    if ad.seeded is not None:
        call = _deterministic(ad.name, ad.seeded, call)
    opts = {key: (options or {}).get(key, default) for key, default in ad.options}
    if ad.trials is None:
        check = lambda inst: ad.compare(inst, call, **opts)  # noqa: E731
    else:
        check = lambda inst: _trials(ad, inst, call, opts, profile)  # noqa: E731
    rep = engine.search(ad.strategy(), check, profile=profile, seed=seed, max_examples=ad.max_examples,
                        shrink=ad.trials is None,  # each shrinking candidate would cost another k trials
                        label="error/tolerance", targets=ad.targets,
                        explicit=ad.corners() if ad.corners is not None else (), errors="fail")
    f = rep.failure
    if rep.problem:
        return FunctionReport(ad.name, False, rep.examples, rep.worst, None if f is None else f.instance,
                              None, rep.problem, shrunk=False)
    if f is None:
        return _statistical(ad, guard(ad.name, fn, timeout), FunctionReport(ad.name, True, rep.examples, rep.worst))
    return FunctionReport(ad.name, False, rep.examples, rep.worst, f.instance, f.outcome, f.note,
                          shrunk=f.shrunk, timed_out=f.timed_out)


def _statistical(ad: Adapter, call, rep: FunctionReport) -> FunctionReport:
    """``rep`` of a passed search, then judged by ``ad.statistical`` (each check once, in order): the first
    failing check, a crash or an aborted call makes it a FAIL naming the check."""
    for check in ad.statistical:
        what = {"statistical check": check.__name__.lstrip("_")}
        try:
            out = check(call)
        except AdapterAbort as exc:
            return FunctionReport(ad.name, False, rep.examples, rep.worst, what, None, str(exc), shrunk=False,
                                  timed_out=isinstance(exc, TimedOut))
        except Exception as exc:  # the implementation crashed or returned garbage on a fixed instance
            return FunctionReport(ad.name, False, rep.examples, rep.worst, what, None, f"{type(exc).__name__}: {exc}",
                                  shrunk=False)
        if not out.holds:
            return FunctionReport(ad.name, False, rep.examples, rep.worst, what, out, out.note, shrunk=False)
        rep.statistics += 1
    return rep


def claim_verdicts(result) -> list[tuple[bool, str]]:
    """``(ok, line)`` for a claim's ledger :class:`~properties.ledger.Result` on the module, then for each of
    its repairs (a claim false in general is also judged by its repaired statements): ok when the
    verdict is the recorded finding; a line that is not ok names the counterexample and the reason."""
    entries = [(result.id, result.as_dict())] + [(f"{result.id} (repair)", rep) for rep in result.repairs]
    out = []
    for name, e in entries:
        ok = e["verdict"] == e["expected"]
        cex = f"; counterexample {json.dumps(e['counterexample'])}" if not ok and e["counterexample"] is not None else ""
        out.append((ok, f"{'PASS' if ok else 'FAIL'} {name:<56} {e['verdict']} (recorded finding: {e['expected']}){cex}"
                        + (f" {e['reason']}" if not ok and e["reason"] else "")))
    return out


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
        for line in rep.lines():
            print(f"  {line}", file=stream)
        if not rep.passed:
            failed += 1
            if rep.timed_out:
                hung.add(name)
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
        verdicts = claim_verdicts(run_claim(c, profile=profile, impl=impl, seed=seed))
        failed += sum(not ok for ok, _ in verdicts)
        repaired += len(verdicts) - 1
        for _, line in verdicts:
            print(f"  {line}", file=stream)
    total = len(names) + len(applicable) + repaired
    print(f"{total - failed} passed, {failed} failed", file=stream)
    return 1 if failed else 0
