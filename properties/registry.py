"""The claim registry: one entry per claim id of ``claims.tsv`` (docs/development.md#claims-are-data), and the
adapter contract's functions, gathered from the declared units.

``claims.tsv`` (a verbatim copy of ``shared/spec/claims.tsv`` shipped with the package) is the
canonical list of ids, and its ``paper`` column names the papers: each short name is a package
``properties/<name>/`` whose ``__init__`` declares one :class:`~properties.paper.Paper` as ``PAPER``
(its title, section claim sets and adapter sets).  The adapters every paper relies on are the unit
:mod:`properties.shared`.  Nothing registers itself on import and no list of papers is kept here:
this module reads the units, checks that every id is canonical and declared once, and orders claims
as ``claims.tsv`` does.  It is the runners' one door to the papers' content: the certificate runner
takes each paper's certifiers from :func:`certifiers`.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import importlib

from .contract import Adapter
from .evidence import Certifier
from .paper import Paper
from .toolkit.claims import Claim, canonical_ids

__all__ = ["adapters", "canonical_ids", "certifiers", "claims", "load_all", "paper", "paper_names", "papers",
           "reading_of", "select"]


def paper_names() -> tuple[str, ...]:
    """The papers' short names: the ``paper`` column of ``claims.tsv``, in order of first appearance
    (no paper package is imported)."""
    return tuple(dict.fromkeys(row["paper"] for row in canonical_ids().values()))


@functools.cache
def paper(name: str) -> Paper:
    """The unit ``properties.<name>.PAPER`` of the paper ``name`` (imported on first use)."""
    if name not in paper_names():
        raise ValueError(f"paper name={name!r} must be one of {paper_names()} (the paper column of claims.tsv)")
    unit = getattr(importlib.import_module(f"properties.{name}"), "PAPER", None)
    if not isinstance(unit, Paper) or unit.name != name:
        raise ValueError(f"properties.{name} must declare PAPER = Paper(name={name!r}, ...), found {unit!r}")
    return unit


def papers() -> tuple[Paper, ...]:
    """Every paper unit, in the order of ``claims.tsv``."""
    return tuple(paper(name) for name in paper_names())


@functools.cache
def _paper_claims(name: str) -> dict[str, Claim]:
    """The claims of one paper by id, checked against ``claims.tsv``."""
    canonical = canonical_ids()
    found: dict[str, Claim] = {}
    repairs: dict[str, list[Claim]] = {}
    readings: dict[str, list[Claim]] = {}
    for c in paper(name).claims:
        if c.id not in canonical or canonical[c.id]["paper"] != name:
            raise ValueError(f"properties.{name} declares claim {c.id!r}, which is not an id of claims.tsv "
                             f"for paper {name!r}")
        if c.repair or c.alternative:
            (repairs if c.repair else readings).setdefault(c.id, []).append(c)
            continue
        if c.id in found:
            raise ValueError(f"claim {c.id!r} is declared twice ({found[c.id].func_name}, {c.func_name})")
        found[c.id] = c
    for cid, rs in repairs.items():
        if cid not in found:
            raise ValueError(f"properties.{name} declares a repair of {cid!r} but not the claim itself")
        found[cid] = dataclasses.replace(found[cid], repairs=tuple(  # a repair is of the claim's provenance
            dataclasses.replace(r, provenance=r.provenance or found[cid].provenance) for r in rs))
    for cid, rs in readings.items():
        if cid not in found:
            raise ValueError(f"properties.{name} declares an alternative reading of {cid!r} but not the claim itself")
        names = [r.reading for r in rs]
        if len(set(names)) != len(names):
            raise ValueError(f"claim {cid!r} declares two alternative readings of one name: {names}")
        found[cid] = dataclasses.replace(found[cid], readings=tuple(reading_of(found[cid], r) for r in rs))
    return found


def reading_of(primary: Claim, reading: Claim) -> Claim:
    """The declaration ``reading`` (``alternative=True``) as an alternative reading of ``primary``, checked
    against it (``ValueError`` naming the claim otherwise): both name their reading, each reading's
    name is its own, and the provenance is the claim's (a reading that declares none takes the claim's,
    as it takes its source when it names none)."""
    if not primary.reading:
        raise ValueError(f"claim {primary.id!r} declares alternative readings, so its own declaration must name "
                         f"its reading (reading='...')")
    if reading.reading == primary.reading:
        raise ValueError(f"claim {primary.id!r}: the alternative reading {reading.reading!r} has the name of the "
                         f"claim's own reading")
    if reading.provenance and primary.provenance and reading.provenance != primary.provenance:
        raise ValueError(f"claim {primary.id!r}: reading {reading.reading!r} has provenance {reading.provenance!r}, "
                         f"the claim {primary.provenance!r}")
    return dataclasses.replace(reading, provenance=reading.provenance or primary.provenance,
                               source=reading.source or primary.source)


@functools.cache
def _adapters() -> dict[str, Adapter]:
    shared = importlib.import_module("properties.shared")  # imported on use, as the paper packages are
    units = [(f"properties.{p.name}", p.adapters) for p in papers()] + [(shared.__name__, shared.ADAPTERS)]
    ads: dict[str, Adapter] = {}
    for where, sets in units:
        for ad in (a for s in sets for a in s):
            if ad.name in ads:
                raise ValueError(f"adapter {ad.name!r} is declared twice (again in {where})")
            ads[ad.name] = ad
    return ads


def _ordered(names) -> dict[str, Claim]:
    found: dict[str, Claim] = {}
    for name in names:
        found.update(_paper_claims(name))
    return {cid: found[cid] for cid in canonical_ids() if cid in found}


def load_all() -> dict[str, Claim]:
    """Every registered claim by id, in the order of ``claims.tsv``."""
    return _ordered(paper_names())


def claims() -> list[Claim]:
    """All registered claims in the order of ``claims.tsv``."""
    return list(load_all().values())


def adapters() -> dict[str, Adapter]:
    """Every adapter function of the contract by name."""
    return dict(_adapters())


def select(patterns: list[str] | None) -> list[Claim]:
    """Registered claims whose id matches any of the glob ``patterns`` (all when None); only the
    paper packages that hold a matching canonical id are imported."""
    if not patterns:
        return claims()
    matching = {cid for cid in canonical_ids() if any(fnmatch.fnmatchcase(cid, p) for p in patterns)}
    names = [name for name in paper_names() if any(canonical_ids()[cid]["paper"] == name for cid in matching)]
    return [c for c in _ordered(names).values() if c.id in matching]


def certifiers() -> dict[tuple[str, str], Certifier]:
    """Every paper's certifiers (the certificate modules its :class:`~properties.paper.Paper` record
    declares), by (claim id, target)."""
    return {key: cert for p in papers() for key, cert in p.certifiers.items()}
