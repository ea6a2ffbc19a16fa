"""The validator of outside implementations (docs/development.md#one-contract).

An implementation is a module defining some of the adapter functions of the contract (numpy arrays
in, numpy arrays or floats out; names, signatures and tolerance rules are listed by
``python -m properties adapters`` and in README).  ``validate(module)`` searches inputs with
Hypothesis for each function it defines, compares the output with the oracle, shrinks any failure
to a minimal input, and then runs every registered claim whose ``uses`` it defines, on the module's
own functions.  ``solvers`` ships ``solvers.adapter`` and is validated through this same path.

The module under judgement runs in a process of its own (:class:`properties.isolation.Worker`): it is
imported and called only there, arguments and results cross as plain arrays, and the oracle, the
search and the verdict stay here, so nothing it does can change the verdict or the exit code:

- importing it is guarded: any failure (ImportError, SyntaxError, any exception, ``SystemExit`` or
  ``os._exit`` at import, an empty or relative name) is one line on stderr and exit code 2;
- every call has a time limit (``timeout``, default :data:`DEFAULT_TIMEOUT` seconds), its result's
  conversion included: a call past it is a FAIL naming the function, the module's process is killed
  and started again for the next function;
- a call that ends the process (any exit code), raises a ``BaseException``, returns what does not
  convert to plain arrays, or leaves non-daemon threads running is a FAIL with a one-line reason;
- a randomised function (the contract's ``Adapter.seeded`` names its seed argument) is called a
  second time with the same arguments, seed included, on every example: a different output is a FAIL;
- what the module prints is captured, cleaned of control characters and shown, truncated, under the
  FAIL line it belongs to.
"""

from __future__ import annotations

import copy
import json
import math
import re
import sys
from collections import Counter

import numpy as np

from . import engine, profiles
from .contract import Adapter, within
from .engine import FALSE_ALARM
from .errors import AdapterAbort, HypothesisUnmet, TimedOut, UndecidableError, UnusableModule
from .failure_report import CallLog, FunctionReport
from .isolation import MAX_TIMEOUT, Worker, changed_files, fingerprint
from .ledger import run_claim
from .own_imports import module_directory
from .registry import adapters, claims, papers, select
from .toolkit import Outcome

__all__ = ["DEFAULT_TIMEOUT", "FunctionReport", "applicable_claims", "check_function", "check_timeout",
           "claim_verdicts", "claims_need", "declared_options", "open_module", "validate"]

DEFAULT_TIMEOUT = 60.0
"""Seconds one call of an implementation's function may take (generous: first calls JIT-compile)."""

def check_timeout(timeout) -> None:
    """``timeout`` must be a positive number of seconds of at most
    :data:`~properties.isolation.MAX_TIMEOUT` (ValueError naming it otherwise)."""
    if isinstance(timeout, bool) or not (isinstance(timeout, (int, float)) and 0 < timeout <= MAX_TIMEOUT):
        raise ValueError(f"timeout={timeout!r} must be a positive number of seconds, at most {MAX_TIMEOUT:g} "
                         f"(one day)")


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


