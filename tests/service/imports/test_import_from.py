"""Memory.import_from and the export back (issue 18), against a real memory home."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from jupyter_memory.core.imports.basic_memory import parse_note
from jupyter_memory.exceptions import ValidationError
from jupyter_memory.service.imports.export import export_agents_md, export_basic_memory

DATA = Path(__file__).parents[2] / "data" / "imports"


def copy(source: str, tmp_path: Path) -> Path:
    dst = tmp_path / source
    shutil.copytree(DATA / source, dst)
    return dst


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".index" not in p.parts
    }


def test_basic_memory_notes_become_reviewed_import_memories(mem, tmp_path):
    report = mem.import_from("basic-memory", copy("basic-memory", tmp_path))
    assert len(report.memories) == 4 and not report.problems and not report.proposals
    rows = {r["title"]: r for r in mem.export()}
    zh = rows["收入口径"]
    assert zh["source"] == "import" and zh["reviewed"] is True and zh["scope"] == "user"
    assert zh["tags"] == ["财务", "口径"] and zh["note_tags"][-1] == "project/sales"
    assert zh["relations"] == ["依赖 [[退款表结构]]", "relates_to [[季度报表]]"]
    assert zh["permalink"] == "收入口径" and zh["imported_from"] == "basic-memory"
    assert zh["created"] == "2025-03-04T10:00:00+08:00"  # the note's own time, offset kept
    assert rows["Weekly sync 2025-06-02"]["type"] == "episodic"
    assert [h.title for h in mem.recall("退款", limit=5)][:1] == ["收入口径"]
    again = mem.import_from("basic-memory", copy("basic-memory", tmp_path / "again"))
    assert again.memories == [] and {s["reason"] for s in again.skipped} == {"imported before"}
    assert len(mem.export()) == 4


def test_round_trip_basic_memory_keeps_text_tags_and_relations(mem, tmp_path):
    src = copy("basic-memory", tmp_path)
    mem.import_from("basic-memory", src)
    out = tmp_path / "exported"
    result = export_basic_memory(mem, out)
    assert result["written"] == 4
    for note in src.rglob("*.md"):
        rel = note.relative_to(src).as_posix()
        before = parse_note(rel, note.read_text(encoding="utf-8"))
        after = parse_note(rel, (out / rel).read_text(encoding="utf-8"))
        assert after.text == before.text, rel
        assert after.tags == before.tags and after.extra.get("note_tags") == before.extra.get(
            "note_tags"
        ), rel
        assert after.extra["relations"] == before.extra["relations"], rel
        assert after.title == before.title and after.key == before.key, rel
    # exporting again into the same folder changes nothing; a different file there is refused
    assert export_basic_memory(mem, out)["written"] == 0
    (out / "loose-thought.md").write_text("edited by hand\n", encoding="utf-8")
    with pytest.raises(ValidationError, match="exists with other content"):
        export_basic_memory(mem, out)
    assert (out / "loose-thought.md").read_text(encoding="utf-8") == "edited by hand\n"


def test_nbi_rules_are_import_proposals_by_scope_and_process_all_applies_them(mem, tmp_path):
    project = tmp_path / "work" / "sales"
    project.mkdir(parents=True)
    rules = copy("nbi", tmp_path)
    rule = rules / "rules" / "02-中文规则.md"
    rule.write_text(
        rule.read_text(encoding="utf-8").replace("~/work/sales", str(project)), encoding="utf-8"
    )
    report = mem.import_from("nbi", rules, project=project)
    assert mem.project_id is None  # the focus is given back
    by_layer = {p["layer"] for p in report.proposals}
    assert len(report.proposals) == 3 and by_layer == {"user", "project"}
    queue = mem.queue()
    assert {p.source for p in queue} == {"import"} and len(queue) == 3
    zh = next(p for p in queue if "收入" in p.text)
    assert zh.suggested_layer == "project" and zh.project == "sales"
    assert zh.quote_origin.message_id == "rules/02-中文规则.md:12"
    assert mem.knowledge("user").count("- ") == 0  # nothing is knowledge until applied
    for p in queue:  # each to the layer its rule's scope suggested
        mem.apply(
            p.id, p.suggested_layer, project="sales" if p.suggested_layer == "project" else None
        )
    assert "收入一律不含当月退款" in mem.knowledge("project", "sales")
    assert "Always use type hints" in mem.knowledge("user")
    again = mem.import_from("nbi", rules, project=project)
    assert again.proposals == [] and len(again.skipped) == 4


def test_agents_md_items_are_proposals_quoting_their_line(mem, tmp_path):
    report = mem.import_from("agents-md", copy("agents-md", tmp_path))
    assert len(report.proposals) == 8
    queued = {p.text: p for p in mem.queue()}
    p = queued["Testing: Never commit notebooks with outputs."]
    assert p.evidence_quote == "- Never commit notebooks with outputs." and p.source == "import"
    assert "数据规范: 周报的留存按自然周计算。" in queued
    assert not any("never imported" in t for t in queued)
    assert mem.import_from("agents-md", tmp_path / "agents-md").proposals == []


def test_mem0_agent_scope_and_times(mem, tmp_path):
    report = mem.import_from("mem0", copy("mem0", tmp_path) / "export.json")
    assert len(report.memories) == 2
    rows = {r["text"]: r for r in mem.export()}
    agent = rows["When a join loses rows, check the key types first"]
    assert agent["scope"] == "agent:sql-helper" and agent["type"] == "procedural"
    assert agent["created"].startswith("2025-03-02T12:00:00")
    assert agent["mem0"]["run_id"] == "run-42"
    zh = mem.import_from("mem0", tmp_path / "mem0")
    assert len(zh.memories) == 2 and {s["reason"] for s in zh.skipped} == {"imported before"}
    scopes = {r["text"]: r["scope"] for r in mem.export()}
    assert scopes["用户是销售分析师，关注季度收入"] == "user"
    assert scopes["报表中的金额统一用人民币元"].startswith("agent:agent-")


def test_claude_memory_rules_are_proposals_and_notes_memories(mem, tmp_path):
    report = mem.import_from("claude-memory", copy("claude-memory", tmp_path))
    assert sorted(m["title"] for m in report.memories) == [
        "Revenue definition",
        "The warehouse is read-only on Sundays.",
        "第三季度项目",
    ]
    texts = sorted(p["text"] for p in report.proposals)
    assert "Personal preferences: 汇报时先给结论，再给细节。" in texts
    assert (
        "Testing: Use pytest fixtures instead of global state. (for files tests/**/*.py)" in texts
    )
    assert len(texts) == 3
    assert mem.import_from("claude-memory", tmp_path / "claude-memory").memories == []


def test_duplicates_of_existing_memories_knowledge_and_queue_are_skipped(mem, tmp_path):
    src = copy("mem0", tmp_path) / "export.json"
    mem.remember("Prefers morning meetings and async communication", source="manual")
    mem.propose(
        "Run the unit tests with pytest before every commit.",
        "rule",
        "Run the unit tests with pytest before every commit.",
    )
    report = mem.import_from("mem0", src)
    assert [s["reason"] for s in report.skipped] == ["same text as a stored memory"]
    agents = mem.import_from("agents-md", copy("agents-md", tmp_path), dry_run=True)
    reasons = [s["reason"] for s in agents.skipped]
    assert any(r.startswith("already pending as") for r in reasons)


def test_dry_run_shows_the_import_and_writes_nothing(mem, tmp_path, memory_home):
    mem.remember("something already stored")
    before = snapshot(memory_home)
    dry = mem.import_from("agents-md", copy("agents-md", tmp_path), dry_run=True)
    assert dry.dry_run and len(dry.proposals) == 8 and "would queue 8" in dry.summary()
    assert snapshot(memory_home) == before
    real = mem.import_from("agents-md", tmp_path / "agents-md")
    assert [p["text"] for p in real.proposals] == [p["text"] for p in dry.proposals]


def test_bad_files_are_reported_by_name_and_skipped_whole(mem, tmp_path):
    src = copy("basic-memory", tmp_path)
    outside = tmp_path / "secret.md"
    outside.write_text("---\ntitle: secret\n---\nnot yours\n", encoding="utf-8")
    os.symlink(outside, src / "link-out.md")
    (src / "latin1.md").write_bytes("caf\xe9 notes\n".encode("latin-1"))
    (src / "huge.md").write_text("x" * 1_000_001, encoding="utf-8")
    (src / "broken.md").write_text("---\ntitle: [oops\n---\nbody\n", encoding="utf-8")
    (src / "empty-title.md").write_text("---\ntitle: '  '\n---\nbody\n", encoding="utf-8")
    report = mem.import_from("basic-memory", src)
    problems = {p["file"]: p["reason"] for p in report.problems}
    assert "out of the folder" in problems["link-out.md"]
    assert "invalid UTF-8" in problems["latin1.md"]
    assert "cap" in problems["huge.md"]
    assert "YAML" in problems["broken.md"]
    assert "title" in problems["empty-title.md"]
    assert len(report.memories) == 4
    assert not any(r["title"] == "secret" for r in mem.export())


def test_a_bad_item_leaves_its_whole_file_out(mem, tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "good.json").write_text('[{"id": "a", "memory": "first good memory"}]')
    (folder / "half.json").write_text(
        '[{"id": "b", "memory": "would be imported alone"},'
        ' {"id": "c", "memory": "bad tag", "categories": ["a/b"]}]'
    )
    report = mem.import_from("mem0", folder)
    assert [m["file"] for m in report.memories] == ["good.json"]
    assert report.problems[0]["file"] == "half.json"
    assert "nothing imported" in report.problems[0]["reason"]
    assert [r["text"] for r in mem.export()] == ["first good memory"]


def test_a_folder_that_is_not_the_source_is_refused(mem, tmp_path):
    (tmp_path / "data.csv").write_text("a,b\n")
    with pytest.raises(ValidationError, match="holds no agents-md files"):
        mem.import_from("agents-md", tmp_path)
    with pytest.raises(ValidationError, match="source"):
        mem.import_from("evernote", tmp_path)


def test_export_agents_md_writes_the_approved_knowledge(mem, tmp_path):
    mem.import_from("agents-md", copy("agents-md", tmp_path))
    result = mem.process_all()  # Process all: one act accepts the whole import
    assert len(result["applied"]) == 8 and mem.queue() == []
    out = tmp_path / "out" / "AGENTS.md"
    result = export_agents_md(mem, out)
    text = out.read_text(encoding="utf-8")
    assert result["entries"] == 8 and text.startswith("# AGENTS.md")
    assert "- 数据规范: 收入口径一律不含当月退款。" in text and "BEGIN jupyter-memory" not in text
    with pytest.raises(ValidationError, match="exists"):
        (tmp_path / "hand.md").write_text("mine\n")
        export_agents_md(mem, tmp_path / "hand.md")
    # what we export imports back as nothing new
    assert mem.import_from("agents-md", out).proposals == []


def test_an_imported_rule_the_person_dismissed_in_other_words_stays_dismissed(mem, tmp_path):
    text = "Testing: Notebooks with outputs must never be committed."
    dismissed = mem.propose(text, "rule", text)
    mem.dismiss(dismissed["id"])
    src = copy("agents-md", tmp_path)
    planned = mem.import_from("agents-md", src, dry_run=True)  # the dry run says the same
    assert len(planned.proposals) == 7
    report = mem.import_from("agents-md", src)
    queued = {p.text for p in mem.queue()}
    assert "Testing: Never commit notebooks with outputs." not in queued
    assert len(report.proposals) == 7
