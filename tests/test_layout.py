"""The layout rules of docs/development.md ("Layout" and "Principles"), checked on the source tree.

- No import cycle inside ``properties/``, ``oracle/`` or ``solvers/`` (import statements wherever they
  stand in a module, and string imports: ``importlib.import_module``, ``find_spec`` and ``__import__``
  of a name a reader can resolve, resolved to project modules).
- Layers: :data:`LAYERS` places every module of ``properties/``; each import goes to a lower tier or
  stays inside its unit, and above the registry no module imports a paper's content or the shared unit.
- One exception root: every exception class of ``properties/`` derives from ``HarnessError``
  (``properties/errors.py`` draws the tree and names the two outside it).
- Independence (docs/development.md#independence): ``oracle`` imports neither ``solvers``, ``properties`` nor JAX;
  ``solvers`` imports neither ``oracle`` nor ``properties``; ``properties`` imports ``solvers`` only
  where the adapter contract names the project's own implementation (``solvers.adapter``) as the default.
- Nothing in ``properties`` imports the validator but its front ends (the command line, the pytest suite).
- No module imports another module's private names (``from m import _x``, ``m._x``).
- Every public module says its surface in ``__all__`` and the surface is what ``__all__`` says (as
  Hypothesis checks its own exports): each name in ``__all__`` exists, and each public function or
  class defined in the module is listed (claim check functions excepted: the registry reaches them
  through the module's ClaimSet).
- Modules fit in one reading: at most about 600 lines.
- One home per oracle name: a public name of an oracle module (in its ``__all__``) is defined in one
  oracle module only (``walsh_hadamard`` is not ``entrywise``); only the package ``oracle`` re-exports,
  and what it re-exports is that one definition, public in its home module.
- Every claim id of ``properties/claims.tsv`` is written in full, as a string literal, somewhere in
  ``properties/`` (where it is declared), so that searching for an id finds its declaration.
- No module keeps paper knowledge by hand: outside the paper packages ``properties/<paper>/``, no
  string in ``properties/`` names a paper or one of its claims (the registry discovers the papers from
  claims.tsv), and each paper package exports exactly its unit, ``PAPER``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("oracle", "solvers", "properties")
MAX_LINES = 650  # "about 600"


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if _is_package(module) else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


_IMPORTERS = ("import_module", "find_spec", "__import__")
"""Functions that import the module named by their first argument (``importlib.import_module``,
``importlib.util.find_spec``, which imports the parent packages, and ``__import__``)."""


def _string_values(tree: ast.AST) -> tuple[dict[str, list[str]], dict[str, list[ast.expr]]]:
    """(the string values of each name bound to a dict literal, the string expressions bound to each name)."""
    dicts: dict[str, list[str]] = {}
    strings: dict[str, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if not isinstance(target, ast.Name):
                    continue
                if isinstance(node.value, ast.Dict):
                    dicts[target.id] = [v.value for v in node.value.values
                                        if isinstance(v, ast.Constant) and isinstance(v.value, str)]
                elif isinstance(node.value, (ast.Constant, ast.JoinedStr)):
                    strings.setdefault(target.id, []).append(node.value)
    return dicts, strings


def _module_names(expr: ast.expr, dicts: dict, strings: dict, depth: int = 0) -> list[str]:
    """The module names a string expression may evaluate to: a literal; an f-string, each placeholder
    standing for every value of the dict literal it indexes, or else for every paper's name (so
    ``f"properties.{name}"`` imports every paper package); a name bound to either."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value]
    if isinstance(expr, ast.JoinedStr):
        names = [""]
        for part in expr.values:
            if isinstance(part, ast.Constant):
                names = [n + str(part.value) for n in names]
                continue
            v = part.value
            fills = (dicts[v.value.id] if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name)
                     and v.value.id in dicts else PAPER_NAMES)
            names = [n + fill for n in names for fill in fills]
        return names
    if isinstance(expr, ast.Name) and depth < 3:
        return [n for e in strings.get(expr.id, ()) for n in _module_names(e, dicts, strings, depth + 1)]
    return []


