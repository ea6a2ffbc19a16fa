"""The sections on random sketches (docs/validate.md) and on the pytest suite (docs/pytest.md) are executed:
the scipy CountSketch module
passes with the output shown, the oracle example runs (and its assertion fails on a wrong gradient),
and the CI snippet is valid YAML running the documented command."""

import io
import pathlib
import re

import pytest
import yaml

from properties.registry import adapters
from properties.validate import check_function, validate

ROOT = pathlib.Path(__file__).resolve().parents[3]
VALIDATE = (ROOT / "docs" / "validate.md").read_text(encoding="utf-8")
PYTEST = (ROOT / "docs" / "pytest.md").read_text(encoding="utf-8")


def _section(text: str, title: str) -> str:
    start = text.index(title)
    end = text.find("\n## ", start + len(title))
    return text[start:end if end != -1 else None]


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


SKETCHES = _section(VALIDATE, "## Random sketches: their distribution is judged too")
SUITE = _section(PYTEST, "# Validating in your own CI (pytest)")


def test_the_readme_scipy_countsketch_module_passes_with_the_output_shown():
    (source,) = _blocks(SKETCHES, "python")
    assert source == (ROOT / "tests/properties/meta/real/scipy_sketch.py").read_text(encoding="utf-8").split('"""\n\n', 1)[1], \
        "docs/validate.md's module must be tests/properties/meta/real/scipy_sketch.py (after its docstring)"
    namespace = {}
    exec(compile(source, "docs", "exec"), namespace)
    assert check_function(adapters()["countsketch"], namespace["countsketch"]).passed
    after = SKETCHES.split("    $ python -m properties validate tests.properties.meta.real.scipy_sketch\n", 1)[1]
    shown = [line[4:] for line in after.split("\n\n", 1)[0].splitlines()]
    out = io.StringIO()
    assert validate("tests.properties.meta.real.scipy_sketch", stream=out) == 0
    assert out.getvalue().splitlines() == shown, out.getvalue()


def test_the_readme_oracle_example_runs_and_its_assertion_can_fail():
    (source,) = _blocks(SUITE, "python")
    exec(compile(source, "docs", "exec"), {})
    wrong = source.replace("- (c @ f) * f", "+ (c @ f) * f")
    assert wrong != source
    with pytest.raises(AssertionError, match="‖ĝ − ∇L‖"):
        exec(compile(wrong, "docs", "exec"), {})


def test_the_readme_ci_snippet_runs_the_documented_command():
    (snippet,) = _blocks(SUITE, "yaml")
    steps = yaml.safe_load(snippet)["jobs"]["validate"]["steps"]
    runs = [s["run"] for s in steps if "run" in s]
    command = "pytest --pyargs properties.suite --impl mypkg.mod -n auto --junitxml=out.xml"
    assert f"    {command}\n" in SUITE and command in runs, runs
    assert any(s.get("with", {}).get("path") == "out.xml" for s in steps), "the JUnit XML is kept as an artifact"
