"""The certificate vocabulary: what a paper's certificate module declares and returns.

A paper declares how to certify its claims in ``properties/<paper>/certificates.py``, a
:class:`Certifiers` named ``CERTIFIERS``::

    CERTIFIERS = Certifiers("softmax_regression")

    @CERTIFIERS.violation("softmax_regression.fact4.4.p1", method="ball evaluation, witness vector")
    def _(inst, hints):      # inst: the statement's objects, exact (fmpq, fmpq_mat, bool, int, str)
        ...
        return Evidence("≤", measured=..., bound=..., what="‖U‖₂ vs α‖V‖₂", premises=[...])

    CERTIFIERS.cannot("attention_pruning.emp.n_growth", reason="...")

A claim with alternative readings (``Claim.readings``, docs/development.md#verdicts) has one certifier per
falsified reading, declared by the reading's name::

    @CERTIFIERS.violation("attention_optimization.lem7.4", reading="no ½", method="...")
    def _(inst, hints): ...

    CERTIFIERS.cannot("softmax_regression.thm9.1.iters", reading="natural log", reason="...")

It is registered under its own key, :func:`certifier_key` (``(claim id, "violation:<reading>")``; the
claim's own reading keeps ``(claim id, "violation")``), takes the instance the ledger recorded for that
reading, and its certificate is written to :func:`certificate_file_name`
(``<id>.reading-<slug>.violation.json``, the slug the reading's name in ASCII, :func:`reading_slug`).

Each certifier returns :class:`Evidence` (two ``arb`` enclosures and the relation the statement
asserts between them) whose premises are :class:`Fact` records (decided exactly) or further
:class:`Evidence`.  The runner that evaluates certifiers at rising precision, writes certificates
and re-checks them is :mod:`properties.certify`; this module imports nothing of the harness, so a
paper's certificates never import a runner.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from flint import arb

__all__ = ["RELATIONS", "Certifier", "Certifiers", "Evidence", "Fact", "certificate_file_name", "certifier_key",
           "premises_hold", "reading_slug"]

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


def reading_slug(reading: str) -> str:
    """The name of an alternative reading in ASCII, for a file name: decomposed (NFKD), lower case, each run
    of other characters one hyphen ("no ½" → "no-1-2", "b ∈ Rⁿ as printed (n = d)" → "b-rn-as-printed-n-d").

    Raises:
        ValueError: a name with no letter or digit in ASCII."""
    decomposed = "".join(ch for ch in unicodedata.normalize("NFKD", reading).lower() if not unicodedata.combining(ch))
    slug = re.sub(r"[^a-z0-9]+", "-", decomposed).strip("-")
    if not slug:
        raise ValueError(f"reading={reading!r} must have a letter or digit in ASCII to name its certificate file")
    return slug


def certifier_key(claim_id: str, target: str, reading: str = "") -> tuple[str, str]:
    """The key of a certifier and of its certificate: ``(claim id, target)`` for the claim's own reading,
    ``(claim id, "violation:<reading>")`` for the alternative reading named ``reading``."""
    return (claim_id, f"{target}:{reading}" if reading else target)


def certificate_file_name(claim_id: str, target: str, reading: str = "") -> str:
    """The file of a certificate: ``<id>.<target>.json``, or ``<id>.reading-<slug>.violation.json`` for the
    alternative reading named ``reading`` (:func:`reading_slug`)."""
    return f"{claim_id}.reading-{reading_slug(reading)}.{target}.json" if reading else f"{claim_id}.{target}.json"


@dataclass(frozen=True)
class Certifier:
    """How one claim (``target`` "violation": a falsified claim) or one repair (``target`` "repair": the
    worst example of a verified repair) is certified: ``evaluate(inst, hints) -> Evidence``, or ``None``
    with the ``reason`` it cannot be; ``instance(entry)`` names the instance where the ledger entry's
    recorded counterexample does not (single and statistical claims).  ``reading``: the alternative reading
    whose falsification it proves ("" for the claim's own reading)."""

    claim_id: str
    target: str
    method: str
    evaluate: Callable | None = None
    instance: Callable | None = None
    reason: str = ""
    reading: str = ""


class Certifiers:
    """The certifiers of one paper, by claim id (a decorator per target, as :class:`ClaimSet`)."""

    def __init__(self, paper: str):
        self.paper = paper
        self.by_key: dict[tuple[str, str], Certifier] = {}

    def _register(self, claim_id, target, reading="", **fields):
        if not claim_id.startswith(self.paper + "."):
            raise ValueError(f"claim_id={claim_id!r} must be a claim of paper {self.paper!r}")
        if reading and target != "violation":
            raise ValueError(f"reading={reading!r}: an alternative reading is certified falsified (target "
                             f"'violation'), not {target!r} [{claim_id}]")
        key = certifier_key(claim_id, target, reading)
        if key in self.by_key:
            raise ValueError(f"claim_id={claim_id!r} has two {target} certifiers"
                             + (f" of reading {reading!r}" if reading else ""))
        if reading and any(c.claim_id == claim_id and c.reading and reading_slug(c.reading) == reading_slug(reading)
                           for c in self.by_key.values()):
            raise ValueError(f"reading={reading!r} has the file name of another reading of {claim_id} "
                             f"({reading_slug(reading)!r})")
        self.by_key[key] = Certifier(claim_id, target, reading=reading, **fields)

    def violation(self, claim_id: str, *, method: str, instance: Callable | None = None, reading: str = ""):
        """Decorator: ``fn(inst, hints) -> Evidence`` whose :meth:`Evidence.violated` proves the claim false
        (``reading``: the alternative reading of that name, at the instance the ledger recorded for it)."""
        def register(fn):
            self._register(claim_id, "violation", reading, method=method, evaluate=fn, instance=instance)
            return fn
        return register

    def repair(self, claim_id: str, *, method: str, instance: Callable | None = None):
        """Decorator: ``fn(inst, hints) -> Evidence`` holding strictly at the repair's worst example
        (``instance(entry)``: the named instance of a single claim's repair, as for :meth:`violation`)."""
        def register(fn):
            self._register(claim_id, "repair", method=method, evaluate=fn, instance=instance)
            return fn
        return register

    def cannot(self, claim_id: str, *, reason: str, target: str = "violation", reading: str = ""):
        """Declare that ``claim_id`` (its alternative reading ``reading``) cannot be certified, and why
        (printed in the errata)."""
        self._register(claim_id, target, reading, method="", reason=reason)
