"""The ledger runner: judge each registered claim and report its verdict (docs/development.md#verdicts).

- search claims: Hypothesis searches instances meeting the hypotheses, ``target()`` pushing the
  ratio measured/bound up; a failure is shrunk by Hypothesis and the minimal counterexample is
  re-checked with the precision doubled.  Then the claim's explicit examples (if any) run; a
  counterexample found only there is reported with ``counterexample_source="explicit"``.  Every
  search is derandomised with the run's seed (``--seed``, :func:`properties.profiles.seeded`).
- statistical claims: ``k`` seeded trials; the claim is verified when the number of failures F is at
  most q(k, δ), the upper ``FALSE_ALARM`` quantile of Binomial(k, δ), so a true claim is reported
  falsified with probability at most ``FALSE_ALARM`` (here, deterministically given the seeds).
- single claims: the check runs once (running-time sweeps, fixed constructions).
- not-applicable claims: reported with their reason.
- repairs (``Claim.repairs``): each is judged the same way in the same run, its entry under the
  claim's ``repairs``.
- alternative readings (``Claim.readings``): each is judged the same way in the same run, its entry
  under the claim's ``readings``; the entry and each reading record what the verdict is about
  (``reading``, ``provenance``, ``source``, ``basis``, ``basis_note``, ``conventions``) and the
  ``strength`` of a falsification (:mod:`properties.toolkit.provenance`).
- ``shrink=False`` (the test suite's setting, :func:`run_claim`): a search stops at its first
  counterexample and re-checks it at doubled precision as found, unshrunk.  The same search finds
  the same first counterexample either way (shrinking starts after it); a shrinking run re-checks
  the smaller example shrinking ends on instead.  The ledger, which reports counterexamples,
  always shrinks.

:func:`run_ledger` runs a selection of claims, serially or in ``jobs`` worker processes (each
worker imports the registry and judges claims by id; results are identical to a serial run and
listed in the order of ``claims.tsv``), printing a progress line as each claim finishes and
rewriting the JSON ledger atomically after each (``properties.ledgerfile``), so an interrupted run
leaves a valid ledger that ``resume=True`` completes.  With ``scheduler`` (``--scheduler ADDRESS``)
the same tasks (:func:`judge_by_id`) run on a dask.distributed cluster instead
(:mod:`properties.distributed`), through the same progress lines and JSON writes.
"""

from __future__ import annotations

import concurrent.futures
import functools
import hashlib
import importlib
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from . import engine, profiles
from .contract import default_implementation
from .engine import FALSE_ALARM
from .errors import AdapterAbort, HypothesisUnmet, UndecidableError
from .ledgerfile import check_writable, instance_text, jsonable, read_ledger, write_atomic
from .toolkit import Claim, Outcome, at_precision, canonical_ids, start_dps
from .toolkit.claims import named_instance
from .toolkit.provenance import DECLARED_FIELDS, STRENGTHS, declared, with_strengths
from .worker import exit_with_parent

__all__ = ["Result", "add_readings", "code_fingerprint", "default_jobs", "judge_by_id", "run_claim", "run_ledger",
           "summary_table"]


@dataclass
class Result:
    """One claim's entry of the ledger (the JSON schema is documented in README; non-finite numbers
    follow the rule of :mod:`properties.ledgerfile`)."""

    id: str
    paper: str
    section: str
    kind: str
    mode: str
    verdict: str
    examples: int = 0
    worst_ratio: float | None = None
    digits: int | None = None
    counterexample: Any = None
    instance: dict | None = None
    worst_example: Any = None
    worst_instance: dict | None = None
    counterexample_source: str | None = None
    counterexample_outcome: dict | None = None
    recheck_dps: int | None = None
    reason: str = ""
    expected: str = ""
    seconds: float = 0.0
    statement: str = ""
    extra: dict = field(default_factory=dict)
    repairs: list = field(default_factory=list)
    reading: str = ""
    readings: list = field(default_factory=list)
    provenance: str = ""
    source: str = ""
    basis: str = "statement"
    basis_note: str = ""
    conventions: dict = field(default_factory=dict)
    strength: str | None = None

    def as_dict(self) -> dict:
        return jsonable(dict(self.__dict__))


