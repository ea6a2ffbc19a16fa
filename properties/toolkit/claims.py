"""Claims as data, and the declarative shapes every paper's claims are written in.

A :class:`Claim` is one entry of the registry (docs/development.md#claims-are-data): id, paper, section, kind (from
``claims.tsv``), the statement as the paper states it, its hypotheses, the verdict the harness
reached after investigation (``expected``: the ledger never reads it, the tests assert that the
search reproduces it) and how it is judged, in exactly one of four modes:

- **search**: ``strategy`` (a thunk returning a Hypothesis strategy of instances meeting the
  hypotheses) and ``check(instance) -> Outcome``; Hypothesis searches adversarially.
- **single**: ``check()`` alone, run once (size sweeps of running-time claims, constructions).
- **statistical**: ``trial(seed) -> Outcome`` and ``delta``; seeded trials judged by a binomial rule.
- **not applicable**: ``not_applicable`` is the reason no instance can be checked.

The mode is a field of the claim (:data:`MODES`), set by :class:`ClaimSet` from the method that
declared it and checked against the fields it needs; it is never inferred from which fields are unset.

A claim found false may carry *repairs*: statements known to be true in its place (the spec's
corrected versions, a norm in which a contraction does hold, a sensible reading).  A repair is
declared with the same id and ``repair=True``; the registry attaches it to its claim
(``Claim.repairs``), so the ids stay exactly those of ``claims.tsv``, and the ledger judges each
repair in the same run as its claim.

What a verdict is about (:mod:`properties.toolkit.provenance`) is declared with the claim, through
options every :class:`ClaimSet` method accepts:

- ``provenance`` (R, R-partial, D, I): where ``claims.tsv`` leaves the column empty; elsewhere it
  must equal the file's value, which every claim carries, or rest on less of the paper's text than the
  file says (R → R-partial, D, I; R-partial → D, I), with a ``source`` saying what is restored: a
  statement printed in the text about objects defined only in a lost display is not the paper's text.
- ``source``: where the statement comes from when it is not the paper's text (the display or proof
  steps a reconstruction rests on, quoted).
- ``basis`` (``statement``, ``proof step``, ``constants``, ``evidence``) and ``basis_note``, required
  unless the basis is the statement: the proof step refuted and why the theorem is not, the constants
  chosen for an O/Θ̃/Ω̃ statement, or the confidence of the evidence.
- ``conventions``: the names of the rows of the paper's table of conventions (``Paper.conventions``)
  the statement depends on; ``conventions_used``: ``{name: choice}``, the alternative a reading judges
  (``"paper"`` or an alternative's name from the table).
- ``reading`` and ``alternative=True``: another reading of the same id, attached by the registry to
  the claim as ``Claim.readings`` (as repairs are) and judged by the ledger in the same run; a claim
  with alternatives names its own reading too.
- ``vacuous_note``: for a claim that holds only under the harness's reading (vacuous or trivially
  true under the paper's definitions), said on its page.
- ``restored=False``: an R-partial claim whose failing part is the paper's own text (a falsification
  of an R-partial claim is otherwise one of a reconstruction).

Claims whose check calls an implementation name the adapter functions in ``uses``; their check takes
the implementation module as its last argument, so the ledger runs them on ``solvers.adapter`` and
``python -m properties validate`` on any other module.

Each section module of a paper package collects its claims in a :class:`ClaimSet`::

    claims = ClaimSet("softmax_regression")
    claims.identity("softmax_regression.fact4.2.p1", "⟨u, v⟩ = ⟨u ∘ v, 1_n⟩",
                    hypotheses="u, v ∈ Rⁿ", instances=vector_triples,
                    sides=lambda u, v, w: (dot(u, v), dot(entrywise(u, v), ones(u.rows))))

The id is written once; the drawn instance is converted to mpmath by the toolkit (float64 arrays
and floats exactly, other values as they are) and the statement becomes the check's docstring.
"""

from __future__ import annotations

import csv
import functools
import importlib.resources
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from mpmath import mp

from oracle import linalg, to_mp

