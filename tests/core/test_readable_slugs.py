"""Readable file names for Chinese (and any non-Latin) titles: the characters are kept,
safe on every file system, bounded in bytes, NFC; names of the old forms still read."""

from __future__ import annotations

import unicodedata
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.cases.entry_format import (
    ENTRY_TYPES,
    entry_file_name,
    parse_entry_name,
)
from jupyter_memory.core.knowledge.proposals import build_proposal, proposal_file_name
from jupyter_memory.core.memories.models import MemoryMeta, file_name
from jupyter_memory.core.names import MAX_SLUG_BYTES, slugify, validate_slug
from jupyter_memory.exceptions import UnsafeNameError

# What no file system we support takes in a name, or what misleads a reader of it.
WINDOWS_FORBIDDEN = set('<>:"/\\|?*')
WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | {
    f"{d}{i}" for d in ("com", "lpt") for i in "123456789"
}
BIDI_AND_INVISIBLE = "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff\u2060\u3164\u115f\ufe0f"


def assert_safe_file_name(name: str) -> None:
    """Portable: ext4/btrfs/APFS count UTF-8 bytes, NTFS and HFS+ (which stores NFD) UTF-16 units."""
    assert name == unicodedata.normalize("NFC", name)
    assert len(name.encode("utf-8")) <= 255
    assert len(unicodedata.normalize("NFD", name).encode("utf-16-le")) // 2 <= 255
    assert not WINDOWS_FORBIDDEN & set(name)
    assert all(unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in name)
    assert not set(BIDI_AND_INVISIBLE) & set(name)
    assert name == name.strip(" .") and not name.startswith(".")
    assert name.split(".", 1)[0].lower() not in WINDOWS_RESERVED


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("退款不计入收入", "退款不计入收入"),
        ("收入口径", "收入口径"),
        ("Q3 退款口径", "q3-退款口径"),
        ("退款（refund）口径，不含税。", "退款-refund-口径-不含税"),
        ("境外付款 looks odd", "境外付款-looks-odd"),
        ("ＧＭＶ 与净收入", "gmv-与净收入"),  # full-width letters fold (NFKC)
        ("売上は返金を含まない", "売上は返金を含まない"),
        ("매출에서 환불 제외", "매출에서-환불-제외"),
        ("Revenue excludes refunds", "revenue-excludes-refunds"),  # ASCII as before
        ("Café résumé", "cafe-resume"),  # Latin accents fold to ASCII as before
    ],
)
def test_titles_keep_their_characters(title: str, slug: str) -> None:
    assert slugify(title) == slug
    assert validate_slug(slug) == slug


def test_control_bidi_and_invisible_characters_are_stripped() -> None:
    assert slugify("退款\u202e不计入\u200b收入\x07") == "退款-不计入-收入"
    assert slugify("a\u2066b\u2069c") == "a-b-c"
    for ch in BIDI_AND_INVISIBLE + "\x00\x1f\x7f":
        with pytest.raises(UnsafeNameError):
            validate_slug(f"退款{ch}收入")


def test_a_title_with_nothing_readable_gets_a_stable_short_name() -> None:
    slug = slugify("？？？！")
    assert slug == slugify("？？？！") and slug != slugify("……")
    validate_slug(slug)


def test_the_slug_is_nfc_whatever_form_the_title_came_in() -> None:
    nfd = unicodedata.normalize("NFD", "매출 がく")
    assert slugify(nfd) == unicodedata.normalize("NFC", "매출-がく")
    # a slug given in NFD (a macOS terminal) is taken in NFC
    assert validate_slug(unicodedata.normalize("NFD", "매출-がく")) == "매출-がく"


def test_long_chinese_titles_are_bounded_in_bytes_at_a_character_boundary() -> None:
    slug = slugify("退款" * 200)
    assert len(slug.encode("utf-8")) <= MAX_SLUG_BYTES and slug.startswith("退款退款")
    assert slug.encode("utf-8").decode("utf-8") == slug
    hangul = slugify("가" * 200)
    assert len(unicodedata.normalize("NFD", hangul).encode("utf-16-le")) // 2 <= MAX_SLUG_BYTES
    with pytest.raises(UnsafeNameError):
        validate_slug("退" * 81)


