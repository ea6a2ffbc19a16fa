"""The ledger runner: judge each registered claim and report its verdict (DESIGN principle 3).

- search claims: Hypothesis searches instances meeting the hypotheses, ``target()`` pushing the
  ratio measured/bound up; a failure is shrunk by Hypothesis and the minimal counterexample is
  re-checked with the precision doubled.  Then the claim's explicit examples (if any) run; a
  counterexample found only there is reported with ``counterexample_source="explicit"``.
- statistical claims: ``k`` seeded trials; the claim is verified when the number of failures F is at
  most q(k, δ), the upper ``FALSE_ALARM`` quantile of Binomial(k, δ), so a true claim is reported
  falsified with probability at most ``FALSE_ALARM`` (here, deterministically given the seeds).
- single claims: the check runs once (running-time sweeps, fixed constructions).
- not-applicable claims: reported with their reason.
"""

from __future__ import annotations

import json
import math
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import given, reject, settings, target
from scipy import stats

from oracle import UndecidableError

from . import profiles
from .toolkit import Claim, HypothesisUnmet, Outcome, at_precision, start_dps

__all__ = ["FALSE_ALARM", "Result", "binomial_threshold", "run_claim", "run_ledger", "jsonable"]

FALSE_ALARM = 1e-6


def binomial_threshold(k: int, delta: float, alpha: float = FALSE_ALARM) -> int:
    """Smallest F with P[Binomial(k, δ) > F] ≤ α: the most failures a true claim may show."""
    return int(stats.binom.isf(alpha, k, delta)) if stats.binom.sf(0, k, delta) > alpha else 0


@dataclass
class Result:
    """One claim's line of the ledger (the JSON schema is documented in README)."""

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
    counterexample_source: str | None = None
    counterexample_outcome: dict | None = None
    recheck_dps: int | None = None
    reason: str = ""
    expected: str = ""
    seconds: float = 0.0
    statement: str = ""
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {k: jsonable(v) for k, v in self.__dict__.items()}


def jsonable(obj):
    """Instances and outcomes as JSON values (floats printed with repr round-trip exactly)."""
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, (np.floating, float)):
        f = float(obj)
        return f if math.isfinite(f) else repr(f)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, Outcome):
        return jsonable(obj.__dict__)
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    return repr(obj)


class _Counterexample(Exception):
    pass


def _call(claim: Claim, impl, *args) -> Outcome:
    fn = claim.trial if claim.mode == "statistical" else claim.check
    return fn(*args, impl) if claim.uses else fn(*args)


def _finite_target(x: float) -> float:
    if math.isnan(x):
        return 0.0
    return max(-1e300, min(1e300, x))


def _search(claim: Claim, profile: str, impl, result: Result) -> None:
    state = {"n": 0, "undecided": 0, "worst": None, "digits": None, "fail": None}

    def prop(inst):
        try:
            out = _call(claim, impl, inst)
        except HypothesisUnmet:
            reject()
        except UndecidableError:
            state["undecided"] += 1
            return
        state["n"] += 1
        if state["worst"] is None or out.ratio > state["worst"]:
            state["worst"] = out.ratio
        if out.digits is not None:
            state["digits"] = out.digits if state["digits"] is None else min(state["digits"], out.digits)
        target(_finite_target(out.ratio), label="ratio measured/bound")
        if not out.holds:
            state["fail"] = (inst, out)
            raise _Counterexample()

    base = profiles.load(profile)
    n_examples = profiles.examples_for(profile, claim.max_examples)
    test = settings(base, max_examples=n_examples)(given(claim.strategy())(prop))
    try:
        test()
    except _Counterexample:
        pass
    result.examples = state["n"]
    result.worst_ratio = state["worst"]
    result.digits = state["digits"]
    if state["fail"] is not None:
        inst, out = state["fail"]
        _conclude_counterexample(claim, impl, inst, out, "search", result)
        return
    for inst in claim.examples:
        out = _call(claim, impl, inst)
        result.examples += 1
        if not out.holds:
            _conclude_counterexample(claim, impl, inst, out, "explicit", result)
            return
    if state["n"] == 0:
        result.verdict = "inconclusive"
        result.reason = f"no example was decided ({state['undecided']} undecidable at {8 * start_dps()} digits)"
        return
    result.verdict = "verified"
    if state["undecided"]:
        result.reason = f"{state['undecided']} examples undecidable at {8 * start_dps()} digits were skipped"


