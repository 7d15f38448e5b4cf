"""Team projects on git with real clones (issue 17): merges by item, conflicts, who decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.format import parse_knowledge

from .gitrepo import clone, commit_all, git, make_origin, pull, push, require_git


@pytest.fixture
def team(tmp_path: Path, clock):  # type: ignore[no-untyped-def]
    """Alice and Bob, each with a memory home and a clone of the project ``sales``."""
    require_git()
    origin = make_origin(tmp_path)
    (tmp_path / "alice").mkdir()
    (tmp_path / "bob").mkdir()
    a_dir = clone(origin, tmp_path / "alice" / "sales", "Alice", "alice@example.org")
    alice = Memory(home=tmp_path / "alice" / "home", clock=clock)
    alice.project_init(a_dir)
    (a_dir / "analysis.py").write_text("print('hi')\n")
    commit_all(a_dir, "start")
    push(a_dir)
    b_dir = clone(origin, tmp_path / "bob" / "sales", "Bob", "bob@example.org")
    bob = Memory(home=tmp_path / "bob" / "home", clock=clock)
    bob.project_init(b_dir)
    alice.focus(a_dir)
    bob.focus(b_dir)
    yield alice, a_dir, bob, b_dir
    alice.close()
    bob.close()


def _apply_new(mem: Memory, text: str, kind: str = "rule") -> str:
    result = mem.propose(text, kind, text, layer="project")
    assert result["status"] == "queued", result
    mem.apply(result["id"], to="project")
    return str(result["id"])


def _knowledge(folder: Path) -> str:
    return (folder / ".jupyter-memory" / "knowledge.md").read_text(encoding="utf-8")


def test_init_writes_gitattributes_gitignore_and_the_drivers(team) -> None:  # type: ignore[no-untyped-def]
    alice, a_dir, _, _ = team
    attrs = (a_dir / ".jupyter-memory" / ".gitattributes").read_text()
    assert "knowledge.md merge=jupyter-memory-knowledge" in attrs
    assert "queue/*.md merge=jupyter-memory-proposal" in attrs
    assert ".index/" in (a_dir / ".jupyter-memory" / ".gitignore").read_text()
    driver = git(a_dir, "config", "--get", "merge.jupyter-memory-knowledge.driver").stdout
    assert "merge-knowledge %O %A %B %P" in driver
    status = alice.hooks.team_status()
    assert status.team and not status.drivers_missing and status.fix is None
    assert status.person == "Alice <alice@example.org>"


def test_two_clones_apply_different_proposals_and_pull_without_conflict(team) -> None:  # type: ignore[no-untyped-def]
    alice, a_dir, bob, b_dir = team
    _apply_new(alice, "Revenue always excludes refunds.")
    commit_all(a_dir, "alice applies")
    push(a_dir)
    _apply_new(bob, "季度从二月开始。", kind="info")
    commit_all(b_dir, "bob applies")
    result = pull(b_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    text = _knowledge(b_dir)
    assert "<<<<<<<" not in text and ">>>>>>>" not in text
    doc = parse_knowledge(text)
    assert [e.text for e in doc.rules] == ["Revenue always excludes refunds."]
    assert [e.text for e in doc.info] == ["季度从二月开始。"]
    assert bob.read_knowledge("project").conflict is None
    assert bob.doctor()["ok"]


def test_the_same_item_changed_on_both_sides_is_reported_and_resolved(team) -> None:  # type: ignore[no-untyped-def]
    alice, a_dir, bob, b_dir = team
    _apply_new(alice, "Revenue excludes refunds.")
    commit_all(a_dir, "rule")
    push(a_dir)
    assert pull(b_dir).returncode == 0
    for mem, folder, new in (
        (alice, a_dir, "Revenue excludes refunds and taxes."),
        (bob, b_dir, "Revenue excludes refunds and chargebacks."),
    ):
        read = mem.read_knowledge("project")
        mem.save_knowledge(
            "project", read.text.replace("Revenue excludes refunds.", new), base=read.version
        )
        commit_all(folder, "edit")
    push(a_dir)
    result = pull(b_dir)
    assert result.returncode != 0  # git reports the conflict
    read = bob.read_knowledge("project")
    assert read.conflict is not None and read.status.conflicted
    assert "chargebacks" in read.conflict["ours"] and "taxes" in read.conflict["theirs"]
    report = bob.doctor()
    kinds = [p.kind for p in report.problems]
    assert "knowledge-conflict" in kinds
    # The agent gets the last clean version (this clone's side), with a notice.
    block = bob.context()
    assert "chargebacks" in block and "taxes" not in block
    assert "unresolved merge conflict" in block
    # Resolved with the CLI's service call: theirs, staged, and the merge commits.
    bob.hooks.resolve_knowledge(take="theirs")
    assert "taxes" in _knowledge(b_dir) and "<<<<<<<" not in _knowledge(b_dir)
    git(b_dir, "commit", "-q", "--no-edit")
    assert bob.doctor()["ok"]
    assert "taxes" in bob.context()


def test_a_clone_without_the_driver_is_reported_with_its_fix(team, tmp_path: Path, clock) -> None:  # type: ignore[no-untyped-def]
    _, a_dir, _, _ = team
    commit_all(a_dir, "attrs") if git(a_dir, "status", "--porcelain").stdout else None
    push(a_dir)
    (tmp_path / "carol").mkdir()
    c_dir = clone(tmp_path / "origin.git", tmp_path / "carol" / "sales", "Carol", "c@example.org")
    with Memory(home=tmp_path / "carol" / "home", clock=clock, project=c_dir) as carol:
        report = carol.doctor()
        drivers = [p for p in report.problems if p.kind == "merge-driver"]
        assert drivers and f"jupyter-memory project init {c_dir}" in drivers[0].message
        assert carol.hooks.team_status().fix == f"jupyter-memory project init {c_dir}"
        carol.project_init(c_dir)
        assert not [p for p in carol.doctor().problems if p.kind == "merge-driver"]


def test_audit_and_log_name_who_decided(team) -> None:  # type: ignore[no-untyped-def]
    alice, a_dir, bob, b_dir = team
    pid = _apply_new(alice, "Use UTC for all timestamps.")
    commit_all(a_dir, "utc")
    push(a_dir)
    assert pull(b_dir).returncode == 0
    applies = [r for r in alice.hooks.audit.records() if r["action"] == "proposal.apply"]
    assert applies[-1]["by"] == "Alice <alice@example.org>"
    rows = bob.hooks.knowledge_history()
    added = [r for r in rows if r.change == "added" and r.item == "Use UTC for all timestamps."]
    assert added and added[0].by == "Alice <alice@example.org>" and added[0].commit
    mine = alice.hooks.knowledge_history()
    from_git = [r for r in mine if r.change == "added"]
    assert from_git[0].proposal == pid
    assert from_git[0].evidence == "Use UTC for all timestamps."
    dismissed = bob.propose("Drop the staging table.", "rule", "Drop the staging table.",
                            layer="project")  # fmt: skip
    bob.dismiss(dismissed["id"])
    rec = [r for r in bob.hooks.audit.records() if r["action"] == "proposal.dismiss"][-1]
    assert rec["by"] == "Bob <bob@example.org>"


def _share_queue(alice: Memory, a_dir: Path, b_dir: Path) -> None:
    alice.hooks.project_settings(a_dir, shared_queue=True)
    commit_all(a_dir, "shared queue")
    push(a_dir)
    assert pull(b_dir).returncode == 0


def test_the_shared_queue_travels_with_git_and_any_member_decides(team) -> None:  # type: ignore[no-untyped-def]
    alice, a_dir, bob, b_dir = team
    _share_queue(alice, a_dir, b_dir)
    queued = alice.propose("Fiscal year starts in February.", "info",
                           "Fiscal year starts in February.", layer="project")  # fmt: skip
    pid = queued["id"]
    files = list((a_dir / ".jupyter-memory" / "queue").glob(f"*-{pid}.md"))
    assert len(files) == 1  # in the project folder, not in Alice's home
    assert not list((alice.home / "queue").glob(f"*-{pid}.md"))
    commit_all(a_dir, "proposal")
    push(a_dir)
    assert pull(b_dir).returncode == 0
    seen = {p.id: p for p in bob.queue()}
    assert pid in seen and seen[pid].proposed_by == "Alice <alice@example.org>"
    bob.apply(pid, to="project")
    commit_all(b_dir, "bob decides")
    push(b_dir)
    assert pull(a_dir).returncode == 0
    decided = alice.proposal(pid)
    assert decided.status == "applied"
    assert decided.decided_by == "Bob <bob@example.org>"
    assert pid not in {p.id for p in alice.queue()}
    assert "Fiscal year starts in February." in _knowledge(a_dir)
    history = alice.hooks.knowledge_history()
    row = [r for r in history if r.change == "added"][0]
    assert row.by == "Bob <bob@example.org>" and row.proposal == pid
    assert row.evidence == "Fiscal year starts in February."


def test_a_proposal_decided_differently_in_two_clones_is_reported(team) -> None:  # type: ignore[no-untyped-def]
    alice, a_dir, bob, b_dir = team
    _share_queue(alice, a_dir, b_dir)
    pid = alice.propose("Exclude test accounts.", "rule", "Exclude test accounts.",
                        layer="project")["id"]  # fmt: skip
    commit_all(a_dir, "proposal")
    push(a_dir)
    assert pull(b_dir).returncode == 0
    alice.dismiss(pid)
    commit_all(a_dir, "alice dismisses")
    push(a_dir)
    bob.apply(pid, to="project")
    commit_all(b_dir, "bob applies")
    result = pull(b_dir)
    assert result.returncode == 0, result.stderr  # the proposal driver keeps one decision
    p = bob.proposal(pid)
    assert p.status in ("applied", "dismissed")
    other = p.contested
    assert {p.status, other["status"]} == {"applied", "dismissed"}
    problems = bob.hooks.queue_problems()
    assert any("decided differently in two clones" in x["message"] for x in problems)
    assert "contested" in [x.kind for x in bob.doctor().problems]


def test_knowledge_history_frame(team) -> None:  # type: ignore[no-untyped-def]
    from jupyter_memory.frames import knowledge_history_frame

    alice, a_dir, bob, b_dir = team
    pid = _apply_new(alice, "Amounts are in 人民币.")
    commit_all(a_dir, "rmb")
    frame = knowledge_history_frame(alice)
    added = frame[(frame["change"] == "added") & (frame["source"] == "git")]
    assert list(added["item"]) == ["Amounts are in 人民币."]
    assert list(added["by"]) == ["Alice <alice@example.org>"]
    assert list(added["proposal"]) == [pid]
    assert str(frame["at"].dtype).startswith("datetime64[") and "UTC" in str(frame["at"].dtype)
    applied = frame[frame["change"] == "apply"]
    assert list(applied["by"]) == ["Alice <alice@example.org>"]


def test_an_agents_shared_proposal_names_the_agent_and_the_person(team) -> None:  # type: ignore[no-untyped-def]
    alice, a_dir, bob, b_dir = team
    _share_queue(alice, a_dir, b_dir)
    alice.hooks.record_round([{"role": "user", "content": "Always exclude test accounts."}])
    result = alice.propose_knowledge("Always exclude test accounts.", "rule",
                                     "Always exclude test accounts.")  # fmt: skip
    p = alice.proposal(result["id"])
    assert p.proposed_by == "an agent, in Alice <alice@example.org>'s session"
    assert (a_dir / ".jupyter-memory" / "queue").is_dir()
