"""The fast reading of our own frontmatter lines means exactly what the general reader does.

``load_flat`` first tries the lines our writer produces (one pattern checks
the text, then each value is read by its form); anything else goes through
the general line-by-line JSON reading and, failing that, PyYAML. These tests
compare the two readings on generated text close to the edges of the subset.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core import yaml_lines
from jupyter_memory.core.frontmatter_io import parse_memory, render_memory
from jupyter_memory.core.memories.models import MemoryEntry, MemoryMeta


def _general(text: str) -> object:
    """load_flat with the fast reading switched off."""
    saved = yaml_lines._load_simple
    yaml_lines._load_simple = lambda _text: None  # type: ignore[assignment]
    try:
        return yaml_lines.load_flat(text)
    finally:
        yaml_lines._load_simple = saved  # type: ignore[assignment]


_keys = st.sampled_from(["id", "title", "yes", "No", "a_b", "x-1", "tags", "Z9", "1a"])
_tricky = st.text(
    alphabet=st.sampled_from(list('ab"\\\x01\t\r :[],{}-0123456789.eEtrufalsnTZ+é收\u2028\x7f')),
    max_size=12,
)
_values = st.one_of(
    _tricky,
    st.text(max_size=10).map(lambda s: json.dumps(s, ensure_ascii=False)),
    st.lists(st.text(max_size=5).map(lambda s: json.dumps(s, ensure_ascii=False)), max_size=3).map(
        lambda items: "[" + ", ".join(items) + "]"
    ),
    st.sampled_from(
        [
            "2026-12-01T05:36:42.256265+00:00",
            "2026-12-01T05:36:42Z",
            "2026-13-01T05:36:42Z",
            "0000-01-01T00:00:00Z",
            "2026-12-01t05:36:42Z",
            "-0",
            "01",
            "1.0",
            "1.",
            "1e5",
            "٣",
            "true",
            "false",
            "null",
            "True",
            "[]",
            '["a"]',
            '[{"quote": "q"}]',
            '"\\q"',
            '"\\u00e9"',
            '"\\ud800"',
            '"a" "b"',
        ]
    ),
)


# 1,000: a fast path that drops the JSON reading of an escaped string was caught
# by 10 of 10 seeds (200: 6 of 10, 500: 7 of 10); 3,000 took 3 s more.
@settings(max_examples=1000, deadline=None)
@given(st.lists(st.tuples(_keys, _values), max_size=6), st.sampled_from(["", "\n", "x"]))
def test_fast_reading_agrees_with_the_general_one(pairs: list[tuple[str, str]], tail: str) -> None:
    text = "".join(f"{k}: {v}\n" for k, v in pairs) + tail
    fast, general = yaml_lines.load_flat(text), _general(text)
    assert fast == general
    if isinstance(fast, dict) and isinstance(general, dict):
        assert [type(v) for v in fast.values()] == [type(v) for v in general.values()]


def test_our_files_are_read_by_the_fast_path() -> None:
    when = datetime(2026, 1, 1, 12, 30, 5, 123456, tzinfo=timezone.utc)
    meta = MemoryMeta(
        id="m-1", title='a "quoted" title\\', created=when, updated=when, tags=["x", "收入"]
    )
    text = render_memory(MemoryEntry(meta=meta, text="body"))
    fm = text.split("---\n")[1]
    fast = yaml_lines._load_simple(fm)
    assert fast is not None and fast == _general(fm)
    assert parse_memory(text).meta == meta


@pytest.mark.parametrize(
    "fm",
    ["yes: 1\n", "a: 1\na: 2\n", 'a: "x"\n\nb: 1\n', 'a: "x"', 'a: "x" \n', "a: 1e5\n"],
)
def test_outside_the_subset_the_fast_path_steps_aside(fm: str) -> None:
    assert yaml_lines._load_simple(fm) is None
