"""docs/: the generated pages equal a fresh generation, every "spec …" reference of
the code, README and docs/ resolves to an anchor of docs/, the oracle examples run, README's summary is the
registry's, and every command of README and docs/ runs as written (or, where it needs hours, a cluster or
the network, is parsed by its own command line)."""

import importlib.util
import os
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

from properties.registry import paper_names
from properties.report import readme_status

ROOT = pathlib.Path(__file__).resolve().parents[3]
_SPEC = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
docs = importlib.util.module_from_spec(_SPEC)  # the checkout's generator, no part of the installed package
_SPEC.loader.exec_module(docs)
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = {p.name: p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md"))}


def test_the_generated_pages_equal_a_fresh_generation(tmp_path):
    written = {p.name for p in docs.generate(tmp_path, root=ROOT)}  # the checkout's, also when tox installed a wheel
    assert written == set(docs.generated()), written
    stale = [name for name in docs.generated() if (tmp_path / name).read_text(encoding="utf-8") != PAGES.get(name)]
    assert not stale, f"docs/{stale} differ from a fresh generation: run python -m properties docs"


def test_every_paper_has_its_page_with_every_claim_anchored():
    from properties.registry import load_all

    for name in paper_names():
        ids = {c.id for c in load_all().values() if c.paper == name}
        missing = ids - docs.anchors(PAGES[f"{name}.md"])
        assert not missing, f"docs/{name}.md lacks the claims {sorted(missing)[:5]}"


def test_every_anchor_of_a_page_is_unique():
    for name, text in PAGES.items():
        found = re.findall(r'<a id="([^"]+)"></a>', text)
        assert len(found) == len(set(found)), f"docs/{name} repeats anchors {sorted({a for a in found if found.count(a) > 1})}"


# -- "spec …" references -----------------------------------------------------------------------------------

_TOKEN = re.compile(r"(§\d+(?:\.\d+)*|\b(?:def|alg)(?:\.|\d)[\w.]*\w|\b[GT]\d\b|"
                    r"\b(?:lem|thm|fact|sec|cor|rem)\d[\w.]*\w|\b(?:id|claim|prop|emp)\.[\w.]*\w)")
_BASELINES = ("pruning_baselines", "_baselines")
# paper 000's spec and its baselines spec are one paper's: a reference in either may point into the other
_SAME_PAPER = {"attention_pruning": ("pruning_baselines",), "pruning_baselines": ("attention_pruning",)}


def _page_of(path: pathlib.Path, line: str) -> str | None:
    """The page a reference on ``line`` of ``path`` points into: a spec file named on the line, else the
    paper the file belongs to (None for a module every paper shares)."""
    named = re.search(r"(\w+)\.md\b", line)
    if named and f"{named.group(1)}.md" in PAGES and named.group(1) in (*paper_names(), "pruning_baselines"):
        return named.group(1)
    if "baselines spec" in line or any(part in path.stem for part in _BASELINES):
        return "pruning_baselines"
    text = str(path.relative_to(ROOT))
    if "kernel" in text or "least_squares" in text or "sketches" in text:
        return "attention_kernel_regression"
    return next((name for name in paper_names() if name in text), None)


def _references():
    """(file, line number, page, token) for every token after the word "spec" on a line of the code,
    README or the hand-written docs pages."""
    files = [p for d in ("oracle", "solvers", "properties") for p in sorted((ROOT / d).rglob("*.py"))]
    files += [ROOT / "README.md"] + [DOCS / n for n in PAGES if n not in docs.generated()]
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in re.finditer(r"\bspec(?:'s)?\b(?!\()", line):
                tail = re.split(r"[;)\]]|\. ", line[match.end():], maxsplit=1)[0]
                for token in _TOKEN.findall(tail):
                    yield path, number, _page_of(path, line), token.rstrip(".")


def _resolves(page: str | None, token: str) -> bool:
    anchor = "s" + token[1:] if token.startswith("§") else token
    candidates = [page, *_SAME_PAPER.get(page, ())] if page else [*paper_names(), "pruning_baselines"]
    for name in candidates:
        text = PAGES[f"{name}.md"]
        found = docs.anchors(text)
        if anchor in found or f"{name}.{token}" in found:
            return True
        # "lem12.1" of a group of claim ids, "def8.4" of def8.4.approx_newton: a prefix of anchors
        if token[0] != "§" and any(a.startswith((f"{name}.{token}.", f"{token}.")) for a in found):
            return True
        # a section of the paper (not of the spec), as the quoted notes cite it ("§5.10" beside lem5.15.*)
        notes = text.split('<a id="notes"></a>', 1)[-1]
        if token[0] == "§" and re.search(re.escape(token) + r"(?![\d.]\d)", notes):
            return True
    return False


def test_every_spec_reference_resolves_to_an_anchor_in_docs():
    refs = list(_references())
    assert len(refs) > 100, f"only {len(refs)} references found: the scanner is broken"
    unresolved = [f"{p.relative_to(ROOT)}:{n}: spec {t} (page {page})" for p, n, page, t in refs if not _resolves(page, t)]
    assert not unresolved, "references that resolve to no anchor of docs/:\n" + "\n".join(unresolved)


def test_a_reference_to_a_missing_definition_does_not_resolve():
    assert _resolves("softmax_regression", "def.L") and not _resolves("softmax_regression", "def.no_such_thing")
    assert _resolves("attention_pruning", "§4.1") and not _resolves("attention_pruning", "§9.9")


# -- README ------------------------------------------------------------------------------------------------

def test_readme_is_short_and_its_summary_is_the_registrys():
    assert README.count("\n") <= 160, f"README has {README.count(chr(10))} lines"
    begin = "<!-- summary:begin (generated: the first table of properties.report.readme_status) -->\n"
    block = README[README.index(begin) + len(begin):README.index("\n<!-- summary:end -->")]
    assert block == readme_status().split("\n\n", 1)[0], "README's summary differs from readme_status()'s first table"


def test_readme_names_every_paper_with_its_arxiv_id_and_links_its_page():
    from properties.registry import papers

    for unit in papers():
        assert f"https://arxiv.org/abs/{unit.arxiv}" in README and f"(docs/{unit.name}.md)" in README, unit.name
        assert ", ".join(unit.authors) in README, unit.authors


def test_every_relative_link_of_readme_and_docs_exists():
    for where, text, base in [("README.md", README, ROOT)] + [(f"docs/{n}", t, DOCS) for n, t in PAGES.items()]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (base / target).exists(), f"{where} links to {target}, which does not exist"


# -- examples and commands ---------------------------------------------------------------------------------

def test_the_oracle_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", PAGES["oracle.md"], flags=re.S)
    assert len(blocks) == len(docs.ORACLE_MODULES)
    for block in blocks:
        exec(compile(block, "docs/oracle.md", "exec"), {})


def _commands():
    """Every command line (indented by four spaces, after a blank line or another command) of README and
    the hand-written docs pages."""
    sources = [("README.md", README)] + [(f"docs/{n}", t) for n, t in PAGES.items() if n not in docs.generated()]
    for where, text in sources:
        for line in text.splitlines():
            if re.match(r"    (python -m properties|pytest|pip|tox|dask)\b", line):
                yield where, line[4:].split("  #", 1)[0].strip()


_SYNOPSIS = re.compile(r"\[|\.\.\.|…|PATTERN|LEDGER|MODULE|\bDIR\b|ADDRESS|\bFILE\b|\bPAPER\b")
_ELSEWHERE = {
    "pip": "installs from the network (the CI script .ci/run runs README's install and test command)",
    "tox": "the whole test suite (.ci/run runs it)",
    "dask": "needs a dask cluster",
}
# hours of CPU or the whole ledger: parsed by their own command line (--help) instead
_LONG = ("python -m properties --profile thorough", "python -m properties experiment attention_pruning",
         "python -m properties report --out errata", "python -m properties report --from errata/ledger-ci.json --out errata",
         "python -m properties validate mypkg.impl", "python -m properties validate solvers.adapter",
         "python -m properties validate mypackage.mymodule", "pytest --pyargs properties.suite")


def _kind(command: str) -> str:
    if _SYNOPSIS.search(command):
        return "synopsis"
    if command.split()[0] in _ELSEWHERE or "&&" in command:
        return "elsewhere"
    if command in ("python -m properties",) or command.startswith(_LONG) or "--scheduler" in command:
        return "parse"
    return "run"


def test_the_commands_are_found():
    kinds = {}
    for _, command in _commands():
        kinds.setdefault(_kind(command), []).append(command)
    assert len(kinds.get("run", [])) >= 8 and len(kinds.get("parse", [])) >= 4, kinds


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A directory where README's example module is written and errata/ is reachable."""
    tmp = tmp_path_factory.mktemp("commands")
    (tmp / "errata").symlink_to(ROOT / "errata")
    (source,) = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    (tmp / "mysoftmax.py").write_text(source, encoding="utf-8")
    return tmp


def _run(argv, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(cwd)]))
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("command, where", sorted({c: w for w, c in _commands() if _kind(c) in ("run", "parse")}.items(),
                                                   key=lambda item: item[1]))
def test_every_command_of_readme_and_docs_runs_as_written(command, where, workdir):
    argv = shlex.split(command)
    if argv[:2] == ["python", "-m"]:
        argv[0] = sys.executable
    elif argv[0] == "pytest":
        argv = [sys.executable, "-m", "pytest", *argv[1:]]
    if _kind(command) == "parse":
        argv.append("--help")
    done = _run(argv, workdir)
    assert done.returncode == 0, f"{where}: `{command}` exited {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


def test_docs_outside_a_checkout_exits_2_with_one_line(tmp_path):
    """The generator lives in the checkout (docs/generate.py), not in the package: a copy of the package
    with no checkout around it refuses ``python -m properties docs`` in one line, and writes nothing."""
    import shutil

    site = tmp_path / "site"
    for pkg in ("oracle", "properties"):
        shutil.copytree(ROOT / pkg, site / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run([sys.executable, "-m", "properties", "docs", "--out", str(tmp_path / "out")], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and proc.stdout == "", (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.count("\n") == 1 and "docs/generate.py" in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()