@pytest.mark.parametrize(
    "bad",
    [
        "退款/收入",
        "退款\\收入",
        "退款_收入",
        "退款.md",
        "-退款",
        "退款-",
        "退款--收入",
        "Ab",
        "退 款",
        "",
    ],
)
def test_bad_given_slugs_are_refused(bad: str) -> None:
    with pytest.raises((UnsafeNameError, ValueError)):
        validate_slug(bad)


@pytest.mark.parametrize("title", ["CON", "nul", "Com1", "LPT9", "aux.txt", "  .. ", "退款。"])
def test_windows_reserved_words_and_trailing_dots_never_make_a_bad_name(title: str) -> None:
    slug = slugify(title)
    assert_safe_file_name(entry_file_name("2026-12-01", "discuss", slug))
    assert not slug.endswith(".")


# -- old names still read ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("2026-12-01_discuss_zh-94ba0cadf2.md", "zh-94ba0cadf2"),
        ("2026-06-14_discuss_supplier-overlap.md", "supplier-overlap"),
        ("2026-06-14_discuss_q3-zh-94ba0cadf2.md", "q3-zh-94ba0cadf2"),
        ("2026-12-01_hesitate_退款不计入收入.md", "退款不计入收入"),
        ("2026-12-01_hesitate_退款不计入收入-2.md", "退款不计入收入-2"),
    ],
)
def test_entry_names_of_both_forms_parse(name: str, slug: str) -> None:
    assert parse_entry_name(name) == (name[:10], name[11:].split("_", 1)[0], slug)
    assert validate_slug(slug) == slug


@pytest.mark.parametrize(
    "bad",
    [
        "2026-06-17_think_Bad_Slug.md",
        "2026-06-17_think_退款_收入.md",
        "2026-06-17_think_退款\u202e.md",
        "٢٠٢٦-٠٦-١٧_think_x.md",  # Arabic-Indic digits are not a date
        "2026-06-17_think_.md",
        "2026-06-17_think_退款.txt",
    ],
)
def test_names_off_the_rule_are_not_entries(bad: str) -> None:
    assert parse_entry_name(bad) is None


# -- slug → file name → parse, for every kind of file we name ------------------------------------

_titles = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=300
)


@settings(max_examples=300, deadline=None)
@given(_titles, st.sampled_from(ENTRY_TYPES), st.integers(1, 99))
def test_case_entry_names_round_trip(title: str, etype: str, n: int) -> None:
    slug = slugify(title)
    assert validate_slug(slug) == slug
    for s in (slug, f"{slug}-{n}"):  # the name of a same-day clash too
        name = entry_file_name("2026-12-01", etype, s)
        assert_safe_file_name(name)
        assert parse_entry_name(name) == ("2026-12-01", etype, s)
        # macOS HFS+ lists names in NFD: still an entry
        nfd = unicodedata.normalize("NFD", name)
        assert parse_entry_name(nfd) is not None


@settings(max_examples=150, deadline=None)
@given(_titles)
def test_memory_and_queue_names_are_safe(title: str) -> None:
    when = datetime(2026, 12, 1, tzinfo=timezone.utc)
    meta = MemoryMeta(id="m-01m8nskwg57qvxhcxt4e", title="t", created=when, updated=when)
    assert_safe_file_name(file_name(meta, slugify(title)).replace(".md", "-99.md"))
    p = _proposal(title.replace("\x00", "").strip() or "t", when)
    name = proposal_file_name(p)
    assert_safe_file_name(name)
    assert name.endswith(f"-{p.id}.md")


def _proposal(text: str, when: datetime):
    return build_proposal(
        id="p-01m8nskwg57qvxhcxt4e",
        text=text[:1000],
        kind="rule",
        evidence_quote="q",
        source="manual",
        created=when,
    )


def test_a_chinese_proposal_and_memory_get_readable_names() -> None:
    when = datetime(2026, 12, 1, tzinfo=timezone.utc)
    p = _proposal("退款不计入收入", when)
    assert proposal_file_name(p) == "2026-12-01_rule_退款不计入收入-p-01m8nskwg57qvxhcxt4e.md"
    meta = MemoryMeta(id="m-1", title="退款不计入收入", created=when, updated=when)
    assert file_name(meta, slugify(meta.title)).endswith("_退款不计入收入.md")
