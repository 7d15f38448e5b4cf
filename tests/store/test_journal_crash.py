"""The folder journal under SIGKILL (issue 16): it never vouches for a state that is not on disk.

A writer process repeats remember / update / forget and is killed at a random
moment, several times over. After every kill: wherever the index still vouches
for the folder (its recorded stamp is the folder's stamp), the index holds
exactly the files on disk; a process that was running all along re-checks to
exactly the files on disk; a fresh open does too; every write the writer
acknowledged is on disk. The pattern is tests/store/test_crash_every_path.py's.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.store.memories import folder_journal as journal
from jupyter_memory.store.memories.files import FileStat
from jupyter_memory.store.root import StoreRoot

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify"),
]

REPO = Path(__file__).resolve().parents[2]
KILLS = 8

_WRITER = textwrap.dedent(
    """
    import os, sys
    from jupyter_memory import Memory

    def say(line):
        # One write per line: with PYTHONUNBUFFERED, print("ack", id) is several
        # writes, and a kill between them left a line "ack" without its id.
        os.write(1, (line + "\\n").encode())

    mem = Memory(home=sys.argv[1], semantic=False)
    mem.recall("warm")  # the first look: a full scan, then the loop
    say("begin")
    i = 0
    while True:
        i += 1
        entry = mem.remember(f"crash note {sys.argv[2]} {i}")
        say(f"ack {entry.id}")
        if i % 3 == 0:
            mem.update(entry.id, text=f"crash note {sys.argv[2]} {i} updated")
        if i % 4 == 0:
            say(f"forgetting {entry.id}")  # killed in forget: either way
            mem.forget(entry.id)
    """
)


def _listing(root: StoreRoot) -> set[FileStat]:
    return set(root.files.scan())


def _rows(db: Path) -> tuple[set[FileStat], journal.Stamp | None]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = {FileStat(*r) for r in con.execute("SELECT name, mtime_ns, size FROM entries")}
        has = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'folder_state'").fetchone()
        stamp = journal.recorded(con) if has else None
    finally:
        con.close()
    return rows, stamp


def _live_db(home: Path) -> Path:
    return home / ".index" / (home / ".index" / "CURRENT").read_text("utf-8").strip()


def test_a_killed_writer_never_leaves_a_vouched_stamp_over_other_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with Memory(home=home, semantic=False) as mem:
        mem.remember("the first note")
    reader = Memory(home=home, semantic=False)  # a kernel running all along
    reader.recall("first")
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    acked: set[str] = set()
    gone: set[str] = set()
    vouched_after_kill = 0
    for round_no in range(KILLS):
        proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(home), str(round_no)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "begin"
        # The kill lands among writes however busy the machine is: after the writer's
        # first acknowledged write (a fixed delay from "begin" may pass before it on a
        # loaded machine, and then no round writes anything), at a random moment.
        kind, _, memory_id = proc.stdout.readline().strip().partition(" ")
        assert kind == "ack", (kind, memory_id)
        acked.add(memory_id)
        time.sleep(rng.uniform(0.02, 0.4))
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        for line in out.splitlines():
            kind, _, memory_id = line.partition(" ")
            (acked if kind == "ack" else gone).add(memory_id)
        root = reader.hooks.user
        on_disk = _listing(root)
        rows, stamp = _rows(_live_db(home))
        if stamp is not None and stamp == journal.stamp_of(root.layout.memories):
            vouched_after_kill += 1
            assert rows == on_disk, f"seed {seed}, round {round_no}"
        root.ensure_synced()
        assert _rows(_live_db(home))[0] == on_disk, f"seed {seed}, round {round_no}"
        assert {r.name for r in reader.hooks.user.rows()} == {st.name for st in on_disk}
    reader.close()
    with Memory(home=home, semantic=False) as fresh:
        fresh.hooks.user.ensure_synced()
        assert _rows(_live_db(home))[0] == _listing(fresh.hooks.user)
        ids = {r.id for r in fresh.hooks.user.rows()}
        assert acked - gone <= ids, f"seed {seed}: acknowledged writes lost"
    print(f"seed {seed}: {len(acked)} writes, vouched after {vouched_after_kill} of {KILLS} kills")
