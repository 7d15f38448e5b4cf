"""Re-opening a home: fast when the journal vouches, and every outside edit still seen.

A new process whose ``memories/`` folder is at the stamp the index recorded
answers the open at once and checks every file's stat on a thread; the first
use of the index waits for that check (store/memories/open_check.py). Each
edit made outside our write path is tried here against a vouched folder, the
way a person makes it (an editor writing in place, ``touch``, ``cp`` onto a
file, ``cp`` of a new file, ``rm``, a real ``git pull``): the next open sees it.

The in-place edits move no folder stamp, so each of those tests first shows
that the open deferred its look (``pending``) and then that the first read
saw the edit anyway: without the check they fail. Adding, removing and
renaming move the stamp, so those tests show the open looked at once (its own
report counts the change): without the stamp they fail.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.store.memories import folder_journal as journal
from jupyter_memory.store.memories.files import FileStat

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the stamp is vouched for only with inotify"
)


def _open(home: Path) -> Memory:
    return Memory(home=home, semantic=False)


def _texts(mem: Memory, word: str) -> list[str]:
    return sorted(h.text for h in mem.recall(word, limit=50, level="full", record_access=False))


def _vouched_home(home: Path, texts: list[str]) -> dict[str, Path]:
    """A home whose index vouches for its folder, as a kernel leaves it; text → file."""
    with _open(home) as mem:
        ids = {text: mem.remember(text).id for text in texts}
    with _open(home) as mem:
        mem.hooks.user.ensure_synced()
        con = mem.hooks.user.index.connection()  # the first look ends here, the stamp recorded
        assert journal.vouches(con, mem.hooks.user.layout)
        folder = mem.hooks.user.layout.memories
        return {t: folder / str(mem.hooks.user.index.name_of(i)) for t, i in ids.items()}


def _reopen_deferred(home: Path) -> Memory:
    """Open as a new kernel does; the open must have left its look to the check."""
    mem = _open(home)
    report = mem.hooks.user.ensure_synced()
    assert report is not None and (report.added, report.updated, report.removed) == (0, 0, 0)
    assert mem.hooks.user.index._check.pending is not None  # type: ignore[attr-defined]
    return mem


def _later_tick() -> None:
    time.sleep(0.02)  # file times are a clock tick apart from the indexed ones


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_a_vouched_open_leaves_the_stats_to_a_thread(home: Path) -> None:
    """The open itself lists and stats nothing (that is what made it slow)."""
    _vouched_home(home, ["rho note"])
    mem = _open(home)
    root = mem.hooks.user
    listed_on: list[int] = []

    def stats() -> Iterator[FileStat]:
        listed_on.append(threading.get_ident())
        yield from root.files.scan()

    with root.locked():
        root.index.sync(stats(), root.files.read)
    assert listed_on == []
    assert root.index._check.pending is not None  # type: ignore[attr-defined]
    assert _texts(mem, "rho") == ["rho note"]
    mem.close()


# -- edits in place: no folder stamp moves; the open's check must find them ----------------


def test_an_editor_writing_in_place_is_seen(home: Path) -> None:
    path = _vouched_home(home, ["alpha words here", "other note"])["alpha words here"]
    _later_tick()
    text = path.read_text("utf-8").replace("alpha words", "omega words")
    with open(path, "r+", encoding="utf-8") as fh:  # VS Code, nano: truncate and write
        fh.truncate(0)
        fh.write(text)
    with _reopen_deferred(home) as mem:
        assert _texts(mem, "omega") == ["omega words here"]
        assert _texts(mem, "alpha") == []


def test_an_in_place_edit_of_the_same_size_is_seen(home: Path) -> None:
    path = _vouched_home(home, ["refunds are excluded"])["refunds are excluded"]
    _later_tick()
    before = path.stat().st_size
    with open(path, "r+", encoding="utf-8") as fh:
        text = fh.read().replace("refunds", "rebates")
        fh.seek(0)
        fh.write(text)
    assert path.stat().st_size == before
    with _reopen_deferred(home) as mem:
        assert _texts(mem, "rebates") == ["rebates are excluded"]


def test_an_edit_given_an_older_mtime_is_seen(home: Path) -> None:
    path = _vouched_home(home, ["gross margin note"])["gross margin note"]
    st = path.stat()
    path.write_text(path.read_text("utf-8").replace("gross", "net"), "utf-8")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 86_400 * 10**9))  # cp -p, touch -d
    with _reopen_deferred(home) as mem:
        assert _texts(mem, "net") == ["net margin note"]


def test_touch_is_seen(home: Path) -> None:
    path = _vouched_home(home, ["touched note"])["touched note"]
    _later_tick()
    subprocess.run(["touch", str(path)], check=True)
    with _reopen_deferred(home) as mem:
        con = mem.hooks.user.index.connection()  # the first use: waits for the check
        row = con.execute("SELECT mtime_ns FROM entries WHERE name = ?", (path.name,)).fetchone()
        assert row == (path.stat().st_mtime_ns,)


def test_cp_onto_an_existing_file_is_seen(home: Path, tmp_path: Path) -> None:
    path = _vouched_home(home, ["budget before copy"])["budget before copy"]
    _later_tick()
    backup = tmp_path / "backup.md"
    backup.write_text(path.read_text("utf-8").replace("before", "restored"), "utf-8")
    subprocess.run(["cp", str(backup), str(path)], check=True)  # GNU cp truncates in place
    with _reopen_deferred(home) as mem:
        assert _texts(mem, "restored") == ["budget restored copy"]
        assert _texts(mem, "before") == []


def test_the_first_write_also_waits_for_the_check(home: Path) -> None:
    files = _vouched_home(home, ["quota note", "second note"])
    _later_tick()
    path = files["quota note"]
    with open(path, "r+", encoding="utf-8") as fh:
        text = fh.read().replace("quota", "limit")
        fh.seek(0)
        fh.truncate()
        fh.write(text)
    with _reopen_deferred(home) as mem:
        mem.remember("a new note from the kernel")  # a write before any read
        assert _texts(mem, "limit") == ["limit note"]


def test_readers_on_several_threads_all_wait_for_the_check(home: Path) -> None:
    path = _vouched_home(home, ["sigma words"])["sigma words"]
    _later_tick()
    with open(path, "r+", encoding="utf-8") as fh:
        text = fh.read().replace("sigma", "tau")
        fh.seek(0)
        fh.truncate()
        fh.write(text)
    with _reopen_deferred(home) as mem:
        seen: list[list[str]] = []
        threads = [
            threading.Thread(target=lambda: seen.append(_texts(mem, "tau"))) for _ in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert seen == [["tau words"]] * 4


def test_a_file_added_after_the_check_listed_the_folder_is_seen(home: Path) -> None:
    """The full look after an in-place edit reuses the check's listing only while the
    folder's stamp has not moved since: a file added in between must be indexed too."""
    files = _vouched_home(home, ["chi words"])
    _later_tick()
    path = files["chi words"]
    with open(path, "r+", encoding="utf-8") as fh:
        text = fh.read().replace("chi", "psi")
        fh.seek(0)
        fh.truncate()
        fh.write(text)
    raw = path.read_text("utf-8")
    with _reopen_deferred(home) as mem:
        check = mem.hooks.user.index._check.pending  # type: ignore[attr-defined]
        assert not check.wait()  # listed and found the edit; not settled yet
        added = raw.replace(raw.split('id: "')[1].split('"')[0], "m-added00000000000001")
        path.with_name("2026-01-01_semantic_added.md").write_text(
            added.replace("psi words", "omega added"), "utf-8"
        )
        assert _texts(mem, "psi") == ["psi words"]
        assert _texts(mem, "omega") == ["omega added"]


