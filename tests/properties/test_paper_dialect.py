"""Every paper unit in the one form of docs/development.md#paper-unit: section modules named by topic, each
building its ``ClaimSet`` from the paper's name written out; bespoke claims as decorators; certificate
modules (``certificates.py``, ``certificates_<topic>.py``) each with its own ``CERTIFIERS``, every one
declared in the paper's :class:`~properties.paper.Paper` record."""

from __future__ import annotations

import ast
import importlib
import pathlib
import re

import pytest

from properties.evidence import Certifiers
from properties.registry import paper, paper_names
from properties.toolkit import ClaimSet

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _modules(name: str) -> list[pathlib.Path]:
    return sorted((ROOT / "properties" / name).glob("*.py"))


def _calls(tree: ast.AST):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


@pytest.mark.parametrize("name", paper_names())
def test_claim_sets_are_built_from_the_paper_name_written_out(name):
    bad = []
    for path in _modules(name):
        for call in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(call.func, ast.Name) and call.func.id == "ClaimSet":
                arg = call.args[0] if call.args else None
                if not (isinstance(arg, ast.Constant) and arg.value == name):
                    bad.append(f"{path.name}:{call.lineno}: ClaimSet({ast.unparse(arg) if arg else ''})")
    assert not bad, f"build each ClaimSet as ClaimSet({name!r}): {bad}"


@pytest.mark.parametrize("name", paper_names())
def test_no_string_constant_shadows_the_paper_record(name):
    bad = []
    for path in _modules(name):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "PAPER" for t in node.targets)
                    and isinstance(node.value, ast.Constant)):
                bad.append(f"{path.name}:{node.lineno}")
    assert not bad, f"PAPER is the Paper record alone, not a string: {bad}"


@pytest.mark.parametrize("name", paper_names())
def test_bespoke_claims_are_decorators(name):
    """``claims.check(...)(fn)`` and ``claims.trial(...)(fn)`` are written ``@claims.check(...)`` on ``def fn``."""
    bad = []
    for path in _modules(name):
        for call in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            inner = call.func
            if (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                    and inner.func.attr in ("check", "trial") and isinstance(inner.func.value, ast.Name)
                    and inner.func.value.id == "claims"):
                bad.append(f"{path.name}:{call.lineno}")
    assert not bad, f"call-form bespoke claims (use the decorator form): {bad}"


@pytest.mark.parametrize("name", paper_names())
def test_section_modules_are_named_by_topic_and_declared(name):
    unit = paper(name)
    modules = {p.stem: importlib.import_module(f"properties.{name}.{p.stem}") for p in _modules(name)
               if p.stem not in ("__init__", "__main__")}
    sections = {stem: m.claims for stem, m in modules.items() if isinstance(getattr(m, "claims", None), ClaimSet)}
    assert not [s for s in sections if re.match(r"section_|sec\d", s)], f"section modules named by number: {list(sections)}"
    undeclared = [s for s, c in sections.items() if not any(c is d for d in unit.sections)]
    assert not undeclared, f"section modules missing from PAPER.sections: {undeclared}"


@pytest.mark.parametrize("name", paper_names())
def test_every_certificate_module_is_declared_in_the_paper_record(name):
    unit = paper(name)
    holders, misnamed = [], []
    for path in _modules(name):
        if path.stem == "__main__":  # a command line, run only as one
            continue
        module = importlib.import_module(f"properties.{name}.{path.stem}")
        sets = [v for v in vars(module).values() if isinstance(v, Certifiers) and v.paper == name]
        if not sets:
            continue
        if not re.fullmatch(r"certificates(_[a-z]+)*", path.stem) or path.stem.endswith("_common"):
            misnamed.append(path.stem)
        if sets != [module.__dict__.get("CERTIFIERS")]:
            misnamed.append(f"{path.stem}: its set must be named CERTIFIERS, once")
        holders.append(module.CERTIFIERS)
    assert not misnamed, f"certificate modules are certificates.py or certificates_<topic>.py, one CERTIFIERS: {misnamed}"
    assert holders, f"paper {name} has no certificate module"
    assert len(unit.certificates) == len(holders) and all(any(h is c for c in unit.certificates) for h in holders), \
        f"PAPER.certificates must declare each certificate module's CERTIFIERS ({len(holders)} modules)"
