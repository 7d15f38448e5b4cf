"""The memory services built from a ServiceContext alone (no ``Memory``), on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_memory.core.memories.recall_query import RecallQuery
from jupyter_memory.exceptions import NotFoundError, ParseError, ValidationError
from jupyter_memory.service.memories.maintenance import MemoryMaintenance
from jupyter_memory.service.memories.reader import MemoryReader
from jupyter_memory.service.memories.recall import MemoryRecall
from jupyter_memory.service.memories.results import (
    DoctorReport,
    EmbedReport,
    ForgetResult,
    MemoryStats,
    RebuildReport,
)
from jupyter_memory.service.memories.writer import MemoryWriter
from tests.service.learning_helpers import open_context


@pytest.fixture
def ctx(memory_home, clock):
    c = open_context(memory_home, clock)
    yield c
    MemoryMaintenance(c).close()


def test_writer_reader_and_recall_on_their_own(ctx):
    writer, reader, recall = MemoryWriter(ctx), MemoryReader(ctx), MemoryRecall(ctx)
    entry = writer.remember("退款口径：按到账日统计", title="退款口径", tags="finance, 口径")
    assert Path(entry.path).is_file() and entry.meta.tags == ["finance", "口径"]
    assert reader.get(entry.id).text == "退款口径：按到账日统计"
    (row,) = reader.list()
    assert row["id"] == entry.id and row["heat"] in {"HOT", "WARM", "COLD"}
    (hit,) = recall.recall(RecallQuery.of("退款", tags="finance"))
    assert hit.id == entry.id and hit.layer == "user"
    assert recall.recall(RecallQuery.of("退款", tags="other")) == []
    changed = writer.update(entry.id, text="Refunds count on the settlement date")
    assert reader.get(entry.id).text == changed.text
    actions = [r["action"] for r in ctx.audit.records()]
    assert actions == ["create", "update"]


def test_forget_is_typed_and_keeps_the_old_keys(ctx):
    writer = MemoryWriter(ctx)
    entry = writer.remember("a note to drop")
    result = writer.forget(entry.id)
    assert isinstance(result, ForgetResult)
    assert result.to_dict() == {"id": entry.id, "deleted": True, "layer": "user"}
    assert result == {"id": entry.id, "deleted": True, "layer": "user"}
    with pytest.raises(NotFoundError):
        MemoryReader(ctx).get(entry.id)


def test_import_validates_every_line_before_writing(ctx, tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(
        json.dumps({"text": "one", "created": "2026-01-02T03:04:05Z"})
        + "\n"
        + json.dumps({"title": "no text"})
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(ParseError) as err:
        MemoryWriter(ctx).import_jsonl(src)
    assert str(err.value).endswith("in.jsonl:2: text: missing")
    assert MemoryReader(ctx).list() == []


def test_stats_doctor_and_rebuild_are_typed_with_the_old_keys(ctx):
    MemoryWriter(ctx).remember("the Q3 sheet lives in finance/q3.xlsx", type="semantic")
    stats = MemoryReader(ctx).stats()
    assert isinstance(stats, MemoryStats) and stats.total == 1
    assert list(stats.to_dict()) == [
        "total",
        "by_type",
        "by_tier",
        "by_scope",
        "by_project",
        "by_heat",
        "by_layer",
        "unreviewed",
        "home",
        "project",
        "project_dir",
        "index",
        "semantic",
        "usage",
    ]
    assert stats.to_dict()["index"] == [
        {"layer": "user", "root": str(ctx.home), "entries": 1, "unreadable_files": 0}
    ]
    json.dumps(stats.to_dict())  # JSON as it is, for --json and REST

    upkeep = MemoryMaintenance(ctx)
    report = upkeep.doctor()
    assert isinstance(report, DoctorReport) and report.ok
    assert report.to_dict() == {"ok": True, "problems": [], "notices": []}

    (ctx.home / "memories" / "broken.md").write_text("---\nid: [\n---\nx", encoding="utf-8")
    rebuilt = upkeep.rebuild_index()
    assert isinstance(rebuilt, RebuildReport)
    layer = rebuilt.to_dict()["user"]
    assert layer["indexed"] == 1 and layer["problems"][0]["path"] == "broken.md"
    assert set(layer) == {"indexed", "problems", "notices"}
    bad = upkeep.doctor()
    assert not bad.ok and bad.problems[0].kind == "unreadable"
    assert bad.to_dict()["problems"][0]["path"].endswith("broken.md")


def test_embed_without_the_extra_names_the_field(ctx):
    with pytest.raises(ValidationError) as err:
        MemoryMaintenance(ctx).embed()
    assert err.value.field == "mode"
    assert EmbedReport(done=True, status={"available": True, "roots": []}).to_dict() == {
        "done": True,
        "available": True,
        "roots": [],
    }
