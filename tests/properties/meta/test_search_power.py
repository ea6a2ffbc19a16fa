"""Search power: for tight verified bounds, a copy tightened by 5% must be
falsified by the ledger's search in the ci profile.

Each claim below is an inequality whose supremum ratio measured/bound is 1 (the bound is attained or
approached, by the spec's tightness analysis); its copy claims ``measured ≤ 0.95·bound``, which is
false, and the search (same strategy, same seed, same ``target()``) must find an instance showing it.
A strategy that stops reaching the tight region makes these fail — the check that a green ledger is
green because the claims hold, not because the search is weak."""

import dataclasses

import pytest
from hypothesis import Phase, settings

from properties import profiles
from properties.ledger import run_claim
from properties.registry import load_all
from properties.toolkit import Outcome

FACTOR = 0.95

TIGHT = [
    "softmax_regression.fact4.3.p1",  # ⟨u, v⟩ ≤ ‖u‖‖v‖: equality on parallel vectors only
    "softmax_regression.lem7.2.part3",
    "softmax_regression.lem8.9",
    "attention_optimization.fact4.2.p5",  # ‖exp(x) − exp(y)‖ ≤ e^R‖x − y‖: approached at x ≈ y ≈ R·e_i
    "attention_optimization.lem12.3",
    "attention_pruning.lemF5",
    "attention_pruning.factA5.d",
    "attention_pruning.lem5.5.corrected",
]


def tightened(claim, factor=FACTOR):
    """``claim`` with its bound multiplied by ``factor``: measured ≤ factor·bound on the same sides."""
    check = claim.check

    def tight_check(*args):
        out = check(*args)
        bound = out.bound - (1 - factor) * abs(out.bound)  # stronger whatever the sign of the bound
        ok = out.measured <= bound
        return Outcome(ok, out.measured / bound if bound > 0 else out.ratio, out.measured, bound, out.digits,
                       f"tightened ×{factor}: {out.note}")

    return dataclasses.replace(claim, check=tight_check, repairs=(), expected="falsified")


@pytest.fixture
def no_shrinking(monkeypatch):
    """Finding is what is measured here, not shrinking (which costs most of a falsified search)."""
    load = profiles.load
    monkeypatch.setattr(profiles, "load", lambda name: settings(load(name), phases=[
        Phase.explicit, Phase.reuse, Phase.generate, Phase.target]))


@pytest.mark.parametrize("cid", TIGHT)
def test_a_tightened_tight_bound_is_falsified(cid, no_shrinking):
    claim = load_all()[cid]
    assert claim.mode == "search" and claim.expected == "verified", (cid, claim.mode, claim.expected)
    r = run_claim(tightened(claim), profile="ci")
    assert r.verdict == "falsified", (f"{cid} tightened ×{FACTOR} was not falsified by the ci search "
                                      f"(worst ratio {r.worst_ratio}, {r.examples} examples): {r.reason}")
    assert r.counterexample_outcome.ratio > 1, r.counterexample_outcome


def test_the_untightened_copy_is_verified(no_shrinking):
    """Control: the same wrapper at factor 1 is the claim itself, and the search verifies it (so the
    falsifications above come from the 5%, not from the wrapper)."""
    r = run_claim(tightened(load_all()["softmax_regression.fact4.3.p1"], factor=1.0), profile="ci")
    assert r.verdict == "verified" and r.worst_ratio > FACTOR, (r.verdict, r.worst_ratio, r.reason)
