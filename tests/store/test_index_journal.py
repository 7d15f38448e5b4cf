"""The folder journal (issue 16): re-checks trust the folder's stamp only when they may.

Every edit made outside our write path is seen on the next open (a new process
always looks at every file), and the changes that move the folder's stamp — a
new, removed or renamed file — are also seen by a process that is already
running. Our own writes, from any process, keep the stamp vouched for, so a
running process's re-check after another kernel's write skips the scan. The
journal never vouches for a state that is not on disk, including when the
writer is killed mid-write (tests/store/test_journal_crash.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.store.memories import folder_journal as journal
from jupyter_memory.store.memories.files import FileStat
from jupyter_memory.store.root import StoreRoot

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the stamp is vouched for only with inotify"
)


def _open(home: Path) -> Memory:
    return Memory(home=home, semantic=False)


def _texts(mem: Memory, word: str) -> list[str]:
    return sorted(h.text for h in mem.recall(word, limit=50, level="full", record_access=False))


def _file(mem: Memory, memory_id: str) -> Path:
    name = mem.hooks.user.name_of(memory_id)
    assert name is not None
    return mem.hooks.user.layout.memories / name


class Probe:
    """The stats a sync is handed, recording whether it looked at them."""

    def __init__(self, root: StoreRoot) -> None:
        self.root = root
        self.looked = False

    def __iter__(self) -> Iterator[FileStat]:
        self.looked = True
        yield from self.root.files.scan()


def _resync(root: StoreRoot) -> Probe:
    probe = Probe(root)
    with root.locked():
        root.index.sync(probe, root.files.read)
    return probe


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


# -- what the journal buys: no scan after our own writes, from any process -------------


def test_a_running_process_skips_the_scan_after_another_kernels_write(home: Path) -> None:
    """Fails on main: every re-check after another kernel's write listed and stat'ed the folder."""
    with _open(home) as mem:
        mem.remember("first note about refunds")
    runner = _open(home)  # a kernel opening the home: its first look scans
    assert _texts(runner, "refunds") == ["first note about refunds"]
    code = "from jupyter_memory import Memory; Memory(home=%r, semantic=False).remember(%r)"
    subprocess.run(
        [sys.executable, "-c", code % (str(home), "second note about refunds")],
        check=True,
        cwd=REPO,
    )
    probe = _resync(runner.hooks.user)
    assert not probe.looked
    assert _texts(runner, "refunds") == ["first note about refunds", "second note about refunds"]
    runner.close()


def test_a_new_process_always_looks_at_every_file(home: Path) -> None:
    with _open(home) as mem:
        mem.remember("a note")
    fresh = _open(home)
    probe = _resync(fresh.hooks.user)
    fresh.hooks.user.index.connection()  # when the stamp vouched, the look ran on a thread: wait
    assert probe.looked
    fresh.close()


# -- outside edits: seen on the next open, and where the stamp moves, by a running process ---


def test_in_place_edit_is_seen_on_the_next_open(home: Path) -> None:
    with _open(home) as mem:
        entry = mem.remember("alpha words here")
        path = _file(mem, entry.id)
    text = path.read_text("utf-8").replace("alpha words here", "omega words here")
    with open(path, "r+", encoding="utf-8") as fh:  # an editor writing in place
        fh.truncate(0)
        fh.write(text)
    with _open(home) as mem:
        assert _texts(mem, "omega") == ["omega words here"]
        assert _texts(mem, "alpha") == []


def test_edit_given_an_old_mtime_is_seen_on_the_next_open(home: Path) -> None:
    with _open(home) as mem:
        entry = mem.remember("refunds are excluded")
        path = _file(mem, entry.id)
    before = path.stat()
    text = path.read_text("utf-8").replace("refunds", "payment")  # same length
    with open(path, "r+", encoding="utf-8") as fh:
        fh.write(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns - 86_400 * 10**9))
    assert path.stat().st_size == before.st_size
    with _open(home) as mem:
        assert _texts(mem, "payment") == ["payment are excluded"]


def test_replace_by_rename_is_seen_by_a_running_process_and_the_next_open(home: Path) -> None:
    runner = _open(home)
    entry = runner.remember("beta words here")
    path = _file(runner, entry.id)
    tmp = path.with_name(".edit.swp")  # vim, git, sed -i: a new file renamed over the old
    tmp.write_text(path.read_text("utf-8").replace("beta", "gamma"), "utf-8")
    os.replace(tmp, path)
    assert _texts(runner, "gamma") == ["gamma words here"]
    runner.close()
    with _open(home) as mem:
        assert _texts(mem, "gamma") == ["gamma words here"]


def _copy_with_new_id(path: Path, name: str, text: str) -> Path:
    raw = path.read_text("utf-8")
    raw = re.sub(r'id: "[^"]+"', 'id: "m-pulled0000000000001"', raw)
    body_at = raw.index("\n---\n") + len("\n---\n\n")
    out = path.with_name(name)
    out.write_text(raw[:body_at] + text, "utf-8")  # git writes a new file in place of none
    return out


def test_new_file_from_git_pull_is_seen_by_a_running_process_and_the_next_open(
    home: Path,
) -> None:
    runner = _open(home)
    entry = runner.remember("delta words here")
    assert _texts(runner, "delta") == ["delta words here"]
    _copy_with_new_id(_file(runner, entry.id), "2026-01-02_semantic_pulled.md", "pulled words")
    assert _texts(runner, "pulled") == ["pulled words"]
    runner.close()
    with _open(home) as mem:
        assert _texts(mem, "pulled") == ["pulled words"]


def test_deleted_file_is_gone_for_a_running_process_and_the_next_open(home: Path) -> None:
    runner = _open(home)
    entry = runner.remember("epsilon words here")
    assert _texts(runner, "epsilon") == ["epsilon words here"]
    _file(runner, entry.id).unlink()
    assert _texts(runner, "epsilon") == []
    runner.close()
    with _open(home) as mem:
        assert _texts(mem, "epsilon") == []


# -- the windows: our write, and the clock tick after it -----------------------------------


def test_an_outside_file_created_during_our_write_drops_the_stamp(home: Path) -> None:
    mem = _open(home)
    first = mem.remember("zeta words here")
    root = mem.hooks.user
    _resync(root)
    con = root.index.connection()
    assert journal.vouches(con, root.layout)
    folder = root.layout.memories
    name = "2026-01-03_semantic_mine.md"
    entry = root.read(_file(mem, first.id).name)
    entry.meta.id = "m-mine00000000000000001"
    with journal.own_write(root.layout, name):
        (folder / name).write_text(_file(mem, first.id).read_text("utf-8"), "utf-8")
        _copy_with_new_id(_file(mem, first.id), "2026-01-03_semantic_theirs.md", "theirs")
    with con:
        journal.after_own_write(con, root.layout, name)
    assert journal.recorded(con) is None
    assert not journal.vouches(con, root.layout)
    mem.close()


def test_a_change_right_after_our_write_is_never_vouched_for(home: Path) -> None:
    """The stamp is recorded only once file times moved past it, so a change landing in
    the same clock tick as our write still shows as a different stamp."""
    mem = _open(home)
    mem.remember("eta note")
    root = mem.hooks.user
    _resync(root)
    con = root.index.connection()
    for i in range(40):
        assert journal.vouches(con, root.layout)
        mem.remember(f"eta note {i}")
        outside = root.layout.memories / f"x{i}.md"
        outside.write_text("not a memory", "utf-8")  # at once, in the same tick if it can
        assert not journal.vouches(con, root.layout), i
        outside.unlink()
        _resync(root)  # the scan vouches again; the next round starts clean
    mem.close()


def test_a_folder_time_in_the_future_is_never_vouched_for(home: Path) -> None:
    mem = _open(home)
    mem.remember("theta note")
    root = mem.hooks.user
    folder = root.layout.memories
    future = folder.stat().st_mtime_ns + 3600 * 10**9
    os.utime(folder, ns=(future, future))
    _resync(root)
    assert not journal.vouches(root.index.connection(), root.layout)
    mem.close()


def test_a_batch_import_drops_the_stamp(home: Path, tmp_path: Path) -> None:
    mem = _open(home)
    mem.remember("iota note")
    src = tmp_path / "in.jsonl"
    src.write_text('{"text": "imported words"}\n', "utf-8")
    mem.hooks.import_jsonl(src)
    assert not journal.vouches(mem.hooks.user.index.connection(), mem.hooks.user.layout)
    assert _texts(mem, "imported") == ["imported words"]
    mem.close()


# -- several kernels at once ---------------------------------------------------------------

_WRITER = textwrap.dedent(
    """
    import sys
    from jupyter_memory import Memory
    mem = Memory(home=sys.argv[1], semantic=False)
    ids = [mem.remember(f"kappa note {sys.argv[2]} {i}").id for i in range(int(sys.argv[3]))]
    for memory_id in ids[::3]:
        mem.forget(memory_id)
    mem.close()
    """
)


def _listing(root: StoreRoot) -> set[FileStat]:
    return set(root.files.scan())


def _indexed(root: StoreRoot) -> set[FileStat]:
    con = root.index.connection()
    return {FileStat(*r) for r in con.execute("SELECT name, mtime_ns, size FROM entries")}


@pytest.mark.slow  # processes racing: make test, not make test-fast
def test_several_kernels_writing_at_once(home: Path) -> None:
    runner = _open(home)
    runner.remember("lambda note")
    stop = threading.Event()
    seen: list[int] = []

    def reader() -> None:  # a running kernel recalling while the others write
        while not stop.is_set():
            seen.append(len(runner.recall("kappa", limit=500, record_access=False)))

    thread = threading.Thread(target=reader)
    thread.start()
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(home), str(k), "12"], cwd=REPO)
        for k in range(4)
    ]
    try:
        assert all(p.wait(timeout=300) == 0 for p in procs)
    finally:
        stop.set()
        thread.join()
    root = runner.hooks.user
    on_disk = _listing(root)
    assert len(on_disk) == 1 + 4 * 8
    runner.hooks.user.ensure_synced()
    assert _indexed(root) == on_disk  # the running process, vouched or scanned, is exact
    assert len(runner.recall("kappa", limit=500, record_access=False)) == 32
    runner.close()
    with _open(home) as fresh:
        assert _indexed(fresh.hooks.user) == _listing(fresh.hooks.user)
        fresh.hooks.user.ensure_synced()
        assert _indexed(fresh.hooks.user) == _listing(fresh.hooks.user)


# -- network folders: never vouched for ------------------------------------------------------


def test_a_network_folder_is_never_vouched_for(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_MEMORY_CACHE", str(tmp_path / "cache"))
    project = tmp_path / "team"
    project.mkdir()
    with Memory(home=home, semantic=False) as mem:
        mem.hooks.project_settings(project, storage="network")
    runner = Memory(home=home, project=project, semantic=False)
    entry = runner.remember("mu words here", project=project)
    proot = next(r for r in runner.hooks.ctx.projects.roots(project) if r.layer == "project")
    assert proot.layout.index_home is not None
    assert not journal.trusted(proot.layout)
    assert not journal.vouches(proot.index.connection(), proot.layout)
    path = proot.layout.memories / (proot.name_of(entry.id) or "")
    _copy_with_new_id(path, "2026-01-04_semantic_pulled.md", "nu pulled words")
    probe = _resync(proot)
    assert probe.looked
    runner.close()


def test_our_write_after_an_outside_change_does_not_vouch_for_it(home: Path) -> None:
    """An update (which does not re-check the folder first) lands after a pulled file:
    the stamp it leaves must not cover the pulled file for another running process."""
    with _open(home) as mem:
        entry = mem.remember("omicron words here")
    writer, runner = _open(home), _open(home)
    assert _texts(writer, "omicron") == _texts(runner, "omicron") == ["omicron words here"]
    path = _file(writer, entry.id)
    _copy_with_new_id(path, "2026-01-05_semantic_pulled.md", "rho pulled words")
    writer.update(entry.id, text="omicron words changed")
    assert _texts(runner, "rho") == ["rho pulled words"]
    assert _texts(runner, "changed") == ["omicron words changed"]
    writer.close()
    runner.close()
