"""The network-folder lock when a writer dies at the worst moment: holding the
breaker, or having had its own lock broken under it.

1. A writer SIGKILLed while it holds the breaker (``<lock>.break``, taken while a
   stale lock is broken) must not freeze every other writer for 30 s: a breaker
   whose holder is a dead process of this host is removed at once.
2. A writer whose lock was broken and taken by another must not remove the
   other's lock when it releases: two writers would then run at once.

Real processes only: writers are subprocesses, killed with SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jupyter_memory.exceptions import LockTimeoutError
from jupyter_memory.store.storage import EMPTY_STALE_S, NET_LOCK_NAME, exclusive_create_lock
from tests.support.proc_state import stopped
from tests.team.test_network_lock import _child, _kill, _wait_for

pytestmark = pytest.mark.slow  # writers in processes, SIGKILLed: make test, not make test-fast

BREAKER_NAME = NET_LOCK_NAME + ".break"


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(done.stdout)


def _stale_holder() -> bytes:
    """A lock holder naming a process of this host that has exited."""
    return json.dumps(
        {"host": socket.gethostname(), "pid": _dead_pid(), "at": time.time()}
    ).encode()


def _until(check: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


WRITER = """
    import sys
    from pathlib import Path
    from jupyter_memory.store.storage import exclusive_create_lock
    print("waiting", flush=True)
    with exclusive_create_lock(Path(sys.argv[1]), timeout=300):
        print("held", flush=True)
    """


def _writer_stuck_in_the_breaker(root: Path) -> subprocess.Popen[str]:
    """A real writer stopped while it holds the breaker.

    The lock is a FIFO: judging whether a lock is stale means reading it, and
    open(2) of a FIFO waits for a writer. The first read (before the breaker)
    is fed a dead process's holder; the writer then takes the breaker and reads
    the lock again under it, and waits there for good.
    """
    lock = root / NET_LOCK_NAME
    os.mkfifo(lock)
    proc = _child(WRITER, str(root))
    _wait_for(proc, "waiting")
    with open(lock, "wb") as fifo:  # waits until the writer opens it to read
        fifo.write(_stale_holder())
    # It holds the breaker and waits in open(2) of the FIFO again (Linux: wchan).
    wchan = Path(f"/proc/{proc.pid}/wchan")
    _until(lambda: (root / BREAKER_NAME).exists() and wchan.read_text() == "wait_for_partner", 20)
    # The FIFO goes: the next writers find a plain lock of a dead writer. The
    # stuck writer stays in open(2) of the FIFO it had found.
    planted = root / "planted"
    planted.write_bytes(_stale_holder())
    os.replace(planted, lock)
    return proc


def test_a_writer_killed_holding_the_breaker_stalls_nobody(tmp_path: Path) -> None:
    lock = tmp_path / NET_LOCK_NAME
    stuck = _writer_stuck_in_the_breaker(tmp_path)
    try:
        # Held by a live process, the breaker is respected: the stale lock stays.
        with (
            pytest.raises(LockTimeoutError, match="netlock"),
            exclusive_create_lock(tmp_path, timeout=1.5),
        ):
            pass
        assert (tmp_path / BREAKER_NAME).exists()
    finally:
        _kill(stuck)
    assert (tmp_path / BREAKER_NAME).exists()  # left behind by the killed writer
    # Removed at once (a dead process of this host), not after BREAKER_FOREIGN_STALE_S.
    with exclusive_create_lock(tmp_path, timeout=EMPTY_STALE_S - 1):
        assert json.loads(lock.read_text())["pid"] == os.getpid()
    assert not lock.exists() and not (tmp_path / BREAKER_NAME).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# A writer that takes the lock in a loop and checks that it is alone inside:
# ``inside`` names the pid of the writer in the lock; a writer killed inside
# leaves it behind, naming a dead process.
GUARDED = """
    import os, sys, time
    from pathlib import Path
    from jupyter_memory.store.storage import exclusive_create_lock
    root, inside, log = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])

    def alive(pid):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    def note(line):
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.write(fd, (line + "\\n").encode())
        os.close(fd)

    me = os.getpid()
    print("go", flush=True)
    while True:
        with exclusive_create_lock(root, timeout=120):
            try:
                other = int(inside.read_text())
            except (FileNotFoundError, ValueError):
                other = None
            if other is not None and other != me and alive(other):
                note(f"overlap {me} {other}")
            inside.write_text(str(me))
            note(f"enter {time.time():.6f} {me}")
            time.sleep(0.002)
            inside.unlink()
    """


def _breaker_holders(root: Path) -> set[int]:
    """Pids named by the breaker's holder file(s), if the breaker is there."""
    pids: set[int] = set()
    try:
        names = os.listdir(root / BREAKER_NAME)
    except OSError:
        return pids
    for name in names:
        try:
            pids.add(int(json.loads((root / BREAKER_NAME / name).read_text())["pid"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return pids


@pytest.mark.slow  # a 10 s soak of random kills
def test_writers_killed_at_random_never_overlap_nor_stall(tmp_path: Path) -> None:
    """Three writers, one SIGKILLed every few tens of ms and replaced, for 10 s
    or until three were killed holding the breaker: nobody is ever in the lock
    with a live other, and the lock never goes unused for seconds."""
    import random

    root, out = tmp_path / "root", tmp_path / "out"
    root.mkdir()
    out.mkdir()
    inside, log = out / "inside", out / "log"
    rng = random.Random(os.getpid())
    procs = [_child(GUARDED, str(root), str(inside), str(log)) for _ in range(3)]
    kills = in_breaker = 0
    try:
        for p in procs:
            _wait_for(p, "go")
        end = time.monotonic() + 10
        while time.monotonic() < end and in_breaker < 3:
            time.sleep(rng.uniform(0.02, 0.15))
            i = rng.randrange(len(procs))
            victim = procs[i]
            victim.send_signal(signal.SIGSTOP)  # stopped, it is alive: its breaker stays
            # Read the breaker once the victim has stopped, not once the signal is
            # queued: until it is next scheduled it goes on, and on a busy machine it
            # may take or give up the breaker after the read, so the count would not
            # say what the kill below interrupts (and may end the soak early).
            _until(lambda pid=victim.pid: stopped(pid), 60)
            in_breaker += victim.pid in _breaker_holders(root)
            _kill(victim)
            kills += 1
            procs[i] = _child(GUARDED, str(root), str(inside), str(log))
            _wait_for(procs[i], "go")
        time.sleep(0.5)  # the last writers go on past the last kill
    finally:
        for p in procs:
            _kill(p)
    lines = log.read_text().splitlines()
    overlaps = [x for x in lines if x.startswith("overlap")]
    times = [float(x.split()[1]) for x in lines if x.startswith("enter")]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    print(f"{kills} kills, {in_breaker} while holding the breaker, {len(times)} entries, "
          f"longest time without an entry {max(gaps):.3f}s")  # fmt: skip
    assert overlaps == [], overlaps[:5]
    assert len(times) > 100, len(times)
    assert max(gaps) < 5, max(gaps)
    # Whatever the last kills left, the next writer takes the lock at once.
    # (a breaker left by a kill would wait BREAKER_FOREIGN_STALE_S; a stale lock, a check)
    with exclusive_create_lock(root, timeout=EMPTY_STALE_S - 1):
        pass
    assert sorted(p.name for p in root.iterdir()) == []


HOLDER_UNTIL_TOLD = """
    import sys
    from pathlib import Path
    from jupyter_memory.store.storage import exclusive_create_lock
    with exclusive_create_lock(Path(sys.argv[1])):
        print("held", flush=True)
        sys.stdin.readline()
    print("released", flush=True)
    """


def _holder_until_told(root: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER_UNTIL_TOLD.replace("\n    ", "\n"), str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(proc, "held")
    return proc


def _release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("\n")
    proc.stdin.flush()
    _wait_for(proc, "released")
    assert proc.wait(timeout=30) == 0


def test_a_writer_whose_lock_was_broken_leaves_the_new_holders_lock(tmp_path: Path) -> None:
    lock = tmp_path / NET_LOCK_NAME
    first = _holder_until_told(tmp_path)
    second = None
    try:
        # Its lock is broken meanwhile (by hand, "remove it if its holder is gone",
        # or by a writer on another host after FOREIGN_STALE_S) and taken by another.
        lock.unlink()
        second = _holder_until_told(tmp_path)
        assert json.loads(lock.read_text())["pid"] == second.pid
        _release(first)  # must not take the second writer's lock with it
        assert json.loads(lock.read_text())["pid"] == second.pid
        with (  # nobody else gets in while the second writer holds it
            pytest.raises(LockTimeoutError, match="netlock"),
            exclusive_create_lock(tmp_path, timeout=1),
        ):
            pass
        _release(second)
        assert not lock.exists()
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                _kill(p)
    with exclusive_create_lock(tmp_path, timeout=2):
        assert json.loads(lock.read_text())["pid"] == os.getpid()
    assert not lock.exists()


def _plant_breaker(root: Path, holder: dict[str, object] | None, age: float) -> Path:
    """A breaker folder as another writer would have left it, ``age`` seconds old."""
    folder = root / BREAKER_NAME
    folder.mkdir()
    if holder is not None:
        (folder / "holder").write_text(json.dumps(holder))
    stamp = time.time() - age
    for p in (*folder.iterdir(), folder):
        os.utime(p, (stamp, stamp))
    return folder


def _blocked_then_taken(root: Path, folder: Path, age: float) -> None:
    """The stale lock waits while the breaker counts; made ``age`` old, it is taken at
    the waiter's next checks (within a timeout short of every age rule)."""
    (root / NET_LOCK_NAME).write_bytes(_stale_holder())
    with (
        pytest.raises(LockTimeoutError, match="netlock"),
        exclusive_create_lock(root, timeout=0.5),
    ):
        pass
    assert folder.exists()
    stamp = time.time() - age
    for p in (*folder.iterdir(), folder):
        os.utime(p, (stamp, stamp))
    with exclusive_create_lock(root, timeout=EMPTY_STALE_S - 1):
        pass
    assert not folder.exists() and not (root / NET_LOCK_NAME).exists()


def test_another_hosts_breaker_is_waited_for_then_removed_by_age(tmp_path: Path) -> None:
    holder = {"host": "elsewhere.example", "pid": 4242, "at": time.time(), "token": "ab"}
    folder = _plant_breaker(tmp_path, holder, age=1)
    _blocked_then_taken(tmp_path, folder, age=31)


def test_an_older_versions_empty_breaker_is_waited_for_then_removed(tmp_path: Path) -> None:
    folder = _plant_breaker(tmp_path, None, age=0)
    _blocked_then_taken(tmp_path, folder, age=EMPTY_STALE_S + 1)


def test_a_breaker_of_this_hosts_name_in_another_boot(tmp_path: Path) -> None:
    """Written since this machine booted: a second machine of the same name, waited
    for; written before it booted: gone with that boot."""
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    holder = {"host": socket.gethostname(), "pid": os.getpid(), "boot": "another-boot"}
    folder = _plant_breaker(tmp_path, holder, age=0)
    _blocked_then_taken(tmp_path, folder, age=uptime + 60)


def test_a_breaker_whose_pid_was_reused_is_removed_at_once(tmp_path: Path) -> None:
    from jupyter_memory.store.process_info import process_info

    info = process_info(os.getpid())
    assert info is not None
    # Our pid, alive, but started at another time: the holder was an earlier process.
    holder = {"host": socket.gethostname(), "pid": os.getpid(), "started": info.started - 1}
    _plant_breaker(tmp_path, holder, age=0)
    (tmp_path / NET_LOCK_NAME).write_bytes(_stale_holder())
    with exclusive_create_lock(tmp_path, timeout=EMPTY_STALE_S - 1):  # at its first checks
        pass
    holder["started"] = info.started  # the very same process: alive, waited for
    _plant_breaker(tmp_path, holder, age=0)
    (tmp_path / NET_LOCK_NAME).write_bytes(_stale_holder())
    with (
        pytest.raises(LockTimeoutError, match="netlock"),
        exclusive_create_lock(tmp_path, timeout=0.5),
    ):
        pass
