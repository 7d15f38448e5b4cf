"""Pure parsers of other tools' formats (issue 18): fixtures in tests/data/imports/."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory.core.imports import agents_md, basic_memory, claude_memory, mem0, nbi
from jupyter_memory.core.imports.markdown import blocks
from jupyter_memory.exceptions import ParseError

DATA = Path(__file__).parent.parent / "data" / "imports"


def read(rel: str) -> str:
    return (DATA / rel).read_text(encoding="utf-8")


def test_basic_memory_chinese_note_keeps_tags_relations_and_time():
    draft = basic_memory.parse_note("收入口径.md", read("basic-memory/收入口径.md"))
    assert draft.title == "收入口径"
    assert draft.key == "basic-memory:收入口径"
    assert draft.text.startswith("\n# 收入口径\n") or draft.text.startswith("# 收入口径\n")
    assert "- [规则] 收入不含当月退款 #财务" in draft.text
    # a tag with '/' cannot be one of ours; the note's own list keeps it
    assert draft.tags == ["财务", "口径"]
    assert draft.extra["note_tags"] == ["财务", "口径", "project/sales"]
    assert draft.extra["relations"] == ["依赖 [[退款表结构]]", "relates_to [[季度报表]]"]
    assert draft.created is not None and draft.created.utcoffset().total_seconds() == 8 * 3600


def test_basic_memory_types_observations_and_quoted_relations():
    coffee = basic_memory.parse_note(
        "coffee/coffee-brewing-methods.md", read("basic-memory/coffee/coffee-brewing-methods.md")
    )
    assert coffee.extra["relations"] == [
        "relates_to [[Coffee Bean Origins]]",
        "requires [[Proper Grinding Technique]]",
        "pairs well with [[Morning Routine]]",
    ]
    assert coffee.extra["note_meta"] == {"status": "active"}
    assert coffee.extra["note_path"] == "coffee/coffee-brewing-methods.md"
    meeting = basic_memory.parse_note(
        "meetings/w.md", read("basic-memory/meetings/weekly-sync-2025-06-02.md")
    )
    assert meeting.type == "episodic" and meeting.tags == ["sync"]
    loose = basic_memory.parse_note("loose-thought.md", read("basic-memory/loose-thought.md"))
    assert loose.title == "loose-thought" and loose.extra["relations"] == []
    assert basic_memory.memory_type("note", ["method", "technique", "fact"]) == "procedural"
    assert basic_memory.observations("- [ ] todo\n- [x] done\n- [tech] SQLite") == [
        ("tech", "SQLite")
    ]


def test_basic_memory_render_then_parse_is_the_same_note():
    draft = basic_memory.parse_note("收入口径.md", read("basic-memory/收入口径.md"))
    row = {"title": draft.title, "text": draft.text, "tags": draft.tags, **draft.extra}
    rel, text = basic_memory.render_note(row)
    again = basic_memory.parse_note(rel, text)
    assert rel == "收入口径.md"
    assert again.text == draft.text
    assert again.extra["note_tags"] == draft.extra["note_tags"]
    assert again.extra["relations"] == draft.extra["relations"]


def test_basic_memory_bad_frontmatter_names_the_file():
    with pytest.raises(ParseError, match="bad.md.*YAML"):
        basic_memory.parse_note("bad.md", "---\ntitle: [unclosed\n---\ntext\n")
    with pytest.raises(ParseError, match="not closed"):
        basic_memory.parse_note("open.md", "---\ntitle: x\ntext\n")


def test_nbi_rules_keep_mode_and_scope_and_pick_the_layer():
    zh = nbi.parse_rule(
        "rules/02-中文规则.md",
        read("nbi/rules/02-中文规则.md"),
        project_dir="/u/work/sales",
        home="/u",
    )
    (rule,) = zh.proposals
    assert rule.kind == "rule" and rule.layer == "project"
    assert rule.text == "数据口径: 收入一律不含当月退款; 金额统一用人民币元，保留两位小数"
    assert "- 收入一律不含当月退款。" in rule.quote
    elsewhere = nbi.parse_rule(
        "rules/02.md", read("nbi/rules/02-中文规则.md"), project_dir="/tmp/x"
    )
    assert elsewhere.proposals[0].layer == "user"
    agent = nbi.parse_rule(
        "rules/modes/agent/01-testing.md", read("nbi/rules/modes/agent/01-testing.md")
    )
    assert agent.proposals[0].text.endswith(
        "(in agent mode; for kernels python3; for files *.ipynb)"
    )
    off = nbi.parse_rule("rules/03-disabled.md", read("nbi/rules/03-disabled.md"))
    assert not off.proposals and "inactive" in off.skipped[0][1]
    with pytest.raises(ParseError, match="active"):
        nbi.parse_rule("r.md", "---\nactive: not_a_boolean\n---\n# R\n- x\n")


def test_agents_md_one_proposal_per_item_outside_our_block():
    parsed = agents_md.parse_instructions("AGENTS.md", read("agents-md/AGENTS.md"), layer="user")
    texts = [p.text for p in parsed.proposals]
    assert "Testing: Run the unit tests with pytest before every commit." in texts
    assert "数据规范: 收入口径一律不含当月退款。" in texts
    assert not any("never imported" in t or "make test" in t for t in texts)
    para = next(p for p in parsed.proposals if p.text.startswith("Keep the analysis"))
    assert para.quote.startswith("Keep the analysis reproducible")
    bullet = next(p for p in parsed.proposals if "Never commit" in p.text)
    assert bullet.quote == "- Never commit notebooks with outputs." and bullet.line == 11
    claude = agents_md.parse_instructions("CLAUDE.md", read("agents-md/CLAUDE.md"))
    assert [p.text for p in claude.proposals] == [
        "Prefer small, reviewable pull requests over large ones."
    ]
    assert "@-import" in claude.skipped[0][1]


def test_blocks_keep_sub_bullets_with_their_item():
    got = blocks("## A\n- one\n  - one.a\n- two\n\npara line\ncontinued\n")
    assert [(b.heading, b.text) for b in got] == [
        ("A", "one one.a"),
        ("A", "two"),
        ("A", "para line continued"),
    ]


def test_mem0_list_and_results_forms_with_agents_and_times():
    items = mem0.parse_export("export.json", read("mem0/export.json"))
    assert [d.agent for d in items] == [None, "sql-helper"]
    assert items[1].type == "procedural"
    assert items[0].created is not None and items[0].created.isoformat().startswith("2025-01-15")
    assert items[0].extra["mem0"]["user_id"] == "ana"
    zh = mem0.parse_export("results-zh.json", read("mem0/results-zh.json"))
    assert zh[0].text == "用户是销售分析师，关注季度收入" and zh[0].tags == ["工作"]
    assert zh[1].agent is not None and zh[1].agent.startswith("agent-")
    assert mem0.agent_name("报表助手") != mem0.agent_name("报表助理")


def test_mem0_bad_input_names_the_item():
    with pytest.raises(ParseError, match="invalid JSON"):
        mem0.parse_export("x.json", "[{")
    with pytest.raises(ParseError, match="item 2: 'memory'"):
        mem0.parse_export("x.json", '[{"id": 1, "memory": "ok"}, {"id": 2}]')
    with pytest.raises(ParseError, match="not a mem0 export"):
        mem0.parse_export("x.json", '{"memories": 3}')


def test_claude_memory_files_by_kind():
    assert claude_memory.kind_of_file("CLAUDE.md") == "instructions"
    assert claude_memory.kind_of_file(".claude/rules/testing.md") == "instructions"
    assert claude_memory.kind_of_file("projects/p/memory/MEMORY.md") == "index"
    assert claude_memory.kind_of_file("projects/p/memory/x.md") == "note"
    assert claude_memory.kind_of_file("README.md") is None
    assert claude_memory.kind_of_file("x.md", memory_folder=True) == "note"
    topic = claude_memory.parse_topic(
        "m/project_q3.md", read("claude-memory/projects/-home-ana-sales/memory/project_q3.md")
    )
    assert topic.title == "第三季度项目" and topic.type == "episodic" and topic.tags == ["project"]
    index = claude_memory.parse_index(
        "m/MEMORY.md",
        read("claude-memory/projects/-home-ana-sales/memory/MEMORY.md"),
        frozenset({"m/feedback_revenue.md", "m/project_q3.md"}),
    )
    assert [m.text for m in index.memories] == ["The warehouse is read-only on Sundays."]
    assert len(index.skipped) == 2
