"""Crash and concurrency: writes are whole or absent, never torn; nothing is lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.frontmatter_io import parse_memory

WRITER = textwrap.dedent(
    """
    import sys
    from jupyter_memory import Memory
    mem = Memory(home=sys.argv[1])
    print("ready", flush=True)
    tag = sys.argv[2]
    n = int(sys.argv[3])
    # Words, not one 2,000-letter word: tests/support/padding.py says why.
    for i in range(n):
        mem.remember(f"note {tag} {i} " + ("x" * 9 + " ") * 200, title=f"{tag} {i}", tags=[tag])
    print("done", flush=True)
    """
)


def _spawn(home: Path, tag: str, n: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(home), tag, str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_sigkill_mid_write_never_tears_files(tmp_path: Path):
    home = tmp_path / "home"
    kills = 0
    for round_ in range(12):
        proc = _spawn(home, f"r{round_}", 400)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        if round_ == 0:
            # A loaded machine can take hundreds of ms for the first write: the
            # kills below only mean something once writing is under way.
            deadline = time.monotonic() + 60
            while not any((home / "memories").glob("*.md")) and time.monotonic() < deadline:
                time.sleep(0.005)
        # kill at varying points of the write loop (each write takes ~1-5 ms)
        time.sleep(0.02 + 0.03 * (round_ % 5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += proc.returncode == -signal.SIGKILL
    assert kills >= 10
    files = sorted((home / "memories").glob("*.md"))
    assert files, "writers made no progress before being killed"
    for f in files:
        parse_memory(f.read_bytes(), path=f)  # every file parses: old or new, never torn
    mem = Memory(home=home)
    report = mem.doctor()
    assert report["ok"], report
    assert mem.stats()["total"] == len(files)
    assert not list((home / "memories").glob(".*.tmp"))
    # the index matches the files after a full rebuild too
    mem.hooks.rebuild_index()
    assert mem.stats()["total"] == len(files)


@pytest.mark.slow
def test_concurrent_writers_lose_nothing(tmp_path: Path):
    home = tmp_path / "home"
    procs = [_spawn(home, f"w{i}", 40) for i in range(4)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    mem = Memory(home=home)
    assert mem.stats()["total"] == 160
    for i in range(4):
        hits = mem.recall("note", tags=[f"w{i}"], limit=100, level="index")
        assert len(hits) == 40
    assert mem.doctor()["ok"]
    audit = (home / "audit.jsonl").read_text().splitlines()
    assert len(audit) == 160


def test_failed_write_leaves_old_file_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from jupyter_memory.exceptions import StoreError
    from jupyter_memory.store import atomic

    mem = Memory(home=tmp_path / "h")
    entry = mem.remember("original text", title="keep me")
    before = Path(entry.path).read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(StoreError) as info:
        mem.update(entry.id, text="new text")
    assert entry.path in str(info.value)
    monkeypatch.undo()
    assert Path(entry.path).read_bytes() == before
    assert not list(Path(entry.path).parent.glob(".*.tmp"))


def test_file_mode_is_sane(tmp_path: Path):
    mem = Memory(home=tmp_path / "h")
    entry = mem.remember("x y z")
    assert os.stat(entry.path).st_size > 0