def _imports(module: str, source: str | None = None) -> list[tuple[str, list[str]]]:
    """(imported module, names imported from it) for every import of ``module`` (its file, or
    ``source``): import statements wherever they stand (in functions too) and string imports
    (:data:`_IMPORTERS` called on a string a reader can resolve: :func:`_module_names`; a module chosen
    at run time, ``import_module(impl)``, is the caller's)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8") if source is None else source)
    dicts, strings = _string_values(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((a.name, []) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.append((_resolve(module, node), [a.name for a in node.names]))
        elif isinstance(node, ast.Call) and node.args and (
                getattr(node.func, "attr", None) in _IMPORTERS or getattr(node.func, "id", None) in _IMPORTERS):
            out.extend((name, []) for name in _module_names(node.args[0], dicts, strings))
    return out


def test_string_imports_are_followed():
    """The forms of string import the code uses, each resolved as the cycle and layer tests need."""
    source = "\n".join([
        "import importlib, importlib.util",
        "_HOMES = {'Claim': 'toolkit', 'claims': 'registry'}",
        "def f(name, impl):",
        "    importlib.import_module('properties.shared')",
        "    importlib.import_module(f'properties.{name}')",
        "    module = f'properties.{name}.certificates'",
        "    importlib.util.find_spec(module)",
        "    __import__('oracle.linalg')",
        "    importlib.import_module(f'properties.{_HOMES[name]}')",
        "    importlib.import_module(impl)",
        "    from .ledgerfile import jsonable"])
    got = {target for target, _ in _imports("properties.registry", source)}
    papers = {f"properties.{p}" for p in PAPER_NAMES}
    assert got == ({"importlib", "importlib.util", "properties.shared", "oracle.linalg", "properties.toolkit",
                    "properties.registry", "properties.ledgerfile"} | papers
                   | {f"{p}.certificates" for p in papers}), sorted(got)


GENERATED = ("properties.build_info",)
"""Project modules that exist only in a built package (setup.py writes the record of the commit)."""


def _edges(module: str) -> set[str]:
    """Project modules ``module`` imports (a ``from pkg import sub`` counts as pkg.sub)."""
    edges = set()
    for target, names in _imports(module):
        subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in MODULES or f"{target}.{n}" in GENERATED]
        if subs:
            edges.update(subs)
        if target in MODULES and (not names or len(subs) < len(names)):
            edges.add(target)
    edges.discard(module)
    return edges


def _cycles(prefix: str) -> list[list[str]]:
    graph = {m: {e for e in _edges(m) if e.split(".")[0] == prefix} for m in MODULES if m.split(".")[0] == prefix}
    cycles, state = [], {}

    def visit(m, stack):
        state[m] = "open"
        for e in sorted(graph.get(m, ())):
            if state.get(e) == "open":
                cycles.append(stack[stack.index(e):] + [e] if e in stack else [m, e])
            elif e not in state:
                visit(e, stack + [e])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return cycles


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle(package):
    cycles = _cycles(package)
    assert not cycles, f"import cycles in {package}/: {cycles}"


def _top_imports(module: str) -> set[str]:
    return {target.split(".")[0] for target, _ in _imports(module)}


def test_oracle_imports_neither_solvers_nor_properties_nor_jax():
    bad = {m: _top_imports(m) & {"solvers", "properties", "jax", "jaxlib"} for m in MODULES if m.startswith("oracle")}
    assert not {m: b for m, b in bad.items() if b}, f"oracle modules import {bad}"


def test_solvers_import_neither_oracle_nor_properties():
    bad = {m: _top_imports(m) & {"oracle", "properties"} for m in MODULES if m.startswith("solvers")}
    assert not {m: b for m, b in bad.items() if b}, f"solvers modules import {bad}"


def test_properties_import_solvers_only_for_the_default_implementation():
    users = {}
    for m in MODULES:
        if m.startswith("properties"):
            targets = [t for t, _ in _imports(m) if t.split(".")[0] == "solvers"]
            if targets:
                users[m] = targets
    assert set(users) <= {"properties.contract"}, f"properties modules importing solvers: {users}"
    assert all(t == ["solvers.adapter"] for t in users.values()), users


def test_nothing_in_properties_imports_the_validator():
    users = [m for m in MODULES if m.startswith("properties") and "properties.validate" in _edges(m)]
    front_ends = {"properties.__main__", "properties.suite.test_implementation"}  # the command line, the pytest suite
    assert set(users) <= front_ends, f"modules importing properties.validate: {users}"


def _private_uses(module: str) -> list[str]:
    """``from project_module import _x`` and ``alias._x`` where alias is bound by a project import."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    bad, aliases = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(module, node)
            if target.split(".")[0] in PACKAGES:
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        bad.append(f"from {target} import {a.name}")
                    aliases.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in PACKAGES:
                    aliases.add(a.asname or a.name.split(".")[0])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            bad.append(f"{node.value.id}.{node.attr}")
    return bad


