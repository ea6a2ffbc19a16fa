"""The claim registry: one entry per claim id of ``claims.tsv`` (DESIGN principle 2).

A claim is data: its id, paper, section and kind (read from ``claims.tsv``, the canonical list, a
copy of ``shared/spec/claims.tsv`` shipped with the package), the statement as the paper states it,
its hypotheses, and how it is judged.  Exactly one of four modes:

- **search**: ``strategy`` (a thunk returning a Hypothesis strategy of instances that meet the
  hypotheses) and ``check(instance) -> Outcome``; Hypothesis searches adversarially, pushing
  ``target()`` on the ratio measured/bound.
- **single**: ``check()`` alone, run once (size sweeps of running-time claims, fixed constructions).
- **statistical**: ``trial(seed) -> Outcome`` and ``delta``; ``k`` seeded trials judged by a binomial
  acceptance rule whose false-alarm rate is ``FALSE_ALARM`` (DESIGN principle 5).
- **not applicable**: ``not_applicable`` is the reason no instance can be checked.

Claims whose check calls an implementation list the adapter functions in ``uses``; their check then
takes the implementation module as a second argument (``check(instance, impl)``), so the ledger runs
them on ``solvers.adapter`` and ``python -m properties validate`` on any other module.

``expected`` records the verdict the harness reached after investigation; the ledger never reads it
(it searches afresh), the tests assert that the search reproduces it.
"""

from __future__ import annotations

import csv
import fnmatch
import importlib
import importlib.resources
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "PAPERS",
    "VERDICTS",
    "Claim",
    "Outcome",
    "canonical_ids",
    "claim",
    "claims",
    "load_all",
    "select",
]

PAPERS = ("softmax_regression", "attention_optimization", "attention_pruning", "attention_kernel_regression")
VERDICTS = ("verified", "falsified", "not-applicable", "inconclusive")
KINDS = ("search", "single", "statistical", "not-applicable")


@dataclass(frozen=True)
class Outcome:
    """What one check measured.

    ``ratio`` follows the spec: measured/bound for inequalities (≤ 1 means it held; near 1 means
    tight), the relative discrepancy for identities, 1 − λ_min(Y − X)/scale for Loewner orders.
    ``digits`` is how many decimal digits support ``holds`` (None for float64-only checks).
    """

    holds: bool
    ratio: float
    measured: float
    bound: float
    digits: int | None = None
    note: str = ""


@dataclass(frozen=True)
class Claim:
    id: str
    paper: str
    section: str
    kind: str
    statement: str
    hypotheses: str
    expected: str
    strategy: Callable[[], Any] | None = None
    check: Callable[..., Outcome] | None = None
    trial: Callable[[int], Outcome] | None = None
    delta: float | None = None
    trials: int = 50
    not_applicable: str | None = None
    uses: tuple[str, ...] = ()
    examples: tuple = ()
    max_examples: int | None = None
    notes: str = ""
    func_name: str = field(default="", compare=False)

    @property
    def mode(self) -> str:
        if self.not_applicable is not None:
            return "not-applicable"
        if self.trial is not None:
            return "statistical"
        if self.strategy is not None:
            return "search"
        return "single"


def canonical_ids() -> dict[str, dict[str, str]]:
    """The rows of ``claims.tsv`` by id (id, paper, section, kind, provenance)."""
    text = importlib.resources.files("properties").joinpath("claims.tsv").read_text(encoding="utf-8")
    rows = csv.DictReader(text.splitlines(), delimiter="\t")
    return {row["id"]: row for row in rows}


_REGISTRY: dict[str, Claim] = {}
_CANONICAL = canonical_ids()


def claim(
    claim_id: str,
    *,
    statement: str,
    hypotheses: str,
    expected: str,
    strategy: Callable[[], Any] | None = None,
    trial: bool = False,
    delta: float | None = None,
    trials: int = 50,
    not_applicable: str | None = None,
    uses: tuple[str, ...] = (),
    examples: tuple = (),
    max_examples: int | None = None,
    notes: str = "",
):
    """Register the decorated function as the check (or trial) of ``claim_id``.

    Paper, section and kind come from ``claims.tsv``.  For a not-applicable claim decorate a
    function that explains nothing more (it is never called) or call :func:`register_na`.
    """
    if claim_id not in _CANONICAL:
        raise ValueError(f"claim_id={claim_id!r} must be an id of claims.tsv")
    if claim_id in _REGISTRY:
        raise ValueError(f"claim_id={claim_id!r} is registered twice")
    if expected not in VERDICTS:
        raise ValueError(f"expected={expected!r} must be one of {VERDICTS}")
    if trial and (delta is None or not 0 < delta < 1):
        raise ValueError(f"delta={delta!r} must be in (0, 1) for a statistical claim")
    row = _CANONICAL[claim_id]

    def decorate(fn):
        entry = Claim(
            id=claim_id,
            paper=row["paper"],
            section=row["section"],
            kind=row["kind"],
            statement=statement,
            hypotheses=hypotheses,
            expected=expected,
            strategy=None if trial else strategy,
            check=None if trial or not_applicable else fn,
            trial=fn if trial else None,
            delta=delta,
            trials=trials,
            not_applicable=not_applicable,
            uses=tuple(uses),
            examples=tuple(examples),
            max_examples=max_examples,
            notes=notes,
            func_name=f"{fn.__module__}.{fn.__qualname__}",
        )
        _REGISTRY[claim_id] = entry
        return fn

    return decorate


def register_na(claim_id: str, *, statement: str, hypotheses: str, reason: str, notes: str = "") -> None:
    """Register a claim that no instance can check (cited asymptotic facts, ...), with the reason."""
    claim(
        claim_id,
        statement=statement,
        hypotheses=hypotheses,
        expected="not-applicable",
        not_applicable=reason,
        notes=notes,
    )(lambda: None)


def load_all() -> dict[str, Claim]:
    """Import every paper's properties module (registering its claims) and return the registry."""
    for paper in PAPERS:
        importlib.import_module(f"properties.{paper}")
    return dict(_REGISTRY)


def claims() -> list[Claim]:
    """All registered claims in the order of ``claims.tsv``."""
    reg = load_all()
    return [reg[cid] for cid in _CANONICAL if cid in reg]


def select(patterns: list[str] | None) -> list[Claim]:
    """Registered claims whose id matches any of the glob ``patterns`` (all when None)."""
    everything = claims()
    if not patterns:
        return everything
    return [c for c in everything if any(fnmatch.fnmatchcase(c.id, p) for p in patterns)]
