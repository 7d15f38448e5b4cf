from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.exceptions import (
    NotFoundError,
    OversizeError,
    ParseError,
    UnsafeNameError,
    ValidationError,
)


def test_remember_writes_named_file(mem: Memory):
    e = mem.remember(
        "Revenue excludes refunds", title="Revenue rule", type="semantic", tags=["sales"]
    )
    p = Path(e.path)
    assert p.name == "2026-11-30_semantic_revenue-rule.md"
    assert e.meta.content_sha256 and e.meta.scope == "user"
    assert mem.get(e.id).text == "Revenue excludes refunds"


def test_chinese_recall_finds_two_char_words(mem: Memory):
    a = mem.remember("收入口径不含退款", title="收入口径")
    b = mem.remember("退款在次月冲减")
    mem.remember("完全无关的内容")
    assert {h.id for h in mem.recall("退款")} == {a.id, b.id}
    assert [h.id for h in mem.recall("口径")] == [a.id]
    assert Path(a.path).name == "2026-11-30_procedural_收入口径.md"


def test_filters(mem: Memory, clock):
    old = mem.remember("sales note old", type="episodic", tier="daily", tags=["q3"])
    clock.advance(days=10)
    new = mem.remember("sales note new", type="semantic", tags=["q4"])
    agent = mem.remember("sales note by dev agent", agent="dev")
    other = mem.remember("sales note by qa agent", agent="qa")
    ids = lambda hits: {h.id for h in hits}  # noqa: E731
    assert ids(mem.recall("sales", type="episodic")) == {old.id}
    assert ids(mem.recall("sales", tier="daily")) == {old.id}
    assert ids(mem.recall("sales", tags=["q4"])) == {new.id}
    assert ids(mem.recall("sales", recent="7d")) == {new.id, agent.id, other.id}
    assert ids(mem.recall("sales", agent="dev")) == {old.id, new.id, agent.id}
    assert other.id not in ids(mem.recall("sales", agent="dev"))
    assert ids(mem.recall("sales", scope="agent:qa")) == {other.id}


def test_levels_and_budget(mem: Memory):
    long = "Refunds policy. " + "filler words here. " * 200
    e = mem.remember(long, title="Refund policy")
    (idx,) = mem.recall("refunds", level="index")
    (snip,) = mem.recall("refunds", level="snippet")
    (full,) = mem.recall("refunds", level="full")
    assert idx.text == "" and idx.tokens < 60
    assert 0 < snip.tokens <= 260 and snip.text.startswith("Refunds")
    assert full.text == long
    for i in range(5):
        mem.remember(f"refunds note {i} " + "x " * 100)
    hits = mem.recall("refunds", level="full", budget=150)
    assert sum(h.tokens for h in hits) <= 150
    assert e.id in {h.id for h in mem.recall("refunds", limit=10)}


def test_ranking_prefers_title_and_all_words(mem: Memory):
    a = mem.remember("some words about churn and pricing", title="Churn pricing")
    b = mem.remember("pricing only")
    hits = mem.recall("churn pricing")
    assert hits[0].id == a.id and b.id in {h.id for h in hits}


def test_forget_leaves_no_trace(mem: Memory, memory_home: Path):
    e = mem.remember("secret salary figure 123456", title="salary")
    mem.recall("salary")
    mem.forget(e.id)
    assert mem.recall("salary") == []
    mem.hooks.rebuild_index()
    assert mem.recall("salary") == []
    audit = (memory_home / "audit.jsonl").read_text()
    assert "123456" not in audit  # the log never holds a memory's text
    assert json.loads(audit.splitlines()[-1])["action"] == "delete"
    assert "salary" not in str(mem.hooks.audit_records())  # nor do audit views show its name
    with pytest.raises(NotFoundError):
        mem.get(e.id)
    with pytest.raises(NotFoundError):
        mem.forget(e.id)


def test_project_layer_first(mem: Memory, project_dir: Path):
    u = mem.remember("refunds are excluded", title="user note")
    mem.focus(project_dir)
    p = mem.remember("refunds are excluded in this project", title="project note")
    assert Path(p.path).is_relative_to(project_dir / ".jupyter-memory")
    assert (project_dir / ".jupyter-memory" / ".gitignore").read_text().startswith(".index/")
    hits = mem.recall("refunds excluded")
    assert [h.id for h in hits] == [p.id, u.id]
    assert hits[0].layer == "project" and hits[0].project == "sales-q3"
    assert mem.hooks.known_projects()["sales-q3"] == str(project_dir)
    fresh = Memory(home=mem.home, project="sales-q3")
    assert fresh.hooks.project_dir == project_dir


