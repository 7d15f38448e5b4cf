"""What the kernel says a process is doing (proc(5)), for tests that stop one with SIGSTOP.

``kill(SIGSTOP)`` returns once the signal is queued, not once the process has
stopped: the thread it woke stops the others only when it is next scheduled,
and on a busy machine (a CPU burner beside the suite) that is milliseconds
later, time in which the process goes on (answers a question, takes or gives
up a lock). A test that reads what the stopped process holds waits for
:func:`stopped` first.
"""

from __future__ import annotations

import contextlib
import os


def state(stat: str) -> str:
    """The scheduler state in a ``/proc`` stat file (R running, S asleep, T stopped, Z ended)."""
    with open(stat, encoding="ascii") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0]


def stopped(pid: int) -> bool:
    """Every thread of ``pid`` has stopped (state T)."""
    states = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(FileNotFoundError):  # a thread that ended meanwhile
            states.append(state(f"/proc/{pid}/task/{tid}/stat"))
    return bool(states) and all(s == "T" for s in states)
