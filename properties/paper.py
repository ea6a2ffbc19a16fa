"""A paper as one declared unit: its metadata, its section modules' claim sets, its adapter sets and
its certifier sets.

Each paper package ``properties/<name>/`` declares exactly one ``PAPER = Paper(...)`` in its
``__init__.py``; the registry (:mod:`properties.registry`) finds the package from the ``paper``
column of ``claims.tsv`` and reads everything else from this record, so a paper's name, title,
sections, adapter functions and certificate modules are written once, there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .contract import Adapter, AdapterSet
from .evidence import Certifier, Certifiers
from .toolkit.claims import Claim, ClaimSet
from .toolkit.provenance import Convention, check_convention_choices

__all__ = ["Paper"]

_NAME = re.compile(r"[a-z][a-z0-9_]*")
_ARXIV = re.compile(r"\d{4}\.\d{4,5}")


@dataclass(frozen=True)
class Paper:
    """One paper of the harness.

    Arguments:
        name: the short name: the ``paper`` column of ``claims.tsv``, the prefix of its claim ids and
            the name of its package ``properties/<name>/``.
        title: the paper's title as printed.
        number: its file number in ``shared/papers/`` (``"003"``), as the docs cite it ("paper 003").
        authors: the authors' surnames, in the paper's order.
        year: the year of the arXiv version the spec follows.
        arxiv: the arXiv identifier (``"2309.07418"``).
        sections: the :class:`~properties.toolkit.ClaimSet` of each section module, in the paper's order.
        adapters: the :class:`~properties.contract.AdapterSet` of each module holding this paper's
            functions of the adapter contract.
        experiment: the module running the paper's experiments (``python -m properties experiment
            <name>`` calls its ``main(argv, prog=...)``), or ``""`` when it has none.
        certificates: the :class:`~properties.evidence.Certifiers` (``CERTIFIERS``) of each certificate
            module (``certificates.py``, ``certificates_<topic>.py``), which ``python -m properties
            certify`` runs through the registry; each (claim id, target) is certified by one set only.
        conventions: the paper's table of conventions (:class:`~properties.toolkit.provenance.Convention`),
            one row per choice its statements depend on; every claim takes the conventions it names from
            this table, and the table is rendered on the paper's page.

    Raises:
        ValueError: a field of the wrong form, a claim set of another paper, or a claim naming a
            convention (or a choice of one) the table does not hold.
    """

    name: str
    title: str
    number: str
    authors: tuple[str, ...]
    year: int
    arxiv: str
    sections: tuple[ClaimSet, ...]
    adapters: tuple[AdapterSet, ...] = ()
    experiment: str = ""
    certificates: tuple[Certifiers, ...] = ()
    conventions: tuple[Convention, ...] = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError(f"name={self.name!r} must be a lower-case Python identifier (the package name)")
        if not isinstance(self.title, str) or not self.title.strip():
            raise ValueError(f"title={self.title!r} must be a non-empty string [{self.name}]")
        if not isinstance(self.number, str) or not re.fullmatch(r"\d{3}", self.number):
            raise ValueError(f"number={self.number!r} must be three digits, as the file in shared/papers/ [{self.name}]")
        if (not isinstance(self.authors, tuple) or not self.authors
                or not all(isinstance(a, str) and a.strip() for a in self.authors)):
            raise ValueError(f"authors={self.authors!r} must be a non-empty tuple of names [{self.name}]")
        if not isinstance(self.year, int) or isinstance(self.year, bool) or not 1900 <= self.year <= 2100:
            raise ValueError(f"year={self.year!r} must be an int year [{self.name}]")
        if not isinstance(self.arxiv, str) or not _ARXIV.fullmatch(self.arxiv):
            raise ValueError(f"arxiv={self.arxiv!r} must be an arXiv identifier such as '2309.07418' [{self.name}]")
        if not isinstance(self.sections, tuple) or not self.sections:
            raise ValueError(f"sections={self.sections!r} must be a non-empty tuple of ClaimSets [{self.name}]")
        for i, s in enumerate(self.sections):
            if not isinstance(s, ClaimSet):
                raise ValueError(f"sections[{i}]={s!r} must be a ClaimSet [{self.name}]")
            if s.paper != self.name:
                raise ValueError(f"sections[{i}] is a ClaimSet of paper {s.paper!r}, must be one of {self.name!r}")
        if not isinstance(self.adapters, tuple) or not all(isinstance(a, AdapterSet) for a in self.adapters):
            raise ValueError(f"adapters={self.adapters!r} must be a tuple of AdapterSets [{self.name}]")
        if not isinstance(self.experiment, str) or (self.experiment
                                                     and not self.experiment.startswith(f"properties.{self.name}.")):
            raise ValueError(f"experiment={self.experiment!r} must be a module of properties.{self.name} or ''")
        if not isinstance(self.certificates, tuple) or not all(isinstance(c, Certifiers) for c in self.certificates):
            raise ValueError(f"certificates={self.certificates!r} must be a tuple of Certifiers [{self.name}]")
        for i, c in enumerate(self.certificates):
            if c.paper != self.name:
                raise ValueError(f"certificates[{i}] is a Certifiers of paper {c.paper!r}, must be one of {self.name!r}")
        keys = [key for c in self.certificates for key in c.by_key]
        if len(set(keys)) != len(keys):
            twice = sorted({k for k in keys if keys.count(k) > 1})
            raise ValueError(f"certificates certify {twice} in two sets; each (claim id, target) once [{self.name}]")
        if not isinstance(self.conventions, tuple) or not all(isinstance(c, Convention) for c in self.conventions):
            raise ValueError(f"conventions={self.conventions!r} must be a tuple of Conventions [{self.name}]")
        names = [c.name for c in self.conventions]
        if len(set(names)) != len(names):
            raise ValueError(f"conventions={names!r} must name each convention once [{self.name}]")
        for c in self.claims:
            check_convention_choices(c.id, c.conventions, dict(c.conventions_used), self.conventions)

    def convention(self, name: str) -> Convention:
        """The row ``name`` of the paper's table of conventions."""
        for c in self.conventions:
            if c.name == name:
                return c
        raise ValueError(f"convention name={name!r} must be one of {tuple(c.name for c in self.conventions)} "
                         f"[{self.name}]")

    @property
    def claims(self) -> tuple[Claim, ...]:
        """Every claim of the sections, repairs and alternative readings included (they share their claim's
        id), in declaration order."""
        return tuple(c for s in self.sections for c in s)

    @property
    def certifiers(self) -> dict[tuple[str, str], Certifier]:
        """This paper's certifiers, by (claim id, target), from every declared certificate module."""
        return {key: cert for c in self.certificates for key, cert in c.by_key.items()}

    @property
    def functions(self) -> tuple[Adapter, ...]:
        """This paper's adapter functions, in declaration order."""
        return tuple(a for s in self.adapters for a in s)