@pytest.mark.parametrize(
    ("kwargs", "exc", "field"),
    [
        ({"text": ""}, ValidationError, "text"),
        ({"text": "a\x00b"}, ValidationError, "text"),
        ({"text": "x" * 10_000_000}, OversizeError, "text"),
        ({"text": "ok", "type": "gossip"}, ValidationError, "type"),
        ({"text": "ok", "tier": "forever"}, ValidationError, "tier"),
        ({"text": "ok", "scope": "agent:../x"}, UnsafeNameError, "scope"),
        ({"text": "ok", "tags": ["../etc"]}, ValidationError, "tags"),
        ({"text": "ok", "title": "a\nb\x01"}, ValidationError, "title"),
        ({"text": "ok", "scope": "project"}, ValidationError, "scope"),
    ],
)
def test_bad_input_named_and_nothing_stored(mem: Memory, kwargs, exc, field):
    keep = mem.remember("keep this")
    with pytest.raises(exc) as info:
        mem.remember(**kwargs)
    assert field in str(info.value)
    assert [r["id"] for r in mem.memories()] == [keep.id]


@pytest.mark.parametrize("bad", ["../x", "/abs", "~x", "C:x", "a/b", "m-\x01"])
def test_unsafe_ids_refused(mem: Memory, bad):
    with pytest.raises(ValidationError):
        mem.get(bad)
    with pytest.raises(ValidationError):
        mem.forget(bad)


@pytest.mark.parametrize("bad", ["../escape", "/nonexistent/dir", "~nobody", "C:\\x"])
def test_unsafe_project_refused(mem: Memory, bad):
    with pytest.raises((ValidationError, NotFoundError)):
        mem.focus(bad)


def test_unknown_id(mem: Memory):
    with pytest.raises(NotFoundError, match="m-nope"):
        mem.get("m-nope")


def test_import_jsonl(mem: Memory, tmp_path: Path):
    src = tmp_path / "in.jsonl"
    lines = [{"text": f"imported note {i}", "tags": ["imp"]} for i in range(50)]
    lines.append(
        {
            "text": "中文导入",
            "title": "导入",
            "type": "episodic",
            "created": "2026-01-02T00:00:00Z",
        }
    )
    src.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n")
    ids = mem.hooks.import_jsonl(src)
    assert len(ids) == 51
    assert len(mem.recall("imported", limit=100)) == 50
    (zh,) = mem.recall("导入")
    assert zh.type == "episodic" and zh.created.year == 2026 and zh.created.month == 1


def test_import_bad_line_writes_nothing(mem: Memory, tmp_path: Path):
    src = tmp_path / "in.jsonl"
    src.write_text('{"text": "fine"}\n{"title": "no text"}\n')
    with pytest.raises(ParseError) as info:
        mem.hooks.import_jsonl(src)
    assert "in.jsonl:2" in str(info.value) and "text" in str(info.value)
    assert mem.memories() == []
    src.write_bytes(b'{"text": "fine"}\n\xff\xfe\n')
    with pytest.raises(ParseError, match="UTF-8"):
        mem.hooks.import_jsonl(src)
    assert mem.memories() == []


def test_stats(mem: Memory):
    mem.remember("a", type="semantic")
    mem.remember("b", type="episodic", tier="session")
    s = mem.stats()
    assert s["total"] == 2 and s["by_type"] == {"semantic": 1, "episodic": 1}
    assert s["index"][0]["entries"] == 2


def test_audit_records_hide_forgotten_memories(mem: Memory):
    keep = mem.remember("kept words", title="kept")
    gone = mem.remember("forgotten words", title="forgotten title")
    mem.forget(gone.id)
    records = mem.hooks.audit_records()
    assert [r["action"] for r in records if r.get("id") == gone.id] == ["delete"]
    assert "forgotten" not in str(records)
    create = next(r for r in records if r.get("id") == keep.id)
    # no file name: its slug holds the title's words (issue 29)
    assert "path" not in create and create["sha256"] and create["actor"] == "person"


def test_reviewed_only_alone_filters(mem: Memory):
    reviewed = mem.remember("digest words reviewed")
    mem.remember("digest words unreviewed", reviewed=False)
    assert [h.id for h in mem.recall("digest", reviewed_only=True)] == [reviewed.id]
    assert len(mem.recall("digest")) == 2
