"""Random agent tool calls with random project arguments change nothing they must not (issue 19).

Arguments: registered ids, unknown ids, relative and absolute paths, ``..``
traversal, ``/proc/self``, links to a registered folder and to other folders,
paths whose last part is a registered id. After every call: ``projects.json``,
every folder of the test tree outside the registered roots' derived index, and
the probed folders outside the tree are unchanged, and a context carries only
the User file and one registered project's approved file.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_agent_projects import snapshot

from jupyter_memory import Memory
from jupyter_memory.exceptions import JupyterMemoryError
from jupyter_memory.service.agent_access import AgentAccess

REGISTERED = ("alpha", "beta")
MARK = {"alpha": "ALPHA-RULE-7c1", "beta": "BETA-RULE-2f9", "user": "USER-RULE-5d0"}
PLANTED = "PLANTED-RULE-0e3"
QUOTE = "revenue always excludes refunds"
# Folders outside the test tree an agent might name; none may gain a .jupyter-memory/.
OUTSIDE = ("/proc/self", "/proc/1", "/tmp", "/var/tmp", "/", "/dev/shm")


def _knowledge(rule: str) -> str:
    return f"## Rules\n- {rule}\n\n## Info\n"


@pytest.fixture
def world() -> Iterator[dict[str, Path]]:
    """One tree for all examples of a run (the property is that calls leave it as it was)."""
    base = Path(tempfile.mkdtemp(prefix="jm-agent-projects-"))
    home = base / "home"
    paths = {"base": base, "home": home, "cwd": base / "cwd"}
    for pid in REGISTERED:
        paths[pid] = base / "projects" / pid
        paths[pid].mkdir(parents=True)
    # Same-named folders elsewhere, each with a planted knowledge file.
    for where in ("elsewhere/alpha", "cwd/alpha", "cwd/beta/nested/beta", "loose"):
        folder = base / where
        (folder / ".jupyter-memory").mkdir(parents=True)
        (folder / ".jupyter-memory" / "knowledge.md").write_text(_knowledge(PLANTED), "utf-8")
    (base / "cwd" / "empty").mkdir()
    (base / "cwd" / "to-alpha").symlink_to(paths["alpha"], target_is_directory=True)
    (base / "cwd" / "to-loose").symlink_to(base / "loose", target_is_directory=True)
    (base / "cwd" / "to-proc").symlink_to("/proc/self", target_is_directory=True)
    with Memory(home) as mem:
        mem.save_knowledge("user", _knowledge(MARK["user"]))
        for pid in REGISTERED:
            mem.focus(paths[pid])
            mem.save_knowledge("project", _knowledge(MARK[pid]))
            mem.remember(f"Refunds note of {pid}", title=f"note {pid}")
            mem.recall("refunds")  # the index exists before any agent call
        AgentAccess(mem).record_person_text(f"Note: {QUOTE}.", role="user")
    yield paths
    shutil.rmtree(base, ignore_errors=True)


def _project_args(base: Path) -> st.SearchStrategy[str]:
    names = st.sampled_from(
        [*REGISTERED, "gamma", "empty", "loose", "to-alpha", "to-loose", "to-proc", "x" * 80]
    )
    rel_parts = st.lists(
        st.sampled_from(["..", ".", "alpha", "beta", "nested", "empty", "to-alpha", "cwd"]),
        min_size=1,
        max_size=4,
    )
    return st.one_of(
        names,
        rel_parts.map(lambda parts: os.path.join(*parts)),
        rel_parts.map(lambda parts: str(base.joinpath("cwd", *parts))),
        st.sampled_from(
            [
                str(base / "projects" / "alpha"),
                str(base / "projects" / "alpha") + "/",
                str(base / "projects" / "beta" / ".." / "alpha"),
                str(base / "elsewhere" / "alpha"),
                str(base / "cwd" / "to-alpha"),
                str(base / "home"),
                "~/alpha",
                "./alpha",
                "../projects/beta",
                "../../" + base.name + "/projects/alpha",
                *OUTSIDE,
                f"/proc/{os.getpid()}/cwd",
            ]
        ),
        st.text(min_size=1, max_size=12),
    )


def _tree(paths: dict[str, Path]) -> dict[str, bytes | str]:
    """The test tree without the memory home and the registered roots' derived index."""
    shot = snapshot(paths["base"])
    index_dirs = tuple(f"projects/{pid}/.jupyter-memory/.index" for pid in REGISTERED)
    return {k: v for k, v in shot.items() if not k.startswith(("home", *index_dirs))}


TOOLS = ("context", "expand", "recall", "propose", "remember")


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_random_project_arguments_never_redirect_or_create_anything(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch, data: st.DataObject
) -> None:
    monkeypatch.chdir(world["cwd"])
    registry = (world["home"] / "projects.json").read_bytes()
    before = _tree(world)
    outside = {p: Path(p, ".jupyter-memory").exists() for p in OUTSIDE}
    tool = data.draw(st.sampled_from(TOOLS), label="tool")
    project = data.draw(_project_args(world["base"]), label="project")
    with Memory(world["home"]) as mem:
        known = mem.hooks.known_projects()
        access = AgentAccess(
            mem, agent="prop", agent_writes=True, conversation=f"prop-{uuid.uuid4().hex}"
        )
        calls = {
            "context": lambda: access.context(project),
            "expand": lambda: access.expand([MARK["alpha"]], project),
            "recall": lambda: access.recall("refunds", project=project),
            "propose": lambda: access.propose(
                "Revenue excludes refunds.", "rule", QUOTE, project=project
            ),
            "remember": lambda: access.remember("An agent note.", project=project),
        }
        try:
            result = calls[tool]()
        except JupyterMemoryError:
            result = None
    assert (world["home"] / "projects.json").read_bytes() == registry
    assert _tree(world) == before
    assert {p: Path(p, ".jupyter-memory").exists() for p in OUTSIDE} == outside
    assert mem.hooks.known_projects() == known
    event(f"{tool}: {'refused' if result is None else 'served'}")
    if result is None:
        return
    # It succeeded: the argument is a registered id or names a registered folder.
    target = (
        project
        if project in known
        else next(pid for pid, folder in known.items() if _same(project, folder))
    )
    if tool == "context":
        assert isinstance(result, str)
        assert MARK["user"] in result and MARK[target] in result and PLANTED not in result
        others = [MARK[pid] for pid in REGISTERED if pid != target]
        assert not any(mark in result for mark in others)
    if tool == "recall":
        assert {h["title"] for h in result} <= {f"note {target}"}


def _same(arg: str, folder: str) -> bool:
    try:
        return Path(arg).expanduser().resolve(strict=True) == Path(folder).resolve()
    except (OSError, ValueError, RuntimeError):
        return False
