"""A watcher in a long-running process spares other processes' opens the stat of every file.

store/memories/folder_watch.py: while a process watches ``memories/`` (the
Jupyter server, a kernel), a new process whose folder is at the stamp its
index vouches for asks it, and opens without statting any file when it says
no memory file was edited in place. Every in-place edit made while it
watches must still be seen by the next open (editor writes, same-size
writes, ``touch``, an mtime set back), and a watcher that died — killed, so
nothing of it could say so — vouches for nothing. Each open runs in a
process of its own, as a CLI call or a new kernel does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.store.memories import folder_journal as journal
from jupyter_memory.store.memories.folder_watch import vouched_by_watcher
from tests.support.waiting import DEADLINE_S

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the folder is watched only with inotify"
)

# How long these tests wait for the watcher's answer: a minute, not the product's
# ASK_TIMEOUT_S (50 ms). An open that gets no answer in time checks every file
# itself, which is right, but beside a CPU burner on 2 cores the watcher thread is
# often not scheduled within 50 ms, and a test that expects the watcher to vouch
# (``checking`` False) then saw an open that checked. A running watcher answers as
# soon as it is scheduled, clean or dirty, so the longer wait changes no answer; it
# only keeps "no answer in time" out of the tests that are not about it.
ANSWER_S = 60.0

# A new process opens the home and reports whether it left the look to its own
# check of every file (``checking``) and what a recall of ``word`` finds. The open
# asks the watcher as the product does (sqlite_index calls ``folder_watch.ask``),
# waiting ANSWER_S for the answer.
_OPEN = textwrap.dedent(
    """
    import functools, json, sys
    from jupyter_memory import Memory
    from jupyter_memory.store.memories import folder_watch
    folder_watch.ask = functools.partial(folder_watch.ask, timeout=float(sys.argv[3]))
    mem = Memory(home=sys.argv[1], semantic=False)
    mem.hooks.user.ensure_synced()
    checking = mem.hooks.user.index._check.pending is not None
    texts = sorted(h.text for h in mem.recall(sys.argv[2], limit=50, level="full"))
    mem.close()
    print(json.dumps({"checking": checking, "texts": texts}))
    """
)


def _open_elsewhere(home: Path, word: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _OPEN, str(home), word, str(ANSWER_S)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def _watched_home(home: Path, texts: list[str]) -> tuple[Memory, dict[str, Path]]:
    """A home whose index vouches for its folder and this process watching it."""
    mem = Memory(home=home, semantic=False)
    ids = {text: mem.remember(text).id for text in texts}
    mem.close()
    mem = Memory(home=home, semantic=False)
    mem.hooks.user.ensure_synced()
    assert journal.vouches(mem.hooks.user.index.connection(), mem.hooks.user.layout)
    assert mem.hooks.user.watch()
    _until_clean(mem)
    folder = mem.hooks.user.layout.memories
    return mem, {t: folder / str(mem.hooks.user.index.name_of(i)) for t, i in ids.items()}


def _until_clean(mem: Memory) -> None:
    """Wait for the watcher's first pass (it runs in its own thread), then assert it:
    for a minute of time, not a count of polls (a busy machine stretches each poll)."""
    watcher = mem.hooks.user.index._watcher  # type: ignore[attr-defined]
    deadline = time.monotonic() + DEADLINE_S
    while not watcher.clean and time.monotonic() < deadline:
        time.sleep(0.01)
    assert watcher.clean, "the watcher never found the files as indexed"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_an_open_beside_a_watcher_stats_nothing(home: Path) -> None:
    mem, _ = _watched_home(home, ["alpha note", "beta note"])
    try:
        seen = _open_elsewhere(home, "alpha")
        assert seen == {"checking": False, "texts": ["alpha note"]}
        # Our own writes (from any process) keep it vouching: they are renames the
        # index records with the folder's new stamp.
        mem.remember("gamma note")
        assert _open_elsewhere(home, "gamma") == {"checking": False, "texts": ["gamma note"]}
    finally:
        mem.close()
    # No watcher: the open checks every file itself, as before.
    assert _open_elsewhere(home, "alpha")["checking"] is True


@pytest.mark.parametrize("edit", ["rewrite", "same_size", "older_mtime", "touch"])
def test_an_in_place_edit_beside_a_watcher_is_seen(home: Path, edit: str) -> None:
    mem, paths = _watched_home(home, ["refunds are excluded", "other note"])
    path = paths["refunds are excluded"]
    try:
        st = path.stat()
        time.sleep(0.02)  # file times a clock tick past the indexed ones
        if edit == "touch":
            subprocess.run(["touch", str(path)], check=True)
        else:
            text = path.read_text("utf-8").replace("refunds", "rebates")
            with open(path, "r+", encoding="utf-8") as fh:  # in place: no rename
                if edit == "rewrite":
                    fh.truncate(0)
                fh.write(text)
            if edit == "older_mtime":
                os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 86_400 * 10**9))
        assert not vouched_by_watcher(mem.hooks.user.layout, ANSWER_S)
        seen = _open_elsewhere(home, "rebates" if edit != "touch" else "refunds")
        assert seen["checking"] is True  # the open looked for itself
        expected = ["rebates are excluded"] if edit != "touch" else ["refunds are excluded"]
        assert seen["texts"] == expected
    finally:
        mem.close()


_WATCH = textwrap.dedent(
    """
    import sys, time
    from jupyter_memory import Memory
    mem = Memory(home=sys.argv[1], semantic=False)
    mem.hooks.user.ensure_synced()
    mem.hooks.user.index.connection()
    assert mem.hooks.user.watch()
    while not mem.hooks.user.index._watcher.clean:
        time.sleep(0.01)
    print("watching", flush=True)
    time.sleep(600)
    """
)


def test_a_killed_watcher_vouches_for_nothing(home: Path) -> None:
    mem, paths = _watched_home(home, ["killed watcher note"])
    mem.close()  # this process stops watching; another one watches, then is killed
    watcher = subprocess.Popen(
        [sys.executable, "-c", _WATCH, str(home)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert watcher.stdout is not None and watcher.stdout.readline().strip() == "watching"
        layout = Memory(home=home, semantic=False).hooks.user.layout
        assert vouched_by_watcher(layout, ANSWER_S)
        os.kill(watcher.pid, signal.SIGKILL)
        watcher.wait(timeout=30)
        path = paths["killed watcher note"]
        text = path.read_text("utf-8").replace("killed", "revived")
        with open(path, "r+", encoding="utf-8") as fh:
            fh.truncate(0)
            fh.write(text)
        assert not vouched_by_watcher(layout, ANSWER_S)
        assert _open_elsewhere(home, "revived") == {
            "checking": True,
            "texts": ["revived watcher note"],
        }
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait(timeout=30)


def test_a_dirty_watcher_is_clean_again_once_the_index_caught_up(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jupyter_memory.store.memories import folder_watch

    monkeypatch.setattr(folder_watch, "RECHECK_S", 0.0)  # check again at the next quiet moment
    mem, paths = _watched_home(home, ["delta note"])
    try:
        path = paths["delta note"]
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("\nepsilon added\n")
        # asked: dirty, will check again
        assert not vouched_by_watcher(mem.hooks.user.layout, ANSWER_S)
        assert _open_elsewhere(home, "epsilon")["checking"] is True  # that open re-indexes it
        _until_clean(mem)
        seen = _open_elsewhere(home, "epsilon")
        assert seen["checking"] is False
        assert [" ".join(str(t).split()) for t in seen["texts"]] == ["delta note epsilon added"]  # type: ignore[attr-defined]
    finally:
        mem.close()
