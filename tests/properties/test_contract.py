"""The symbols of the tolerance rules are defined in the contract's own text: every
symbol a rule uses is named in its signature, defined in the rule itself (``ρ = …``, ``a_p the …``), or
defined in :data:`properties.contract.SYMBOLS`, which ``python -m properties adapters [--markdown]``
prints after the rules."""

import pathlib
import re

import pytest

from properties.contract import SYMBOLS, table
from properties.failure_report import argument_names
from properties.registry import adapters

_TOKEN = re.compile(r"(?<![\w\u0300-\u036f])([A-Za-zα-ωΑ-Ωℓ](?:[\u0300-\u036f]|_\{[^}]*\}|_[A-Za-z0-9]+|[₀-₉])*)"
                    r"(?![\w\u0300-\u036f])")
_ARTICLE = re.compile(r"(?<![\w\u0300-\u036f])a (?=[a-z]{2})")  # "a nonnegative integer"


def _base(token: str) -> str:
    """The symbol a token writes: hats and tildes, an index subscript (_i, _ab, _s, …) and ₀-₉ dropped."""
    token = re.sub(r"[₀-₉]", "", re.sub(r"[\u0302\u0303]", "", token))
    return re.sub(r"_(i|j|a|b|ab|s|t|k|l|\{[^}]*\})$", "", token)


def _glossary() -> set:
    out = set()
    for symbols, _ in SYMBOLS:
        for sym in symbols.split(", "):
            out |= {sym, _base(sym)}
    return out


def symbols_used(text: str) -> set:
    """The symbols of a rule: one-letter (or subscripted, Greek) identifiers, English words and articles left out."""
    text = _ARTICLE.sub("", re.sub(r"'s\b", "", text))
    return {_base(t) for t in _TOKEN.findall(text)
            if not (len(t) > 2 and t.isascii() and t.isalpha() and t.islower())}


def undefined(ad) -> list[str]:
    names = {_base(t) for t in _TOKEN.findall(ad.signature)} | set(argument_names(ad.signature))
    text, known = ad.tolerance, _glossary()
    return sorted(s for s in symbols_used(text) - names - known
                  if not re.search(r"(^|[\s,(;:])" + re.escape(s) + r"(_\w+)?(\s*:?=(?!=)| the )", text))


@pytest.mark.parametrize("name", sorted(adapters()))
def test_every_symbol_of_the_rule_is_defined_in_the_contract(name):
    missing = undefined(adapters()[name])
    assert not missing, f"{name}: the rule uses {missing}, defined neither in its signature, in the rule, nor in SYMBOLS"


def test_the_check_sees_an_undefined_symbol():
    """The check can fail: a rule using a symbol nobody defines is reported."""
    class Fake:
        signature = "f(A: (n, d)) -> float"
        tolerance = "|f̂ − f| ≤ θ·Q·u·‖A‖ with R = 2"

    assert undefined(Fake()) == ["Q", "θ"]


@pytest.mark.parametrize("markdown", [False, True])
def test_the_contract_text_ends_with_the_symbols(markdown):
    text = table(adapters().values(), markdown=markdown)
    assert "ymbols of the tolerance rules:" in text
    for symbols, meaning in SYMBOLS:
        assert f"{symbols}: {meaning}" in text, symbols


def test_the_mask_rules_are_stated_once_by_the_oracle_and_quoted_in_the_generated_contract():
    """The count, rounding and tie rules of the masks are the oracle's text (oracle.pruning_baselines), the
    contract's rows quote it verbatim, and docs/contract.md, generated from the contract, says nothing else
    about them (no ``round(ρ·d_in)``, which a user would implement as Python's round)."""
    from oracle.pruning_baselines import BINARIZE_COUNT_RULE, COUNT_RULE, TIE_RULE, binarize_count, count_pruned

    ads = adapters()
    for name, rules in (("attention_pruning_wanda", (COUNT_RULE, TIE_RULE)),
                        ("attention_pruning_binarize", (BINARIZE_COUNT_RULE, TIE_RULE)),
                        ("attention_pruning_sparsegpt", (COUNT_RULE,))):
        for rule in rules:
            assert rule in ads[name].tolerance, f"{name}'s rule does not quote {rule!r}"
    page = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "contract.md").read_text(encoding="utf-8")
    for rule in (COUNT_RULE, BINARIZE_COUNT_RULE, TIE_RULE):
        assert rule in page, f"docs/contract.md lacks {rule!r}"
    assert not re.search(r"round\(ρ", page), "docs/contract.md states a count as round(ρ…)"
    # the examples the rules state are what the oracle computes
    assert count_pruned(15 / 22, 22) == 15 and int(15 / 22 * 22) == 14
    assert binarize_count(0.5, 5) == 3 and round(2.5) == 2 and binarize_count(7.5 / 11, 11) == 8
