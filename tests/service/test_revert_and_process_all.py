"""Undo an Apply, and a Process all that says first what it will do (issue 32, item 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, render_knowledge
from jupyter_memory.exceptions import ConflictError, ValidationError


def propose(mem: Memory, text: str, kind: str = "rule", **kw: object) -> str:
    result = mem.propose(text, kind, text, source="manual", **kw)
    assert result["status"] == "queued", result
    return str(result["id"])


def actions(mem: Memory) -> list[str]:
    return [r["action"] for r in mem.hooks.audit.records()]


def test_revert_takes_the_entry_out_and_the_proposal_back_to_the_queue(mem: Memory) -> None:
    keep = propose(mem, "Always use UTC")
    pid = propose(mem, "Revenue always excludes refunds")
    mem.apply(keep, to="user")
    mem.apply(pid, to="user")
    assert "Revenue always excludes refunds" in mem.knowledge("user")
    res = mem.revert(pid)
    assert res["status"] == "pending" and res["section"] == "rules"
    assert res["version"] == mem.hooks.knowledge_version("user")
    text = mem.knowledge("user")
    assert "Revenue always excludes refunds" not in text and "Always use UTC" in text
    p = mem.proposal(pid)
    assert p.status == "pending" and p.reverted_at is not None and p.applied_to is None
    assert actions(mem)[-3:] == ["proposal.apply", "proposal.apply", "proposal.revert"]
    line = list(mem.hooks.audit.records())[-1]
    assert line["id"] == pid and line["then"] == "pending" and line["layer"] == "user"
    # back in the queue: it can be decided again
    assert pid in [q.id for q in mem.queue()]
    assert mem.apply(pid, to="user")["status"] == "applied"


def test_revert_and_dismiss_never_suggests_it_again(mem: Memory) -> None:
    pid = propose(mem, "Weeks start on Monday")
    mem.apply(pid, to="user")
    assert mem.revert(pid, then="dismissed")["status"] == "dismissed"
    p = mem.proposal(pid)
    assert p.status == "dismissed" and p.reverted_at is not None
    assert "Weeks start on Monday" not in mem.knowledge("user")
    again = mem.propose("Weeks start on Monday", "rule", "Weeks start on Monday", source="manual")
    assert again["status"] == "skipped"


def test_revert_finds_the_entry_under_a_label(mem: Memory) -> None:
    pid = propose(mem, "Q1 starts in February")
    pid2 = propose(mem, "Q4 ends in January")
    mem.apply(pid, to="user")
    mem.apply(pid2, to="user")
    doc = KnowledgeDoc((Entry("Calendar", ("Q1 starts in February", "Q4 ends in January")),), ())
    mem.save_knowledge("user", render_knowledge(doc))  # a reorganize moved it under a label
    mem.revert(pid)
    assert mem.hooks.knowledge_doc("user").rules == (Entry("Calendar", ("Q4 ends in January",)),)
    mem.revert(pid2)
    assert mem.hooks.knowledge_doc("user").rules == ()  # an empty label goes too


def test_revert_is_refused_when_the_file_no_longer_holds_the_entry(mem: Memory) -> None:
    pid = propose(mem, "Revenue always excludes refunds")
    mem.apply(pid, to="user")
    mem.save_knowledge("user", "## Rules\n\n- Revenue excludes refunds and taxes\n")
    path = Path(mem.hooks.library_status("user")["path"])
    before = path.read_bytes()
    with pytest.raises(ConflictError, match="no longer holds") as info:
        mem.revert(pid)
    assert info.value.state == "not_in_file"
    assert path.read_bytes() == before and mem.proposal(pid).status == "applied"
    assert actions(mem)[-1] == "knowledge.save"


def test_only_an_applied_proposal_can_be_reverted(mem: Memory) -> None:
    pid = propose(mem, "Always use UTC")
    with pytest.raises(ConflictError, match="not applied") as info:
        mem.revert(pid)
    assert info.value.state == "not_applied"
    mem.apply(pid, to="user")
    with pytest.raises(ValidationError, match="then"):
        mem.revert(pid, then="later")


def test_revert_of_a_project_apply(mem: Memory, project_dir: Path) -> None:
    mem.focus(project_dir)
    pid = propose(mem, "Join on order_id", layer="project")
    applied = mem.apply(pid, to="project")
    assert applied["project"] == "sales-q3"
    res = mem.revert(pid)
    assert res["layer"] == "project" and res["project"] == "sales-q3"
    assert "order_id" not in mem.knowledge("project", project="sales-q3")


def test_process_all_plan_counts_per_layer_and_project(mem: Memory, project_dir: Path) -> None:
    propose(mem, "Always use UTC", layer="user")
    propose(mem, "Weeks start on Monday", layer="user")
    propose(mem, "Join on order_id", layer="project", project=project_dir)
    mem.focus(None)
    propose(mem, "Fiscal year starts in April", layer="project")  # no project: a pick
    plan = mem.hooks.process_all_plan().to_dict()
    assert plan == {
        "targets": [
            {"layer": "user", "project": None, "count": 2},
            {"layer": "project", "project": "sales-q3", "count": 1},
        ],
        "total": 3,
        "pick_a_project": 1,
    }
    assert mem.knowledge("user").count("- ") == 0  # a plan writes nothing


def test_process_all_lists_each_failure_once_and_is_not_ok(mem: Memory) -> None:
    filler = [Entry(f"Rule {i:03d} " + "x" * 60) for i in range(110)]
    short = 7_990 - len(render_knowledge(KnowledgeDoc(tuple(filler), ())))
    filler.append(Entry("pad " + "y" * short))
    mem.save_knowledge("user", render_knowledge(KnowledgeDoc(tuple(filler), ())))
    assert 7_980 < len(mem.knowledge("user")) <= 8_000  # no room for one more rule
    texts = ["Always use UTC timestamps", "Revenue excludes refunds", "GMV includes tax"]
    texts += ["Weeks start on Monday", "Join on order_id", "DAU counts devices"]
    ids = [propose(mem, t) for t in texts]
    result = mem.process_all()
    out = result.to_dict()
    assert not out["applied"] and len(out["skipped"]) == 6
    assert out["ok"] is False and len(out["failures"]) == 1
    failure = out["failures"][0]
    assert (
        failure["count"] == 6
        and sorted(failure["ids"]) == sorted(ids)
        and "save limit" in failure["reason"]
    )


def test_a_project_pick_is_not_a_failure(mem: Memory) -> None:
    propose(mem, "Fiscal year starts in April", layer="project")
    out = mem.process_all().to_dict()
    assert out["ok"] is True and out["failures"] == [] and len(out["skipped"]) == 1


def test_process_all_runs_only_the_plan_the_person_saw(mem: Memory) -> None:
    propose(mem, "Always use UTC timestamps")
    plan = mem.hooks.process_all_plan()
    propose(mem, "Weeks start on Monday")  # arrives after the plan was shown
    with pytest.raises(ConflictError, match="queue changed since the plan") as info:
        mem.process_all(expect=plan.total)
    assert info.value.state == "plan_changed" and len(mem.queue()) == 2
    assert mem.process_all(expect=mem.hooks.process_all_plan().total).ok
    assert mem.queue() == []
