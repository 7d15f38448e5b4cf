from __future__ import annotations

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.frontmatter_io import MAX_FILE_BYTES, parse_memory, render_memory
from jupyter_memory.core.memories.models import MemoryEntry, MemoryMeta
from jupyter_memory.exceptions import OversizeError, ParseError

GOOD = """---
id: m-abc
title: Revenue excludes refunds
type: semantic
tier: durable
scope: user
tags: [sales]
source: manual
confidence: 0.9
created: 2026-11-30T09:00:00+00:00
updated: 2026-11-30T09:00:00+00:00
custom_key: kept
---

Revenue excludes refunds.
"""


def test_parse_good_keeps_unknown_keys():
    entry = parse_memory(GOOD.encode(), path="x.md")
    assert entry.meta.title == "Revenue excludes refunds"
    assert entry.meta.model_extra == {"custom_key": "kept"}
    again = parse_memory(render_memory(entry))
    assert again.meta.model_extra == {"custom_key": "kept"}
    assert again.text == entry.text


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"no frontmatter", "no YAML frontmatter"),
        (b"---\nid: [unclosed\n---\nbody", "malformed YAML"),
        (b"---\n- a\n- b\n---\nbody", "must be a mapping, not a list"),
        (b"---\njust a scalar\n---\nbody", "must be a mapping, not a str"),
        (b"---\n1: x\n---\nbody", "key 1 is not a string"),
        (b"---\ntext: x\n---\nbody", "'text' is reserved"),
        (b"---\nid: m-a\n", "not closed"),
        (b"---\na: &x [1]\nb: *x\n---\n", "anchors and aliases are not allowed"),
        (b"\xff\xfe---\n", "invalid UTF-8"),
        (b"---\nid: m\x00\n---\n", "NUL bytes"),
        (GOOD.replace("id: m-abc", "id: ../../etc").encode(), "field 'id'"),
        (GOOD.replace("type: semantic", "type: gossip").encode(), "field 'type'"),
        (GOOD.replace("confidence: 0.9", "confidence: 7").encode(), "field 'confidence'"),
    ],
)
def test_bad_files_name_the_problem(data: bytes, needle: str):
    with pytest.raises(ParseError) as info:
        parse_memory(data, path="memories/bad.md")
    assert "memories/bad.md" in str(info.value)
    assert needle in str(info.value)


def test_alias_bomb_is_refused_fast():
    bomb = "---\na: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n"
        for i in range(9)
    )
    with pytest.raises(ParseError, match="aliases"):
        parse_memory((bomb + "---\n").encode(), path="bomb.md")


def test_oversize_file_refused_before_parsing():
    data = b"---\nid: m-a\n---\n" + b"x" * (MAX_FILE_BYTES + 1)
    with pytest.raises(ParseError, match="cap"):
        parse_memory(data, path="big.md")


def test_render_refuses_oversize_text():
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    meta = MemoryMeta(id="m-a", title="t", created=now, updated=now)
    with pytest.raises((OversizeError, ValueError)):
        render_memory(MemoryEntry(meta=meta, text="x" * 10_000_000))


_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"),
    max_size=300,
)
_title = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=80
).filter(lambda s: s.strip())
_tag = st.text(alphabet="abcxyz收入退款-_", min_size=1, max_size=10)


@settings(max_examples=150, deadline=None)
@given(
    text=_text,
    title=_title,
    tags=st.lists(_tag, max_size=5, unique=True),
    mtype=st.sampled_from(["episodic", "semantic", "procedural", "reflective"]),
    tier=st.sampled_from(["session", "daily", "durable"]),
    conf=st.floats(min_value=0, max_value=1),
    seconds=st.integers(min_value=0, max_value=4_000_000_000),
    extra=st.dictionaries(st.sampled_from(["x_note", "owner", "rank"]), _text, max_size=2),
)
def test_round_trip(text, title, tags, mtype, tier, conf, seconds, extra):
    when = datetime.fromtimestamp(seconds, tz=timezone.utc)
    meta = MemoryMeta(
        id="m-0abc",
        title=title,
        type=mtype,
        tier=tier,
        tags=tags,
        confidence=conf,
        created=when,
        updated=when,
        evidence=[{"quote": "收入不含退款", "source": "cell 3"}],
        **extra,
    )
    entry = MemoryEntry(meta=meta, text=text)
    back = parse_memory(render_memory(entry).encode("utf-8"))
    assert back.text == entry.text
    assert back.meta.model_dump() == entry.meta.model_dump()
    assert render_memory(back) == render_memory(entry)


_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30),
)
_value = st.recursive(
    _scalar,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=120, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True), _value, max_size=6))
def test_fast_subset_agrees_with_yaml(mapping):
    """The one-line JSON subset means the same to our reader and to PyYAML."""
    import yaml

    from jupyter_memory.core.yaml_lines import NotFlat, dump_flat, load_flat

    try:
        text = dump_flat(mapping)
    except NotFlat:  # e.g. a YAML 1.1 boolean word as key: render falls back to PyYAML
        assert any(
            k.lower() in {"y", "yes", "n", "no", "true", "false", "on", "off", "null"}
            for k in mapping
        )
        return
    assert yaml.safe_load(text) == (mapping or None)
    fast = load_flat(text)
    if fast is not None:
        assert fast == mapping


@pytest.mark.parametrize(
    "fm",
    [
        'title: "a", "tier": "x"\n',
        "a: 1e5\n",
        "a: plain words\n",
        "a:\n  - x\n",
        "a: &x 1\nb: *x\n",
        "a: 012\n",
    ],
)
def test_fast_subset_defers_to_yaml(fm):
    from jupyter_memory.core.yaml_lines import load_flat

    assert load_flat(fm) is None


def test_our_own_files_take_the_fast_path():
    """Every file we write is read without PyYAML (hex digests like '1e5' included)."""
    from jupyter_memory.core.yaml_lines import load_flat

    when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    meta = MemoryMeta(
        id="m-1",
        title="t 1e5",
        created=when,
        updated=when,
        content_sha256="01e5" * 16,
        evidence=[{"quote": "2E-3 rate", "source": "cell 1"}],
    )
    text = render_memory(MemoryEntry(meta=meta, text="body"))
    fm = text.split("---\n")[1]
    assert load_flat(fm) is not None