def test_a_killed_writers_temp_file_is_removed_by_the_next_open(home: Path) -> None:
    """A writer killed mid-write leaves ``.<name>.tmp``; a look that does not remove it
    (a writer's own re-check) may record the stamp with it there. The next open's
    check sees it and the full look removes it, under the lock, before the first read."""
    _vouched_home(home, ["phi note"])
    folder = home / "memories"
    tmp = folder / ".2026-01-01_semantic_killed.md.x1y2z3.tmp"
    tmp.write_text("half a memo", "utf-8")
    with _open(home) as mem:  # its first look sees the folder moved and records it, temp and all
        root = mem.hooks.user
        with root.locked():
            root.index.sync(root.files.scan(), root.files.read)
        assert journal.vouches(root.index.connection(), root.layout)
    assert tmp.exists()
    with _reopen_deferred(home) as mem:
        assert _texts(mem, "phi") == ["phi note"]
        assert not tmp.exists()


# -- adding, removing, renaming: the stamp moves; the open looks at once ----------------------


def _reopen_looking(home: Path) -> tuple[Memory, tuple[int, int, int]]:
    mem = _open(home)
    report = mem.hooks.user.ensure_synced()
    assert report is not None
    return mem, (report.added, report.updated, report.removed)


def test_cp_of_a_new_file_is_seen(home: Path, tmp_path: Path) -> None:
    path = _vouched_home(home, ["kappa words"])["kappa words"]
    raw = path.read_text("utf-8")
    new = tmp_path / "new.md"
    new.write_text(
        raw.replace(raw.split('id: "')[1].split('"')[0], "m-copied0000000000001").replace(
            "kappa", "lambda"
        ),
        "utf-8",
    )
    subprocess.run(["cp", str(new), str(path.with_name("2026-01-01_semantic_new.md"))], check=True)
    mem, counts = _reopen_looking(home)
    with mem:
        assert counts == (1, 0, 0)
        assert _texts(mem, "lambda") == ["lambda words"]


def test_rm_is_seen(home: Path) -> None:
    files = _vouched_home(home, ["mu words", "nu words"])
    subprocess.run(["rm", str(files["mu words"])], check=True)
    mem, counts = _reopen_looking(home)
    with mem:
        assert counts == (0, 0, 1)
        assert _texts(mem, "words") == ["nu words"]


def _git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    subprocess.run(["git", *args], cwd=cwd, check=True, env=env, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_pull_is_seen(home: Path, tmp_path: Path) -> None:
    files = _vouched_home(home, ["xi words here", "omicron words here"])
    _git(home, "init", "-q", "-b", "main")
    _git(home, "add", "memories")
    _git(home, "commit", "-q", "-m", "notes")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(home), str(clone))
    theirs = clone / "memories" / files["xi words here"].name
    theirs.write_text(theirs.read_text("utf-8").replace("xi words", "pi words"), "utf-8")
    (clone / "memories" / files["omicron words here"].name).unlink()
    _git(clone, "commit", "-q", "-am", "edit and remove")
    with _open(home) as mem:  # the stamp still vouches before the pull
        assert journal.vouches(mem.hooks.user.index.connection(), mem.hooks.user.layout)
    _git(home, "pull", "-q", str(clone), "main")
    mem, counts = _reopen_looking(home)
    with mem:
        assert counts == (0, 1, 1)
        assert _texts(mem, "pi") == ["pi words here"]
        assert _texts(mem, "words") == ["pi words here"]
