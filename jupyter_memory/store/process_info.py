"""Who a process is, read from ``/proc`` (Linux): its name, parent and start time.

A pid alone is reused; pid plus start time (clock ticks since boot, field 22
of ``/proc/<pid>/stat``) names one process for as long as the machine runs.
Elsewhere (no ``/proc``) nothing is known and callers fall back to the pid.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcessInfo:
    pid: int
    name: str
    parent: int
    started: int


def process_info(pid: int) -> ProcessInfo | None:
    """The process ``pid``, or ``None`` when it is gone or ``/proc`` is not there."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    # "pid (name) state ppid ..." where the name may itself hold spaces and parentheses.
    head, _, rest = stat.rpartition(")")
    fields = rest.split()
    try:
        return ProcessInfo(
            pid=pid, name=head.partition("(")[2], parent=int(fields[1]), started=int(fields[19])
        )
    except (IndexError, ValueError):
        return None
