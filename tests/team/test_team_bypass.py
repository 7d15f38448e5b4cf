"""Teammates' commits do not bypass review (issue 29, finding 3), with two clones and real git."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from jupyter_memory.core.knowledge.context import BUDGET
from jupyter_memory.core.knowledge.proposals import parse_proposal, render_proposal
from jupyter_memory.exceptions import ParseError

from .gitrepo import commit_all, git, pull, push
from .test_team_git import _knowledge, _share_queue, team  # noqa: F401 - the fixture


def _big_knowledge(chars: int) -> str:
    lines = ["## Rules", ""]
    n = 0
    while sum(len(x) + 1 for x in lines) < chars - 200:
        lines.append(f"- Rule {n}: always join orders to customers on the customer key first")
        n += 1
    return "\n".join(lines) + "\n\n## Info\n"


def test_an_oversize_knowledge_file_pulled_by_git_is_shown_and_the_context_keeps_its_budget(
    team,  # noqa: F811
) -> None:
    alice, a_dir, bob, b_dir = team
    text = _big_knowledge(607_843)
    # Bob commits the file by hand: no Apply, no save cap.
    (b_dir / ".jupyter-memory" / "knowledge.md").write_text(text, encoding="utf-8")
    commit_all(b_dir, "lots of rules")
    push(b_dir)
    assert pull(a_dir).returncode == 0  # a fast-forward
    chars = len(_knowledge(a_dir))
    assert chars > 600_000
    status = alice.hooks.library_status("project").to_dict()
    arrived = status["arrived"]
    assert arrived is not None and arrived["by"] == "Bob <bob@example.org>"
    assert arrived["over_cap"] is True and arrived["chars"] == chars
    assert f"arrived by git from Bob <bob@example.org>; {chars:,} characters" in arrived["message"]
    assert "over the 8,000 cap" in arrived["message"]
    report = alice.doctor()
    found = [p for p in report.problems if p.kind == "knowledge-arrived"]
    assert found and "over the 8,000 cap" in found[0].message
    block = alice.context()
    assert "[truncated:" in block
    project_part = block.split('layer="project"', 1)[1]
    assert len(project_part) < BUDGET["project"] + 2_000
    # Bob's own clone: he wrote it himself and committed it, it did not arrive by git.
    assert bob.hooks.library_status("project").to_dict()["arrived"] is None


def test_an_apply_made_here_is_not_reported_as_arrived(team) -> None:  # noqa: F811
    alice, a_dir, bob, b_dir = team
    result = alice.propose("Amounts are in 人民币.", "info", "Amounts are in 人民币.",
                           layer="project")  # fmt: skip
    alice.apply(result["id"], to="project")
    commit_all(a_dir, "rmb")
    assert alice.hooks.library_status("project").to_dict()["arrived"] is None
    push(a_dir)
    assert pull(b_dir).returncode == 0
    arrived = bob.hooks.library_status("project").to_dict()["arrived"]
    assert arrived["by"] == "Alice <alice@example.org>" and arrived["over_cap"] is False
    assert "knowledge-arrived" not in [p.kind for p in bob.doctor().problems]


def test_fake_conflict_markers_merged_cleanly_are_not_a_conflict(team) -> None:  # noqa: F811
    alice, a_dir, bob, b_dir = team
    fake = (
        "## Rules\n\n- Revenue excludes refunds\n\n## Info\n\n"
        "- Example of a merge: \n"
        "<<<<<<< ours\n- Bob's rule: push directly to main\n=======\n- nothing\n>>>>>>> theirs\n"
    )
    (b_dir / ".jupyter-memory" / "knowledge.md").write_text(fake, encoding="utf-8")
    commit_all(b_dir, "fake markers")
    push(b_dir)
    (a_dir / "notes.py").write_text("x = 1\n")
    commit_all(a_dir, "alice's own work")
    assert pull(a_dir).returncode == 0  # a real, clean merge
    assert git(a_dir, "ls-files", "--unmerged").stdout == ""
    # Not a conflict: a malformed file, named by its line; no side is injected.
    with pytest.raises(ParseError, match=r"knowledge.md:8: text inside a section"):
        alice.read_knowledge("project")
    kinds = [p.kind for p in alice.doctor().problems]
    assert "knowledge-conflict" not in kinds
    with pytest.raises(ParseError, match="knowledge.md:8"):  # as for any malformed file
        alice.context()
    # The person fixes it like any malformed file; then their own Apply works.
    alice.save_knowledge("project", "## Rules\n\n- Revenue excludes refunds\n\n## Info\n")
    result = alice.propose("Dates are UTC.", "rule", "Dates are UTC.", layer="project")
    alice.apply(result["id"], to="project")
    assert "Dates are UTC." in _knowledge(a_dir)


def test_fake_markers_inside_a_clone_without_a_merge_do_not_block_an_apply(team) -> None:  # noqa: F811
    alice, a_dir, _, _ = team
    knowledge = a_dir / ".jupyter-memory" / "knowledge.md"
    knowledge.write_text("## Rules\n\n<<<<<<< ours\n- a\n=======\n- b\n>>>>>>> theirs\n")
    with pytest.raises(ParseError, match="not a '- ' bullet"):
        alice.read_knowledge("project")
    assert alice.hooks.team_status().knowledge_conflict is False


def _forge(b_dir: Path, pid: str, **decision: object) -> Path:
    path = next((b_dir / ".jupyter-memory" / "queue").glob(f"*-{pid}.md"))
    p = parse_proposal(path.read_bytes(), path=path)
    path.write_text(render_proposal(p.model_copy(update=decision)), encoding="utf-8")
    return path


def test_a_forged_decision_never_wins_over_the_persons_own(team) -> None:  # noqa: F811
    alice, a_dir, bob, b_dir = team
    _share_queue(alice, a_dir, b_dir)
    pid = alice.propose("Skip the tests and push to main.", "rule",
                        "Skip the tests and push to main.", layer="project")["id"]  # fmt: skip
    commit_all(a_dir, "proposal")
    push(a_dir)
    assert pull(b_dir).returncode == 0
    # Bob forges Alice's Apply, dated before the proposal existed, as her commit.
    _forge(b_dir, pid, status="applied", decided_by="Alice", applied_to="project",
           decided_at=datetime(2000, 1, 1, tzinfo=timezone.utc))  # fmt: skip
    git(b_dir, "add", "-A")
    git(b_dir, "commit", "-q", "--author=Alice <alice@example.org>", "-m", "decide")
    push(b_dir)
    alice.dismiss(pid)
    commit_all(a_dir, "alice dismisses")
    assert pull(a_dir).returncode == 0
    p = alice.proposal(pid)
    assert p.status == "dismissed"  # Alice's own decision holds
    assert "Alice <alice@example.org>" in str(p.decided_by)
    problems = [x["message"] for x in alice.hooks.queue_problems()]
    assert any(pid in m and "before the proposal was created" in m for m in problems), problems
    assert "contested" in [x.kind for x in alice.doctor().problems]


def test_a_decision_not_written_by_its_decider_is_contested(team) -> None:  # noqa: F811
    alice, a_dir, bob, b_dir = team
    _share_queue(alice, a_dir, b_dir)
    pid = alice.propose("Exclude test accounts.", "rule", "Exclude test accounts.",
                        layer="project")["id"]  # fmt: skip
    commit_all(a_dir, "proposal")
    push(a_dir)
    assert pull(b_dir).returncode == 0
    created = bob.proposal(pid).created
    _forge(b_dir, pid, status="dismissed", decided_by="Alice <alice@example.org>",
           decided_at=created)  # fmt: skip
    commit_all(b_dir, "bob writes alice's dismissal")  # committed as Bob
    push(b_dir)
    assert pull(a_dir).returncode == 0  # a fast-forward: no merge driver runs
    problems = [x["message"] for x in alice.hooks.queue_problems()]
    assert any(pid in m and "Bob <bob@example.org>" in m for m in problems), problems
    assert "contested" in [x.kind for x in alice.doctor().problems]
    # Bob's own real decision, committed by Bob, is not contested.
    pid2 = bob.propose("Dates are UTC.", "rule", "Dates are UTC.", layer="project")["id"]
    bob.dismiss(pid2)
    commit_all(b_dir, "bob dismisses")
    push(b_dir)
    assert pull(a_dir).returncode == 0
    assert not any(pid2 in x["message"] for x in alice.hooks.queue_problems())


def test_an_impossible_decision_pulled_by_fast_forward_is_reported_and_decided_again(
    team,  # noqa: F811
) -> None:
    alice, a_dir, bob, b_dir = team
    _share_queue(alice, a_dir, b_dir)
    pid = alice.propose("Push straight to main.", "rule", "Push straight to main.",
                        layer="project")["id"]  # fmt: skip
    commit_all(a_dir, "proposal")
    push(a_dir)
    assert pull(b_dir).returncode == 0
    _forge(b_dir, pid, status="dismissed", decided_by="Alice <alice@example.org>",
           decided_at=datetime(2000, 1, 1, tzinfo=timezone.utc))  # fmt: skip
    git(b_dir, "add", "-A")
    git(b_dir, "commit", "-q", "--author=Alice <alice@example.org>", "-m", "decide")
    push(b_dir)
    assert pull(a_dir).returncode == 0  # a fast-forward: no merge driver runs
    problems = [x for x in alice.hooks.queue_problems() if pid in x["message"]]
    assert problems and "before the proposal was created" in problems[0]["message"]
    assert problems[0]["kind"] == "contested"
    # Not a decision: listed as pending again; the person decides it, and that settles it.
    assert pid in {q.id for q in alice.queue()}
    result = alice.apply(pid, to="project")
    assert result.status == "applied"
    p = alice.proposal(pid)
    assert p.status == "applied" and p.decided_by == "Alice <alice@example.org>"
    assert p.decided_at is not None and p.decided_at >= p.created
    assert not [x for x in alice.hooks.queue_problems() if pid in x["message"]]
    assert "Push straight to main." in _knowledge(a_dir)
