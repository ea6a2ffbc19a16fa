"""One test per registered claim: the harness's own search must reach the recorded finding.

A claim recorded as falsified passes only when the *search* (not an explicit example) finds a
counterexample that survives the re-check at doubled precision; a verified claim passes only when
no example of the ci profile's derandomised search breaks it.  Searches here stop at their first
counterexample (``run_claim(..., shrink=False)``): the verdict is the test's subject, and shrinking
is for the reported counterexample only (in the ci ledger the falsified claims took 978 of the 1231 s,
nearly all of it shrinking: lem9.1.p5 114 s with it, 6 s without).  The ledger shrinks
(``tests/properties/meta/test_cli.py`` checks that both find the claim false).
"""

import pytest

from properties.ledger import run_claim
from properties.paper import Paper
from properties.registry import adapters, canonical_ids, claims, load_all, paper, paper_names, select
from properties.toolkit import VERDICTS

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
    for reading in r.readings:  # so does each alternative reading (the strengths rest on these findings)
        assert reading["verdict"] == reading["expected"], (
            f"{claim_id} reading {reading['reading']!r}: verdict {reading['verdict']}, recorded {reading['expected']}; "
            f"reason: {reading['reason']}; counterexample {reading['counterexample']!r}")


def test_registry_ids_are_canonical():
    canonical = canonical_ids()
    unknown = set(REGISTRY) - set(canonical)
    assert not unknown, f"registered ids not in claims.tsv: {sorted(unknown)}"


@pytest.mark.parametrize("name", paper_names())
def test_registry_paper_is_complete(name):
    """Each paper of claims.tsv is one declared unit, ``properties.<name>.PAPER``, that declares every id
    of its paper once (a repair and an alternative reading share their claim's id); the registry holds them in the order of
    claims.tsv, with the findings the unit records (read from it, never copied here), and every
    adapter function of the unit under its own name."""
    unit = paper(name)
    assert isinstance(unit, Paper) and unit.name == name, f"properties.{name}.PAPER is {unit!r}"
    canonical = [cid for cid, row in canonical_ids().items() if row["paper"] == name]
    declared = [c.id for c in unit.claims if not c.repair and not c.alternative]
    twice = sorted({cid for cid in declared if declared.count(cid) > 1})
    assert not twice, f"{name}: ids declared twice: {twice}"
    missing, extra = sorted(set(canonical) - set(declared)), sorted(set(declared) - set(canonical))
    assert not missing and not extra, f"{name}: ids of claims.tsv not declared {missing}; not in claims.tsv {extra}"
    registered = select([f"{name}.*"])
    assert [c.id for c in registered] == canonical, f"{name}: the registry's order is not that of claims.tsv"
    for c in registered:
        assert c.expected in VERDICTS, f"{c.id}: recorded finding {c.expected!r} is not a verdict"
        if c.expected == "not-applicable":
            assert c.not_applicable or c.notes, f"{c.id}: recorded not-applicable without a reason"
        assert not c.repairs or c.expected == "falsified", f"{c.id}: repairs of a claim recorded {c.expected}"
        unknown = sorted(set(c.uses) - set(adapters()))
        assert not unknown, f"{c.id} uses adapter functions no unit declares: {unknown}"
    contract = adapters()
    for ad in unit.functions:
        assert contract.get(ad.name) is ad, f"{name}: adapter {ad.name!r} is not registered as declared"


def _paper(**changes):
    unit = paper("softmax_regression")
    fields = dict(name="softmax_regression", title="Attention Scheme Inspired Softmax Regression", number="001",
                  authors=("Deng", "Li", "Song"), year=2023, arxiv="2304.10411", sections=unit.sections,
                  adapters=unit.adapters, certificates=unit.certificates, conventions=unit.conventions)
    return Paper(**{**fields, **changes})


