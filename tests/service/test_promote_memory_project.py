"""``promote_memory`` queues the proposal for the memory's own project, not the focused one.

A person focused on one project who promotes a memory of another (an id from the
panel, another notebook's listing) must find the proposal in that memory's
project, as ``review_memory`` (``%memory promote``) already did. The id is
found by the one resolver (``service/memories/locate.py``); the proposal's
target is the project it was found in. Tested on the service and in a real
kernel focused on the other project.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_memory import Memory
from tests.support.kernels import execute, kernel_env, new_notebook


def _unreviewed(mem: Memory, text: str, quote: str, scope: str = "project") -> str:
    return mem.remember(
        text,
        scope=scope,
        source="session-digest",
        reviewed=False,
        evidence=[{"quote": quote, "source": "cell"}],
    ).id


def _projects(tmp_path: Path, home: Path) -> tuple[Path, Path, list[str]]:
    """``alpha`` (the person's focus) and ``销售`` (whose memories are promoted, shared queue)."""
    alpha, sales = tmp_path / "alpha", tmp_path / "销售"
    alpha.mkdir()
    sales.mkdir()
    with Memory(home=home, project=alpha) as mem:
        mem.remember("alpha's own note", scope="project")
    with Memory(home=home, project=sales) as mem:
        mem.hooks.project_settings(shared_queue=True)  # the team's queue lives in the folder
        ids = [
            _unreviewed(mem, "Refunds arrive two days late", "refunds arrive 2 days late"),
            _unreviewed(mem, "收入按预订日确认", "我们决定收入按预订日确认，因为财务按它结账"),
        ]
    return alpha, sales, ids


def _shared_queue(folder: Path) -> list[dict[str, str]]:
    """(id, project) of each proposal file in the project's shared queue."""
    out = []
    for path in sorted((folder / ".jupyter-memory" / "queue").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        out.append({"file": path.name, "text": text})
    return out


def test_promote_memory_queues_for_the_memorys_project_not_the_focus(
    tmp_path: Path, memory_home: Path
) -> None:
    alpha, sales, (first, second) = _projects(tmp_path, memory_home)
    with Memory(home=memory_home, project=alpha) as mem:
        promoted = mem.hooks.promote_memory(first, kind="info")
        assert promoted.status == "promoted"
        assert promoted.proposal is not None
        proposal = mem.proposal(promoted.proposal["id"])
        assert (proposal.suggested_layer, proposal.project) == ("project", "销售")
        assert mem.get(first).meta.reviewed is True
        # The caller may still name the target: then it is the caller's choice.
        chosen = mem.hooks.promote_memory(second, project="alpha")
        assert chosen.proposal is not None
        assert mem.proposal(chosen.proposal["id"]).project == "alpha"
    queued = _shared_queue(sales)
    assert len(queued) == 1 and promoted.proposal["id"] in queued[0]["file"]
    assert not (alpha / ".jupyter-memory" / "queue").exists() or not _shared_queue(alpha)


def test_a_user_layer_memory_and_one_of_the_focus_keep_their_targets(
    tmp_path: Path, memory_home: Path
) -> None:
    alpha, _, _ = _projects(tmp_path, memory_home)
    with Memory(home=memory_home, project=alpha) as mem:
        mine = _unreviewed(mem, "Orders join customers on customer_id", "join on customer_id")
        personal = _unreviewed(
            mem, "I write dates as YYYY-MM-DD", "I always write dates as YYYY-MM-DD", "user"
        )
        here = mem.hooks.promote_memory(mine).proposal
        assert here is not None and mem.proposal(here["id"]).project == "alpha"
        # A user-layer memory has no project of its own: as review_memory does,
        # its proposal goes where an unplaced proposal goes (the focus).
        user = mem.hooks.promote_memory(personal).proposal
        assert user is not None and mem.proposal(user["id"]).project == "alpha"


@pytest.mark.slow
def test_in_a_kernel_focused_elsewhere_promote_memory_reaches_the_memorys_project(
    tmp_path: Path, memory_home: Path
) -> None:
    alpha, sales, (first, _) = _projects(tmp_path, memory_home)
    nb = new_notebook(
        [
            "%load_ext jupyter_memory",
            f"%memory focus {alpha}",
            "import json\n"
            "svc = get_ipython().find_line_magic('memory').__self__.service\n"
            f"done = svc.hooks.promote_memory({first!r})\n"
            "p = svc.proposal(done.proposal['id'])\n"
            "print(json.dumps({'focus': svc.hooks.ctx.projects.project_id,"
            " 'status': done.status, 'id': p.id, 'project': p.project}))",
        ]
    )
    execute(nb, tmp_path, kernel_env(JUPYTER_MEMORY_HOME=str(memory_home)))
    said = json.loads(nb.cells[2].outputs[0]["text"])
    assert said["focus"] == "alpha" and said["status"] == "promoted", said
    assert said["project"] == "销售", said
    queued = _shared_queue(sales)
    assert [said["id"] in q["file"] for q in queued] == [True]
    with Memory(home=memory_home, project=sales) as mem:
        assert (mem.get(first).meta.model_extra or {})["promoted_to"] == said["id"]