def _trials(ad: Adapter, inst, call: CallLog, opts, profile: str) -> Outcome:
    """A probabilistic guarantee on one drawn instance (``ad.trials``): the trials with seeds 0 … k−1,
    judged by the engine's binomial rule (at most ``binomial_threshold(k, δ)`` failures; a guarantee
    holding with probability ≥ 1 − δ shows more only with probability ≤ FALSE_ALARM).

    An ``Exception`` in one trial (the module raised on that seed, e.g. ``LinAlgError`` when a sketch
    collision makes SA singular, or returned what the contract refuses) is that trial failed, not the
    verdict: only more failures than the threshold FAIL, and the note then says how
    many trials raised and what.  An :class:`~properties.errors.AdapterAbort` (the module's process
    ended, hung, was not deterministic) is no trial: it propagates and FAILs the function, as in a search.
    """
    rule = ad.trials
    delta = float(rule.delta(inst))
    raised: list[tuple[int, str]] = []

    def trial(s: int) -> Outcome:
        start = len(call.calls)
        try:
            out = ad.compare(rule.with_seed(inst, s), call, **opts)
        except (HypothesisUnmet, UndecidableError):
            raise
        except Exception as exc:  # noqa: BLE001  (whatever the module raised on this seed: one failed trial)
            raised.append((s, _raised(exc)))
            out = Outcome(False, math.inf, math.nan, math.nan, None, f"raised {raised[-1][1]}")
        if not out.holds:
            call.trial_failed(s, start, out)
        return out

    rep = engine.trials(trial, trials=rule.trials, delta=delta, profile=profile)
    k, q = rep.examples, rep.threshold
    note = (f"{len(rep.failures)} of {k} seeded trials (seeds 0…{k - 1}) failed; a guarantee "
            f"holding with probability ≥ 1 − {delta:g} shows at most {q} except with probability {FALSE_ALARM:g}")
    if raised:
        kinds = Counter(text for _, text in raised)
        note += (f"; {len(raised)} of them raised: "
                 + ", ".join(f"{text} ({_seeds([s for s, t in raised if t == text], k)})" for text in kinds))
    judged = [(s, out) for s, out in rep.failures if s not in dict(raised)]
    if judged:
        note += f"; seed {judged[0][0]}: {judged[0][1].note}"
    return within(len(rep.failures), q, note)


def _raised(exc: Exception) -> str:
    """``Type: message`` of what a trial raised; an exception re-raised across the process boundary as its
    builtin base (:mod:`properties.isolation`: numpy's ``LinAlgError`` arrives as ``ValueError``) keeps
    the module's own class name, which its message starts with."""
    text = str(exc)
    return text if re.match(r"[A-Z]\w*(Error|Exception): ", text) else f"{type(exc).__name__}: {text}"


def _seeds(seeds: list[int], k: int, most: int = 8) -> str:
    """Which of the ``k`` trials' seeds: ``seeds 3, 17, 22``, ``seeds 3, 17, … (12 in all)`` or ``every seed``."""
    if len(seeds) == k:
        return "every seed"
    shown = ", ".join(map(str, seeds[:most]))
    return f"seed{'s' if len(seeds) > 1 else ''} {shown}" + (f", … ({len(seeds)} in all)" if len(seeds) > most else "")