def _call(claim: Claim, impl, *args) -> Outcome:
    fn = claim.trial if claim.mode == "statistical" else claim.check
    return fn(*args, impl) if claim.uses else fn(*args)


def _search(claim: Claim, profile: str, seed: int, impl, result: Result, shrink: bool) -> None:
    rep = engine.search(claim.strategy(), lambda inst: _call(claim, impl, inst), profile=profile, seed=seed,
                        max_examples=claim.max_examples, shrink=shrink, explicit=claim.examples)
    result.examples = rep.examples
    result.worst_ratio = rep.worst
    result.digits = rep.digits
    if rep.problem:
        result.verdict = "inconclusive"
        result.reason = rep.problem
        return
    if rep.failure is not None:
        f = rep.failure
        _conclude_counterexample(claim, impl, f.instance, f.outcome, f.source, result)
        return
    if rep.examples == 0:
        result.verdict = "inconclusive"
        result.reason = f"no example was decided ({rep.undecided} undecidable at {8 * start_dps()} digits)"
        return
    result.verdict = "verified"
    result.worst_example = rep.worst_instance
    result.worst_instance = named_instance(claim, rep.worst_instance)
    if rep.undecided:
        result.reason = f"{rep.undecided} examples undecidable at {8 * start_dps()} digits were skipped"


def _conclude_counterexample(claim, impl, inst, out, source, result: Result) -> None:
    """Re-check a counterexample with the starting precision doubled; falsified only if it agrees."""
    dps = 2 * start_dps()
    result.recheck_dps = dps
    result.counterexample = inst
    result.instance = named_instance(claim, inst)
    result.counterexample_source = source
    try:
        with at_precision(dps):
            again = _call(claim, impl) if claim.mode == "single" else _call(claim, impl, inst)
    except (UndecidableError, HypothesisUnmet) as exc:
        result.verdict = "inconclusive"
        result.reason = f"counterexample not confirmed at {dps} digits: {exc}"
        result.counterexample_outcome = out
        return
    result.counterexample_outcome = again
    if again.holds:
        result.verdict = "inconclusive"
        result.reason = f"counterexample at {start_dps()} digits holds at {dps} digits"
    else:
        result.verdict = "falsified"
        result.reason = again.note


def _statistical(claim: Claim, profile: str, impl, result: Result) -> None:
    """Trials with seeds 0 … k−1 under every ``--seed`` (the binomial rule is about those trials)."""
    rep = engine.trials(lambda seed: _call(claim, impl, seed), trials=claim.trials, delta=claim.delta,
                        profile=profile)
    k, q, failures = rep.examples, rep.threshold, rep.failures
    result.examples = k
    result.worst_ratio = rep.worst
    result.extra = {"trials": k, "failures": len(failures), "delta": claim.delta, "threshold": q,
                    "false_alarm": FALSE_ALARM}
    rule = rep.rule()
    if rep.held:
        result.verdict = "verified"
        result.reason = rule
        return
    # re-check failing trials with the starting precision doubled: falsified only when more than q
    # failures are confirmed there (float64-only trials simply repeat, deterministically)
    dps = 2 * start_dps()
    confirmed = []
    with at_precision(dps):
        for seed, _ in failures:
            again = _call(claim, impl, seed)
            if not again.holds:
                confirmed.append((seed, again))
                if len(confirmed) > q:
                    break
    result.recheck_dps = dps
    result.counterexample_source = "search"
    result.counterexample = {"seed": failures[0][0]}
    result.counterexample_outcome = (confirmed or failures)[0][1]
    if len(confirmed) > q:
        result.verdict = "falsified"
        result.counterexample = {"seed": confirmed[0][0]}
        result.reason = rule + f"; {len(confirmed)} of them confirmed at {dps} digits"
    else:
        result.verdict = "inconclusive"
        result.reason = rule + f"; only {len(confirmed)} confirmed at {dps} digits (more than {q} needed)"


