"""A project on a network file system (issue 17): the index in the user's local cache,
an exclusive-create lock, and the crash and concurrency guarantees kept.

The network path is chosen through the person's setting (``settings --project DIR
--storage network``), the same switch that overrides detection on a real mount;
detection itself is tested on a mount table written here.
"""

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
from jupyter_memory.store.storage import NET_LOCK_NAME, choose_storage, mount_of


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "local-cache"
    monkeypatch.setenv("JUPYTER_MEMORY_CACHE", str(folder))
    return folder


def _network_project(home: Path, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with Memory(home=home) as mem:
        mem.hooks.project_settings(folder, storage="network")


def test_mount_table_detection(tmp_path: Path) -> None:
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "/dev/sda1 / ext4 rw 0 0\n"
        "server:/export /mnt/team nfs4 rw,vers=4.2 0 0\n"
        "//nas/share /mnt/smb\\040share cifs rw 0 0\n"
        "alice@host:/data /mnt/ssh fuse.sshfs rw 0 0\n"
    )
    assert mount_of(Path("/mnt/team/sales"), mounts) == ("/mnt/team", "nfs4")
    assert mount_of(Path("/mnt/smb share/x"), mounts) == ("/mnt/smb share", "cifs")
    assert mount_of(Path("/mnt/ssh/p"), mounts) == ("/mnt/ssh", "fuse.sshfs")
    assert mount_of(Path("/home/alice"), mounts) == ("/", "ext4")


def test_the_setting_overrides_detection(tmp_path: Path, cache: Path) -> None:
    root = tmp_path / "p" / ".jupyter-memory"
    net = choose_storage(root, "network")
    assert net.kind == "network" and net.lock == "exclusive-create"
    assert net.index_dir is not None and net.index_dir.is_relative_to(cache)
    assert choose_storage(root, "local").index_dir is None
    assert choose_storage(tmp_path / "q" / ".jupyter-memory", "network").index_dir != net.index_dir


def test_a_network_project_keeps_its_index_in_the_cache(
    tmp_path: Path, cache: Path, memory_home: Path
) -> None:
    folder = tmp_path / "销售"
    _network_project(memory_home, folder)
    with Memory(home=memory_home, project=folder) as mem:
        mem.remember("Revenue excludes refunds 收入不含退款", title="revenue")
        assert [h.title for h in mem.recall("收入")] == ["revenue"]
        assert not (folder / ".jupyter-memory" / ".index").exists()
        assert list(cache.glob("index/*/CURRENT"))
        assert not (folder / ".jupyter-memory" / NET_LOCK_NAME).exists()  # released
        report = mem.doctor()
        assert report.ok
        notice = [n for n in report.notices if n.startswith("project 销售")][0]
        assert "network storage" in notice and "exclusive-create" in notice
        assert str(cache) in notice
        # Back to automatic detection: a local disk here, the index beside the files.
        mem.hooks.project_settings(folder, storage="auto")
        mem.hooks.rebuild_index()
        assert (folder / ".jupyter-memory" / ".index").is_dir()


WRITER = textwrap.dedent(
    """
    import sys
    from jupyter_memory import Memory
    mem = Memory(home=sys.argv[1], project=sys.argv[4])
    print("ready", flush=True)
    tag = sys.argv[2]
    # Words, not one 2,000-letter word: tests/support/padding.py says why.
    for i in range(int(sys.argv[3])):
        mem.remember(f"note {tag} {i} " + ("x" * 9 + " ") * 200, title=f"{tag} {i}", tags=[tag])
        print(f"wrote {i}", flush=True)
    print("done", flush=True)
    """
)


def _spawn(home: Path, folder: Path, tag: str, n: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(home), tag, str(n), str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


@pytest.mark.slow
def test_sigkill_mid_write_on_a_network_project(
    tmp_path: Path, cache: Path, memory_home: Path
) -> None:
    folder = tmp_path / "shared"
    _network_project(memory_home, folder)
    kills = 0
    for round_ in range(10):
        proc = _spawn(memory_home, folder, f"r{round_}", 400)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        # Killed among its writes however busy the machine is: after its first write
        # returned (a fixed delay from "ready" may pass before it), at a varied moment.
        line = proc.stdout.readline().strip()
        assert line == "wrote 0", (line, proc.stderr.read() if not line else "")
        time.sleep(0.02 + 0.05 * (round_ % 5))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += proc.returncode == -signal.SIGKILL
    assert kills >= 8
    files = sorted((folder / ".jupyter-memory" / "memories").glob("*.md"))
    for f in files:
        parse_memory(f.read_bytes(), path=f)  # whole or absent, never torn
    # A lock left by a killed writer is recognised (its process is gone) and taken.
    with Memory(home=memory_home, project=folder) as mem:
        mem.remember("after the crashes", title="after")
        assert mem.doctor().ok
        rows = [r for r in mem.memories() if r["layer"] == "project"]
        assert len(rows) == len(files) + 1
        mem.hooks.rebuild_index()
        assert len([r for r in mem.memories() if r["layer"] == "project"]) == len(files) + 1
    assert not (folder / ".jupyter-memory" / ".index").exists()


@pytest.mark.slow
def test_concurrent_writers_on_a_network_project_lose_nothing(
    tmp_path: Path, cache: Path, memory_home: Path
) -> None:
    folder = tmp_path / "shared"
    _network_project(memory_home, folder)
    procs = [_spawn(memory_home, folder, f"w{i}", 30) for i in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    with Memory(home=memory_home, project=folder) as mem:
        rows = [r for r in mem.memories() if r["layer"] == "project"]
        assert len(rows) == 120
        for i in range(4):
            hits = mem.recall("note", tags=[f"w{i}"], limit=100, level="index")
            assert len(hits) == 30
        assert mem.doctor().ok
    assert not (folder / ".jupyter-memory" / NET_LOCK_NAME).exists()
    assert not (folder / ".jupyter-memory" / ".index").exists()


def test_the_network_lock_breaks_only_a_dead_holders_lock(tmp_path: Path) -> None:
    import json
    import socket

    from jupyter_memory.exceptions import LockTimeoutError
    from jupyter_memory.store.storage import exclusive_create_lock

    lock = tmp_path / NET_LOCK_NAME
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    lock.write_text(json.dumps({"host": socket.gethostname(), "pid": int(dead.stdout), "at": 0}))
    with exclusive_create_lock(tmp_path, timeout=2):
        holder = json.loads(lock.read_text())
        assert holder["pid"] == os.getpid()
        with exclusive_create_lock(tmp_path, timeout=2):  # re-entrant in one thread
            pass
        assert lock.exists()
    assert not lock.exists()
    # A live holder on another host is waited for, then named in the error.
    lock.write_text(json.dumps({"host": "elsewhere", "pid": 1, "at": time.time()}))
    with (
        pytest.raises(LockTimeoutError, match="netlock"),
        exclusive_create_lock(tmp_path, timeout=0.3),
    ):
        pass
    old = time.time() - 3600
    os.utime(lock, (old, old))  # an hour old: left by a crash on that host
    with exclusive_create_lock(tmp_path, timeout=2):
        pass