from .judge import eq, float_outcome, le, loewner, slope
from .outcome import Outcome
from .provenance import BASES, PROVENANCES

__all__ = ["MODES", "VERDICTS", "Claim", "ClaimSet", "canonical_ids", "named", "named_instance", "radius", "to_oracle"]

VERDICTS = ("verified", "falsified", "not-applicable", "inconclusive")

MODES = ("search", "single", "statistical", "not-applicable")
"""How a claim is judged (see the module docstring); :attr:`Claim.mode` is one of them."""


@functools.cache
def canonical_ids() -> dict[str, dict[str, str]]:
    """The rows of ``claims.tsv`` by id (id, paper, section, kind, provenance)."""
    text = importlib.resources.files("properties").joinpath("claims.tsv").read_text(encoding="utf-8")
    return {row["id"]: row for row in csv.DictReader(text.splitlines(), delimiter="\t")}


_CANONICAL = canonical_ids()


@dataclass(frozen=True)
class Claim:
    id: str
    paper: str
    section: str
    kind: str
    statement: str
    hypotheses: str
    expected: str
    mode: str
    strategy: Callable[[], Any] | None = None
    check: Callable[..., Outcome] | None = None
    trial: Callable[..., Outcome] | None = None
    delta: float | None = None
    trials: int = 50
    not_applicable: str | None = None
    uses: tuple[str, ...] = ()
    examples: tuple = ()
    max_examples: int | None = None
    notes: str = ""
    func_name: str = field(default="", compare=False)
    repair: bool = False
    repairs: tuple[Claim, ...] = ()
    fields: tuple[str, ...] = ()
    to_statement: Callable[..., dict] | None = None
    provenance: str = ""
    source: str = ""
    basis: str = "statement"
    basis_note: str = ""
    conventions: tuple[str, ...] = ()
    conventions_used: tuple[tuple[str, str], ...] = ()
    reading: str = ""
    alternative: bool = False
    readings: tuple[Claim, ...] = ()
    vacuous_note: str = ""
    restored: bool = True

    def __post_init__(self):
        needs = {"search": ("strategy", "check"), "single": ("check",), "statistical": ("trial", "delta"),
                 "not-applicable": ("not_applicable",)}
        if self.mode not in needs:
            raise ValueError(f"mode={self.mode!r} must be one of {MODES} [{self.id}]")
        missing = [f for f in needs[self.mode] if getattr(self, f) is None]
        if missing:
            raise ValueError(f"a {self.mode} claim needs {', '.join(missing)} [{self.id}]")
        if not (isinstance(self.fields, tuple) and all(isinstance(f, str) and f for f in self.fields)):
            raise ValueError(f"fields={self.fields!r} must be a tuple of non-empty names [{self.id}]")
        if len(set(self.fields)) != len(self.fields):
            raise ValueError(f"fields={self.fields!r} must not repeat a name [{self.id}]")
        self._check_provenance()

    def _check_provenance(self):
        """The fields saying what a verdict is about (:mod:`properties.toolkit.provenance`)."""
        if self.provenance not in PROVENANCES + ("",):
            raise ValueError(f"provenance={self.provenance!r} must be one of {PROVENANCES} [{self.id}]")
        for name in ("source", "basis_note", "reading", "vacuous_note"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name}={getattr(self, name)!r} must be a string [{self.id}]")
        if self.basis not in BASES:
            raise ValueError(f"basis={self.basis!r} must be one of {BASES} [{self.id}]")
        if self.basis != "statement" and not self.basis_note.strip():
            raise ValueError(f"basis={self.basis!r} needs basis_note: the proof step refuted and why the theorem "
                             f"is not, the constants chosen, or the confidence of the evidence [{self.id}]")
        if not (isinstance(self.conventions, tuple) and all(isinstance(n, str) and n for n in self.conventions)
                and len(set(self.conventions)) == len(self.conventions)):
            raise ValueError(f"conventions={self.conventions!r} must be a tuple of distinct convention names "
                             f"[{self.id}]")
        if not (isinstance(self.conventions_used, tuple) and all(
                isinstance(p, tuple) and len(p) == 2 and all(isinstance(s, str) and s for s in p)
                for p in self.conventions_used)):
            raise ValueError(f"conventions_used={self.conventions_used!r} must map convention names to choices "
                             f"[{self.id}]")
        if self.alternative and not self.reading.strip():
            raise ValueError(f"an alternative reading needs reading='its name' [{self.id}]")
        if self.alternative and self.repair:
            raise ValueError(f"a declaration is a repair or an alternative reading, not both [{self.id}]")
        if not self.restored and self.provenance != "R-partial":
            raise ValueError(f"restored=False says an R-partial claim's failing part is the paper's text; "
                             f"this claim's provenance is {self.provenance!r} [{self.id}]")

    def convention_choices(self) -> dict[str, str]:
        """Each convention the statement depends on, mapped to the choice judged (``"paper"`` unless
        ``conventions_used`` picks an alternative)."""
        return {**{name: "paper" for name in self.conventions}, **dict(self.conventions_used)}


