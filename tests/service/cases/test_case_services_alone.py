"""The case index keeper, note writer and archiver, each built without CaseMemory."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory.core.cases.index_format import parse_index
from jupyter_memory.exceptions import DerivedIndexError, NotFoundError, PolicyError
from jupyter_memory.service.cases.archive import CaseArchiver
from jupyter_memory.service.cases.index_keeper import CaseIndexKeeper
from jupyter_memory.service.cases.note import CaseNoteWriter
from tests.service.case_helpers import CASE, Clock, copy_sample

HESITATE = "2026-06-03_hesitate_overseas-payment.md"
OPEN = "2026-06-02_discuss_supplier-overlap.md"  # 存档待查, v2


@pytest.fixture
def keeper(tmp_path: Path) -> CaseIndexKeeper:
    return CaseIndexKeeper(copy_sample(tmp_path), CASE, clock=Clock())


def _rows(keeper: CaseIndexKeeper) -> list[tuple[str, str, str]]:
    return [r.key for r in parse_index(keeper.store.index_path.read_text("utf-8")).rows]


def test_keeper_repairs_a_missing_index_from_the_files(keeper: CaseIndexKeeper) -> None:
    before = _rows(keeper)
    keeper.store.index_path.unlink()
    records, problems = keeper.load()
    assert len(records) == 15 and not problems
    assert [p.kind for p in keeper.check(records, problems).problems] == ["index-missing"]
    with keeper.locked():
        again, report = keeper.ensure_index("person")
    assert report.repaired and len(again) == 15
    assert _rows(keeper) == before
    assert keeper.check(*keeper.load()).ok
    audit = [r["action"] for r in keeper.store.audit.records()]
    assert audit == ["case.repair"]


def test_keeper_read_back_catches_an_index_that_disagrees(keeper: CaseIndexKeeper) -> None:
    records, _ = keeper.load()
    idx = keeper.store.index_path
    text = idx.read_text("utf-8")
    row = next(ln for ln in text.splitlines() if "存档待查" in ln)
    idx.write_text(text.replace(row, row.replace("存档待查", "已排除")), "utf-8")
    name = next(r.name for r in records if r.status == "存档待查" and r.title in row)
    with pytest.raises(DerivedIndexError, match="read-back mismatch"):
        keeper.verify(name, records)


def test_keeper_names_entries_and_refuses_writes_when_disabled(keeper: CaseIndexKeeper) -> None:
    assert keeper.entry_name(f"cases/{CASE}/case_memory/{HESITATE}") == HESITATE
    assert keeper.record(HESITATE).title
    (keeper.workspace / "team-profile.md").write_text("Memory Write Policy: disabled\n", "utf-8")
    with pytest.raises(PolicyError, match="disabled"):
        keeper.require_writable()
    with pytest.raises(NotFoundError, match="workspace"):
        CaseIndexKeeper(keeper.workspace / "nope", CASE)


def test_note_writer_creates_then_skips_through_the_keeper(keeper: CaseIndexKeeper) -> None:
    writer = CaseNoteWriter(keeper)
    made = writer.note("insight", "经销商返利规律", "返利总在订单之前到账，值得核对。", ["E-018"])
    assert made.action == "created" and made.path is not None and made.path.exists()
    assert made.path.name.startswith("2026-06-20_insight_")
    assert len(_rows(keeper)) == 16
    again = writer.note("insight", "经销商返利规律", "返利总在订单之前到账，值得核对。", ["E-018"])
    assert again.action == "skipped" and len(_rows(keeper)) == 16


def test_archiver_snapshots_marks_and_deletes_through_the_keeper(
    keeper: CaseIndexKeeper,
) -> None:
    writer = CaseNoteWriter(keeper)
    noise = writer.note("observe", "Printer jam", "The printer on floor 3 jammed twice today.")
    assert noise.path is not None
    result = CaseArchiver(keeper).archive({OPEN: "已纳入", HESITATE: "已纳入"}, [noise.path.name])
    assert result.snapshot.name == "INDEX.pre-archive.md" and result.snapshot.exists()
    assert result.updated == [OPEN] and result.deleted == [noise.path.name]
    assert {OPEN, HESITATE} <= {r.name for r in result.included}
    assert keeper.record(OPEN).status == "已纳入"
    assert not noise.path.exists() and len(_rows(keeper)) == 15
    assert keeper.check(*keeper.load()).ok