def test_no_module_uses_another_modules_private_names():
    bad = {m: u for m in MODULES if (u := _private_uses(m))}
    assert not bad, f"private names used across modules: {bad}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_fits_in_one_reading(module):
    n = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{module} has {n} lines, should be at most about 600"


def _public_modules():
    return sorted(m for m in MODULES if not any(p.startswith("_") for p in m.split(".")[1:]))


def _claim_checks() -> set[str]:
    """Qualified names of the registered claims' check functions: reached through the registry
    (each paper unit's ``sections``), not imported by name, so a claim module need not list them in ``__all__``."""
    from properties.registry import load_all

    return {d.func_name for c in load_all().values() for d in (c, *c.repairs, *c.readings)}


@pytest.mark.parametrize("module", _public_modules())
def test_public_surface_is_all(module):
    checks = _claim_checks() if module.startswith("properties.") else set()
    mod = importlib.import_module(module)
    assert hasattr(mod, "__all__"), f"{module} has no __all__"
    missing = [n for n in mod.__all__ if not hasattr(mod, n)]
    assert not missing, f"{module}.__all__ lists names it does not define: {missing}"
    defined = {n for n, v in vars(mod).items()
               if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v))
               and getattr(v, "__module__", None) == module and f"{module}.{v.__qualname__}" not in checks}
    unlisted = sorted(defined - set(mod.__all__))
    assert not unlisted, f"{module} defines public {unlisted} not in __all__ (make them private or list them)"


def _top_level_names(module: str) -> set[str]:
    """Names a module defines at its top level (def, class, assignment), not the ones it imports."""
    names = set()
    for node in ast.parse(MODULES[module].read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_each_public_oracle_name_has_one_home():
    homes: dict[str, list[str]] = {}
    reexports = []
    for module in sorted(m for m in MODULES if m == "oracle" or m.startswith("oracle.")):
        mod = importlib.import_module(module)
        defined = _top_level_names(module)
        for name in mod.__all__:
            if inspect.ismodule(getattr(mod, name)):
                continue
            if name in defined:
                homes.setdefault(name, []).append(module)
            else:
                reexports.append((module, name))
    # oracle.ball evaluates the primitives of oracle.linalg in rigorous balls: a twin of the same
    # name, one home per arithmetic, whose docstring names the mpmath primitive it mirrors
    for name, where in homes.items():
        if where == ["oracle.ball", "oracle.linalg"]:
            doc = getattr(importlib.import_module("oracle.ball"), name).__doc__ or ""
            assert f"oracle.linalg.{name}" in doc, f"oracle.ball.{name} must name the primitive it mirrors"
    shared = {name: where for name, where in homes.items() if len(where) > 1 and where != ["oracle.ball", "oracle.linalg"]}
    assert not shared, f"public oracle names defined in several modules (give each one home): {shared}"
    for module, name in reexports:
        assert module == "oracle", f"{module} re-exports {name} in __all__: only the package oracle re-exports"
        home = homes.get(name, [None])[0]
        assert home is not None, f"oracle re-exports {name}, which no oracle module defines publicly"
        got, want = getattr(importlib.import_module(module), name), getattr(importlib.import_module(home), name)
        assert got is want, f"oracle.{name} is not {home}.{name}"


def _string_literals(path: pathlib.Path) -> set[str]:
    """Every string constant of a module (f-string pieces included)."""
    return {node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def _canonical_rows() -> list[dict]:
    import csv

    text = (ROOT / "properties" / "claims.tsv").read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines(), delimiter="\t"))


PAPER_NAMES = tuple(dict.fromkeys(row["paper"] for row in _canonical_rows()))


def test_every_claim_id_is_written_in_full():
    literals = set().union(*(_string_literals(path) for m, path in MODULES.items() if m.startswith("properties")))
    missing = [row["id"] for row in _canonical_rows() if row["id"] not in literals]
    assert not missing, f"{len(missing)} claim ids of claims.tsv are never written in full in properties/: {missing}"