_LESS_TEXT = {"R": ("R-partial", "D", "I"), "R-partial": ("D", "I")}
"""For each provenance of ``claims.tsv``, the provenances a declaration may give instead: those resting on
less of the paper's text, never more."""


def named(name: str):
    """Decorator, under ``@claims.check``/``@claims.trial``: give a check that a helper builds the module-level
    ``name`` it stands for, before the claim set records it (``Claim.func_name``)."""
    def rename(fn):
        fn.__name__ = fn.__qualname__ = name
        return fn
    return rename


def named_instance(claim: Claim, instance) -> dict | None:
    """A drawn instance as the statement's objects, by name in the paper's notation.

    ``claim.fields`` names the drawn instance's elements; where the search draws a reparametrisation,
    ``claim.to_statement(*instance)`` maps it back to the statement's objects (a dict by name).  None
    for a claim that declares no fields (single and statistical claims draw no instance)."""
    if instance is None or not (claim.fields or claim.to_statement):
        return None
    parts = instance if isinstance(instance, tuple) else (instance,)
    if claim.to_statement is not None:
        named = claim.to_statement(*parts)
        if not isinstance(named, dict):
            raise ValueError(f"to_statement of {claim.id} must return a dict of the statement's objects")
        return named
    if len(parts) != len(claim.fields):
        raise ValueError(f"claim {claim.id} declares fields {claim.fields} ({len(claim.fields)}) but its "
                         f"instance has {len(parts)} elements")
    return dict(zip(claim.fields, parts))


