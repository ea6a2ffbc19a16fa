"""The one search engine of the harness: the ledger, the validator and the pytest plugin all judge
through it (the way the Newton variants share ``solvers/newton.py``).

- :func:`search`: a Hypothesis search of ``check(instance) -> Outcome`` over a strategy, derandomised
  with the run's seed, ``target()`` pushing the ratio (and any named quantities) up; a failing example
  is shrunk (unless ``shrink=False``: the search then stops at its first failure), then the explicit
  examples (corners) are judged.  An example the oracle cannot decide (:class:`UndecidableError`) is
  counted and skipped; one that does not meet the hypotheses (:class:`HypothesisUnmet`) is rejected
  inside the search and skipped outside it.
- :func:`trials`: ``check(seed) -> Outcome`` for the seeds 0 … k−1, judged by the binomial rule: at
  most :func:`binomial_threshold` failures, so a guarantee holding with probability ≥ 1 − δ is
  reported failed with probability at most :data:`FALSE_ALARM` (docs/development.md#statistical-guarantees).  k is the
  registered trial count, 4× under the ``thorough`` profile (:func:`trial_count`), everywhere.

Both return one :class:`Report`.  Every way a Hypothesis run can end without a verdict (a failure that
does not reproduce when replayed: ``Flaky``/``FlakyFailure``; ``Unsatisfiable``; a failed health
check; a deadline) is turned here, and only here, into :attr:`Report.problem`, a one-line reason:
never a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import Phase, given, reject, settings, target
from hypothesis.errors import DeadlineExceeded, FailedHealthCheck, Flaky, Unsatisfiable
from scipy import stats

from . import profiles
from .errors import AdapterAbort, HarnessError, HypothesisUnmet, TimedOut, UndecidableError
from .toolkit.outcome import Outcome

__all__ = ["EQUALITY", "FALSE_ALARM", "Failure", "Report", "binomial_threshold", "search", "trial_count", "trials"]

FALSE_ALARM = 1e-6
"""The false-alarm rate of every binomial rule: a true guarantee is reported failed at most this often."""


def binomial_threshold(k: int, delta: float, alpha: float = FALSE_ALARM) -> int:
    """Smallest F with P[Binomial(k, δ) > F] ≤ α: the most failures a true claim may show."""
    return int(stats.binom.isf(alpha, k, delta)) if stats.binom.sf(0, k, delta) > alpha else 0


def trial_count(trials: int, profile: str) -> int:
    """The trials a statistical judgement runs under ``profile``: the registered count, 4× under
    ``thorough`` (the same rule for the ledger's claims and the validator's adapters)."""
    profiles.load(profile)
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ValueError(f"trials={trials!r} must be a positive integer")
    return trials * (4 if profile == "thorough" else 1)


@dataclass
class Failure:
    """The example a judgement failed on.

    ``outcome`` is None when the check raised instead of judging (``errors="fail"``; ``note`` then
    names the exception); ``source`` is ``"search"`` or ``"explicit"``; ``shrunk`` says whether
    Hypothesis shrank it; ``aborted`` that an :class:`~properties.errors.AdapterAbort` ended the search
    (``timed_out``: a :class:`~properties.errors.TimedOut`)."""

    instance: Any
    outcome: Outcome | None
    note: str
    source: str = "search"
    shrunk: bool = True
    aborted: bool = False
    timed_out: bool = False


@dataclass
class Report:
    """What one search or one set of trials found.

    ``examples``: decided examples (or trials run); ``undecided``: examples the oracle could not
    decide; ``worst``: the largest ratio; ``digits``: the fewest digits any decision rested on;
    ``failure``: the failing example (None if none); ``problem``: why a Hypothesis run ended without
    a verdict ("" if it did not).  Trials also fill ``failures`` ((seed, Outcome) of every failed
    trial), ``threshold`` and ``delta``.
    """

    examples: int = 0
    undecided: int = 0
    worst: float | None = None
    digits: int | None = None
    failure: Failure | None = None
    problem: str = ""
    failures: list = field(default_factory=list)
    threshold: int | None = None
    delta: float | None = None
    worst_instance: Any = None

    def record(self, out: Outcome, instance: Any = None) -> None:
        """Count one decided example (``instance``: the example, kept when its ratio is the worst so far,
        so the certificate of a verified repair can enclose it)."""
        self.examples += 1
        if self.worst is None or out.ratio > self.worst or (self.worst_instance is None and out.ratio == self.worst):
            self.worst_instance = instance
        self.worst = out.ratio if self.worst is None else max(self.worst, out.ratio)
        if out.digits is not None:
            self.digits = out.digits if self.digits is None else min(self.digits, out.digits)

    @property
    def held(self) -> bool:
        """No failure, no problem, and (trials) at most ``threshold`` failed trials."""
        if self.threshold is not None:
            return len(self.failures) <= self.threshold
        return self.failure is None and not self.problem

    def rule(self) -> str:
        """The binomial rule of a set of trials, as a sentence (the ledger's reason)."""
        k, q = self.examples, self.threshold
        return (f"{len(self.failures)} failures in {k} seeded trials; a true claim (failure rate <= {self.delta}) "
                f"shows at most {q} except with probability {FALSE_ALARM:g}")


class _Found(HarnessError, Exception):
    """A failing example: Hypothesis shrinks it."""


class _Stop(HarnessError):
    """Ends a search at once, without shrinking (Hypothesis lets an exception that is no ``Exception``
    through)."""


EQUALITY = 1e-30
"""A ratio below this is the relative discrepancy of an equality held to the working precision (an identity
judged at 50+ digits measures 10^-50 … 10^-100 of rounding noise).  The search pushes such ratios up as 0:
hill-climbing noise never ends (a thorough search of ``attention_kernel_regression.id.opt`` climbed for over
30 min); the report keeps them out of its tightness tables (:data:`properties.report.EQUALITY`)."""


def _finite(x: float) -> float:
    """A quantity as ``target()`` takes it: finite (an unmeasurable NaN counts as the worst)."""
    return 1e300 if math.isnan(x) else max(-1e300, min(1e300, float(x)))


def _target_ratio(x: float) -> float:
    """A ratio as ``target()`` takes it: :func:`_finite`, and 0 below :data:`EQUALITY`."""
    x = _finite(x)
    return 0.0 if abs(x) < EQUALITY else x


def _problem(exc: BaseException, report: Report) -> str:
    """The one-line reason a Hypothesis run ended without a verdict."""
    detail = " ".join(str(exc).split())[:300]
    if isinstance(exc, Flaky):
        where = "" if report.failure is None else f" at input {report.failure.instance!r}"[:300]
        return (f"not deterministic: a failure{where} did not reproduce when the same input was run again "
                f"(Hypothesis {type(exc).__name__})")
    if isinstance(exc, Unsatisfiable):
        return f"unsatisfiable: no drawn instance met the hypotheses (Hypothesis: {detail})"
    if isinstance(exc, FailedHealthCheck):
        return f"failed health check: {detail}"
    return f"deadline exceeded: {detail}"


def search(strategy, check: Callable[[Any], Outcome], *, profile: str = profiles.DEFAULT_PROFILE,
           seed: int = profiles.DEFAULT_SEED, max_examples: int | None = None, shrink: bool = True,
           label: str = "ratio measured/bound", targets: Callable | None = None, explicit=(),
           errors: str = "raise") -> Report:
    """Search ``strategy`` for an instance on which ``check`` fails; return the :class:`Report`.

    **Arguments:**
    - ``strategy``: a Hypothesis strategy of instances; ``check(instance) -> Outcome``.
    - ``profile``, ``seed``: the Hypothesis profile and the seed the search is derandomised with;
      ``max_examples``: the claim's own cap (scaled by :func:`properties.profiles.examples_for`).
    - ``shrink``: shrink a failure (default), or stop at the first one (an error of ``check`` under
      ``errors="raise"`` is then not shrunk either).
    - ``label``: the ``target()`` label of the ratio; ``targets(instance) -> {label: value}`` more
      quantities to push up.
    - ``explicit``: instances judged after a search that found nothing (corners; not shrunk).
    - ``errors``: what an ``Exception`` of ``check`` (other than the two above) is: ``"raise"``
      (a harness error, propagated) or ``"fail"`` (the implementation crashed: a failure, shrunk).
      An :class:`~properties.errors.AdapterAbort` stops the search and is a failure under
      ``"fail"``; under ``"raise"`` it propagates.

    **Returns:** the report; ``problem`` set (and no exception) when Hypothesis ended without a verdict.
    """
    if errors not in ("raise", "fail"):
        raise ValueError(f"errors={errors!r} must be 'raise' or 'fail'")
    report = Report()
    in_search = [True]

    def judge(inst):
        try:
            out = check(inst)
        except HypothesisUnmet:
            if in_search[0]:
                reject()
            report.undecided += 1
            return
        except UndecidableError:
            report.undecided += 1
            return
        except AdapterAbort as exc:
            if errors == "raise":
                raise
            report.failure = Failure(inst, None, str(exc), aborted=True, timed_out=isinstance(exc, TimedOut))
            raise _Stop() from None
        except Exception as exc:
            if errors == "raise":
                raise
            report.failure = Failure(inst, None, f"{type(exc).__name__}: {exc}")
            raise (_Found() if shrink else _Stop()) from exc
        report.record(out, inst)
        if in_search[0]:
            target(_target_ratio(out.ratio), label=label)
            for name, value in (targets(inst) if targets is not None else {}).items():
                target(_finite(value), label=name)
        if not out.holds:
            report.failure = Failure(inst, out, out.note)
            raise _Found() if shrink else _Stop()

    base = profiles.load(profile)
    phases = base.phases if shrink else tuple(p for p in base.phases if p is not Phase.shrink)
    n = profiles.examples_for(profile, max_examples)
    test = profiles.seeded(settings(base, max_examples=n, phases=phases)(given(strategy)(judge)), seed)
    try:
        test()
        in_search[0] = False
        for inst in explicit:
            judge(inst)
    except _Found:
        pass
    except _Stop:
        pass
    except (Flaky, Unsatisfiable, FailedHealthCheck, DeadlineExceeded) as exc:
        report.problem = _problem(exc, report)
    if report.failure is not None:
        report.failure.source = "search" if in_search[0] else "explicit"
        report.failure.shrunk = shrink and in_search[0] and not report.failure.aborted
    return report


def trials(check: Callable[[int], Outcome], *, trials: int, delta: float,
           profile: str = profiles.DEFAULT_PROFILE) -> Report:
    """Run ``check(seed)`` for the seeds 0 … k−1 (k = :func:`trial_count`) and judge the failures by the
    binomial rule at failure rate ``delta``: :attr:`Report.held` when at most :func:`binomial_threshold`
    (k, δ) of them fail.  Exceptions of ``check`` propagate (a trial has no search to skip it in)."""
    if not (isinstance(delta, (int, float)) and 0 < delta < 1):
        raise ValueError(f"delta={delta!r} must be in (0, 1)")
    k = trial_count(trials, profile)
    report = Report(threshold=binomial_threshold(k, delta), delta=delta)
    for seed in range(k):
        out = check(seed)
        report.examples += 1
        report.worst = out.ratio if report.worst is None else max(report.worst, out.ratio)
        if not out.holds:
            report.failures.append((seed, out))
    return report
