"""The knowledge services built from a ServiceContext alone (no ``Memory``), on real files.

Each service is constructed by hand from its context and the services it
needs; the last tests check the wiring ``Memory`` uses (the AGENTS.md auto-sync
registered as the after-Apply hook) and that every result's ``to_dict()``
keeps the keys the operation returned before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jupyter_memory.core.knowledge.format import KnowledgeDoc
from jupyter_memory.exceptions import KnowledgeConflictError, NotFoundError, PolicyError
from jupyter_memory.service.context import ServiceContext
from jupyter_memory.service.knowledge.agent_context import KnowledgeContext
from jupyter_memory.service.knowledge.agent_tools import KnowledgeAgentTools
from jupyter_memory.service.knowledge.agents_md import sync_agents_md
from jupyter_memory.service.knowledge.decisions import KnowledgeDecisions
from jupyter_memory.service.knowledge.events import QueueEvents
from jupyter_memory.service.knowledge.files import KnowledgeFiles
from jupyter_memory.service.knowledge.queue import KnowledgeQueue
from jupyter_memory.service.knowledge.results import (
    AgentsMdAutosync,
    DecisionResult,
    ProposeResult,
    SyncReport,
)
from jupyter_memory.service.knowledge.wiring import knowledge_services
from jupyter_memory.service.memories.semantic import SemanticRecall
from jupyter_memory.store.knowledge.queue import QueueStore

RULE = "Revenue excludes refunds (收入不含退款)."
OTHER = "Dates are in Asia/Shanghai time (日期按北京时间)."


@pytest.fixture
def ctx(memory_home: Path, clock: Any) -> ServiceContext:
    return ServiceContext.open(
        memory_home, clock=clock, actor="person", semantic=SemanticRecall(None)
    )


def _queue(ctx: ServiceContext) -> tuple[KnowledgeFiles, QueueEvents, KnowledgeQueue]:
    files = KnowledgeFiles(ctx)
    store = QueueStore(ctx.user.layout)
    events = QueueEvents(store)
    return files, events, KnowledgeQueue(ctx, files, store, events)


def test_files_save_is_compare_and_swap_and_reads_are_typed(ctx: ServiceContext) -> None:
    files = KnowledgeFiles(ctx)
    opened = files.read_knowledge("user")
    assert (opened.exists, opened.layer, opened.project) == (False, "user", None)
    saved = files.save_knowledge("user", f"## Rules\n- {RULE}\n\n## Info\n", base=opened.version)
    assert saved.status.rules == 1 and saved.version == files.knowledge_version("user")
    assert saved.path == str(ctx.home / "knowledge.md")
    with pytest.raises(KnowledgeConflictError):  # the old base no longer matches
        files.save_knowledge("user", "## Rules\n- something else\n\n## Info\n", base=opened.version)
    assert RULE in (ctx.home / "knowledge.md").read_text(encoding="utf-8")
    read = files.read_knowledge("user")
    assert list(read.to_dict()) == [
        "layer",
        "project",
        "path",
        "exists",
        "text",
        "version",
        "status",
        "conflict",
    ]
    assert read.to_dict()["status"] == saved.to_dict() == files.library_status("user").to_dict()
    assert read == read.to_dict() and read["version"] == saved.version  # reads like the old dict


def test_queue_proposes_records_and_tells_listeners(ctx: ServiceContext) -> None:
    files, events, queue = _queue(ctx)
    seen: list[dict[str, Any]] = []
    unsubscribe = events.on_queue_change(seen.append)
    queue.record_round([{"role": "user", "text": f"Remember: {RULE}"}])
    made = queue.propose(RULE, "rule", RULE, source="chat-extraction")
    assert isinstance(made, ProposeResult) and made.status == "queued"
    assert made.proposal is not None and made.proposal.text == RULE
    assert list(made.to_dict()) == ["status", "id", "reason", "supersedes", "proposal"]
    again = queue.propose(RULE, "rule", RULE)
    assert (again.status, again.id, again.proposal) == ("skipped", None, None)
    assert list(again.to_dict()) == ["status", "id", "reason"]
    assert [(e["action"], e["pending"]) for e in seen] == [("created", 1)]
    unsubscribe()
    assert [p.id for p in queue.queue()] == [made.id]


def test_agent_allowance_lives_in_the_queue_service(ctx: ServiceContext) -> None:
    _, _, queue = _queue(ctx)
    texts = [
        "Amounts are stated in 人民币.",
        "Weeks start on Monday.",
        "Refunds are booked on the refund date.",
        "Churn counts paying users only.",
        "GMV includes tax (GMV含税).",
        "Test accounts are excluded from every total.",
    ]
    queue.record_round([{"role": "user", "text": " ".join(texts)}])
    for text in texts[:5]:
        assert queue.propose_knowledge(text, "rule", text).status == "queued"
    with pytest.raises(PolicyError, match="rate limit"):
        queue.propose_knowledge(texts[5], "rule", texts[5])
    # A second queue service (another Memory) starts its own unnamed allowance.
    _, _, fresh = _queue(ctx)
    fresh.record_round([{"role": "user", "text": texts[5]}])
    assert fresh.propose_knowledge(texts[5], "rule", texts[5]).status == "queued"


def test_decisions_run_the_registered_hook_once_per_project(
    ctx: ServiceContext, project_dir: Path
) -> None:
    files, events, queue = _queue(ctx)
    decisions = KnowledgeDecisions(ctx, files, queue, events)
    pid = ctx.projects.register(project_dir)
    a = queue.propose(RULE, "rule", RULE, layer="project", project=project_dir)
    b = queue.propose(OTHER, "rule", OTHER, layer="project", project=project_dir)
    c = queue.propose("Use 人民币 for amounts.", "info", "Use 人民币 for amounts.", layer="project")
    d = queue.propose("Weeks start on Monday.", "info", "Weeks start on Monday.", project=pid)
    assert a.id and b.id and c.id and d.id
    assert c.proposal is not None and c.proposal.project is None  # Project, none picked

    plain = decisions.apply(a.id, to="project")  # no hook registered: no agents_md key
    assert isinstance(plain, DecisionResult) and plain.agents_md is None
    assert list(plain.to_dict()) == [
        "id",
        "status",
        "layer",
        "project",
        "section",
        "path",
        "version",
    ]
    assert decisions.apply(a.id, to="project").to_dict() == {
        "id": a.id,
        "status": "already_saved",
        "layer": "project",
        "project": pid,
    }

    calls: list[str] = []

    def hook(project_id: str) -> AgentsMdAutosync:
        calls.append(project_id)
        return AgentsMdAutosync(project_id, report=SyncReport())

    decisions.on_project_applied(hook)
    batch = decisions.process_all()
    assert {(r.id, r.status) for r in batch.applied} == {(b.id, "applied"), (d.id, "applied")}
    assert [(s.id, s.reason) for s in batch.skipped] == [(c.id, "pick a project")]
    assert calls == [pid]  # once for the batch, not once per item
    assert batch.to_dict()["agents_md"] == [{"ok": True, "files": [], "project": pid}]
    assert decisions.dismiss(c.id).to_dict() == {"id": c.id, "status": "dismissed"}
    assert decisions.apply(c.id, to="user").to_dict() == {"id": c.id, "status": "already_dismissed"}


def test_context_and_expand_see_approved_knowledge_only(ctx: ServiceContext) -> None:
    files, _, queue = _queue(ctx)
    context = KnowledgeContext(ctx, files)
    queue.propose(OTHER, "rule", OTHER)  # pending: never in the context
    assert context.context() == ""  # nothing approved yet
    files.save_knowledge("user", f"## Rules\n- {RULE}\n\n## Info\n- Calendar\n  - Q1 starts Feb\n")
    assert RULE in context.context()
    found = context.expand_knowledge_catalog(["Calendar", "Nope"])
    assert [e.label for e in found.entries] == ["Calendar"] and found.unknown == ["Nope"]
    assert found.to_dict()["entries"][0]["children"] == ["Q1 starts Feb"]
    ctx.settings.update(enabled=False)
    assert context.context() == ""
    with pytest.raises(PolicyError):
        context.expand_knowledge_catalog("Calendar")


def test_agent_tools_dispatch_two_tools_only(ctx: ServiceContext) -> None:
    files, _, queue = _queue(ctx)
    tools = KnowledgeAgentTools(queue, KnowledgeContext(ctx, files))
    queue.record_round([{"role": "user", "text": RULE}])
    made = tools.call_agent_tool(
        "propose_knowledge", {"text": RULE, "kind": "rule", "evidence_quote": RULE}
    )
    assert isinstance(made, ProposeResult) and made.status == "queued"
    assert queue.proposal(str(made.id)).source == "agent"
    expanded = tools.call_agent_tool("expand_knowledge_catalog", {"labels": ["Nope"]})
    assert expanded.to_dict() == {"entries": [], "unknown": ["Nope"]}
    with pytest.raises(NotFoundError):
        tools.call_agent_tool("apply", {"id": made.id, "to": "user"})


def test_agents_md_sync_reads_through_the_knowledge_files(
    ctx: ServiceContext, project_dir: Path
) -> None:
    files = KnowledgeFiles(ctx)
    files.save_knowledge("project", f"## Rules\n- {RULE}\n\n## Info\n", project=project_dir)
    report = sync_agents_md(files, project_dir, create=True)
    assert [f.action for f in report.files] == ["created", "created"]
    assert RULE in (project_dir / "AGENTS.md").read_text(encoding="utf-8")
    assert isinstance(files.knowledge_doc("project", project_dir), KnowledgeDoc)


def test_wiring_registers_the_agents_md_autosync(ctx: ServiceContext, project_dir: Path) -> None:
    kn = knowledge_services(ctx)
    kn.files.save_knowledge("project", f"## Rules\n- {RULE}\n\n## Info\n", project=project_dir)
    sync_agents_md(kn.files, project_dir, create=True)
    pid = ctx.projects.register(project_dir)
    made = kn.queue.propose(OTHER, "rule", OTHER, layer="project", project=project_dir)
    assert made.id is not None
    assert "agents_md" not in kn.decisions.apply(made.id, to="project")  # the switch is off
    ctx.settings.update(agents_md_autosync=True)
    second = kn.queue.propose("Use 人民币 for amounts.", "rule", "Use 人民币 for amounts.")
    assert second.id is not None
    result = kn.decisions.apply(second.id, to="project", project=project_dir)
    assert result.agents_md is not None and result.agents_md.ok
    assert result.to_dict()["agents_md"]["project"] == pid
    assert "人民币" in (project_dir / "AGENTS.md").read_text(encoding="utf-8")
