"""What a verdict is about: a claim's provenance, the basis of its judgement, the conventions and
readings it is judged under, and the strength of a falsification (docs/development.md#verdicts).

- **Provenance** (:data:`PROVENANCES`, the ``provenance`` column of ``claims.tsv``): ``R`` the paper's
  text; ``R-partial`` partly the text, partly restored; ``D`` a display the text lost, reconstructed
  from the proof's steps (``spec/``); ``I`` inferred (the paper never writes it as a statement).
- **Basis** (:data:`BASES`): what a falsification of the claim bears on: the ``statement`` itself, a
  ``proof step`` (an adversarial choice where the theorem quantifies over an algorithm's randomness, a
  lemma the theorem does not need as stated), the ``constants`` the harness chose for an O/Θ̃/Ω̃
  statement, or ``evidence`` (a finite fit or a statistical test, not a proof).
- **Conventions** (:class:`Convention`): one table per paper (``Paper.conventions``) of the choices a
  statement depends on (σ_min, κ, norms, the pseudo-inverse, the ½ in losses, division by zero, what a
  probability quantifies over, the constants of asymptotic statements): the paper's own definition
  where it gives one, and the other plausible readings by name.  A claim names the conventions its
  statement depends on; a reading picks, by name, the alternative it judges.
- **Readings**: a claim whose statement admits several readings declares each (``alternative=True``,
  with a ``reading`` name); the ledger judges every one.
- **Strength** (:data:`STRENGTHS`, :func:`strength`): computed from the above and the verdicts, never
  written by hand.  Only ``as written`` is an error of the paper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["AS_WRITTEN", "BASES", "DECLARED_FIELDS", "NOT_JUDGED", "PAPER_CONVENTION", "PROVENANCES",
           "PROVENANCE_WORDS", "STRENGTHS", "STRENGTH_WORDS", "Convention", "annotate", "check_convention_choices",
           "declared", "strength", "with_strengths"]

PROVENANCES = ("R", "R-partial", "D", "I")
"""Where a claim's statement comes from: the paper's text, partly restored, a reconstructed display, inferred."""

PROVENANCE_WORDS = {
    "R": "the paper's text",
    "R-partial": "partly the paper's text, partly restored",
    "D": "a display the paper's text lost, reconstructed",
    "I": "inferred: the paper never writes it as a statement",
}
"""Each provenance in words, as the reports and the docs print it."""

BASES = ("statement", "proof step", "constants", "evidence")
"""What a falsification of a claim bears on."""

AS_WRITTEN = "as written"

STRENGTHS = (AS_WRITTEN, "reading", "reconstruction", "proof step", "constants", "evidence")
"""The strength of a falsification, strongest first; only ``as written`` is an error of the paper."""

STRENGTH_WORDS = {
    AS_WRITTEN: "an error of the paper: the statement as written, with its own definitions, fails under every "
                "declared reading",
    "reading": "fails under some readings of a statement that admits several (a convention the paper leaves "
               "open or defines otherwise, a typo-corrected form), not under all of them: an ambiguity, not an "
               "error",
    "reconstruction": "refutes a reconstruction of a display the paper's text lost, not the paper's words",
    "proof step": "refutes a step of the proof; the theorem itself is not refuted",
    "constants": "refutes the constants the harness chose for an asymptotic statement, not the statement",
    "evidence": "evidence from a finite fit or a statistical test, not a proof",
}
"""How each strength is worded wherever falsifications are reported."""

PAPER_CONVENTION = "paper"
"""The value of a convention choice meaning the paper's own definition (the harness's default where the
paper fixes none)."""

_NAME = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Convention:
    """One row of a paper's table of conventions.

    Arguments:
        name: the key claims name it by (``"sigma_min"``, ``"kappa"``, ``"pinv"``, ``"loss_half"``,
            ``"division_by_zero"``, ``"probability"``, ``"norms"``, ``"constants"``, ...).
        paper: the paper's own definition, quoted, with where it stands (``"Def A.1: σ_min(A) =
            min_{‖x‖₂=1} ‖Ax‖₂"``), or ``"not fixed by the paper"``.
        harness: what the harness uses by default where the paper fixes nothing ("" where it does).
        alternatives: the other plausible readings, as ``(name, meaning)`` pairs; a claim's reading
            selects one by its name.

    Raises:
        ValueError: a field of the wrong form.
    """

    name: str
    paper: str
    harness: str = ""
    alternatives: tuple[tuple[str, str], ...] = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError(f"name={self.name!r} must be a lower-case identifier such as 'sigma_min'")
        for field_name in ("paper", "harness"):
            value = getattr(self, field_name)
            if not isinstance(value, str):
                raise ValueError(f"{field_name}={value!r} must be a string [convention {self.name}]")
        if not self.paper.strip():
            raise ValueError(f"paper={self.paper!r} must quote the paper's definition or say "
                             f"'not fixed by the paper' [convention {self.name}]")
        if not isinstance(self.alternatives, tuple) or not all(
                isinstance(a, tuple) and len(a) == 2 and all(isinstance(s, str) and s.strip() for s in a)
                for a in self.alternatives):
            raise ValueError(f"alternatives={self.alternatives!r} must be a tuple of (name, meaning) string pairs "
                             f"[convention {self.name}]")
        names = [a[0] for a in self.alternatives]
        if len(set(names)) != len(names) or PAPER_CONVENTION in names:
            raise ValueError(f"alternatives={names!r} must have distinct names other than {PAPER_CONVENTION!r} "
                             f"[convention {self.name}]")

    @property
    def choices(self) -> tuple[str, ...]:
        """The values a claim's reading may pick: ``"paper"`` and each alternative's name."""
        return (PAPER_CONVENTION,) + tuple(a[0] for a in self.alternatives)

    @property
    def fixed(self) -> bool:
        """Whether the paper fixes this convention (its ``paper`` field does not begin "not fixed by the
        paper"); where it does not, the choice ``"paper"`` is the harness's default, :attr:`harness`."""
        return not self.paper.startswith("not fixed by the paper")


def check_convention_choices(claim_id: str, conventions, used: dict[str, str], table) -> None:
    """Raise ``ValueError`` naming ``claim_id`` unless every convention the claim names (``conventions``
    and the keys of ``used``) is a row of its paper's ``table`` (a tuple of :class:`Convention`) and
    every value of ``used`` is ``"paper"`` or an alternative of that row."""
    rows = {c.name: c for c in table}
    for name in (*conventions, *used):
        if name not in rows:
            raise ValueError(f"claim {claim_id} names convention {name!r}, which is not in its paper's table "
                             f"of conventions {tuple(rows)}")
    for name, choice in used.items():
        if choice not in rows[name].choices:
            raise ValueError(f"claim {claim_id} reads convention {name!r} as {choice!r}, which must be one of "
                             f"{rows[name].choices}")


def strength(claim, verdict: str, reading_verdicts=()) -> str | None:
    """The strength of a falsification of ``claim`` (one of :data:`STRENGTHS`), or None unless ``verdict``
    is ``"falsified"``.

    ``claim`` is the declaration judged (the primary statement or one of its readings);
    ``reading_verdicts`` are the verdicts of the claim's other declared readings (for a reading: the
    primary's and the other readings').  The first rule that applies decides:

    1. a basis other than ``statement`` (``proof step``, ``constants``, ``evidence``) is the strength;
    2. provenance ``D`` or ``I``, or ``R-partial`` whose failing part is restored text
       (``claim.restored``), is ``reconstruction``;
    3. another declared reading not falsified (verified, or undecided: then not every reading fails), or
       this one judging a convention other than the paper's own, is ``reading``;
    4. otherwise (every declared reading falsified) ``as written``.

    Raises:
        ValueError: a falsified claim without a provenance.
    """
    if verdict != "falsified":
        return None
    if claim.provenance not in PROVENANCES:
        raise ValueError(f"claim {claim.id} has provenance={claim.provenance!r}: the strength of its falsification "
                         f"needs one of {PROVENANCES}")
    if claim.basis != "statement":
        return claim.basis
    if claim.provenance in ("D", "I") or (claim.provenance == "R-partial" and claim.restored):
        return "reconstruction"
    if any(v != "falsified" for v in reading_verdicts) or any(
            choice != PAPER_CONVENTION for _, choice in claim.conventions_used):
        return "reading"
    return AS_WRITTEN


# -- the ledger entry's fields saying what its verdict is about ---------------------------------------

DECLARED_FIELDS = ("reading", "provenance", "source", "basis", "basis_note", "conventions")
"""The fields of a ledger entry (and of each of its readings) taken from the claim's declaration."""

NOT_JUDGED = "not judged in this ledger: it was written before the reading was declared"
"""The reason of a reading a ledger lacks (:func:`annotate`): its verdict is ``inconclusive``."""


def declared(claim) -> dict:
    """The fields of :data:`DECLARED_FIELDS` of ``claim`` (a primary declaration or a reading), as a ledger
    entry records them (``conventions``: each convention the statement depends on and the choice judged)."""
    return {"reading": claim.reading, "provenance": claim.provenance, "source": claim.source,
            "basis": claim.basis, "basis_note": claim.basis_note, "conventions": claim.convention_choices()}


def with_strengths(claim, entry: dict) -> dict:
    """``entry`` (a ledger entry of ``claim`` whose ``readings`` are judged in the order of
    ``claim.readings``) with the ``strength`` of its verdict and of each reading's (:func:`strength`:
    each reading's siblings are the claim's own reading and the other alternatives)."""
    readings = list(entry.get("readings") or ())
    if len(readings) != len(claim.readings):
        raise ValueError(f"entry of claim {claim.id} has {len(readings)} readings, the claim declares "
                         f"{len(claim.readings)}")
    verdicts = [entry["verdict"]] + [r["verdict"] for r in readings]
    out = {**entry, "strength": strength(claim, entry["verdict"], verdicts[1:]), "readings": [
        {**r, "strength": strength(decl, r["verdict"], verdicts[:i + 1] + verdicts[i + 2:])}
        for i, (decl, r) in enumerate(zip(claim.readings, readings))]}
    return out


def annotate(entry: dict, claim) -> dict:
    """A ledger entry of ``claim`` with what its verdict is about, as the claim declares it now: the
    fields of :data:`DECLARED_FIELDS` come from the declaration (a ledger written before them lacks
    them), a declared reading the entry lacks is listed ``inconclusive`` with the reason
    :data:`NOT_JUDGED` (so the claim is not counted ``as written``), a judged reading the claim no
    longer declares is dropped, and the strengths are computed (:func:`with_strengths`).  The
    verdicts, examples and counterexamples are the entry's."""
    judged = {r.get("reading"): r for r in entry.get("readings") or ()}
    readings = [{**judged[r.reading], **declared(r)} if r.reading in judged else
                {"id": claim.id, "statement": r.statement, "verdict": "inconclusive", "reason": NOT_JUDGED,
                 **declared(r)} for r in claim.readings]
    return with_strengths(claim, {**entry, **declared(claim), "readings": readings})
