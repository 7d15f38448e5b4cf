"""Skipping the rules that cannot match changes nothing (core/regex_gate.py).

The identity analysis runs only the rules whose literals a text holds. That is sound only if
(1) every match of a pattern holds one of the literals read from it, and (2) the gated run
asks each rule whenever running them all in order would have let it match. These tests check
both: on the patterns the analysis uses, over the benchmark texts and generated ones, and the
analysis's whole result against running every rule.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core import regex_gate
from jupyter_memory.core.knowledge import identity_analysis as ia
from jupyter_memory.core.knowledge import identity_values as iv
from jupyter_memory.core.regex_gate import RuleGate, required_literals

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"

GATED = {
    "rewrites": [p for p, _ in ia._REWRITES],
    "after numbers": [p for p, _ in ia._AFTER_NUMBERS],
    "slots": [rule[2] for rule in ia._SLOT_RULES],
    "markers": [p for _, p in ia._MARKERS],
    "canonical values": [p for p, _ in iv._CANONICAL],
}
# Read once: reading a pattern's literals parses it (~0.5 ms), and the generated-text test
# asks every pattern at each example.
NEEDS = {name: [required_literals(p) for p in patterns] for name, patterns in GATED.items()}


def _pair_texts() -> list[str]:
    texts: set[str] = set()
    for path in sorted(DATA.glob("identity_pairs_*.json")):
        for pair in json.loads(path.read_text(encoding="utf-8"))["pairs"]:
            texts.update((pair["a"], pair["b"]))
    return sorted(texts)


TEXTS = _pair_texts()


def _analysed_forms(text: str) -> list[str]:
    """The text at the points where the gated lists read it (as the analysis writes it)."""
    raw = " ".join(text.split())
    norm = iv.spell_numbers(ia.normalize(raw))
    return [norm, iv.canonical_values(norm), ia.analyse(text).key]


@cache
def _benchmark_forms() -> tuple[str, ...]:
    """Every distinct analysed form of every benchmark text, made once for all the gated lists.

    A form met twice (the three forms of a text are often one string, and texts share them)
    is checked once: a pattern's search on a string gives the same answer each time. Half of
    the ~18,000 forms are repeats.
    """
    return tuple(sorted({form for text in TEXTS for form in _analysed_forms(text)}))


@pytest.mark.parametrize(
    ("pattern", "want"),
    [
        (r"net revenue", {"net revenue"}),
        (r"refunds?|退款", {"refund", "退款"}),
        (r"(?:gross )?margin", {"margin"}),
        (r"(?<![a-z])x\d+", {"x"}),
        (r"(?<=按)\d+天", {"按"}),  # a lookbehind reads the text too; the first of equals
        (r"[:：]", {":", "："}),
        (r"(?:ab){2,}c", {"ab"}),  # the longer of two required literals
    ],
)
def test_literals_read_from_a_pattern(pattern, want):
    assert required_literals(re.compile(pattern)) == want


@pytest.mark.parametrize(
    "pattern",
    [r"\d+", r"[a-z]+ table", r"(?:x)?", r"a|\d", r"(?i)abc", r"(?!no)\w+", r"(a)\1"],
)
def test_a_pattern_with_no_certain_literal_always_runs(pattern):
    compiled = re.compile(pattern)
    needs = required_literals(compiled)
    if needs is not None:  # what it reads must still be in every match
        assert all(any(w in m.group(0) for w in needs) for m in compiled.finditer("a table x1"))
    else:
        assert RuleGate([compiled]).candidates("") == [0]


@pytest.mark.parametrize("name", sorted(GATED))
def test_every_match_on_the_benchmark_texts_holds_a_literal_of_its_pattern(name):
    patterns, needs = GATED[name], NEEDS[name]
    assert sum(n is not None for n in needs) >= len(patterns) * 0.9  # the gate is doing work
    forms = _benchmark_forms()
    assert len(forms) > 5000
    checked = 0
    for pattern, need in zip(patterns, needs, strict=True):
        if need is None:
            continue
        # Every form is searched; filter() keeps the ~2.6 million searches in C, where a
        # Python loop around each one cost more than the search itself.
        for form in filter(pattern.search, forms):
            assert any(w in form for w in need), (pattern.pattern, form)
            checked += 1
    assert checked > 100


def _all_rules(gate: RuleGate, text: str, after: int = -1) -> list[int]:
    return list(range(after + 1, gate.size))


def test_the_analysis_is_the_one_of_running_every_rule(monkeypatch):
    gated = [ia.analyse(t) for t in TEXTS]
    ia.analyse.cache_clear()
    monkeypatch.setattr(RuleGate, "candidates", _all_rules)
    try:
        everything = [ia.analyse(t) for t in TEXTS]
    finally:
        ia.analyse.cache_clear()
    assert len(TEXTS) > 5000
    assert gated == everything


# Rules whose rewrites make the literal a later rule needs, and remove what an earlier one
# wants: a gated run must follow the text as it changes.
CHAIN = [
    (re.compile(r"colour"), "color"),
    (re.compile(r"colo(?=r)"), "hue-co"),
    (re.compile(r"hue-color"), "tint"),
    (re.compile(r"\d+ days"), "N days"),
    (re.compile(r"(?<=N )days"), "天"),
    (re.compile(r"tint|天"), "done"),
    (re.compile(r"a b"), "ab"),
    (re.compile(r"x"), "a "),
]
_CHAIN_GATE = RuleGate([p for p, _ in CHAIN])  # built once: a gate holds no state between runs
_WORDS = ["colour", "color", "hue", "-", "tint", "3 days", "days", "N", " ", "a", "b", "x", "天"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=12))
def test_a_gated_run_equals_running_every_rule_in_order(words):
    text = "".join(words)
    want = text
    for pattern, repl in CHAIN:
        want = pattern.sub(repl, want)
    assert _CHAIN_GATE.run(text, lambda i, t: CHAIN[i][0].sub(CHAIN[i][1], t)) == want


_SLOT_LITERALS = sorted({w for need in NEEDS["slots"] for w in (need or ())})


@settings(max_examples=40, deadline=None)  # each example asks all ~290 patterns
@given(st.lists(st.sampled_from(_SLOT_LITERALS), max_size=6), st.text(max_size=8))
def test_generated_texts_match_only_where_a_literal_is(words, filler):
    text = filler.join(words)
    for name, patterns in GATED.items():
        for pattern, need in zip(patterns, NEEDS[name], strict=True):
            if need is not None and pattern.search(text):
                assert any(w in text for w in need)


def test_the_trie_scan_reports_every_literal_through_its_longest():
    gate = RuleGate([re.compile("ab"), re.compile("abcd"), re.compile("bc"), re.compile("zz")])
    assert gate.candidates("xabce") == [0, 2]
    assert gate.candidates("abcd") == [0, 1, 2]
    assert gate.candidates("abcd", after=0) == [1, 2]
    assert RuleGate([]).candidates("abc") == []
    assert regex_gate._trie_regex(["ab", "abcd"]).findall("abcx abcd") == ["ab", "abcd"]
