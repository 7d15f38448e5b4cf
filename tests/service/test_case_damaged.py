"""Legacy and damaged entries never stop a case (spec 000 via issue 14).

A v1 entry without a 后续状态 section is read with what it has (state unknown)
and listed, searched and used in retrospectives; an entry that cannot be read
at all is reported — in the write's result, in doctor, in status — and its
INDEX.md row kept as it is, while new notes are still written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory.frames.cases import case_frame
from jupyter_memory.service.cases.memory import CaseMemory
from jupyter_memory.service.cases.search import search_cases
from tests.service.case_helpers import CASE, Clock, copy_sample

LEGACY = "2026-05-31_hesitate_related-party-doubt.md"
BROKEN = "2026-06-03_hesitate_overseas-payment.md"


def damage(ws: Path) -> tuple[Path, Path, str]:
    """Drop the legacy entry's status section; make a second entry unreadable (not UTF-8)."""
    folder = ws / "cases" / CASE / "case_memory"
    legacy = folder / LEGACY
    text = legacy.read_text("utf-8")
    legacy.write_text(text[: text.index("## 后续状态")], "utf-8")
    broken = folder / BROKEN
    broken.write_bytes(b"# \xff\xfe broken\n")
    row = next(
        ln for ln in (folder / "INDEX.md").read_text("utf-8").splitlines() if "境外付款" in ln
    )
    return legacy, broken, row


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return copy_sample(tmp_path)


def test_case_with_statusless_v1_and_unreadable_entry_accepts_a_new_note(ws: Path):
    legacy, broken, row = damage(ws)
    cm = CaseMemory(ws, CASE, clock=Clock())
    r = cm.note("insight", "经销商 F 的发票模式", "经销商 F 的发票与 B 的高度相似，值得对照。")
    assert r.action == "created" and r.path is not None and r.path.exists()
    assert len(r.problems) == 1 and BROKEN in r.problems[0] and "not UTF-8" in r.problems[0]
    assert r.to_dict()["problems"] == list(r.problems)
    notice = r.notice()
    assert len(notice) == 2 and notice[0] == r.message and BROKEN in notice[1]
    index = cm.store.index_path.read_text("utf-8")
    assert row in index  # the unreadable entry's row, kept as it is
    assert "| 2026-05-31 | hesitate | 关联方交易的最初疑虑 | E-002 | — |" in index
    assert "| 2026-06-20 | insight | 经销商 F 的发票模式 | — | 存档待查 |" in index
    assert broken.read_bytes() == b"# \xff\xfe broken\n"
    assert "后续状态" not in legacy.read_text("utf-8")  # v1 never rewritten

    # listed, with what it has
    listed = {e.name: e for e in cm.entries()}
    assert BROKEN not in listed and listed[LEGACY].status == "" and listed[LEGACY].legacy
    assert [e.name for e in cm.entries(evidence="E-002")] == [LEGACY]
    # searched
    hits = search_cases(ws, "关联方交易")
    assert [h.name for h in hits] == [LEGACY] and hits[0].status == ""
    # used in retrospectives
    frame = case_frame(cm)
    legacy_row = frame[frame["file"] == LEGACY].iloc[0]
    assert legacy_row["status"] == "" and legacy_row["dimension"] == "推理质量、直觉准确度"
    # reported by doctor and status
    report = cm.doctor()
    assert [p.kind for p in report.problems] == ["entry-unparseable"]
    assert report.problems[0].path.endswith(BROKEN) and "kept as it is" in report.problems[0].detail
    status = cm.status()
    assert status["entries"] == 15 and any(BROKEN in p for p in status["problems"])


def test_the_kept_row_survives_a_repair_and_a_broken_index(ws: Path):
    _, _, row = damage(ws)
    cm = CaseMemory(ws, CASE, clock=Clock())
    idx = cm.store.index_path
    idx.write_text(idx.read_text("utf-8") + "| broken row |\n", "utf-8")
    assert "index-unparseable" in {p.kind for p in cm.doctor().problems}
    report = cm.repair()
    assert report.repaired and row in idx.read_text("utf-8")
    assert "| broken row |" not in idx.read_text("utf-8")
    assert [p.kind for p in cm.doctor().problems] == ["entry-unparseable"]


def test_a_new_entry_never_takes_the_kept_row(ws: Path):
    """Same day, type and title as the unreadable entry's row: the new row is told apart."""
    folder = ws / "cases" / CASE / "case_memory"
    (folder / "2026-06-20_insight_x.md").write_bytes(b"\xff")
    idx = folder / "INDEX.md"
    idx.write_text(
        idx.read_text("utf-8") + "| 2026-06-20 | insight | 同名 | — | 存档待查 |\n", "utf-8"
    )
    cm = CaseMemory(ws, CASE, clock=Clock())
    r = cm.note("insight", "同名", "另一条记录，与损坏的条目同名。")
    text = idx.read_text("utf-8")
    assert r.action == "created" and "| 2026-06-20 | insight | 同名 | — | 存档待查 |" in text
    assert "| 2026-06-20 | insight | 同名（续 2） | — | 存档待查 |" in text


def test_archive_goes_on_around_an_unreadable_entry_but_not_through_it(ws: Path):
    _, broken, row = damage(ws)
    cm = CaseMemory(ws, CASE, clock=Clock())
    from jupyter_memory.exceptions import DerivedIndexError

    with pytest.raises(DerivedIndexError) as err:
        cm.archive({BROKEN: "已排除"})
    assert BROKEN in str(err.value) and "INDEX.md" in str(err.value)
    assert not cm.store.snapshot_path.exists()
    result = cm.archive({"2026-06-02_discuss_supplier-overlap.md": "已排除"})
    assert result.updated == ["2026-06-02_discuss_supplier-overlap.md"]
    assert row in cm.store.index_path.read_text("utf-8") and broken.exists()


def test_a_note_related_to_an_unreadable_entry_stops_naming_it(ws: Path):
    damage(ws)
    cm = CaseMemory(ws, CASE, clock=Clock())
    from jupyter_memory.exceptions import DerivedIndexError

    with pytest.raises(DerivedIndexError) as err:
        cm.note("insight", "续", "延续境外付款的判断。", related=BROKEN)
    assert BROKEN in str(err.value) and "INDEX.md" in str(err.value)


def test_the_result_carries_the_lines_to_show(ws: Path):
    cm = CaseMemory(ws, CASE, clock=Clock())
    r = cm.note("insight", "一行提示", "通知策略下只给一行提示。")
    assert r.to_dict()["notice"] == r.notice() and len(r.notice()) == 1