def check_function(ad: Adapter, fn, *, profile: str = "ci", seed: int = profiles.DEFAULT_SEED,
                   options: dict | None = None) -> FunctionReport:
    """Search inputs of adapter ``ad`` and compare ``fn``'s output with the oracle through the engine
    (:func:`properties.engine.search`): a failure is shrunk to a minimal input, then the adapter's
    corners are judged, then its statistical checks.

    ``fn`` is called here: :func:`validate` and the pytest plugin pass :meth:`Worker.function
    <properties.isolation.Worker.function>`, a call in the module's own process with a time limit; a
    trusted function (the project's tests) may be passed as it is.

    ``options`` are the module's declared values of ``ad.options`` (e.g. ``SOLVE_TOLERANCE``);
    undeclared ones take their documented defaults.
    """
    call = CallLog(fn if ad.seeded is None else _deterministic(ad.name, ad.seeded, fn))
    opts = {key: (options or {}).get(key, default) for key, default in ad.options}
    if ad.trials is None:
        check = call.judged(lambda inst: ad.compare(inst, call, **opts))
    else:
        check = call.judged(lambda inst: _trials(ad, inst, call, opts, profile))
    rep = engine.search(ad.strategy(), check, profile=profile, seed=seed, max_examples=ad.max_examples,
                        shrink=ad.trials is None,  # each shrinking candidate would cost another k trials
                        label="error/tolerance", targets=ad.targets,
                        explicit=ad.fixed_corners(), errors="fail")
    f = rep.failure
    if rep.problem:
        return FunctionReport(ad.name, False, rep.examples, rep.worst, None if f is None else f.instance,
                              None, rep.problem, shrunk=False)
    if f is None:
        return _statistical(ad, fn, FunctionReport(ad.name, True, rep.examples, rep.worst, adapter=ad))
    report = FunctionReport(ad.name, False, rep.examples, rep.worst, f.instance, f.outcome, f.note,
                            shrunk=f.shrunk, timed_out=f.timed_out, adapter=ad)
    if call.kept is not None and call.kept[0] is f.instance and call.kept[1] and not f.aborted:
        _, calls, report.trial_seed, report.trial_outcome = call.kept
        report.call = calls[-1]
        report.trials = None if ad.trials is None else engine.trial_count(ad.trials.trials, profile)
    return report


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
    its repairs (a claim false in general is also judged by its repaired statements) and its alternative
    readings: ok when the verdict is the recorded finding; a line that is not ok names the counterexample
    and the reason."""
    entries = ([(result.id, result.as_dict())] + [(f"{result.id} (repair)", rep) for rep in result.repairs]
               + [(f"{result.id} (reading {r['reading']})", r) for r in result.readings])
    out = []
    for name, e in entries:
        ok = e["verdict"] == e["expected"]
        cex = f"; counterexample {json.dumps(e['counterexample'])}" if not ok and e["counterexample"] is not None else ""
        out.append((ok, f"{'PASS' if ok else 'FAIL'} {name:<56} {e['verdict']} (recorded finding: {e['expected']}){cex}"
                        + (f" {e['reason']}" if not ok and e["reason"] else "")))
    return out


def declared_options(worker: Worker, ad: Adapter) -> dict:
    """The module's own values of the adapter's options (e.g. ``SOLVE_TOLERANCE``); the others take defaults."""
    return {key: worker.options[key] for key, _ in ad.options if key in worker.options}


def claims_need(names) -> list[str]:
    """The adapter functions that claims need beyond ``names``, those most claims need first: the functions the
    claims using any of ``names`` also use, or, when no claim uses any of them, those the claims of their
    papers use (every claim's, when none of the functions belongs to a paper): the CLI's "0 claims apply"."""
    using = [c for c in claims() if c.uses]
    near = [c for c in using if set(c.uses) & set(names)]
    if not near:
        own = {p.name for p in papers() for s in p.adapters for ad in s if ad.name in set(names)}
        near = [c for c in using if c.paper in own] or using
    counts = Counter(u for c in near for u in c.uses if u not in set(names))
    return sorted(counts, key=lambda u: (-counts[u], u))


def applicable_claims(names) -> list:
    """The registered claims whose ``uses`` are all among the adapter functions ``names``."""
    return [c for c in claims() if c.uses and set(c.uses) <= set(names)]


def open_module(module_name, *, timeout: float = DEFAULT_TIMEOUT, memory: int | None = None) -> Worker:
    """The module under judgement imported in its own process (a started :class:`~properties.isolation.Worker`
    whose ``functions`` are the adapter functions it defines).

    Raises :class:`~properties.errors.UnusableModule` with one line when the name is not an absolute
    dotted name, when importing fails in any way (an exception, ``SystemExit``, an exit of the process,
    no answer) and when the module defines none of the adapter functions.
    """
    check_timeout(timeout)
    if not isinstance(module_name, str) or not module_name.strip() or module_name.startswith("."):
        raise UnusableModule(f"error: module name {module_name!r} must be an absolute dotted name, e.g. mypkg.impl")
    if module_name.endswith(".py"):
        dotted = module_name[:-3].replace("/", ".").replace("\\", ".").strip(".")
        raise UnusableModule(f"error: {module_name!r} is a file name; name the module without '.py': "
                             f"python -m properties validate {dotted}")
    worker = Worker(module_name, timeout=timeout, memory=memory)
    worker.start(list(adapters()), sorted({key for ad in adapters().values() for key, _ in ad.options}))
    if not worker.functions:
        worker.close()
        raise UnusableModule(f"error: module {module_name!r} defines none of the adapter functions "
                             f"(list them with: python -m properties adapters)")
    return worker


def validate(module_name: str, *, profile: str = "ci", seed: int = profiles.DEFAULT_SEED,
             timeout: float = DEFAULT_TIMEOUT, functions=None, include_claims: bool = True, stream=None,
             scheduler: str | None = None, memory: int | None = None) -> int:
    """Validate ``module_name``; print a report; return the exit code (0 pass, 1 fail, 2 usage).

    ``functions`` restricts the adapter checks to those names (default: every adapter function the
    module defines); ``include_claims=False`` skips the claims that use them.  ``timeout`` is the
    limit of each call in seconds, ``memory`` of the module's address space in bytes (default: this
    machine's memory).  ``scheduler``, the address of a dask.distributed scheduler, runs
    the function checks, then the claims, as tasks on its workers (each opens the module in a process
    of its own there; :mod:`properties.distributed`): the same report, printed in the same order.
    """
    stream = sys.stdout if stream is None else stream
    profiles.load(profile)
    directory = module_directory()
    before = fingerprint(directory)

    def files_changed() -> list[str]:
        changed = changed_files(before, fingerprint(directory))
        return [f"FAIL files of {directory}: changed while the module ran: {', '.join(changed)}"] if changed else []

    try:
        worker = open_module(module_name, timeout=timeout, memory=memory)
    except UnusableModule as exc:
        print(exc, file=sys.stderr)
        return 2
    try:
        if scheduler is None:
            return _validate(worker, profile, seed, functions, include_claims, stream, _Here(worker), files_changed)
        from . import distributed

        with distributed.connect(scheduler) as client:
            cluster = _OnCluster(client, worker)
            try:
                return _validate(worker, profile, seed, functions, include_claims, stream, cluster, files_changed)
            finally:
                cluster.close()
    except (ValueError, ConnectionError, RuntimeError) as exc:  # an unusable scheduler, a task failed on every try
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        worker.close()


def _function_verdict(worker: Worker, name: str, profile: str, seed: int) -> tuple[bool, bool, list[str]]:
    """Adapter function ``name`` of the module in ``worker`` checked (:func:`check_function`): whether it
    passed, whether a call ran past the time limit, and its report lines."""
    ad = adapters()[name]
    worker.capture()
    rep = check_function(ad, worker.function(name), profile=profile, seed=seed, options=declared_options(worker, ad))
    rep.output = [] if rep.passed else worker.captured()
    return rep.passed, rep.timed_out, rep.lines()


def _claim_report(worker: Worker, names: list[str], claim_id: str, profile: str, seed: int):
    """Claim ``claim_id`` (and its repairs) judged on the module's functions ``names``: its
    :func:`claim_verdicts` and, when one is not the recorded finding, what the module printed meanwhile."""
    (claim,) = [c for c in select([claim_id]) if c.id == claim_id]
    worker.capture()
    verdicts = claim_verdicts(run_claim(claim, profile=profile, impl=worker.implementation(names), seed=seed))
    return verdicts, [] if all(ok for ok, _ in verdicts) else worker.captured()


class _Here:
    """Checks run one after the other on the module's process here."""

    def __init__(self, worker: Worker):
        self.worker = worker

    def functions(self, names, profile, seed):
        for name in names:
            yield _function_verdict(self.worker, name, profile, seed)

    def claims(self, names, claim_ids, profile, seed):
        for cid in claim_ids:
            yield _claim_report(self.worker, names, cid, profile, seed)


_OPENED: dict = {}


def _opened(module_name: str, timeout: float) -> Worker:
    """The module under judgement opened once per dask worker process (closed by :func:`_close_opened`)."""
    if (module_name, timeout) not in _OPENED:
        _OPENED[module_name, timeout] = open_module(module_name, timeout=timeout)
    return _OPENED[module_name, timeout]


def _close_opened() -> None:
    while _OPENED:
        _OPENED.popitem()[1].close()


def _function_task(module_name, timeout, name, profile, seed):
    return name, _function_verdict(_opened(module_name, timeout), name, profile, seed)


def _claim_task(module_name, timeout, names, claim_id, profile, seed):
    return claim_id, _claim_report(_opened(module_name, timeout), names, claim_id, profile, seed)


class _OnCluster:
    """The same checks as tasks on a dask cluster (each a pure function of module, time limit, function or
    claim, profile and seed), returned in the order asked."""

    def __init__(self, client, worker: Worker):
        self.client, self.module_name, self.timeout = client, worker.module_name, worker.timeout

    def _run(self, what: str, fn, items, profile, seed, *shared):
        from .distributed import Task, run_tasks

        results = {}
        run_tasks(self.client, [Task(f"validate {self.module_name} {self.timeout:g} {what} {item} {profile} seed {seed}",
                                     fn, (self.module_name, self.timeout, *shared, item, profile, seed))
                                for item in items], lambda pair: results.__setitem__(*pair))
        return [results[item] for item in items]

    def functions(self, names, profile, seed):
        return self._run("function", _function_task, names, profile, seed)

    def claims(self, names, claim_ids, profile, seed):
        return self._run("claim", _claim_task, claim_ids, profile, seed, names)

    def close(self) -> None:
        """Close the module's processes the tasks opened on the workers."""
        self.client.run(_close_opened)


def _validate(worker: Worker, profile, seed, functions, include_claims, stream, run, files_changed) -> int:
    module_name, names = worker.module_name, worker.functions
    if functions is not None:
        missing = sorted(set(functions) - set(names))
        if missing:
            print(f"error: module {module_name!r} does not define adapter functions {missing}", file=sys.stderr)
            return 2
        names = [n for n in names if n in set(functions)]
    print(f"validating {module_name}: {len(names)} adapter functions ({', '.join(names)})", file=stream)
    failed, hung, repaired = 0, set(), 0
    verdicts = iter(run.functions(names, profile, seed))
    for i, name in enumerate(names, 1):
        print(f"[{i}/{len(names)}] {name} …", file=sys.stderr, flush=True)  # progress, as the ledger's
        passed, timed_out, lines = next(verdicts)
        for line in lines:
            print(f"  {line}", file=stream)
        if not passed:
            failed += 1
            if timed_out:
                hung.add(name)
    applicable = applicable_claims(names) if include_claims else []
    if applicable:
        print(f"claims that use these functions ({len(applicable)}):", file=stream)
    elif include_claims:
        need = claims_need(names)
        shown = ", ".join(need[:4]) + (f" and {len(need) - 4} more" if len(need) > 4 else "")
        if any(set(c.uses) & set(names) for c in claims()):
            print(f"0 claims apply: the claims that use these functions also need {shown}", file=stream)
        else:
            print(f"0 claims apply: no claim uses these functions; the claims near them use {shown}", file=stream)
    reports = iter(run.claims(names, [c.id for c in applicable if not hung & set(c.uses)], profile, seed))
    for c in applicable:
        if hung & set(c.uses):
            failed += 1
            print(f"  FAIL {c.id:<56} not run: {', '.join(sorted(hung & set(c.uses)))} ran past the time limit",
                  file=stream)
            continue
        verdicts, output = next(reports)
        failed += sum(not ok for ok, _ in verdicts)
        repaired += len(verdicts) - 1
        for _, line in verdicts:
            print(f"  {line}", file=stream)
        for line in output:
            print(f"       | {line}", file=stream)
    total = len(names) + len(applicable) + repaired
    for line in files_changed():  # the module's process wrote beside it: a FAIL whatever the verdicts
        total, failed = total + 1, failed + 1
        print(f"  {line}", file=stream)
    print(f"{total - failed} passed, {failed} failed", file=stream)
    return 1 if failed else 0
