"""The one search engine: every way a Hypothesis run can end becomes a report with a
reason (never a traceback), hypotheses unmet are rejected, undecidable examples counted, and the trial
count and binomial rule are the same for every caller."""

import dataclasses
import itertools

import pytest
from hypothesis import strategies as st

from properties import engine
from properties.errors import AdapterAbort, HypothesisUnmet, TimedOut, UndecidableError
from properties.toolkit import Claim, Outcome


def _out(holds: bool, ratio: float = 0.5, digits=None) -> Outcome:
    return Outcome(holds, ratio, ratio, 1.0, digits, "held" if holds else "failed")


def test_a_failure_is_shrunk_to_the_minimal_example():
    rep = engine.search(st.integers(0, 1000), lambda n: _out(n < 10, n / 10))
    assert rep.failure is not None and rep.failure.instance == 10 and rep.failure.shrunk, rep
    assert rep.failure.source == "search" and not rep.problem


def test_without_shrinking_the_search_stops_at_its_first_failure():
    rep = engine.search(st.integers(0, 1000), lambda n: _out(n < 10, n / 10), shrink=False)
    assert rep.failure is not None and rep.failure.instance >= 10 and not rep.failure.shrunk


def test_a_failure_that_does_not_reproduce_is_a_problem_naming_the_nondeterminism():
    flips = itertools.count()
    rep = engine.search(st.integers(0, 10), lambda n: _out(next(flips) != 0))
    assert "not deterministic" in rep.problem and "did not reproduce" in rep.problem, rep.problem
    assert not rep.held


def test_hypotheses_unmet_are_rejected_and_all_rejected_is_a_problem():
    def check(n):
        raise HypothesisUnmet("never")

    rep = engine.search(st.integers(), check)
    assert rep.problem.startswith(("unsatisfiable", "failed health check")), rep.problem
    assert rep.examples == 0 and rep.failure is None


def test_hypotheses_unmet_are_not_undecidable():
    assert not issubclass(HypothesisUnmet, UndecidableError), "each is handled by name"
    seen = []

    def check(n):
        seen.append(n)
        if n % 2:
            raise HypothesisUnmet("odd")
        if n % 3 == 0:
            raise UndecidableError("a multiple of 3")
        return _out(True, digits=40 + n % 5)

    rep = engine.search(st.integers(0, 100), check)
    decided = [n for n in seen if n % 2 == 0 and n % 3]
    assert rep.examples == len(decided) and rep.undecided == len([n for n in seen if n % 6 == 0]), rep
    assert rep.digits == min(40 + n % 5 for n in decided) and rep.held


def test_errors_raise_or_fail():
    def check(n):
        if n > 5:
            raise ZeroDivisionError("n > 5")
        return _out(True)

    with pytest.raises(ZeroDivisionError):
        engine.search(st.integers(0, 100), check)
    rep = engine.search(st.integers(0, 100), check, errors="fail")
    assert rep.failure.outcome is None and rep.failure.note == "ZeroDivisionError: n > 5" and rep.failure.instance == 6
    with pytest.raises(ValueError, match="errors='ignore' must be"):
        engine.search(st.integers(), check, errors="ignore")


def test_an_aborted_call_stops_the_search_unshrunk():
    def check(n):
        if n > 5:
            raise TimedOut("f did not return")
        return _out(True)

    rep = engine.search(st.integers(0, 100), check, errors="fail")
    assert rep.failure.aborted and rep.failure.timed_out and not rep.failure.shrunk, rep.failure
    with pytest.raises(AdapterAbort):
        engine.search(st.integers(0, 100), check)


def test_explicit_examples_are_judged_after_a_passed_search():
    rep = engine.search(st.integers(0, 5), lambda n: _out(n != 99), explicit=[99])
    assert rep.failure.instance == 99 and rep.failure.source == "explicit" and not rep.failure.shrunk


def test_trials_run_the_same_count_everywhere_four_times_under_thorough():
    assert engine.trial_count(50, "ci") == engine.trial_count(50, "dev") == 50
    assert engine.trial_count(50, "thorough") == 200
    rep = engine.trials(lambda s: _out(s % 10 != 0), trials=50, delta=0.1, profile="thorough")
    assert rep.examples == 200 and len(rep.failures) == 20 and rep.threshold == engine.binomial_threshold(200, 0.1)
    assert rep.held and rep.rule().startswith("20 failures in 200 seeded trials")
    bad = engine.trials(lambda s: _out(False), trials=20, delta=0.01)
    assert not bad.held and bad.threshold == engine.binomial_threshold(20, 0.01)
    with pytest.raises(ValueError, match="delta=1.5"):
        engine.trials(lambda s: _out(True), trials=5, delta=1.5)


def test_a_claims_mode_is_a_field_checked_against_what_it_needs():
    base = dict(id="x", paper="p", section="s", kind="k", statement="", hypotheses="", expected="verified")
    assert Claim(**base, mode="single", check=lambda: None).mode == "single"
    with pytest.raises(ValueError, match="mode='guess' must be one of"):
        Claim(**base, mode="guess", check=lambda: None)
    with pytest.raises(ValueError, match="a search claim needs strategy"):
        Claim(**base, mode="search", check=lambda i: None)
    with pytest.raises(ValueError, match="a statistical claim needs trial, delta"):
        Claim(**base, mode="statistical")
    claim = Claim(**base, mode="not-applicable", not_applicable="why")
    assert dataclasses.replace(claim, strategy=lambda: None).mode == "not-applicable", "never inferred from fields"


def test_ratios_below_the_floor_are_not_pushed_up(monkeypatch):
    """An identity judged at 50+ digits measures rounding noise (10^-50 … 10^-100): ``target()`` gets 0 for
    it, so Hypothesis has nothing to hill-climb; ratios at or above the floor are pushed up as measured."""
    pushed = []
    monkeypatch.setattr(engine, "target", lambda value, label: pushed.append((label, value)))
    engine.search(st.integers(0, 1000), lambda n: _out(True, 1e-100 * (n + 1)))
    assert pushed and {value for _, value in pushed} == {0.0}, pushed[:5]
    pushed.clear()
    seen = []

    def check(n):
        seen.append(engine.EQUALITY * (n + 1))
        return _out(True, seen[-1])

    engine.search(st.integers(0, 1000), check)
    assert [value for _, value in pushed] == seen and max(seen) > engine.EQUALITY


def test_a_thorough_search_of_an_identity_ends():
    """``attention_kernel_regression.id.opt`` under ``thorough`` hill-climbed its noise-level ratio for over
    30 min before the floor (the deep run could not finish it); now it runs its 1000 examples."""
    from properties.ledger import run_claim
    from properties.registry import select

    (claim,) = select(["attention_kernel_regression.id.opt"])
    result = run_claim(claim, profile="thorough")
    assert result.verdict == "verified" and result.examples == 1000, (result.verdict, result.examples, result.reason)
