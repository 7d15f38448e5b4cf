"""Governed knowledge through the Memory facade: queue, Apply/Dismiss, files, switches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_memory import Memory, tool_schemas
from jupyter_memory.core.knowledge.format import (
    SAVE_CAP_CHARS,
    Entry,
    KnowledgeDoc,
    render_knowledge,
)
from jupyter_memory.exceptions import (
    NotFoundError,
    OversizeError,
    ParseError,
    PolicyError,
    ValidationError,
)

CHAT = [
    {"role": "user", "text": "Note: Revenue must always exclude refunds.", "id": "m1"},
    {"role": "assistant", "text": "Noted. DAU should count unique devices.", "id": "m2"},
    {"role": "user", "text": "口径：收入口径不含退款。", "id": "m3"},
]


def audit_actions(mem: Memory) -> list[str]:
    return [r["action"] for r in mem.hooks.audit.records()]


def test_propose_apply_reaches_context_and_files(mem: Memory) -> None:
    res = mem.propose(
        "Revenue excludes refunds", "rule", "Revenue must always exclude refunds", messages=CHAT
    )
    assert res["status"] == "queued"
    pid = res["id"]
    assert mem.context() == ""  # pending is never injected
    [queued] = mem.queue()
    assert (queued.text, queued.kind, queued.source, queued.status) == (
        "Revenue excludes refunds",
        "rule",
        "manual",
        "pending",
    )
    assert queued.quote_origin.message_id == "m1"
    out = mem.apply(pid, to="user")
    assert out["status"] == "applied" and out["section"] == "rules"
    assert "- Revenue excludes refunds" in Path(out["path"]).read_text()
    assert "Revenue excludes refunds" in mem.context()
    assert mem.queue() == []
    assert mem.apply(pid, to="user")["status"] == "already_saved"
    assert mem.dismiss(pid)["status"] == "already_saved"
    assert Path(out["path"]).read_text().count("Revenue excludes refunds") == 1
    assert audit_actions(mem) == ["proposal.create", "proposal.apply"]


def test_dismiss_is_remembered(mem: Memory) -> None:
    pid = mem.propose("收入口径不含退款", "info", "收入 口径 不含 退款", messages=CHAT)["id"]
    assert mem.dismiss(pid)["status"] == "dismissed"
    assert mem.dismiss(pid)["status"] == "already_dismissed"
    assert mem.apply(pid, to="user")["status"] == "already_dismissed"
    again = mem.propose("收入口径不含退款。", "info", "收入口径不含退款", messages=CHAT)
    assert again["status"] == "skipped" and "dismissed" in again["reason"]
    assert mem.context() == ""
    extracted = mem.extract(CHAT)
    assert [p.text for p in extracted] == ["Revenue must always exclude refunds."]
    assert [s["reason"] for s in mem.hooks.last_extraction_skipped] == [
        "this proposal was dismissed before"
    ]


def test_evidence_from_agent_output_is_refused(mem: Memory) -> None:
    with pytest.raises(ValidationError, match="agent output"):
        mem.propose("DAU counts devices", "info", "DAU should count unique devices", messages=CHAT)
    with pytest.raises(ValidationError, match="does not appear"):
        mem.propose("GMV includes tax", "info", "GMV includes tax always", messages=CHAT)
    with pytest.raises(ValidationError, match="evidence"):
        mem.propose("GMV includes tax", "info", "", messages=CHAT)
    assert mem.queue() == []


def test_every_note_is_queued_with_the_project_default(mem: Memory, project_dir: Path) -> None:
    """A person's notes have no round limit (that is the LLM's); prose makes nothing."""
    msgs = [
        "rule: revenue must exclude refunds\nrule: always use UTC for day boundaries",
        "info: DAU is defined as unique users per day\nNever mix test accounts into KPIs.",
        "note: GMV includes tax\nnote: the fiscal year starts in February",
        "gotcha: the vendor file repeats its header on page two",
    ]
    mem.focus(project_dir)
    queued = mem.extract(msgs)
    assert [p.text for p in queued] == [
        "Revenue must exclude refunds",
        "Always use UTC for day boundaries",
        "DAU is defined as unique users per day",
        "GMV includes tax",
        "The fiscal year starts in February",
        "The vendor file repeats its header on page two",
    ]
    assert [p.kind for p in queued] == ["rule", "rule", "info", "info", "info", "rule"]
    assert queued[-1].source == "gotcha"
    assert all(p.suggested_layer == "project" and p.project == "sales-q3" for p in queued)
    assert mem.extract(msgs) == []  # pending duplicates now
    assert len(mem.queue()) == 6


def test_update_of_pending_supersedes_it(mem: Memory) -> None:
    first = mem.propose(
        "Revenue excludes refunds", "rule", "Revenue must always exclude refunds", messages=CHAT
    )
    second = mem.propose(
        "Revenue excludes refunds and chargebacks",  # the same subject, wider: an update
        "rule",
        "Revenue must always exclude refunds",
        messages=CHAT,
    )
    assert second["supersedes"] == first["id"]
    assert [p.id for p in mem.queue()] == [second["id"]]
    assert mem.apply(first["id"], to="user")["status"] == "already_superseded"


def test_duplicate_of_approved_knowledge_is_skipped(mem: Memory) -> None:
    mem.save_knowledge("user", "## Rules\n- Revenue must always exclude refunds.\n## Info\n")
    res = mem.propose(
        "revenue must always exclude refunds",
        "rule",
        "Revenue must always exclude refunds",
        messages=CHAT,
    )
    assert res["status"] == "skipped" and "user knowledge" in res["reason"]


def test_apply_to_project_needs_a_project(mem: Memory, project_dir: Path) -> None:
    pid = mem.propose(
        "Revenue excludes refunds", "rule", "Revenue must always exclude refunds", messages=CHAT
    )["id"]
    with pytest.raises(ValidationError, match="pick a project"):
        mem.apply(pid, to="project")
    with pytest.raises(NotFoundError, match="unknown project"):
        mem.apply(pid, to="project", project="no-such-project")
    with pytest.raises(NotFoundError, match="does not exist"):
        mem.apply(pid, to="project", project=str(project_dir / "missing"))
    assert mem.queue()[0].status == "pending"
    out = mem.apply(pid, to="project", project=str(project_dir))
    assert out["project"] == "sales-q3"
    assert (project_dir / ".jupyter-memory" / "knowledge.md").exists()
    assert mem.context() == ""  # not focused: project knowledge is not injected
    assert "Revenue excludes refunds" in mem.context(project="sales-q3")


def test_process_all_applies_each_item_to_its_suggested_layer(
    mem: Memory, project_dir: Path
) -> None:
    """Spec 002 §4.4: Process all has no layer of its own; it skips only "pick a project"."""
    mem.focus(project_dir)
    # suggested: Project · sales-q3 (the focus)
    in_project = mem.propose("收入口径不含退款", "info", "收入口径不含退款", messages=CHAT).id
    user_too = mem.propose(
        "Revenue excludes refunds",
        "rule",
        "Revenue must always exclude refunds",
        layer="user",
        messages=CHAT,
    )["id"]  # suggested: User, although a project was in focus
    mem.focus(None)
    plain_user = mem.propose("GMV includes tax", "info", "GMV includes tax")["id"]
    needs_pick = mem.propose(
        "Weeks start on Monday", "rule", "Weeks start on Monday", layer="project"
    )["id"]  # suggested: Project, none named
    assert mem.proposal(needs_pick).project is None

    result = mem.process_all()
    where = {a["id"]: (a["layer"], a["project"]) for a in result["applied"]}
    assert where == {
        in_project: ("project", "sales-q3"),
        user_too: ("user", None),
        plain_user: ("user", None),
    }
    assert result["skipped"] == [
        {"id": needs_pick, "text": "Weeks start on Monday", "reason": "pick a project"}
    ]
    assert "收入口径不含退款" in mem.knowledge("project", "sales-q3")
    assert "Revenue excludes refunds" not in mem.knowledge("project", "sales-q3")
    user = mem.knowledge("user")
    assert "Revenue excludes refunds" in user and "GMV includes tax" in user
    assert "收入口径不含退款" not in user
    assert [p.id for p in mem.queue()] == [needs_pick]
    # A focus does not pick for the person: the item still waits for its project.
    mem.focus(project_dir)
    again = mem.process_all()
    assert again["applied"] == [] and [s["id"] for s in again["skipped"]] == [needs_pick]
    assert "Weeks start on Monday" not in mem.knowledge("project", "sales-q3")
    assert mem.apply(needs_pick, to="project")["project"] == "sales-q3"  # picked by hand


def test_unknown_ids(mem: Memory) -> None:
    for call in (lambda: mem.apply("p-nope", to="user"), lambda: mem.dismiss("p-nope")):
        with pytest.raises(NotFoundError, match="p-nope"):
            call()
    with pytest.raises(ValidationError):
        mem.apply("../etc/passwd", to="user")
    with pytest.raises(ValidationError, match="to"):
        mem.apply("p-x", to="team")


def test_save_cap_and_nothing_changes(mem: Memory) -> None:
    ok = render_knowledge(KnowledgeDoc((Entry("x" * 100),), ()))
    mem.save_knowledge("user", ok)
    before = Path(mem.hooks.library_status("user")["path"]).read_bytes()
    big = render_knowledge(KnowledgeDoc((Entry("y" * SAVE_CAP_CHARS),), ()))
    with pytest.raises(OversizeError, match="8,000"):
        mem.save_knowledge("user", big)
    assert Path(mem.hooks.library_status("user")["path"]).read_bytes() == before


def test_apply_that_would_pass_the_cap_is_refused(mem: Memory) -> None:
    filler = render_knowledge(
        KnowledgeDoc(tuple(Entry(f"rule {i} " + "z" * 70) for i in range(96)), ())
    )
    mem.save_knowledge("user", filler)
    pid = mem.propose(
        "Revenue excludes refunds " + "w" * 200,
        "rule",
        "Revenue must always exclude refunds",
        messages=CHAT,
    )["id"]
    with pytest.raises(OversizeError):
        mem.apply(pid, to="user")
    assert mem.queue()[0].status == "pending"


def test_malformed_file_is_reported_and_never_rewritten(mem: Memory) -> None:
    path = Path(mem.hooks.library_status("user")["path"])
    path.parent.mkdir(parents=True, exist_ok=True)
    bad = "## Rules\n- ok\n      - too deep\n"
    path.write_text(bad)
    pid = mem.propose(
        "Revenue excludes refunds", "rule", "Revenue must always exclude refunds", messages=CHAT
    )["id"]
    for call in (
        mem.context,
        lambda: mem.apply(pid, to="user"),
        lambda: mem.hooks.library_status("user"),
        lambda: mem.reorganize("user"),
    ):
        with pytest.raises(ParseError, match=r"knowledge\.md:3"):
            call()
    assert path.read_text() == bad
    assert mem.queue()[0].status == "pending"


def test_legacy_layout_read_then_rewritten_on_save_only(mem: Memory) -> None:
    path = Path(mem.hooks.library_status("user")["path"])
    path.parent.mkdir(parents=True, exist_ok=True)
    legacy = "## Business Rules\n- Always use UTC\n## Glossary\n- GMV: gross merchandise value\n"
    path.write_text(legacy)
    status = mem.hooks.library_status("user")
    assert status["legacy_layout"] and (status["rules"], status["info"]) == (1, 1)
    assert "Always use UTC" in mem.context()
    assert path.read_text() == legacy  # reading never rewrites
    pid = mem.propose(
        "Revenue excludes refunds", "rule", "Revenue must always exclude refunds", messages=CHAT
    )["id"]
    mem.apply(pid, to="user")
    text = path.read_text()
    assert "## Business Rules" not in text and text.count("## ") == 2
    assert "- GMV: gross merchandise value" in text


def test_library_status_counts_saved_file(mem: Memory) -> None:
    mem.save_knowledge(
        "user",
        "## Rules\n- Calendar\n  - Q1 starts Feb\n  - Q4 ends Jan\n- UTC always\n## Info\n- GMV含税\n",
    )
    st = mem.hooks.library_status("user")
    assert (st["rules"], st["info"], st["mode"], st["budget"]) == (3, 1, "flat", 6000)
    assert st["last_updated"] is not None and st["exists"]


def test_settings_switches(mem: Memory) -> None:
    mem.save_knowledge("user", "## Rules\n- Always use UTC\n## Info\n")
    assert mem.settings["enabled"] and mem.settings["auto_suggestions"]
    mem.update_settings(auto_suggestions=False)
    assert mem.extract(CHAT) == []  # no background extraction
    assert "Always use UTC" in mem.context()  # approved knowledge still injected
    assert mem.extract(CHAT, background=False)  # an explicit round still runs
    assert (
        mem.propose_knowledge(
            "GMV excludes refunds",  # another metric than the rule the round queued
            "rule",
            "Revenue must always exclude refunds",
            messages=CHAT,
        )["status"]
        == "queued"
    )
    mem.update_settings(enabled=False)
    assert mem.context() == ""
    assert mem.extract(CHAT, background=False) == []
    with pytest.raises(PolicyError):
        mem.propose_knowledge("GMV includes tax", "info", "收入口径不含退款", messages=CHAT)
    with pytest.raises(PolicyError):
        mem.hooks.expand_knowledge_catalog(["Always use UTC"])
    # persisted: a new Memory on the same home sees the switches
    other = Memory(home=mem.home)
    assert other.settings["enabled"] is False and other.settings["auto_suggestions"] is False
    with pytest.raises(ValidationError, match="enabled"):
        mem.update_settings(enabled="yes")  # type: ignore[arg-type]


def test_agent_tool_rate_limit_and_execution_state(mem: Memory) -> None:
    mem.hooks.record_round(
        ["Revenue must always exclude refunds. 收入口径不含退款。"], conversation="c1"
    )
    with pytest.raises(ValidationError, match="SQL"):
        mem.propose_knowledge(
            "Run SELECT a FROM orders first",
            "rule",
            "Revenue must always exclude refunds",
            conversation="c1",
        )
    with pytest.raises(ValidationError, match="temp or cache table"):
        mem.propose_knowledge(
            "Use tmp_revenue for refunds",
            "rule",
            "Revenue must always exclude refunds",
            conversation="c1",
        )
    with pytest.raises(ValidationError, match="file path"):
        mem.propose_knowledge(
            "Refunds are in /tmp/refunds.parquet",
            "info",
            "Revenue must always exclude refunds",
            conversation="c1",
        )
    assert (
        mem.propose_knowledge(
            "Revenue excludes refunds",
            "rule",
            "Revenue must always exclude refunds",
            conversation="c1",
        )["status"]
        == "queued"
    )
    mem.propose_knowledge("收入不含退款", "info", "收入口径不含退款", conversation="c1")
    with pytest.raises(PolicyError, match="rate limit"):
        mem.propose_knowledge("GMV includes tax", "info", "收入口径不含退款", conversation="c1")
    with pytest.raises(
        ValidationError, match="does not appear"
    ):  # another conversation has its own round
        mem.propose_knowledge("GMV includes tax", "info", "收入口径不含退款", conversation="c2")
    assert {p.source for p in mem.queue()} == {"agent"}
    assert mem.context() == ""


def test_agent_tools_are_exactly_two_and_cannot_apply(mem: Memory) -> None:
    names = [t["function"]["name"] for t in tool_schemas()]
    assert names == ["propose_knowledge", "expand_knowledge_catalog"]
    for tool in tool_schemas():
        assert tool["type"] == "function" and tool["function"]["parameters"]["type"] == "object"
        json.dumps(tool)
    mem.hooks.record_round(CHAT, conversation="c")
    res = mem.hooks.call_agent_tool(
        "propose_knowledge",
        {
            "text": "Revenue excludes refunds",
            "kind": "rule",
            "evidence_quote": "Revenue must always exclude refunds",
        },
        conversation="c",
    )
    for name in ("apply", "save_knowledge", "dismiss", "reorganize", "forget"):
        with pytest.raises(NotFoundError):
            mem.hooks.call_agent_tool(name, {"id": res["id"], "to": "user"})
    with pytest.raises(ValidationError, match="kind"):
        mem.hooks.call_agent_tool(
            "propose_knowledge", {"text": "x", "kind": "fact", "evidence_quote": "q"}
        )
    assert mem.queue()[0].status == "pending" and mem.context() == ""


def test_expand_catalog_and_unknown_labels(mem: Memory) -> None:
    mem.save_knowledge("user", "## Rules\n- Calendar\n  - Q1 starts Feb\n## Info\n- GMV含税\n")
    res = mem.hooks.expand_knowledge_catalog(["Calendar", "GMV含税", "Nope"])
    assert [e["label"] for e in res["entries"]] == ["Calendar", "GMV含税"]
    assert res["entries"][0]["children"] == ["Q1 starts Feb"]
    assert res["unknown"] == ["Nope"]
    with pytest.raises(ValidationError, match="labels"):
        mem.hooks.expand_knowledge_catalog([])


def test_queue_change_events(mem: Memory) -> None:
    events: list[dict] = []
    stop = mem.hooks.on_queue_change(events.append)
    pid = mem.propose(
        "Revenue excludes refunds", "rule", "Revenue must always exclude refunds", messages=CHAT
    )["id"]
    mem.apply(pid, to="user")
    stop()
    mem.propose("收入口径不含退款", "info", "收入口径不含退款", messages=CHAT)
    assert [(e["action"], e["pending"]) for e in events] == [("created", 1), ("applied", 0)]


def test_unreadable_proposal_file_is_reported_not_fatal(mem: Memory) -> None:
    mem.propose(
        "Revenue excludes refunds", "rule", "Revenue must always exclude refunds", messages=CHAT
    )
    bad = mem.home / "queue" / "2026-11-30_rule_broken-p-broken.md"
    bad.write_text("---\nkind: [\n---\nx\n")
    assert len(mem.queue()) == 1
    [problem] = mem.hooks.queue_problems()
    assert problem["path"] == str(bad) and "YAML" in problem["message"]
    assert bad.read_text() == "---\nkind: [\n---\nx\n"
