"""The claim registry: one entry per claim id of ``claims.tsv`` (DESIGN principle 2), and the
adapter contract's functions, gathered from the paper packages.

``claims.tsv`` (a verbatim copy of ``shared/spec/claims.tsv`` shipped with the package) is the
canonical list of ids.  Each paper package ``properties/<paper>/`` exposes ``CLAIMS`` (its
:class:`~properties.toolkit.Claim` entries, collected by the section modules' ClaimSets) and
``ADAPTERS`` (its :class:`~properties.contract.Adapter` entries); ``properties.linear_algebra``
holds the adapters every paper relies on.  Nothing registers itself on import: this module reads
those tuples, checks that every id is canonical and declared once, and orders claims as
``claims.tsv`` does.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import importlib

from .contract import Adapter
from .toolkit.claims import Claim, canonical_ids

__all__ = ["PAPERS", "adapters", "canonical_ids", "claims", "load_all", "select"]

PAPERS = ("softmax_regression", "attention_optimization", "attention_pruning", "attention_kernel_regression")
SHARED_ADAPTERS = ("properties.linear_algebra", "properties.blackbox", "properties.least_squares")


@functools.cache
def _paper_claims(paper: str) -> dict[str, Claim]:
    """The claims of one paper package by id, checked against ``claims.tsv``."""
    canonical = canonical_ids()
    found: dict[str, Claim] = {}
    repairs: dict[str, list[Claim]] = {}
    for c in importlib.import_module(f"properties.{paper}").CLAIMS:
        if c.id not in canonical or canonical[c.id]["paper"] != paper:
            raise ValueError(f"properties.{paper} declares claim {c.id!r}, which is not an id of claims.tsv "
                             f"for paper {paper!r}")
        if c.repair:
            repairs.setdefault(c.id, []).append(c)
            continue
        if c.id in found:
            raise ValueError(f"claim {c.id!r} is declared twice ({found[c.id].func_name}, {c.func_name})")
        found[c.id] = c
    for cid, rs in repairs.items():
        if cid not in found:
            raise ValueError(f"properties.{paper} declares a repair of {cid!r} but not the claim itself")
        found[cid] = dataclasses.replace(found[cid], repairs=tuple(rs))
    return found


@functools.cache
def _adapters() -> dict[str, Adapter]:
    ads: dict[str, Adapter] = {}
    for name in [f"properties.{p}" for p in PAPERS] + list(SHARED_ADAPTERS):
        for ad in importlib.import_module(name).ADAPTERS:
            if ad.name in ads:
                raise ValueError(f"adapter {ad.name!r} is declared twice (again in {name})")
            ads[ad.name] = ad
    return ads


def _ordered(papers) -> dict[str, Claim]:
    found: dict[str, Claim] = {}
    for paper in papers:
        found.update(_paper_claims(paper))
    return {cid: found[cid] for cid in canonical_ids() if cid in found}


def load_all() -> dict[str, Claim]:
    """Every registered claim by id, in the order of ``claims.tsv``."""
    return _ordered(PAPERS)


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
    matching = [cid for cid in canonical_ids() if any(fnmatch.fnmatchcase(cid, p) for p in patterns)]
    papers = [p for p in PAPERS if any(canonical_ids()[cid]["paper"] == p for cid in matching)]
    return [c for c in _ordered(papers).values() if c.id in set(matching)]
