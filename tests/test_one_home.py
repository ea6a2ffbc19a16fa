"""One home for every helper, private ones included (the rule of ``test_layout``'s one-home test, extended).

``test_layout`` checks that a public oracle name is defined once.  A private helper written twice escapes
it: two copies of one λ_min, two Walsh–Hadamard butterflies, two argument checks with opposite orders.
Here every function body of ``oracle/``, ``solvers/`` and ``properties/`` (nested functions and methods
included) is normalised — its docstring dropped, the function's own name ignored, its parameters and the
names it binds renamed in order of appearance, annotations dropped — and two functions of at least
:data:`MIN_STATEMENTS` statements with the same normalised body fail the test, naming both places.
The fix is one definition that both places import (``oracle/ball.py``, ``oracle/sketch_bits.py``,
``solvers/_validation.py``, …), not an exemption.
"""

from __future__ import annotations

import ast
import copy
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("oracle", "solvers", "properties")
MIN_STATEMENTS = 3
"""Bodies shorter than this (a one-line wrapper, ``return a * b``) may repeat: they say what they do."""


class _Rename(ast.NodeTransformer):
    """Renames the given local names to ``_0, _1, …`` in order of first appearance; drops annotations."""

    def __init__(self, local: set[str]):
        self.local, self.names = local, {}

    def _name(self, name: str) -> str:
        return self.names.setdefault(name, f"_{len(self.names)}") if name in self.local else name

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self._name(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg, node.annotation = self._name(node.arg), None
        return node


def _local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Parameters and names bound anywhere in the function (assignments, loops, comprehensions, lambdas)."""
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def normalised_body(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, str]:
    """(number of statements, normalised dump of the parameters and the body without docstring)."""
    fn = copy.deepcopy(fn)
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    rename = _Rename(_local_names(fn))
    args = rename.visit(fn.args)
    body = [rename.visit(statement) for statement in body]
    count = sum(1 for statement in body for node in ast.walk(statement) if isinstance(node, ast.stmt))
    return count, "\n".join([ast.dump(args)] + [ast.dump(statement) for statement in body])


def duplicated_bodies(root: pathlib.Path = ROOT, packages=PACKAGES, minimum: int = MIN_STATEMENTS) -> list[list[str]]:
    """Groups of two or more places (``path:line name``) whose functions have one normalised body."""
    places: dict[str, list[str]] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    count, body = normalised_body(node)
                    if count >= minimum:
                        places.setdefault(body, []).append(f"{path.relative_to(root)}:{node.lineno} {node.name}")
    return [where for where in places.values() if len(where) > 1]


def test_no_helper_body_is_written_twice():
    groups = duplicated_bodies()
    assert not groups, "function bodies written more than once (give each one home and import it): " + "; ".join(
        " = ".join(group) for group in groups)


def test_the_check_finds_a_copy_under_other_names(tmp_path):
    """The normalisation sees through renamed parameters, locals, docstrings and annotations, and tells
    a changed operation apart (the check can fail)."""
    (tmp_path / "oracle").mkdir()
    (tmp_path / "oracle" / "a.py").write_text(
        "def least(values):\n    '''doc'''\n    lo = min(v.lower() for v in values)\n"
        "    hi = min(v.upper() for v in values)\n    return lo.union(hi)\n")
    (tmp_path / "oracle" / "b.py").write_text(
        "def smallest(balls: list) -> object:\n    a = min(b.lower() for b in balls)\n"
        "    z = min(b.upper() for b in balls)\n    return a.union(z)\n\n\n"
        "def largest(balls):\n    a = max(b.lower() for b in balls)\n"
        "    z = max(b.upper() for b in balls)\n    return a.union(z)\n")
    assert duplicated_bodies(tmp_path, ("oracle",)) == [["oracle/a.py:1 least", "oracle/b.py:1 smallest"]]