def to_oracle(value):
    """A drawn value as the oracle takes it: float64 arrays and floats exactly as mpmath numbers,
    tuples element by element, anything else (ints, flags, labels) unchanged."""
    if isinstance(value, tuple):
        return tuple(to_oracle(v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return to_mp(value)
    if isinstance(value, (float, np.floating)):
        return to_mp(float(value))
    return value


def radius(A, *vs):
    """The tightest admissible R of a Lipschitz lemma: max(‖A‖, ‖v‖₂ for each v)."""
    return max([linalg.spectral_norm(A)] + [linalg.norm2(v) for v in vs])


def _args(inst) -> tuple:
    converted = to_oracle(inst)
    return converted if isinstance(converted, tuple) else (converted,)


class ClaimSet:
    """The claims of one module of a paper package, in the order they are declared.

    Every method registers one claim (ids must be ids of ``claims.tsv`` of this set's paper, each
    once) and returns the check function, so a bespoke check can be decorated and still called.
    """

    def __init__(self, paper: str):
        self.paper = paper
        self.claims: list[Claim] = []

    def __iter__(self):
        return iter(self.claims)

    def __len__(self):
        return len(self.claims)

    # -- the generic entry ------------------------------------------------------------------

    def _add(self, claim_id, fn, *, statement, hypotheses="", expected="verified", instances=None,
             trial=False, delta=None, trials=50, not_applicable=None, uses=(), examples=(),
             max_examples=None, notes="", repair=False, fields=(), to_statement=None, provenance=None,
             source="", basis="statement", basis_note="", conventions=(), conventions_used=None, reading="",
             alternative=False, vacuous_note="", restored=True):
        row = _CANONICAL.get(claim_id)
        if row is None:
            raise ValueError(f"claim_id={claim_id!r} must be an id of claims.tsv")
        if row["paper"] != self.paper:
            raise ValueError(f"claim_id={claim_id!r} belongs to paper {row['paper']!r}, not {self.paper!r}")
        if any(c.id == claim_id and c.repair == repair and c.alternative == alternative
               and (not repair or c.statement == statement) and (not alternative or c.reading == reading)
               for c in self.claims):
            raise ValueError(f"claim_id={claim_id!r} is declared twice" + (" with this repair" if repair else "")
                             + (f" with reading {reading!r}" if alternative else ""))
        tsv = row.get("provenance") or ""
        if provenance is not None and tsv and provenance != tsv and (
                provenance not in _LESS_TEXT.get(tsv, ()) or not source.strip()):
            raise ValueError(f"provenance={provenance!r} differs from claims.tsv's {tsv!r} [{claim_id}]: declare "
                             f"provenance where claims.tsv leaves it empty, or one resting on less of the paper's "
                             f"text ({_LESS_TEXT.get(tsv, ())}) with a source saying what is restored")
        if conventions_used is not None and not isinstance(conventions_used, dict):
            raise ValueError(f"conventions_used={conventions_used!r} must be a dict of convention name -> choice "
                             f"[{claim_id}]")
        if expected not in VERDICTS:
            raise ValueError(f"expected={expected!r} must be one of {VERDICTS}")
        if trial and (delta is None or not 0 < delta < 1):
            raise ValueError(f"delta={delta!r} must be in (0, 1) for a statistical claim [{claim_id}]")
        if fn.__doc__ is None:
            fn.__doc__ = f"{claim_id}: {statement}"
        mode = ("not-applicable" if not_applicable is not None else "statistical" if trial
                else "single" if instances is None else "search")
        self.claims.append(Claim(
            id=claim_id, paper=row["paper"], section=row["section"], kind=row["kind"], statement=statement,
            hypotheses=hypotheses, expected=expected, mode=mode, strategy=None if trial else instances,
            check=None if trial or not_applicable is not None else fn, trial=fn if trial else None,
            delta=delta, trials=trials, not_applicable=not_applicable, uses=tuple(uses),
            examples=tuple(examples), max_examples=max_examples, notes=notes,
            func_name=f"{fn.__module__}.{fn.__qualname__}", repair=repair, fields=tuple(fields),
            to_statement=to_statement, provenance=provenance or tsv, source=source, basis=basis,
            basis_note=basis_note, conventions=tuple(conventions),
            conventions_used=tuple((conventions_used or {}).items()), reading=reading, alternative=alternative,
            vacuous_note=vacuous_note, restored=restored,
        ))
        return fn

    def check(self, claim_id: str, statement: str, **options):
        """Decorator: a bespoke check ``fn(instance[, impl]) -> Outcome`` (``fn([impl])`` without
        ``instances``: a single check).  Options as :meth:`identity`, plus ``uses``."""
        return lambda fn: self._add(claim_id, fn, statement=statement, **options)

    def trial(self, claim_id: str, statement: str, *, delta: float, trials: int = 50, **options):
        """Decorator: a statistical claim; ``fn(seed[, impl]) -> Outcome`` is one seeded trial, and
        the claim holds when at most the binomial threshold of ``trials`` trials fail at rate ``delta``."""
        return lambda fn: self._add(claim_id, fn, statement=statement, trial=True, delta=delta, trials=trials,
                                    **options)

    def not_applicable(self, claim_id: str, statement: str, *, reason: str, **options):
        """A claim no instance can check (a cited asymptotic fact, ...), with the reason; options as
        :meth:`check` (``hypotheses``, ``notes``, the provenance options)."""
        self._add(claim_id, lambda: None, statement=statement, expected="not-applicable", not_applicable=reason,
                  **options)

    # -- the common shapes ------------------------------------------------------------------

    def identity(self, claim_id: str, statement: str, *, instances, sides, scale=None, **options):
        """``lhs = rhs``: ``sides(*args) -> (lhs, rhs)`` (numbers or ``mp.matrix``) on the instance
        converted by :func:`to_oracle`; judged by :func:`~properties.toolkit.judge.eq` with the
        precision ladder.  ``scale(*args)`` (optional) is the magnitude the sides cancel from."""

        def check(inst):
            args = _args(inst)
            return eq(lambda: sides(*args), scale=None if scale is None else (lambda: scale(*args)))

        return self._add(claim_id, check, statement=statement, instances=instances, **options)

    def inequality(self, claim_id: str, statement: str, *, instances, sides, scale=None, **options):
        """``measured ≤ bound``: ``sides(*args) -> (measured, bound)``; judged by
        :func:`~properties.toolkit.judge.le` (tightness = measured/bound)."""

        def check(inst):
            args = _args(inst)
            return le(lambda: sides(*args), scale=None if scale is None else (lambda: scale(*args)))

        return self._add(claim_id, check, statement=statement, instances=instances, **options)

    def loewner(self, claim_id: str, statement: str, *, instances, sides, **options):
        """``X ⪯ Y`` for symmetric matrices: ``sides(*args) -> (X, Y)``; judged by
        :func:`~properties.toolkit.judge.loewner` on λ_min(Y − X)."""

        def check(inst):
            pair = _per_precision(lambda: sides(*_args(inst)))
            return loewner(lambda: pair()[0], lambda: pair()[1])

        return self._add(claim_id, check, statement=statement, instances=instances, **options)

    def lipschitz(self, claim_id: str, statement: str, *, instances, value, constant, distance=None, **options):
        """``‖F(x) − F(y)‖ ≤ L·‖x − y‖``.  The instance is ``(*params, x, y)`` (draw it with
        :func:`~properties.toolkit.strategies.lipschitz_pairs`); ``value(*params, z)`` is F at z (a
        number or a matrix; the norm is :func:`oracle.linalg.norm`: Euclidean for columns,
        spectral otherwise), ``constant(*params, x, y)`` is the claimed L (typically a function of
        R = max(‖A‖, ‖x‖, ‖y‖) and β, the hardest admissible values), and ``distance(x, y)``
        defaults to ‖x − y‖₂."""

        def check(inst):
            *params, x, y = _args(inst)

            def sides():
                fx, fy = value(*params, x), value(*params, y)
                gap = abs(fx - fy) if not isinstance(fx, mp.matrix) else linalg.norm(fx - fy)
                dist = linalg.norm2(x - y) if distance is None else distance(x, y)
                return gap, constant(*params, x, y) * dist

            return le(sides)

        return self._add(claim_id, check, statement=statement, instances=instances, **options)

    def running_time(self, claim_id: str, statement: str, *, uses, sizes, count, claimed, slack: float = 0.2,
                     **options):
        """A running-time claim judged on counts, never clocks (docs/development.md#counts-not-clocks): over the size
        sweep ``sizes``, the fitted exponent of ``count(impl, n)`` (operation or FLOP counts that
        the implementation under judgement reports through its adapter functions ``uses``) must
        not exceed that of the claimed form ``claimed(n)`` by more than ``slack``."""

        def check(impl):
            counts = [float(count(impl, n)) for n in sizes]
            got = slope(sizes, counts)
            want = slope(sizes, [float(claimed(n)) for n in sizes])
            return float_outcome(got, want + slack, note=(
                f"fitted exponent {got:.3f} of the counts {counts} over sizes {list(sizes)}; "
                f"claimed form's {want:.3f} (+{slack} allowed)"))

        return self._add(claim_id, check, statement=statement, uses=uses, **options)


def _per_precision(thunk):
    """``thunk`` evaluated once per working precision (the judges call both sides of an order at
    each rung of the ladder; this keeps the oracle from computing them twice)."""
    memo = {}

    def value():
        if mp.prec not in memo:
            memo[mp.prec] = thunk()
        return memo[mp.prec]

    return value
