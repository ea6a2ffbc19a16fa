"""One test per registered claim: the harness's own search must reach the recorded finding.

A claim recorded as falsified passes only when the *search* (not an explicit example) finds a
counterexample that survives the re-check at doubled precision; a verified claim passes only when
no example of the ci profile's derandomised search breaks it.  Searches here stop at their first
counterexample (``run_claim(..., shrink=False)``): the verdict is the test's subject, and shrinking
is for the reported counterexample only (in the ci ledger the falsified claims took 978 of the 1231 s,
nearly all of it shrinking: lem9.1.p5 114 s with it, 6 s without).  The ledger shrinks
(``tests/meta/test_cli.py`` checks that both find the claim false).
"""

import pytest

from properties.ledger import run_claim
from properties.registry import canonical_ids, claims, load_all

REGISTRY = load_all()


def _profile(request):
    return request.config.getoption("--ledger-profile") or request.config.getoption("hypothesis_profile") or "ci"


@pytest.mark.parametrize("claim_id", [c.id for c in claims()])
def test_claim(claim_id, request):
    c = REGISTRY[claim_id]
    r = run_claim(c, profile=_profile(request), shrink=False)
    assert r.verdict == c.expected, (
        f"{claim_id}: verdict {r.verdict}, recorded finding {c.expected}; reason: {r.reason}; "
        f"counterexample {r.counterexample!r}; {r.extra.get('traceback', '')}"
    )
    if c.expected == "falsified":
        assert r.counterexample_source == "search", f"{claim_id}: counterexample came from {r.counterexample_source}"
        assert r.recheck_dps is not None and r.recheck_dps >= 100, f"{claim_id}: not re-checked at doubled precision"
    if c.expected == "verified":
        assert r.examples > 0, f"{claim_id}: verified on no example"
    if c.expected == "not-applicable":
        assert r.reason, f"{claim_id}: not-applicable without a reason"
    for rep in r.repairs:  # a repaired statement reaches its recorded finding too (verified, as a rule)
        assert rep["verdict"] == rep["expected"], (
            f"{claim_id} repair ({rep['statement'][:80]}…): verdict {rep['verdict']}, recorded {rep['expected']}; "
            f"reason: {rep['reason']}; counterexample {rep['counterexample']!r}")


def test_registry_ids_are_canonical():
    canonical = canonical_ids()
    unknown = set(REGISTRY) - set(canonical)
    assert not unknown, f"registered ids not in claims.tsv: {sorted(unknown)}"


def test_every_fact_claim_is_registered():
    """Issue 2, step 6: every id containing '.fact' has a registry entry."""
    facts = [cid for cid in canonical_ids() if ".fact" in cid]
    missing = [cid for cid in facts if cid not in REGISTRY]
    assert len(facts) == 81, f"claims.tsv lists {len(facts)} fact ids, expected 81"
    assert not missing, f"fact claims not registered: {missing}"


def test_shipped_claims_tsv_matches_shared_spec():
    """properties/claims.tsv is a verbatim copy of shared/spec/claims.tsv (when shared/ is beside the repo)."""
    import pathlib

    shared = pathlib.Path(__file__).resolve().parents[2] / "shared" / "spec" / "claims.tsv"
    if not shared.exists():
        pytest.skip("shared/spec/claims.tsv is not beside this checkout (a user's fresh clone)")
    ours = pathlib.Path(__file__).resolve().parents[1] / "properties" / "claims.tsv"
    assert ours.read_text() == shared.read_text(), "properties/claims.tsv differs from shared/spec/claims.tsv"
