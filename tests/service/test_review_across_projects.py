"""An id from another project than the focused one (issue 15): Keep, Discard, Promote,
get and forget find it in the user layer or any registered project, and the REST and
CLI paths through the same service agree. Two registered clones holding the same id
are refused with both named; an id nowhere is refused naming it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.exceptions import NotFoundError, ValidationError
from tests.support.cli import run_main


def _unreviewed(mem: Memory, text: str, quote: str) -> str:
    return mem.remember(
        text,
        scope="project",
        source="session-digest",
        reviewed=False,
        evidence=[{"quote": quote, "source": "cell"}],
    ).id


@pytest.fixture
def two_projects(tmp_path: Path, memory_home: Path) -> tuple[Path, Path, list[str]]:
    a, b = tmp_path / "alpha", tmp_path / "销售"
    a.mkdir()
    b.mkdir()
    with Memory(home=memory_home, project=a) as mem:
        mem.remember("alpha's own note", scope="project")
    with Memory(home=memory_home, project=b) as mem:
        ids = [
            _unreviewed(mem, "Refunds arrive two days late", "refunds arrive 2 days late"),
            _unreviewed(mem, "收入按预订日确认", "我们决定收入按预订日确认，因为财务按它结账"),
            _unreviewed(mem, "Orders join customers on customer_id", "join on customer_id"),
        ]
    return a, b, ids


def _reviewed_flag(folder: Path, memory_id: str) -> str:
    (path,) = [
        p
        for p in (folder / ".jupyter-memory" / "memories").glob("*.md")
        if f'id: "{memory_id}"' in p.read_text(encoding="utf-8")
    ]
    line = [
        ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.startswith("reviewed:")
    ]
    return line[0]


def test_review_finds_a_memory_of_a_project_not_in_focus(
    two_projects: tuple[Path, Path, list[str]], memory_home: Path
) -> None:
    a, b, (keep, promote, discard) = two_projects
    with Memory(home=memory_home, project=a) as mem:
        assert mem.review_memory(keep, "keep").to_dict()["status"] == "kept"
        promoted = mem.review_memory(promote, "promote", kind="info").to_dict()
        assert promoted["status"] == "promoted"
        proposal = mem.proposal(promoted["proposal"]["id"])
        assert proposal.project == "销售"  # the memory's project, not the focused one
        assert mem.review_memory(discard, "discard").to_dict()["status"] == "discarded"
        assert mem.get(keep).meta.reviewed is True
        states = mem.hooks.review_states([keep, promote, discard]).to_dict()
        assert [s["state"] for s in states["items"]] == ["kept", "promoted"]
        assert states["missing"] == [discard]
    assert _reviewed_flag(b, keep) == "reviewed: true"
    assert _reviewed_flag(b, promote) == "reviewed: true"
    assert not [
        p for p in (b / ".jupyter-memory" / "memories").glob("*.md") if discard in p.read_text()
    ]
    audit = [json.loads(x) for x in (memory_home / "audit.jsonl").read_text().splitlines()]
    assert {(r["action"], r["id"]) for r in audit if r.get("id") in {keep, discard}} >= {
        ("update", keep),
        ("delete", discard),
    }


def test_the_plain_service_calls_get_keep_and_forget_reach_it_too(
    two_projects: tuple[Path, Path, list[str]], memory_home: Path
) -> None:
    a, b, (first, second, third) = two_projects
    with Memory(home=memory_home, project=a) as mem:
        assert mem.get(first).text == "Refunds arrive two days late"
        assert mem.hooks.keep_memory(first).to_dict()["status"] == "kept"
        assert mem.hooks.discard_memory(second).to_dict()["status"] == "discarded"
        assert mem.forget(third).layer == "project"
    with Memory(home=memory_home, project=b) as mem:
        rows = [r["id"] for r in mem.memories() if r["layer"] == "project"]
        assert rows == [first]
        assert mem.get(first).meta.reviewed is True


def test_the_cli_forgets_an_id_of_another_project(
    two_projects: tuple[Path, Path, list[str]], memory_home: Path
) -> None:
    a, b, (first, _, _) = two_projects
    env = {"JUPYTER_MEMORY_HOME": str(memory_home)}
    cli = ["--project", str(a)]  # main() in this process: the command, not the process start
    got = run_main([*cli, "--json", "get", first], env=env)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["id"] == first
    gone = run_main([*cli, "forget", first], env=env)
    assert gone.returncode == 0, gone.stderr
    with Memory(home=memory_home, project=b) as mem, pytest.raises(NotFoundError):
        mem.get(first)


def test_an_id_in_two_registered_clones_is_refused_naming_both(
    two_projects: tuple[Path, Path, list[str]], memory_home: Path, tmp_path: Path
) -> None:
    a, b, (first, _, _) = two_projects
    clone = tmp_path / "销售-review"
    shutil.copytree(b / ".jupyter-memory" / "memories", clone / ".jupyter-memory" / "memories")
    with Memory(home=memory_home, project=clone):
        pass  # registers the clone
    with Memory(home=memory_home, project=a) as mem:
        for call in (
            lambda: mem.review_memory(first, "keep"),
            lambda: mem.get(first),
            lambda: mem.forget(first),
        ):
            with pytest.raises(ValidationError) as err:
                call()
            said = str(err.value)
            assert first in said and "销售" in said and "销售-review" in said, said
        # The project named by the caller (the panel sends it) decides.
        assert mem.review_memory(first, "keep", project="销售-review").status == "kept"
    assert _reviewed_flag(clone, first) == "reviewed: true"
    assert _reviewed_flag(b, first) == "reviewed: false"
    # The focus decides as well: nothing ambiguous about the project you work in.
    with Memory(home=memory_home, project=b) as mem:
        assert mem.review_memory(first, "keep").status == "kept"
    assert _reviewed_flag(b, first) == "reviewed: true"


def test_an_unknown_id_is_refused_naming_it(
    two_projects: tuple[Path, Path, list[str]], memory_home: Path, tmp_path: Path
) -> None:
    a, _, _ = two_projects
    unknown = "01ZZZZZZZZZZZZZZZZZZZZZZZZ"
    registered_elsewhere = tmp_path / "empty-project"
    registered_elsewhere.mkdir()
    with Memory(home=memory_home, project=registered_elsewhere):
        pass  # registered, nothing stored: the lookup must not create a store there
    with Memory(home=memory_home, project=a) as mem:
        for decision in ("keep", "discard", "promote"):
            with pytest.raises(NotFoundError, match=unknown):
                mem.review_memory(unknown, decision)
        with pytest.raises(NotFoundError, match=unknown):
            mem.forget(unknown)
        assert mem.hooks.review_states([unknown]).missing == [unknown]
    assert not (registered_elsewhere / ".jupyter-memory").exists()
