"""REST shows what teammates' commits bypassed (issue 29): knowledge that arrived by git,
and a decision written in someone else's name, with two clones and real git."""

from __future__ import annotations

from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.proposals import parse_proposal, render_proposal
from tests.team.gitrepo import clone, commit_all, make_origin, pull, push, require_git


async def test_library_status_and_team_status_show_what_arrived_by_git(
    api, server_memory, tmp_path: Path
):  # type: ignore[no-untyped-def]
    require_git()
    origin = make_origin(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a_dir = clone(origin, tmp_path / "a" / "sales", "Alice", "alice@example.org")
    server_memory.project_init(a_dir)
    server_memory.hooks.project_settings(a_dir, shared_queue=True)
    pid = server_memory.propose("Exclude test accounts.", "rule", "Exclude test accounts.",
                                layer="project", project=a_dir)["id"]  # fmt: skip
    commit_all(a_dir, "start")
    push(a_dir)
    b_dir = clone(origin, tmp_path / "b" / "sales", "Bob", "bob@example.org")
    bob = Memory(home=tmp_path / "bob-home")
    try:
        bob.project_init(b_dir)
    finally:
        bob.close()
    rules = "".join(f"- Rule {n}: join orders to customers on the key\n" for n in range(9_000))
    (b_dir / ".jupyter-memory" / "knowledge.md").write_text(f"## Rules\n\n{rules}\n## Info\n")
    queued = next((b_dir / ".jupyter-memory" / "queue").glob(f"*-{pid}.md"))
    p = parse_proposal(queued.read_bytes(), path=queued)
    forged = {"status": "dismissed", "decided_by": "Alice <alice@example.org>",
              "decided_at": p.created}  # fmt: skip
    queued.write_text(render_proposal(p.model_copy(update=forged)), encoding="utf-8")
    commit_all(b_dir, "rules, and alice's dismissal")
    push(b_dir)
    assert pull(a_dir).returncode == 0
    code, status = await api("GET", "knowledge", "project", "status", params={"project": "sales"})
    assert code == 200, status
    arrived = status["arrived"]
    assert arrived["by"] == "Bob <bob@example.org>" and arrived["over_cap"] is True
    assert f"{arrived['chars']:,} characters, over the 8,000 cap" in arrived["message"]
    code, team = await api("GET", "team", params={"project": "sales"})
    assert code == 200, team
    assert any(
        c["id"] == pid and "is by Bob <bob@example.org>" in c["message"] for c in team["contested"]
    ), team["contested"]