def _conclude_counterexample(claim, impl, inst, out, source, result: Result) -> None:
    """Re-check a counterexample with the starting precision doubled; falsified only if it agrees."""
    dps = 2 * start_dps()
    result.recheck_dps = dps
    result.counterexample = inst
    result.counterexample_source = source
    try:
        with at_precision(dps):
            again = _call(claim, impl) if claim.mode == "single" else _call(claim, impl, inst)
    except UndecidableError as exc:
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
    k = claim.trials * (1 if profile != "thorough" else 4)
    q = binomial_threshold(k, claim.delta)
    failures = []
    worst = None
    for seed in range(k):
        out = _call(claim, impl, seed)
        worst = out.ratio if worst is None else max(worst, out.ratio)
        if not out.holds:
            failures.append((seed, out))
    result.examples = k
    result.worst_ratio = worst
    result.extra = {"trials": k, "failures": len(failures), "delta": claim.delta, "threshold": q,
                    "false_alarm": FALSE_ALARM}
    rule = f"{len(failures)} failures in {k} seeded trials; a true claim (failure rate <= {claim.delta}) " \
           f"shows at most {q} except with probability {FALSE_ALARM:g}"
    if len(failures) > q:
        result.verdict = "falsified"
        result.counterexample = {"seed": failures[0][0]}
        result.counterexample_outcome = failures[0][1]
        result.counterexample_source = "search"
    else:
        result.verdict = "verified"
    result.reason = rule


def run_claim(claim: Claim, *, profile: str = "dev", impl=None) -> Result:
    """Judge one claim; ``impl`` is the implementation module for claims that ``use`` adapters."""
    if claim.uses and impl is None:
        import solvers.adapter as impl  # the ledger judges the project's own solvers
    result = Result(claim.id, claim.paper, claim.section, claim.kind, claim.mode, "inconclusive",
                    expected=claim.expected, statement=claim.statement)
    t0 = time.perf_counter()
    try:
        if claim.mode == "not-applicable":
            result.verdict = "not-applicable"
            result.reason = claim.not_applicable
        elif claim.mode == "statistical":
            _statistical(claim, profile, impl, result)
        elif claim.mode == "search":
            _search(claim, profile, impl, result)
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
    except Exception as exc:  # a harness error is reported, never hidden as a verdict
        result.verdict = "inconclusive"
        result.reason = f"error: {type(exc).__name__}: {exc}"
        result.extra = {"traceback": traceback.format_exc(limit=6)}
    result.seconds = time.perf_counter() - t0
    return result


def _fmt_ratio(r):
    return "-" if r is None else f"{r:.4g}"


def run_ledger(selected: list[Claim], *, profile: str, json_path: str | None = None, stream=None,
               impl=None) -> list[Result]:
    """Run ``selected`` claims with progress lines on ``stream`` (stderr); write JSON if asked."""
    stream = sys.stderr if stream is None else stream
    results = []
    width = len(str(len(selected)))
    for i, c in enumerate(selected, 1):
        r = run_claim(c, profile=profile, impl=impl)
        results.append(r)
        mark = "" if r.verdict == c.expected else f"  (recorded finding: {c.expected})"
        print(f"[{i:>{width}}/{len(selected)}] {r.id:<58} {r.verdict:<14} {r.examples:>5} ex  "
              f"ratio {_fmt_ratio(r.worst_ratio):>10}  {r.seconds:6.1f}s{mark}", file=stream, flush=True)
    if json_path:
        with open(json_path, "w", encoding="utf-8") as fh:
            json.dump({"profile": profile, "claims": [r.as_dict() for r in results]}, fh, indent=1)
    return results


def summary_table(results: list[Result]) -> str:
    lines = [f"{'id':<58} {'kind':<22} {'verdict':<14} {'examples':>8} {'tightness':>10}"]
    for r in results:
        lines.append(f"{r.id:<58} {r.kind[:22]:<22} {r.verdict:<14} {r.examples:>8} {_fmt_ratio(r.worst_ratio):>10}")
    counts = {}
    for r in results:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    lines.append("")
    lines.append("  ".join(f"{v}: {n}" for v, n in sorted(counts.items())) + f"  (total {len(results)})")
    return "\n".join(lines)