def test_no_paper_list_kept_by_hand():
    """Outside ``properties/<paper>/``, no string literal of ``properties/`` is a paper's short name or
    starts with one (a claim id or pattern): the papers are found from claims.tsv, each declared once."""
    found = {}
    for m, path in MODULES.items():
        parts = m.split(".")
        if parts[0] != "properties" or (len(parts) > 1 and parts[1] in PAPER_NAMES):
            continue
        named = sorted(s for s in _string_literals(path) if any(s == p or s.startswith(p + ".") for p in PAPER_NAMES))
        if named:
            found[m] = named
    assert not found, f"modules naming papers outside their packages: {found}"


@pytest.mark.parametrize("name", PAPER_NAMES)
def test_paper_package_exports_its_unit_only(name):
    mod = importlib.import_module(f"properties.{name}")
    assert list(mod.__all__) == ["PAPER"], f"properties.{name}.__all__ = {mod.__all__}, should be ['PAPER']"


EXCEPTIONS_OUTSIDE_THE_ROOT = {"properties.worker.NotPlain": ValueError}
"""Exception classes of ``properties/`` that do not derive from ``HarnessError``, with the builtin class
they derive from instead: the worker runs in the child process from its file path and imports nothing of
the harness (``properties/errors.py`` says so)."""


def _exception_classes() -> dict[str, type]:
    """Every exception class defined at the top level of a module of ``properties/``, by qualified name
    (the command lines ``__main__`` run when imported: the AST test below covers them)."""
    found = {}
    for m in MODULES:
        if m.split(".")[0] != "properties" or m.endswith("__main__"):
            continue
        for name, value in vars(importlib.import_module(m)).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == m:
                found[f"{m}.{name}"] = value
    return found


def test_every_exception_of_the_harness_derives_from_harness_error():
    """One root (``properties/errors.py``'s docstring draws the tree): each exception class is a
    ``HarnessError``, and an ``Exception`` too unless it must pass ``except Exception`` (``AdapterAbort``
    and its subclasses, the engine's ``_Stop``); the documented exceptions keep their builtin base."""
    from properties.engine import _Stop  # the one private signal the errors docstring names
    from properties.errors import AdapterAbort, HarnessError

    classes = _exception_classes()
    assert len(classes) >= 10, sorted(classes)  # the scan found the harness's exceptions
    for name, cls in classes.items():
        if name in EXCEPTIONS_OUTSIDE_THE_ROOT:
            assert issubclass(cls, EXCEPTIONS_OUTSIDE_THE_ROOT[name]) and not issubclass(cls, HarnessError), name
            continue
        assert issubclass(cls, HarnessError), f"{name} does not derive from properties.errors.HarnessError"
        assert cls is HarnessError or issubclass(cls, Exception) != issubclass(cls, (AdapterAbort, _Stop)), (
            f"{name}: an Exception exactly when it is neither an AdapterAbort nor the engine's _Stop")
    doc = importlib.import_module("properties.errors").__doc__
    undocumented = sorted(n for n in classes if n.rsplit(".", 1)[1] not in doc)
    assert not undocumented, f"properties/errors.py's docstring does not name {undocumented}"


def test_no_exception_class_escapes_the_scan():
    """The scan above imports modules and sees top-level classes: an exception class defined in a function,
    or in a command line ``__main__``, would escape it."""
    def exception_classes(node):
        return [c.name for c in ast.walk(node) if isinstance(c, ast.ClassDef) and any(
            ast.unparse(b).endswith(("Error", "Exception", "Abort", "Exit", "Interrupt")) for b in c.bases)]

    hidden = []
    for m, path in MODULES.items():
        if m.split(".")[0] != "properties":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if m.endswith("__main__"):
            hidden += [f"{m}.{c}" for c in exception_classes(tree)]
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                hidden += [f"{m}.{fn.name}.{c}" for c in exception_classes(fn)]
    assert not hidden, f"exception classes the scan cannot check: {hidden}"


SHARED_UNIT = ("properties.shared", "properties.linear_algebra", "properties.blackbox", "properties.least_squares",
               "properties.sketch_statistics")
"""The shared unit: adapters and strategies every paper may use, gathered by ``properties/shared.py``."""

