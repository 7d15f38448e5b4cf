"""The network-folder lock (issue 16): never visible without its holder, and a lock
left empty by a writer killed between create and write does not block everyone.

Real processes only: the writers here are subprocesses that take the lock, hold it,
or are SIGKILLed at a chosen point.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.exceptions import LockTimeoutError
from jupyter_memory.store import net_holder
from jupyter_memory.store.storage import (
    EMPTY_STALE_S,
    NET_LOCK_NAME,
    exclusive_create_lock,
)

pytestmark = pytest.mark.slow  # writers in processes, killed: make test, not make test-fast


def _child(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


def _wait_for(proc: subprocess.Popen[str], word: str) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    assert line.startswith(word), (line, proc.stderr.read() if proc.stderr else "")
    return line


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL


# How a writer of an older version took the lock: create the file, then write it.
OLD_WAY_KILLED_BEFORE_WRITE = """
    import os, sys, time
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    print("created", flush=True)
    time.sleep(120)
    """


def _age(path: Path, seconds: float) -> None:
    """Move the clock the lock reads (the file's mtime) ``seconds`` on, without waiting."""
    stamp = path.stat().st_mtime - seconds
    os.utime(path, (stamp, stamp))


def _aged(path: Path, seconds: float) -> None:
    """Make the file ``seconds`` old now (its mtime is the clock the lock reads)."""
    stamp = time.time() - seconds
    os.utime(path, (stamp, stamp))


# The empty-lock threshold for the test below, injected: the lock's clock is real time,
# and an age one second inside the real 5 s threshold was past it on a busy machine by
# the time the waiter looked (the writer's start, its kill and two waits count too).
INJECTED_EMPTY_STALE_S = 600.0


def test_an_empty_lock_left_by_a_killed_writer_is_taken_within_seconds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(net_holder, "EMPTY_STALE_S", INJECTED_EMPTY_STALE_S)
    lock = tmp_path / NET_LOCK_NAME
    proc = _child(OLD_WAY_KILLED_BEFORE_WRITE, str(lock))
    _wait_for(proc, "created")
    _kill(proc)
    assert lock.read_bytes() == b""  # no holder named: neither host nor process
    # Young, it is waited for: its writer may be between create and write.
    with (
        pytest.raises(LockTimeoutError, match="netlock"),
        exclusive_create_lock(tmp_path, timeout=0.3),
    ):
        pass
    assert lock.read_bytes() == b""
    _aged(lock, INJECTED_EMPTY_STALE_S - 60)  # still inside the threshold
    with (
        pytest.raises(LockTimeoutError, match="netlock"),
        exclusive_create_lock(tmp_path, timeout=0.3),
    ):
        pass
    _aged(lock, INJECTED_EMPTY_STALE_S + 1)  # past it: taken by the next writer at its look
    with exclusive_create_lock(tmp_path, timeout=60):  # far less than the threshold
        holder = json.loads(lock.read_text())
        assert holder["pid"] == os.getpid() and holder["host"] == socket.gethostname()
    assert not lock.exists()


def test_a_network_project_writes_past_an_old_empty_lock(
    tmp_path: Path, memory_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_MEMORY_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "共享"
    folder.mkdir()
    with Memory(home=memory_home) as mem:
        mem.hooks.project_settings(folder, storage="network")
    lock = folder / ".jupyter-memory" / NET_LOCK_NAME
    lock.parent.mkdir(exist_ok=True)
    lock.write_bytes(b'{"host": "')  # torn by an older version, a minute ago
    old = time.time() - 60
    os.utime(lock, (old, old))
    with Memory(home=memory_home, project=folder) as mem:
        mem.remember("收入不含退款 revenue excludes refunds", title="revenue")
        assert [h.title for h in mem.recall("收入")] == ["revenue"]
    assert not lock.exists()


HOLDER = """
    import sys, time
    from pathlib import Path
    from jupyter_memory.store.storage import exclusive_create_lock
    with exclusive_create_lock(Path(sys.argv[1])):
        print("held", flush=True)
        time.sleep(120)
    """


def test_a_live_holders_lock_is_never_broken(tmp_path: Path) -> None:
    lock = tmp_path / NET_LOCK_NAME
    proc = _child(HOLDER, str(tmp_path))
    try:
        _wait_for(proc, "held")
        # Far past every age rule at once: only the live process counts, so the
        # waiter's checks (about 25 in a second) all find the holder alive.
        _age(lock, 7200)
        with (
            pytest.raises(LockTimeoutError, match="netlock"),
            exclusive_create_lock(tmp_path, timeout=1),
        ):
            pass
        assert json.loads(lock.read_text())["pid"] == proc.pid
    finally:
        _kill(proc)
    # Its process is gone now: taken at its next check, not after an age rule.
    with exclusive_create_lock(tmp_path, timeout=EMPTY_STALE_S - 1):
        assert json.loads(lock.read_text())["pid"] == os.getpid()


CYCLER = """
    import sys, time
    from pathlib import Path
    from jupyter_memory.store.storage import exclusive_create_lock
    root, until = Path(sys.argv[1]), time.monotonic() + float(sys.argv[2])
    print("go", flush=True)
    n = 0
    while time.monotonic() < until:
        with exclusive_create_lock(root):
            n += 1
    print(n, flush=True)
    """


def test_the_lock_file_is_never_seen_without_its_holder(tmp_path: Path) -> None:
    lock = tmp_path / NET_LOCK_NAME
    # 1.5 s each: about 450 cycles and 30,000 reads on a shared 2-core machine
    procs = [_child(CYCLER, str(tmp_path), "1.5") for _ in range(2)]
    for p in procs:
        _wait_for(p, "go")
    seen, bad = 0, []
    while any(p.poll() is None for p in procs):
        try:
            data = lock.read_bytes()
        except FileNotFoundError:
            continue
        seen += 1
        try:
            holder = json.loads(data)
        except ValueError:
            bad.append(data)
            continue
        if not (isinstance(holder, dict) and "pid" in holder and "host" in holder):
            bad.append(data)
    cycles = [int(p.communicate(timeout=30)[0].strip()) for p in procs]
    print(f"cycles {cycles}, reads {seen}")
    assert all(c > 50 for c in cycles), cycles
    assert seen > 100, seen
    assert bad == [], f"{len(bad)} of {seen} reads saw a lock without its holder"
    assert not lock.exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name != NET_LOCK_NAME + ".break"]


TEMP_WRITER = """
    import sys, time
    from pathlib import Path
    from jupyter_memory.store.net_holder import write_holder_temp
    print("temp", write_holder_temp(Path(sys.argv[1])).name, flush=True)
    time.sleep(120)
    """


def test_leftover_temp_files_of_dead_writers_are_removed(tmp_path: Path) -> None:
    from jupyter_memory.store.net_holder import temp_path

    dead = _child(TEMP_WRITER, str(tmp_path))
    dead_name = _wait_for(dead, "temp").split()[1]
    _kill(dead)  # killed after writing its temp file, before the link
    alive = _child(TEMP_WRITER, str(tmp_path))
    try:
        alive_name = _wait_for(alive, "temp").split()[1]
        foreign_old = temp_path(tmp_path, "elsewhere.example", 4242)
        foreign_old.write_text("{}")
        old = time.time() - 7200
        os.utime(foreign_old, (old, old))
        foreign_young = temp_path(tmp_path, "elsewhere.example", 4243)
        foreign_young.write_text("{}")
        assert dead_name.startswith("." + NET_LOCK_NAME) and dead_name.endswith(".tmp")
        with exclusive_create_lock(tmp_path, timeout=5):
            pass
        left = {p.name for p in tmp_path.iterdir()}
        assert dead_name not in left and foreign_old.name not in left
        assert alive_name in left and foreign_young.name in left  # may still be linked
    finally:
        _kill(alive)


def test_a_lock_left_with_its_temp_by_a_writer_killed_after_the_link(tmp_path: Path) -> None:
    """Killed between link and unlink: the lock names a dead process; both go."""
    code = """
        import os, sys, time
        from pathlib import Path
        from jupyter_memory.store.net_holder import NET_LOCK_NAME, write_holder_temp
        root = Path(sys.argv[1])
        tmp = write_holder_temp(root)
        os.link(tmp, root / NET_LOCK_NAME)
        print("linked", tmp.name, flush=True)
        time.sleep(120)
        """
    proc = _child(code, str(tmp_path))
    tmp_name = _wait_for(proc, "linked").split()[1]
    _kill(proc)
    lock = tmp_path / NET_LOCK_NAME
    assert json.loads(lock.read_text())["pid"] == proc.pid
    # A dead process of this host: taken at once, not after an age rule.
    with exclusive_create_lock(tmp_path, timeout=EMPTY_STALE_S - 1):
        assert json.loads(lock.read_text())["pid"] == os.getpid()
        assert not (tmp_path / tmp_name).exists()