@pytest.mark.parametrize("field, value", [
    ("name", "Softmax-Regression"), ("title", " "), ("number", "1"), ("authors", ()), ("authors", "Deng"),
    ("year", "2023"), ("year", True), ("arxiv", "arXiv:2304.10411"), ("sections", ()),
    ("sections", ([],)), ("adapters", ([],)), ("experiment", "properties.attention_pruning.experiments"),
])
def test_registry_paper_record_rejects_a_malformed_field(field, value):
    """``Paper`` raises ValueError naming the field (and the rule) for each malformed field."""
    with pytest.raises(ValueError, match=rf"^{field}(\[0\])?="):
        _paper(**{field: value})


def test_registry_paper_record_rejects_another_papers_claim_set():
    with pytest.raises(ValueError, match="ClaimSet of paper 'attention_optimization'"):
        _paper(sections=paper("attention_optimization").sections)


def test_registry_knows_only_the_papers_of_claims_tsv():
    assert _paper() == paper("softmax_regression")
    with pytest.raises(ValueError, match="must be one of"):
        paper("no_such_paper")


def test_registry_select_imports_only_the_matching_papers():
    """``select`` imports only the paper packages that hold a matching id (a fresh interpreter)."""
    import subprocess
    import sys

    code = ("import sys; from properties.registry import paper_names, select; "
            "ids = [c.id for c in select(['softmax_regression.fact4.2.p1'])]; "
            "print(ids, sorted(n for n in paper_names() if 'properties.' + n in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "['softmax_regression.fact4.2.p1'] ['softmax_regression']", out.stdout + out.stderr


def test_shipped_claims_tsv_matches_shared_spec():
    """properties/claims.tsv is a verbatim copy of shared/spec/claims.tsv (when shared/ is beside the repo)."""
    import pathlib

    shared = pathlib.Path(__file__).resolve().parents[3] / "shared" / "spec" / "claims.tsv"
    if not shared.exists():
        pytest.skip("shared/spec/claims.tsv is not beside this checkout (a user's fresh clone)")
    ours = pathlib.Path(__file__).resolve().parents[2] / "properties" / "claims.tsv"
    assert ours.read_text() == shared.read_text(), "properties/claims.tsv differs from shared/spec/claims.tsv"


def test_every_search_claim_names_its_instance_fields():
    """Every search claim and repair declares the names of its instance's fields in the
    paper's notation (or maps the drawn reparametrisation back to the statement's objects), so the ledger,
    the errata and the certificates show ``X = …, W = …`` instead of an unnamed list.  The per-paper tests
    (tests/properties/test_certify.py) check that the count matches a drawn instance."""
    unnamed = [f"{c.id}{' (repair)' if c.repair else ''}" for claim in claims() for c in (claim, *claim.repairs)
               if c.mode == "search" and not (c.fields or c.to_statement)]
    assert not unnamed, f"search claims without field names: {unnamed}"


def _search_claims_and_repairs():
    return [c for claim in claims() for c in (claim, *claim.repairs) if c.mode == "search"]


@pytest.mark.parametrize("claim", _search_claims_and_repairs(), ids=lambda c: c.id + (".repair" if c.repair else ""))
def test_fields_match_a_drawn_instance(claim):
    """The declared fields count the elements of a drawn instance, and the instance
    maps to a non-empty dict of the statement's named objects."""
    from hypothesis import HealthCheck, Phase, find, settings

    from properties.toolkit.claims import named_instance

    inst = find(claim.strategy(), lambda _: True, settings=settings(
        database=None, max_examples=1, phases=[Phase.generate], deadline=None, suppress_health_check=list(HealthCheck)))
    parts = inst if isinstance(inst, tuple) else (inst,)
    assert len(parts) == len(claim.fields), f"{claim.id}: fields {claim.fields} for an instance of {len(parts)}"
    named = named_instance(claim, inst)
    assert isinstance(named, dict) and named, f"{claim.id}: named instance {named!r}"