LAYERS = (
    ("L0 foundations", {"errors": ["properties.errors"], "profiles": ["properties.profiles"],
                        "own_imports": ["properties.own_imports"], "build_info": ["properties.build_info"]}),
    ("L1 toolkit", {"toolkit": ["properties.toolkit"]}),
    ("L1 vocabularies", {"contract": ["properties.contract"], "engine": ["properties.engine"],
                         "evidence": ["properties.evidence"], "ledgerfile": ["properties.ledgerfile"]}),
    ("L1 paper record", {"paper": ["properties.paper"]}),
    ("L2 shared unit", {"shared": list(SHARED_UNIT)}),
    ("L2 paper packages", {name: [f"properties.{name}"] for name in PAPER_NAMES}),
    ("L3 registry", {"registry": ["properties.registry"]}),
    ("L4 runners' services", {"distributed": ["properties.distributed"],
                              "failure_report": ["properties.failure_report"],
                              "isolation": ["properties.isolation", "properties.worker"]}),
    ("L4 runners", {"ledger": ["properties.ledger"], "certify": ["properties.certify"],
                    "report": ["properties.report"]}),
    ("L4 runners over runners", {"validate": ["properties.validate"]}),
    ("L5 front ends", {"cli": ["properties.__main__"], "pytest plugin": ["properties.suite"],
                       "package": ["properties"]}),
)
"""Where every module of ``properties/`` sits, lowest first (the layers L0–L5 of the architecture; its L1
and L4 are split into tiers here, in the order their modules import each other, and so is L2: a paper
package may use the shared unit).  Each tier maps units to the modules they hold; a name holds that
module and, when it is a package, every module under it (``properties.toolkit``, each paper package,
``properties.suite``); ``properties`` alone is the package's
``__init__``, which lazily re-exports the toolkit and the registry, and ``properties.build_info`` is the
record setup.py writes into a built package.  An import goes to a strictly lower tier, or inside its own
unit (a paper package's modules, the shared unit, the isolation and its child's program), whose modules
may import each other without a cycle.  So content (L2) never imports a runner (L4), and a runner reaches
a paper's content only through the registry (L3)."""


def _unit_of() -> dict[str, tuple[int, str]]:
    """(tier index, unit) of every module the table names, packages expanded to the modules under them."""
    where = {}
    for tier, (_, units) in enumerate(LAYERS):
        for unit, names in units.items():
            for name in names:
                held = [name] if name == "properties" else [name] + [m for m in MODULES if m.startswith(name + ".")]
                where.update({m: (tier, unit) for m in held})
    return where


def test_every_module_of_properties_has_a_layer():
    where = _unit_of()
    missing = sorted(m for m in MODULES if m.split(".")[0] == "properties" and m not in where)
    assert not missing, f"modules of properties/ missing from LAYERS (give each its tier and unit): {missing}"


def test_imports_go_down_the_layers():
    """Every import of a ``properties`` module (in functions and by string too) goes to a lower tier of
    :data:`LAYERS` or stays inside its unit."""
    where, bad = _unit_of(), []
    for m in MODULES:
        if m.split(".")[0] != "properties" or m not in where:
            continue
        tier, unit = where[m]
        for target in sorted(_edges(m)):
            if target.split(".")[0] != "properties":
                continue
            if target not in where:
                bad.append(f"{m} imports {target}, which has no layer")
            elif where[target][1] != unit and where[target][0] >= tier:
                bad.append(f"{m} ({LAYERS[tier][0]}) imports {target} ({LAYERS[where[target][0]][0]})")
    assert not bad, "imports that do not go down the layers:\n" + "\n".join(bad)


def test_runners_reach_content_only_through_the_registry():
    """Above the registry no module imports content (a paper package, the shared unit), by statement or by
    string: the registry is the one door, so the papers it discovers are the ones the runners judge."""
    where = _unit_of()
    registry_tier = where["properties.registry"][0]
    content = {m for m, (tier, _) in where.items() if tier < registry_tier and LAYERS[tier][0].startswith("L2")}
    bad = {m: sorted(_edges(m) & content) for m, (tier, _) in where.items() if tier > registry_tier and m in MODULES}
    bad = {m: targets for m, targets in bad.items() if targets}
    assert not bad, f"runners importing content past the registry: {bad}"
