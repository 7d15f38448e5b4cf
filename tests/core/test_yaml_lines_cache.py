"""Our frontmatter lines that repeat from file to file are read once and kept.

A kept line gives the same value as reading it, lists are never shared
between two readings, a kept line still counts for the key checks (a key
twice, a YAML boolean word as a key) and the kept lines are bounded.
"""

from __future__ import annotations

import pytest

from jupyter_memory.core import yaml_lines

FM = (
    'id: "m-1"\ntitle: "退款 refunds"\ntype: "semantic"\ntags: ["sales", "财务"]\n'
    "confidence: 0.5\ncreated: 2026-12-01T05:36:42.256265+00:00\nrelated: []\nreviewed: true\n"
)


def _general(text: str) -> object:
    saved = yaml_lines._load_simple
    yaml_lines._load_simple = lambda _text: None  # type: ignore[assignment]
    try:
        return yaml_lines.load_flat(text)
    finally:
        yaml_lines._load_simple = saved


def test_a_kept_line_reads_as_the_general_reader_reads_it() -> None:
    yaml_lines._LINE_CACHE.clear()
    first = yaml_lines._load_simple(FM)
    assert 'tags: ["sales", "财务"]' in yaml_lines._LINE_CACHE  # kept
    assert 'title: "退款 refunds"' not in yaml_lines._LINE_CACHE  # differs per file
    second = yaml_lines._load_simple(FM)
    assert first == second == _general(FM)
    assert first is not None and second is not None
    first["tags"].append("x")  # each reading has its own list
    first["related"].append("y")
    assert second["tags"] == ["sales", "财务"] and second["related"] == []
    assert yaml_lines._load_simple(FM) == _general(FM)


def test_a_kept_line_twice_or_under_a_yaml_word_goes_the_general_way() -> None:
    yaml_lines._LINE_CACHE.clear()
    assert yaml_lines._load_simple(FM) is not None
    twice = FM + 'type: "semantic"\n'
    assert yaml_lines._load_simple(twice) is None
    yes = FM + 'yes: "semantic"\n'
    assert yaml_lines._load_simple(yes) is None
    assert yaml_lines.load_flat(yes) is None  # YAML reads it differently: the full loader decides


def test_a_bad_line_beside_kept_ones_is_still_refused() -> None:
    yaml_lines._LINE_CACHE.clear()
    assert yaml_lines._load_simple(FM) is not None
    for bad in ("type: semantic\n", "reviewed: yes\n", "tags: [sales]\n", "confidence: 1e5\n"):
        assert yaml_lines._load_simple(FM + bad) is None, bad
    assert yaml_lines._load_simple(FM[:-1]) is None  # no final newline


def test_the_kept_lines_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_lines, "_LINE_CACHE_MAX", 10)
    yaml_lines._LINE_CACHE.clear()
    for i in range(50):
        fm = f'id: "m-{i}"\ntype: "t{i}"\ntier: "d{i}"\n'
        assert yaml_lines._load_simple(fm) == {"id": f"m-{i}", "type": f"t{i}", "tier": f"d{i}"}
        assert len(yaml_lines._LINE_CACHE) <= 10


def test_characters_yaml_refuses_raw_go_to_the_yaml_loader() -> None:
    assert yaml_lines.load_flat('a: "x"\n') == {"a": "x"}
    assert yaml_lines.load_flat('a: "x\x7f"\n') is None  # ASCII text: DEL
    assert yaml_lines.load_flat('a: "退款\x85"\n') is None  # other text: the pattern
    assert yaml_lines.load_flat('a: "退款\u2028"\n') is None
    assert yaml_lines.load_flat('a: "退款"\n') == {"a": "退款"}
