"""The certificate vocabulary: what a paper's certificate module declares and returns.

A paper declares how to certify its claims in ``properties/<paper>/certificates.py``, a
:class:`Certifiers` named ``CERTIFIERS``::

    CERTIFIERS = Certifiers("softmax_regression")

    @CERTIFIERS.violation("softmax_regression.fact4.4.p1", method="ball evaluation, witness vector")
    def _(inst, hints):      # inst: the statement's objects, exact (fmpq, fmpq_mat, bool, int, str)
        ...
        return Evidence("≤", measured=..., bound=..., what="‖U‖₂ vs α‖V‖₂", premises=[...])

    CERTIFIERS.cannot("attention_pruning.emp.n_growth", reason="...")

Each certifier returns :class:`Evidence` (two ``arb`` enclosures and the relation the statement
asserts between them) whose premises are :class:`Fact` records (decided exactly) or further
:class:`Evidence`.  The runner that evaluates certifiers at rising precision, writes certificates
and re-checks them is :mod:`properties.certify`; this module imports nothing of the harness, so a
paper's certificates never import a runner.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from flint import arb

__all__ = ["RELATIONS", "Certifier", "Certifiers", "Evidence", "Fact", "premises_hold"]

RELATIONS = ("≤", "<", "≥", ">", "=")
"""The relations a statement may assert between its measured enclosure and its bound."""


@dataclass(frozen=True)
class Fact:
    """A premise decided exactly (a rational LDLᵀ, an integer count): ``proven`` is the decision."""

    what: str
    method: str
    proven: bool


@dataclass
class Evidence:
    """Two enclosures and the relation the statement asserts between them (``measured relation bound``).

    ``premises``: the hypotheses of the statement at this instance, each a :class:`Fact` or an
    :class:`Evidence` that must *hold* (an implication is refuted only with its premise proven);
    ``hints``: JSON data the proof used (a witness vector as "p/q" strings), handed back to the
    certifier on re-checking."""

    relation: str
    measured: arb
    bound: arb
    what: str
    premises: list = field(default_factory=list)
    hints: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.relation not in RELATIONS:
            raise ValueError(f"relation={self.relation!r} must be one of {RELATIONS}")
        if not (isinstance(self.measured, arb) and isinstance(self.bound, arb)):
            raise ValueError("measured and bound must be arb balls")

    def violated(self) -> bool:
        """Certain that ``measured relation bound`` is false."""
        m, b = self.measured, self.bound
        return {"≤": m > b, "<": m >= b, "≥": m < b, ">": m <= b, "=": not m.overlaps(b)}[self.relation]

    def holds(self, strict: bool = False) -> bool:
        """Certain that ``measured relation bound`` holds (``strict``: with room, measured ≠ bound)."""
        m, b = self.measured, self.bound
        if self.relation == "=":
            return False if strict else bool(m == b)
        less = self.relation in ("≤", "<")
        if strict or self.relation in ("<", ">"):
            return bool(m < b) if less else bool(m > b)
        return bool(m <= b) if less else bool(m >= b)


def premises_hold(premises) -> bool:
    """Every premise proven: each :class:`Fact` decided true, each :class:`Evidence` certain to hold."""
    return all(p.proven if isinstance(p, Fact) else p.holds() for p in premises)


@dataclass(frozen=True)
class Certifier:
    """How one claim (``target`` "violation": a falsified claim) or one repair (``target`` "repair": the
    worst example of a verified repair) is certified: ``evaluate(inst, hints) -> Evidence``, or ``None``
    with the ``reason`` it cannot be; ``instance(entry)`` names the instance where the ledger entry's
    recorded counterexample does not (single and statistical claims)."""

    claim_id: str
    target: str
    method: str
    evaluate: Callable | None = None
    instance: Callable | None = None
    reason: str = ""


class Certifiers:
    """The certifiers of one paper, by claim id (a decorator per target, as :class:`ClaimSet`)."""

    def __init__(self, paper: str):
        self.paper = paper
        self.by_key: dict[tuple[str, str], Certifier] = {}

    def _register(self, claim_id, target, **fields):
        if not claim_id.startswith(self.paper + "."):
            raise ValueError(f"claim_id={claim_id!r} must be a claim of paper {self.paper!r}")
        if (claim_id, target) in self.by_key:
            raise ValueError(f"claim_id={claim_id!r} has two {target} certifiers")
        self.by_key[(claim_id, target)] = Certifier(claim_id, target, **fields)

    def violation(self, claim_id: str, *, method: str, instance: Callable | None = None):
        """Decorator: ``fn(inst, hints) -> Evidence`` whose :meth:`Evidence.violated` proves the claim false."""
        def register(fn):
            self._register(claim_id, "violation", method=method, evaluate=fn, instance=instance)
            return fn
        return register

    def repair(self, claim_id: str, *, method: str, instance: Callable | None = None):
        """Decorator: ``fn(inst, hints) -> Evidence`` holding strictly at the repair's worst example
        (``instance(entry)``: the named instance of a single claim's repair, as for :meth:`violation`)."""
        def register(fn):
            self._register(claim_id, "repair", method=method, evaluate=fn, instance=instance)
            return fn
        return register

    def cannot(self, claim_id: str, *, reason: str, target: str = "violation"):
        """Declare that ``claim_id`` cannot be certified, and why (printed in the errata)."""
        self._register(claim_id, target, method="", reason=reason)
