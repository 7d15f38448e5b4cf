"""Every REST response has a pinned shape: tests/server/schemas/*.json.

Each scenario below drives the real jupyter_server (tests/server/conftest.py)
through one route and validates the answer against the JSON schema named for
it. The schemas forbid unknown keys and require every key the panel reads, so
a renamed, dropped or added key fails here, naming the route and the path
inside the body. The lab panel's TypeScript types are generated from the same
files (labextension/src/schemas.ts, scripts/rest_schemas_ts.py), and
test_schemas_ts.py keeps the two in step.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from jupyter_memory.server.routes import ROUTES
from tests.support.waiting import polled

SCHEMAS = Path(__file__).resolve().parent / "schemas"
SAMPLE = Path(__file__).resolve().parents[2] / "notebooks" / "sample_workspace"
RULES = "## Rules\n\n- Revenue excludes refunds\n- revenue excludes refunds\n\n## Info\n\n- 财年从四月开始\n"


def _load() -> dict[str, dict[str, Any]]:
    return {
        p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(SCHEMAS.glob("*.json"))
    }


SCHEMA_FILES = _load()
REGISTRY: Registry = Registry().with_resources(
    (name, Resource.from_contents(schema)) for name, schema in SCHEMA_FILES.items()
)
# (handler, verb) pairs a scenario exercised; the last test checks none is missing.
COVERED: set[tuple[str, str]] = set()


def check(schema: str, data: Any) -> None:
    validator = Draft202012Validator(SCHEMA_FILES[schema], registry=REGISTRY)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    problems = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in errors]
    assert not problems, f"{schema}:\n" + "\n".join(problems) + "\n" + json.dumps(data, indent=1)


async def call(api, schema: str, handler: str, method: str, *parts: str, status: int = 200, **kw):
    code, data = await api(method, *parts, **kw)
    assert code == status, (code, data)
    check(schema, data)
    COVERED.add((handler, method.lower()))
    return data


def propose(mem, text: str, kind: str = "rule") -> str:
    result = mem.propose(text, kind, text, source="manual")
    assert result["status"] == "queued", result
    return str(result["proposal"]["id"])


async def test_queue_items_show_their_conflicts_and_apply_replaces_one(api, server_memory):
    server_memory.save_knowledge("user", "## Rules\n- Revenue excludes refunds\n## Info\n")
    flip = propose(server_memory, "Revenue includes refunds")
    queue = await call(api, "queue.json", "QueueHandler", "GET", "queue")
    (item,) = queue["items"]
    (near,) = item["neighbours"]
    assert (near["relation"], near["text"], near["where"]) == (
        "contradicts",
        "Revenue excludes refunds",
        "knowledge",
    )
    body = {"to": "user", "replaces": near["text"]}
    applied = await call(
        api, "applied_proposal.json", "ApplyHandler", "POST", "queue", flip, "apply", body=body
    )
    assert applied["status"] == "applied"
    leaves = [leaf for _, leaf in server_memory.hooks.knowledge_doc("user").leaves()]
    assert leaves == ["Revenue includes refunds"]
    (record,) = [r for r in server_memory.hooks.audit.records() if r["action"] == "proposal.apply"]
    assert record["replaced"]


async def test_queue_apply_dismiss_process_all(api, server_memory, jp_root_dir):
    first = propose(server_memory, "Revenue always excludes refunds")
    propose(server_memory, "口径：收入不含退款", kind="info")
    queue = await call(api, "queue.json", "QueueHandler", "GET", "queue")
    assert queue["count"] == 2
    applied = await call(
        api,
        "applied_proposal.json",
        "ApplyHandler",
        "POST",
        "queue",
        first,
        "apply",
        body={"to": "user"},
    )
    assert applied["status"] == "applied"
    repeat = await call(
        api,
        "already_decided_error.json",
        "ApplyHandler",
        "POST",
        "queue",
        first,
        "apply",
        body={"to": "user"},
        status=409,
    )
    assert repeat["state"].startswith("already")
    second = propose(server_memory, "Weeks start on Monday")
    dismissed = await call(
        api, "dismissed_proposal.json", "DismissHandler", "POST", "queue", second, "dismiss"
    )
    assert dismissed["status"] == "dismissed"
    await call(
        api,
        "already_decided_error.json",
        "DismissHandler",
        "POST",
        "queue",
        second,
        "dismiss",
        status=409,
    )
    purged = await call(
        api, "purged_proposal.json", "PurgeHandler", "POST", "queue", second, "purge"
    )
    assert purged["status"] == "purged"
    folder = jp_root_dir / "sales-q3"
    folder.mkdir()
    server_memory.focus(folder)
    # With the AGENTS.md auto-sync on, an Apply to a project adds its report.
    code, _ = await api("PUT", "settings", body={"agents_md_autosync": True})
    assert code == 200
    to_project = propose(server_memory, "Fiscal years start in April")
    synced = await call(
        api,
        "applied_proposal.json",
        "ApplyHandler",
        "POST",
        "queue",
        to_project,
        "apply",
        body={"to": "project", "project": "sales-q3"},
    )
    assert synced["agents_md"]["ok"] is True, synced
    propose(server_memory, "Join on order_id")
    done = await call(
        api,
        "process_all_result.json",
        "ProcessAllHandler",
        "POST",
        "queue",
        "process-all",
        body={},
    )
    assert done["applied"] and "agents_md" in done
    await call(
        api,
        "error.json",
        "ApplyHandler",
        "POST",
        "queue",
        "nope",
        "apply",
        body={"to": "user"},
        status=404,
    )


async def test_proposal_states(api, server_memory):
    pending = propose(server_memory, "口径：收入不含退款", kind="info")
    applied = propose(server_memory, "Revenue always excludes refunds")
    server_memory.apply(applied, to="user")
    states = await call(
        api,
        "proposal_states.json",
        "ProposalStatesHandler",
        "GET",
        "queue/proposals",
        params={"ids": f"{pending},{applied},p-gone"},
    )
    assert [p["status"] for p in states["items"]] == ["pending", "applied"]
    assert states["missing"] == ["p-gone"]
    await call(
        api,
        "error.json",
        "ProposalStatesHandler",
        "GET",
        "queue/proposals",
        params={"ids": "a/b"},
        status=422,
    )


async def test_review_states_and_decisions(api, server_memory):
    def unreviewed(text: str) -> str:
        evidence = [{"quote": text, "source": "cell"}]
        entry = server_memory.remember(
            text, source="session-digest", reviewed=False, evidence=evidence
        )
        return str(entry.id)

    keep, drop, rule = (
        unreviewed("Refunds arrive late"),
        unreviewed("退款晚到两天"),
        unreviewed("Q3 runs July to September"),
    )
    count = await call(api, "review_count.json", "ReviewCountHandler", "GET", "review/count")
    assert count == {"unreviewed": 3}
    await call(api, "review_decision.json", "KeepHandler", "POST", "review", keep, "keep")
    await call(api, "review_decision.json", "DiscardHandler", "POST", "review", drop, "discard")
    promoted = await call(
        api, "review_decision.json", "PromoteHandler", "POST", "review", rule, "promote"
    )
    assert promoted["status"] == "promoted"
    states = await call(
        api,
        "review_states.json",
        "ReviewStatesHandler",
        "GET",
        "review",
        params={"ids": f"{keep},{drop},{rule}"},
    )
    assert [s["state"] for s in states["items"]] == ["kept", "promoted"]
    assert states["missing"] == [drop]
    count = await call(api, "review_count.json", "ReviewCountHandler", "GET", "review/count")
    assert count == {"unreviewed": 0}  # kept, discarded, promoted: none waits
    await call(api, "error.json", "KeepHandler", "POST", "review", keep, "keep", status=409)


async def test_knowledge_read_save_status_conflict(api):
    read = await call(api, "knowledge.json", "KnowledgeHandler", "GET", "knowledge", "user")
    saved = await call(
        api,
        "knowledge_saved.json",
        "KnowledgeHandler",
        "PUT",
        "knowledge",
        "user",
        body={"text": RULES, "base": read["version"]},
    )
    assert saved["status"]["rules"] == 2
    conflict = await call(
        api,
        "knowledge_conflict_error.json",
        "KnowledgeHandler",
        "PUT",
        "knowledge",
        "user",
        body={"text": "## Rules\n\n- x\n", "base": read["version"]},
        status=409,
    )
    assert conflict["current"]["version"] == saved["version"]
    await call(
        api,
        "error.json",
        "KnowledgeHandler",
        "PUT",
        "knowledge",
        "user",
        body={"text": "x"},
        status=422,
    )
    await call(api, "library_status.json", "StatusHandler", "GET", "knowledge", "user", "status")


async def test_revert_plan_applied_and_reorganize_text(api, server_memory):
    """Undo (issue 32): revert an Apply over REST, the Process all plan, the applied list."""
    pid = propose(server_memory, "Revenue always excludes refunds")
    propose(server_memory, "Weeks start on Monday")
    plan = await call(
        api, "process_all_plan.json", "ProcessAllPlanHandler", "GET", "queue", "process-all", "plan"
    )
    assert plan["targets"] == [{"layer": "user", "project": None, "count": 2}]
    code, _ = await api("POST", "queue", pid, "apply", body={"to": "user"})
    assert code == 200
    listed = await call(api, "applied_list.json", "AppliedHandler", "GET", "queue", "applied")
    assert [p["id"] for p in listed["items"]] == [pid]
    reverted = await call(
        api, "revert_result.json", "RevertHandler", "POST", "queue", pid, "revert", body={}
    )
    assert reverted["status"] == "pending" and reverted["layer"] == "user"
    assert "Revenue always excludes refunds" not in server_memory.knowledge("user")
    state = server_memory.proposal(pid)
    assert state.status == "pending" and state.reverted_at is not None
    queue = await call(api, "queue.json", "QueueHandler", "GET", "queue")
    back = next(p for p in queue["items"] if p["id"] == pid)
    assert back["reverted_at"] is not None
    again = await call(
        api, "error.json", "RevertHandler", "POST", "queue", pid, "revert", body={}, status=409
    )
    assert again["state"] == "not_applied"
    code, _ = await api("POST", "queue", pid, "apply", body={"to": "user"})
    dismissed = await call(
        api,
        "revert_result.json",
        "RevertHandler",
        "POST",
        "queue",
        pid,
        "revert",
        body={"then": "dismissed"},
    )
    assert dismissed["status"] == "dismissed"
    actions = [r["action"] for r in server_memory.hooks.audit.records()]
    assert actions.count("proposal.revert") == 2 and actions.count("proposal.apply") == 2
    over = "## Rules\n\n" + "".join(
        f"- Note that rule {i} holds for table t{i}\n" for i in range(300)
    )
    preview = await call(
        api,
        "reorganize_result.json",
        "ReorganizeTextHandler",
        "POST",
        "knowledge",
        "user",
        "reorganize-text",
        body={"text": over},
    )
    assert not preview["written"] and preview["leaves_after"] == 300
    assert preview["chars_after"] < len(over) and "Rule 0 holds" in preview["text"]
    merged = await call(
        api,
        "knowledge_merge.json",
        "KnowledgeMergeHandler",
        "POST",
        "knowledge",
        "user",
        "merge",
        body={
            "base": RULES,
            "ours": RULES + "- 金额以欧元计\n",
            "theirs": RULES.replace("- revenue", "- Revenue"),
        },
    )
    assert merged["clean"] and "金额以欧元计" in merged["text"]


async def test_reorganize_job(api):
    code, read = await api("GET", "knowledge", "user")
    code, _ = await api("PUT", "knowledge", "user", body={"text": RULES, "base": read["version"]})
    assert code == 200
    await call(
        api, "error.json", "ReorganizeHandler", "GET", "knowledge", "user", "reorganize", status=404
    )
    job = await call(
        api,
        "reorganize_job.json",
        "ReorganizeHandler",
        "POST",
        "knowledge",
        "user",
        "reorganize",
        status=202,
    )
    job = await polled(
        lambda: call(
            api,
            "reorganize_job.json",
            "ReorganizeHandler",
            "GET",
            "knowledge",
            "user",
            "reorganize",
        ),
        lambda job: job["state"] != "running",
    )
    assert job["state"] == "done", job


async def test_settings_and_projects(api, jp_root_dir):
    await call(api, "settings.json", "SettingsHandler", "GET", "settings")
    off = await call(
        api, "settings.json", "SettingsHandler", "PUT", "settings", body={"enabled": False}
    )
    assert off["enabled"] is False
    (jp_root_dir / "sales-q3").mkdir()
    added = await call(
        api,
        "project.json",
        "ProjectsHandler",
        "POST",
        "projects",
        body={"path": "sales-q3"},
        status=201,
    )
    assert added["id"] == "sales-q3"
    listed = await call(api, "projects.json", "ProjectsHandler", "GET", "projects")
    assert [p["id"] for p in listed["projects"]] == ["sales-q3"]


async def test_focus(api, server_memory, jp_root_dir):
    (jp_root_dir / "analysis").mkdir()
    (jp_root_dir / "analysis" / "orders.ipynb").write_text("{}", encoding="utf-8")
    (jp_root_dir / "sales-q3" / ".jupyter-memory").mkdir(parents=True)
    params = {"path": "analysis/orders.ipynb"}
    none = await call(api, "focus.json", "FocusHandler", "GET", "focus", params=params)
    assert none["source"] == "none"
    server_memory.register_project(jp_root_dir / "sales-q3")
    body = params | {"project": "sales-q3"}
    chosen = await call(api, "focus.json", "FocusHandler", "PUT", "focus", body=body)
    assert (chosen["project"], chosen["source"]) == ("sales-q3", "explicit")


async def test_team(api, server_memory, jp_root_dir):
    """Issue 17: a team project as this clone sees it (outside git here)."""
    (jp_root_dir / "sales-q3").mkdir(exist_ok=True)
    server_memory.project_init(jp_root_dir / "sales-q3")
    params = {"project": "sales-q3"}
    team = await call(api, "team_status.json", "TeamHandler", "GET", "team", params=params)
    assert (team["team"], team["git"], team["storage"]["kind"]) == (True, None, "local")
    await call(api, "error.json", "TeamHandler", "GET", "team", status=422)


async def test_memories_search(api, server_memory):
    server_memory.remember("Revenue excludes refunds in every report", tags=["sales"])
    server_memory.remember("收入口径不含退款", title="收入口径")
    hits = await call(
        api, "memories.json", "MemoriesHandler", "GET", "memories", params={"q": "refunds"}
    )
    assert hits["count"] >= 1
    zh = await call(
        api, "memories.json", "MemoriesHandler", "GET", "memories", params={"q": "退款"}
    )
    assert zh["count"] >= 1
    await call(
        api, "error.json", "MemoriesHandler", "GET", "memories", params={"limit": "0"}, status=422
    )


async def test_learning_report_reject_promote(api, server_memory):
    server_memory.hooks.digest_record(
        "chat-1",
        [
            {"id": "a", "role": "assistant", "text": "我用 yarn 安装依赖"},
            {"id": "u", "role": "user", "text": "不对，应该用 npm 安装依赖"},
        ],
    )
    server_memory.digest()
    report = await call(api, "learning.json", "LearningHandler", "GET", "learning")
    (cand,) = report["candidates"]
    key = cand["key"]
    rejected = await call(
        api,
        "learning_candidate.json",
        "RejectCandidateHandler",
        "POST",
        "learning",
        "reject",
        body={"key": key, "reason": "这个项目用 pnpm"},
    )
    assert rejected["status"] == "rejected"
    await call(
        api,
        "error.json",
        "RejectCandidateHandler",
        "POST",
        "learning",
        "reject",
        body={"key": key},
        status=422,
    )
    promoted = await call(
        api,
        "learned_proposal.json",
        "PromoteCandidateHandler",
        "POST",
        "learning",
        "promote",
        body={"key": key},
    )
    assert promoted["status"] == "queued"
    await call(
        api,
        "error.json",
        "PromoteCandidateHandler",
        "POST",
        "learning",
        "promote",
        body={"key": "no such rule"},
        status=404,
    )


async def test_cases(api, jp_root_dir):
    shutil.copytree(SAMPLE / "cases", jp_root_dir / "cases")
    listed = await call(api, "cases.json", "CasesHandler", "GET", "cases")
    case_id = listed["cases"][0]["id"]
    found = await call(
        api, "case_search.json", "CasesHandler", "GET", "cases", params={"q": "refund"}
    )
    assert found["count"] >= 1
    case = await call(api, "case.json", "CaseHandler", "GET", "cases", case_id)
    entry = case["entries"][0]
    await call(
        api,
        "case_entry.json",
        "CaseEntryHandler",
        "GET",
        "cases",
        case_id,
        "entries",
        entry["file"],
    )
    await call(
        api,
        "error.json",
        "CaseEntryHandler",
        "GET",
        "cases",
        case_id,
        "entries",
        "2025-01-01_think_nope.md",
        status=404,
    )


def test_every_route_and_verb_has_a_checked_response():
    verbs = {
        (handler.__name__, verb)
        for _, handler in ROUTES
        for verb in ("get", "put", "post", "delete", "patch")
        if verb in vars(handler)
        or any(
            verb in vars(b)
            for b in handler.__mro__[1:-1]
            if b.__module__.startswith("jupyter_memory")
        )
    }
    if not COVERED:
        pytest.skip("run with the scenarios above (the whole file)")
    assert verbs == COVERED