_HARNESS_ERRORS = (Exception, SystemExit, AdapterAbort)
# tracebacks name the project's files relative to the directory holding the packages, so the ledger
# is the same whether the package is installed or run from a checkout
_SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _judge(claim: Claim, profile: str, seed: int, impl, result: Result, shrink: bool) -> None:
    try:
        if claim.mode == "not-applicable":
            result.verdict = "not-applicable"
            result.reason = claim.not_applicable
        elif claim.mode == "statistical":
            _statistical(claim, profile, impl, result)
        elif claim.mode == "search":
            _search(claim, profile, seed, impl, result, shrink)
        else:
            out = _call(claim, impl)
            result.examples = 1
            result.worst_ratio = out.ratio
            result.digits = out.digits
            result.reason = out.note
            if out.holds:
                result.verdict = "verified"
            else:
                _conclude_counterexample(claim, impl, None, out, "search", result)
                result.counterexample = {"construction": out.note}
    except _HARNESS_ERRORS as exc:  # a harness or implementation error is reported, never hidden as a verdict
        result.verdict = "inconclusive"
        result.reason = f"error: {type(exc).__name__}: {exc}"
        result.extra = {"traceback": traceback.format_exc(limit=6).replace(_SOURCE_ROOT, "")}


def run_claim(claim: Claim, *, profile: str = profiles.DEFAULT_PROFILE, impl=None,
              seed: int = profiles.DEFAULT_SEED, shrink: bool = True) -> Result:
    """Judge one claim (its repairs and its alternative readings too); ``impl`` is the implementation
    module for claims that ``use`` adapters (default: the project's own ``solvers.adapter``);
    ``shrink=False`` stops each search at its first counterexample (see the module docstring).  The
    entry records what the verdict is about (:func:`properties.toolkit.provenance.declared`) and the
    strength of each falsification, the claim's and each reading's."""
    profiles.load(profile)
    if any(c.uses for c in (claim, *claim.repairs, *claim.readings)) and impl is None:  # a repair may use
        impl = default_implementation()  # adapters alone; the ledger judges the project's own solvers
    result = Result(claim.id, claim.paper, claim.section, claim.kind, claim.mode, "inconclusive",
                    expected=claim.expected, statement=claim.statement)
    t0 = time.perf_counter()
    _judge(claim, profile, seed, impl, result, shrink)
    for repair in claim.repairs:
        sub = Result(repair.id, repair.paper, repair.section, repair.kind, repair.mode, "inconclusive",
                     expected=repair.expected, statement=repair.statement)
        _judge(repair, profile, seed, impl, sub, shrink)
        entry = sub.as_dict()
        for name in ("seconds", "repairs", "readings", "strength", *DECLARED_FIELDS):
            del entry[name]  # timing is the claim's; repairs do not nest; a repair is no reading of the claim
        result.repairs.append(entry)
    for reading in claim.readings:
        sub = Result(reading.id, reading.paper, reading.section, reading.kind, reading.mode, "inconclusive",
                     expected=reading.expected, statement=reading.statement, **declared(reading))
        _judge(reading, profile, seed, impl, sub, shrink)
        entry = sub.as_dict()
        del entry["seconds"], entry["repairs"], entry["readings"]
        result.readings.append(entry)
    for name, value in declared(claim).items():
        setattr(result, name, value)
    judged = with_strengths(claim, {"verdict": result.verdict, "readings": result.readings})
    result.strength, result.readings = judged["strength"], judged["readings"]
    result.seconds = time.perf_counter() - t0
    return result


# -- the run: serial or in worker processes, resumable, written after every claim -----------------

def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the parent's to handle: it terminates workers
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True, name="parent watch").start()


def judge_by_id(claim_id: str, profile: str, seed: int, impl_name: str | None) -> dict:
    """One claim's ledger entry, judged by id: the task of a ``--jobs`` worker process and of a dask
    worker (:mod:`properties.distributed`), a pure function of its arguments.  The registry imports only
    the claim's paper; ``impl_name`` is the implementation module (None: the project's own solvers)."""
    from .registry import select

    (claim,) = [c for c in select([claim_id]) if c.id == claim_id]
    impl = None if impl_name is None else importlib.import_module(impl_name)
    return run_claim(claim, profile=profile, impl=impl, seed=seed).as_dict()


