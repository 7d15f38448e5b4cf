"""Case archive: 已排除 entries compressed into one-line summaries, reversibly from the
pre-archive snapshot (spec 000 "归档规则": 已排除 "可压缩为一行摘要"; issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory.core.cases.archive_format import (
    COMPRESSED_MARK,
    one_line_summary,
    render_snapshot,
    snapshot_originals,
)
from jupyter_memory.core.cases.entry_format import parse_entry
from jupyter_memory.exceptions import NotFoundError
from jupyter_memory.service.cases.memory import CaseMemory
from tests.service.case_helpers import CASE, Clock, copy_sample

LEGACY_EXCLUDED = "2026-05-28_think_why-hypothesis-4-was-rejected.md"
EXCLUDED = (
    "2026-06-08_hesitate_rebate-rate-jump.md",
    "2026-06-09_discuss_shell-company-registration.md",
    "2026-06-18_hesitate_warehouse-stock-count.md",
)
MARKED = "2026-06-02_discuss_supplier-overlap.md"  # 存档待查, marked 已排除 at archive


@pytest.fixture
def cm(tmp_path: Path) -> CaseMemory:
    return CaseMemory(copy_sample(tmp_path), CASE, clock=Clock())


def test_summary_is_the_first_sentence_on_one_line():
    assert one_line_summary("第一句话。第二句话。") == "第一句话。" + COMPRESSED_MARK
    assert one_line_summary("One line\nthen more. Rest.") == "One line then more." + COMPRESSED_MARK
    long = one_line_summary("x" * 500)
    assert len(long) == 120 + len(COMPRESSED_MARK) and "\n" not in long


def test_snapshot_keeps_texts_with_backticks_exactly():
    text = "# t\n\n```python\nx = 1\n```\n\n````\nfour\n````\n"
    snap = render_snapshot(
        "# Case Memory Index — CASE-2026-001\n", [("a.md", text), ("b.md", "b\n")]
    )
    assert snapshot_originals(snap) == {"a.md": text, "b.md": "b\n"}
    assert snapshot_originals("# Case Memory Index — CASE-2026-001\n") == {}


def test_archive_compresses_excluded_entries_and_uncompress_gives_them_back(cm: CaseMemory):
    folder = cm.memory_dir
    before = {p.name: p.read_bytes() for p in folder.glob("*.md")}
    result = cm.archive({MARKED: "已排除"}, compress_excluded=True)
    assert sorted(result.compressed) == sorted((*EXCLUDED, MARKED))
    assert LEGACY_EXCLUDED in result.kept_legacy and result.not_compressed == []
    assert (folder / LEGACY_EXCLUDED).read_bytes() == before[LEGACY_EXCLUDED]  # v1: untouched
    for name in (*EXCLUDED, MARKED):
        entry = parse_entry((folder / name).read_text("utf-8"))
        assert "\n" not in entry.body and entry.body.endswith(COMPRESSED_MARK)
        assert entry.status == "已排除"
    snapshot = cm.store.snapshot_path.read_text("utf-8")
    assert snapshot_originals(snapshot) == {
        n: before[n].decode("utf-8") for n in (*EXCLUDED, MARKED)
    }
    assert cm.doctor().ok  # the rows did not change: titles stay, INDEX.md in step
    assert result.to_dict()["compressed"] == result.compressed

    back = cm.uncompress()
    assert sorted(back.restored) == sorted((*EXCLUDED, MARKED)) and back.skipped == []
    for name in EXCLUDED:  # already 已排除 before the archive: byte for byte
        assert (folder / name).read_bytes() == before[name]
    marked = parse_entry((folder / MARKED).read_text("utf-8"))
    original = parse_entry(before[MARKED].decode("utf-8"))
    assert marked.body == original.body and marked.status == "已排除"  # the final state stays
    assert cm.doctor().ok
    again = cm.uncompress()
    assert again.restored == [] and len(again.skipped) == 4
    assert all("not compressed" in s for s in again.skipped)


def test_without_the_option_nothing_is_compressed_and_one_entry_can_be_given_back(
    cm: CaseMemory,
):
    result = cm.archive()
    assert result.compressed == [] and "压缩前" not in cm.store.snapshot_path.read_text("utf-8")
    with pytest.raises(NotFoundError, match=EXCLUDED[0]):
        cm.uncompress([EXCLUDED[0]])


def test_an_entry_edited_by_hand_is_not_compressed(cm: CaseMemory):
    path = cm.memory_dir / EXCLUDED[0]
    path.write_text(path.read_text("utf-8") + "\n手写的补充。\n", "utf-8")
    edited = path.read_bytes()
    result = cm.archive(compress_excluded=True)
    assert EXCLUDED[0] not in result.compressed
    assert any(s.startswith(EXCLUDED[0]) and "edited" in s for s in result.not_compressed)
    assert path.read_bytes() == edited


def test_uncompress_one_entry(cm: CaseMemory):
    cm.archive(compress_excluded=True)
    back = cm.uncompress([EXCLUDED[1]])
    assert back.restored == [EXCLUDED[1]]
    assert COMPRESSED_MARK in (cm.memory_dir / EXCLUDED[0]).read_text("utf-8")
