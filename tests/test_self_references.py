"""The code speaks of itself: no comment or docstring cites a document that does not ship with it.

Issue trackers and design notes stay behind when the package is installed, so a reader of ``oracle/``,
``solvers/``, ``properties/``, ``tests/``, ``benchmarks/`` or ``conftest.py`` could not follow a
reference to them; the principles are cited by their anchors in docs/development.md instead
(``docs/development.md#independence``, …), and every such anchor must exist.
"""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCES = sorted([p for top in ("oracle", "solvers", "properties", "tests", "benchmarks")
                  for p in (ROOT / top).rglob("*.py")] + [ROOT / "conftest.py"])
# "issue 12", "Issue 12's", "issue 12, item 3", "items 4-5", "DESIGN principle 7", "DESIGN.md"
UNSHIPPED = re.compile(r"\b[Ii]ssues? \d|\b[Ii]tems? \d|\bDESIGN(?: principle|\.md)")
ANCHOR_CITED = re.compile(r"docs/development\.md#([\w-]+)")


def _rel(path: pathlib.Path) -> str:
    return str(path.relative_to(ROOT))


def test_sources_are_found():
    assert len(SOURCES) > 100 and ROOT / "properties" / "registry.py" in SOURCES


def test_no_reference_to_an_unshipped_document():
    this = pathlib.Path(__file__).resolve()
    hits = [f"{_rel(path)}:{n}: {line.strip()}" for path in SOURCES if path != this
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if UNSHIPPED.search(line)]
    assert not hits, "say what is meant, or cite docs/development.md#<anchor>:\n" + "\n".join(hits)


def test_every_cited_principle_has_its_anchor():
    anchors = set(re.findall(r'<a id="([\w-]+)"></a>', (ROOT / "docs" / "development.md").read_text(encoding="utf-8")))
    cited = {(m.group(1), _rel(p)) for p in SOURCES for m in ANCHOR_CITED.finditer(p.read_text(encoding="utf-8"))}
    assert cited, "the code cites the principles by anchor"
    missing = sorted(f"{where}: #{a}" for a, where in cited if a not in anchors)
    assert not missing, f"anchors cited but not in docs/development.md: {missing}"