def _fmt_ratio(r):
    return "-" if r is None else f"{r:.4g}"


def _progress_line(i: int, n: int, entry: dict) -> str:
    mark = "" if entry["verdict"] == entry["expected"] else f"  (recorded finding: {entry['expected']})"
    ratio = _fmt_ratio(entry["worst_ratio"]) if "worst_ratio" not in entry.get("nonfinite", {}) \
        else entry["nonfinite"]["worst_ratio"]
    return (f"[{i:>{len(str(n))}}/{n}] {entry['id']:<58} {entry['verdict']:<14} {entry['examples']:>5} ex  "
            f"ratio {ratio:>10}  {entry['seconds']:6.1f}s{mark}")


@functools.cache
def code_fingerprint() -> str:
    """The judge's code as 16 hex digits: SHA-256 of every ``.py`` and ``.tsv`` file of ``oracle/``,
    ``solvers/`` and ``properties/`` (relative path and content).  A ledger records it (``"code"``), and
    ``--resume`` refuses a ledger another code wrote: its verdicts need not be this code's."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    digest = hashlib.sha256()
    for package in ("oracle", "solvers", "properties"):
        for directory, subdirectories, files in os.walk(os.path.join(root, package)):
            subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith((".py", ".tsv"))):
                path = os.path.join(directory, name)
                digest.update(os.path.relpath(path, root).replace(os.sep, "/").encode() + b"\0")
                with open(path, "rb") as fh:
                    digest.update(fh.read() + b"\0")
    return digest.hexdigest()[:16]


def _resumed(json_path: str, profile: str, seed: int) -> dict[str, dict]:
    if not os.path.exists(json_path):
        return {}
    doc = read_ledger(json_path)
    if (doc.get("profile"), doc.get("seed")) != (profile, seed):
        raise ValueError(f"json path={json_path!r} holds a ledger of profile {doc.get('profile')!r} seed "
                         f"{doc.get('seed')!r}; resume it with the same --profile and --seed, not {profile!r} {seed!r}")
    if doc.get("code") != code_fingerprint():
        raise ValueError(f"json path={json_path!r} was written by other code (code {doc.get('code') or 'not recorded'}"
                         f", this code {code_fingerprint()}): its verdicts need not be this code's; rerun into a new "
                         f"--json without --resume")
    return {c["id"]: c for c in doc["claims"]}


def run_ledger(selected: list[Claim], *, profile: str = profiles.DEFAULT_PROFILE, seed: int = profiles.DEFAULT_SEED,
               json_path: str | None = None, jobs: int = 1, resume: bool = False, stream=None,
               impl=None, scheduler: str | None = None) -> list[dict]:
    """Judge ``selected`` claims; return their ledger entries in the order of ``claims.tsv``.

    Progress lines go to ``stream`` (stderr) as claims finish.  ``json_path`` is checked before any
    claim runs and rewritten atomically after each; with ``resume`` the claims already in it (same
    profile and seed) are kept and only the missing ones run.  ``jobs > 1`` judges claims in that
    many worker processes (spawned; ``impl``, if given, must be an importable module).  ``scheduler``,
    the address of a dask.distributed scheduler, judges them on that cluster's workers instead
    (:mod:`properties.distributed`; ``jobs`` is then not used): the same entries, the same JSON.

    Raises ValueError for bad arguments, a ledger that cannot be resumed and an unusable scheduler
    address, ConnectionError when no scheduler answers there.
    """
    profiles.load(profile)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs={jobs!r} must be a positive integer")
    if resume and not json_path:
        raise ValueError("resume=True needs json_path (the ledger to resume)")
    if json_path:
        check_writable(json_path)
    stream = sys.stderr if stream is None else stream
    order = {cid: i for i, cid in enumerate(canonical_ids())}
    done = _resumed(json_path, profile, seed) if resume else {}
    todo = [c for c in selected if c.id not in done]
    if resume:
        print(f"resuming {json_path}: {len(selected) - len(todo)} of the {len(selected)} selected claims are "
              f"already there, {len(todo)} to run", file=stream, flush=True)
    client = None
    if scheduler is not None:
        from . import distributed

        client = distributed.connect(scheduler, stream=stream)  # before any claim runs

    count = [0]

    def finished(entry: dict) -> None:
        done[entry["id"]] = entry
        count[0] += 1
        print(_progress_line(count[0], len(todo), entry), file=stream, flush=True)
        if json_path:
            entries = sorted(done.values(), key=lambda e: order.get(e["id"], math.inf))
            write_atomic(json_path, {"profile": profile, "seed": seed, "code": code_fingerprint(), "claims": entries})

    with _interrupts() as interrupted:
        if client is not None:
            impl_name = None if impl is None else impl.__name__
            with client:
                distributed.run_tasks(client, [distributed.Task(f"ledger {c.id} {profile} seed {seed} {impl_name}",
                                                                judge_by_id, (c.id, profile, seed, impl_name))
                                               for c in todo], finished)
        elif jobs == 1 or len(todo) <= 1:
            for c in todo:
                entry = run_claim(c, profile=profile, impl=impl, seed=seed).as_dict()
                if interrupted:  # the claim was cut short (Hypothesis may turn the interrupt into an error)
                    raise KeyboardInterrupt
                finished(entry)
        else:
            _run_parallel(todo, profile, seed, min(jobs, len(todo)), impl, finished)
    return [done[c.id] for c in sorted(selected, key=lambda c: order[c.id])]


class _interrupts:
    """While running claims, a Ctrl-C or a SIGTERM is remembered (the list is non-empty) before it is
    raised as ``KeyboardInterrupt``, so a claim interrupted half-way is never written as if it had
    finished, and the worker processes are stopped before the ledger exits."""

    def __enter__(self):
        self.flag: list[bool] = []
        self.previous = {}
        if threading.current_thread() is threading.main_thread():
            def on_signal(signum, frame):
                self.flag.append(True)
                raise KeyboardInterrupt

            self.previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        return self.flag

    def __exit__(self, *exc):
        for sig, previous in self.previous.items():
            signal.signal(sig, previous)
        return False


def _run_parallel(todo: list[Claim], profile: str, seed: int, jobs: int, impl, finished) -> None:
    impl_name = None if impl is None else impl.__name__
    pool = concurrent.futures.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=_worker_init)
    try:
        futures = [pool.submit(judge_by_id, c.id, profile, seed, impl_name) for c in todo]
        for fut in concurrent.futures.as_completed(futures):
            finished(fut.result())
    except BaseException as exc:  # Ctrl-C, a failed write, a dead worker: stop the workers now, keep the ledger
        workers = list((pool._processes or {}).values())  # shutdown() forgets them: take them first
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in workers:  # a claim half-way is not waited for (it would take as long as the claim)
            proc.terminate()
        if isinstance(exc, concurrent.futures.process.BrokenProcessPool):
            raise RuntimeError(f"a worker process died ({exc}); the JSON ledger holds the claims that "
                               f"finished: rerun with --resume") from exc
        raise
    pool.shutdown()


_SAME = ("verdict", "counterexample")


def add_readings(ledger: dict, judged: dict) -> dict:
    """``ledger`` with what each verdict is about, as the registry declares it
    (:func:`properties.toolkit.provenance.annotate`), and with the judged alternative readings of the
    entries of ``judged``, a ledger of the same profile and seed written by this version on a selection
    of claims (``--claims … --json``).  Every recorded field of ``ledger`` (verdict, example count,
    counterexample, worst ratio, …) is kept as it is: an entry of ``judged`` contributes only its
    ``readings``, and only when it reached the same verdict and counterexample for the claim's own
    reading (the search is derandomised by the seed; the number of examples it ran may differ when the
    code around the search changed since the ledger was written).

    Raises:
        ValueError: ledgers of another profile or seed, an entry of ``judged`` that ``ledger`` lacks or
            whose own verdict or counterexample differs from the ledger's.
    """
    from .registry import load_all
    from .toolkit.provenance import annotate

    if (ledger.get("profile"), ledger.get("seed")) != (judged.get("profile"), judged.get("seed")):
        raise ValueError(f"judged ledger of profile {judged.get('profile')!r} seed {judged.get('seed')!r} must have "
                         f"the ledger's profile {ledger.get('profile')!r} and seed {ledger.get('seed')!r}")
    claims = load_all()
    by_id = {e["id"]: e for e in ledger["claims"]}
    for new in judged["claims"]:
        old = by_id.get(new["id"])
        if old is None:
            raise ValueError(f"claim {new['id']} of the judged ledger is not in the ledger")
        changed = [f for f in _SAME if jsonable(old.get(f)) != jsonable(new.get(f))]
        if changed:
            raise ValueError(f"claim {new['id']}: the new run's {' and '.join(changed)} of the claim's own reading "
                             f"must be the ledger's; its readings are not added")
        by_id[new["id"]] = {**old, "readings": new["readings"]}
    return {**ledger, "claims": [annotate(e, claims[e["id"]]) if e["id"] in claims else e
                                 for e in (by_id[e["id"]] for e in ledger["claims"])]}


_SHOWN = 400  # characters of a counterexample the table shows


def summary_table(entries: list[dict]) -> str:
    """The ledger as a table: one line per claim entry, the strength of a falsification
    (:data:`~properties.toolkit.provenance.STRENGTHS`), its tightness (worst measured/bound) only when
    verified; under each falsified claim its statement, its counterexample in the statement's named
    objects, what the counterexample measures against the bound and each alternative reading's verdict;
    then the count of each verdict and of the falsified claims by strength."""
    lines = [f"{'id':<58} {'kind':<22} {'verdict':<14} {'strength':<14} {'examples':>8} {'tightness':>10}"]
    for e in entries:
        ratio = (e.get("nonfinite", {}).get("worst_ratio") or _fmt_ratio(e["worst_ratio"])) \
            if e["verdict"] == "verified" else "-"
        lines.append(f"{e['id']:<58} {e['kind'][:22]:<22} {e['verdict']:<14} {e.get('strength') or '-':<14} "
                     f"{e['examples']:>8} {ratio:>10}")
        if e["verdict"] == "falsified":  # the finding itself, in the statement's named objects
            shown = instance_text(e).replace("\n", " ")
            shown = shown if len(shown) <= _SHOWN else shown[:_SHOWN] + " … (in full with --json)"
            lines += [f"    stated: {e.get('statement', '')}", f"    counterexample: {shown}"]
            out = e.get("counterexample_outcome") or {}
            if isinstance(out.get("measured"), (int, float)) and isinstance(out.get("bound"), (int, float)):
                lines.append(f"    measured: {out['measured']:.6g} against bound {out['bound']:.6g}")
        lines += [f"    reading {r.get('reading')!r}: {r['verdict']}" + (f" ({r['strength']})" if r.get("strength")
                                                                         else "") for r in e.get("readings") or ()]
    counts: dict[str, int] = {}
    strengths: dict[str, int] = {}
    for e in entries:
        counts[e["verdict"]] = counts.get(e["verdict"], 0) + 1
        if e["verdict"] == "falsified":
            strengths[e.get("strength") or "none recorded"] = strengths.get(e.get("strength") or "none recorded", 0) + 1
    lines.append("")
    lines.append("  ".join(f"{v}: {n}" for v, n in sorted(counts.items())) + f"  (total {len(entries)})")
    if strengths:
        ordered = sorted(strengths.items(), key=lambda kv: STRENGTHS.index(kv[0]) if kv[0] in STRENGTHS else 99)
        lines.append("falsified by strength: " + "  ".join(f"{v}: {n}" for v, n in ordered))
    return "\n".join(lines)
