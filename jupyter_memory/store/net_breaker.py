"""The breaker of the network lock: one writer at a time may remove the lock's file.

Breaking a stale lock is "read it, judge it, unlink it"; releasing one's own
lock is "check it is still mine, unlink it". Each is safe only if nobody else
removes or replaces the lock file between the check and the unlink, so both
run under the breaker, ``<lock>.break``: a folder holding one file, its
holder (host, pid, process start, boot id, token: store/net_holder.py).

Taking it: the folder is made whole under a temp name of the writer (the
holder file written and fsynced inside), then renamed to ``<lock>.break``.
rename(2) of a folder succeeds when the name is free (or an empty folder) and
fails with EEXIST/ENOTEMPTY onto a folder that holds a file; it is atomic on
local disks, NFS and SMB. A held breaker always holds its holder file, so of
two writers renaming at once exactly one gets it.

A breaker left by a writer killed while holding it is removed at once when
its holder is a dead process of this host (another host's: when older than
:data:`BREAKER_FOREIGN_STALE_S`; breaking takes milliseconds). Removing it is
safe against a writer taking the breaker meanwhile: the holder file is
unlinked by its own name (the token makes it unique), and a process judged
dead stays dead (pid, start time and boot id), so that unlink can only remove
a dead holder's file; then rmdir(2), which removes only an empty folder, so it
fails on a breaker taken since. Two writers removing the same dead breaker:
the second unlink finds nothing, the second rmdir nothing or a new holder's
folder, which stays. So two writers never both hold the breaker, unless the
age rule for another host was wrong about a live holder there.

An empty ``.break`` folder is one whose dead holder is being removed, or one
made by an older version (mkdir, no holder file; older versions never remove
a folder that is not empty): it is waited for, and removed (rmdir) when older
than :data:`EMPTY_STALE_S`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .net_holder import (
    EMPTY_STALE_S,
    create_with_holder,
    holder_gone,
    host_key,
    new_holder,
    read_holder,
    remove_folder,
    temp_path,
)
from .private import DIR_MODE

BREAK_SUFFIX = ".break"
# A breaker held by another host longer than this was left by a crash there.
BREAKER_FOREIGN_STALE_S = 30.0
_TAKEN = frozenset((errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR, errno.EACCES))


@dataclass(frozen=True)
class Breaker:
    """A breaker this process holds: its folder and the name of its holder file."""

    folder: Path
    holder_file: str


def breaker_folder(lock: Path) -> Path:
    return lock.with_name(lock.name + BREAK_SUFFIX)


def _free_or_cleared(folder: Path) -> bool:
    """Is the breaker free, after removing it if its holder is gone? ``False``: held."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not names:
        try:
            age = time.time() - os.stat(folder).st_mtime
        except FileNotFoundError:
            return True
        except OSError:
            return False
        if age <= EMPTY_STALE_S:
            return False  # a dead holder's being removed, or an older version's at work
        with contextlib.suppress(OSError):
            os.rmdir(folder)  # only if still empty
        return True
    for name in names:
        seen = read_holder(folder / name)
        if seen is None:
            if os.path.lexists(folder / name):
                return False  # there but unreadable right now: look again
            continue
        if not holder_gone(seen.data, seen.age, BREAKER_FOREIGN_STALE_S):
            return False
    # Every holder file named here is a dead holder's: unlink by name, then the
    # folder only if empty (module docstring: why this cannot remove a new holder).
    for name in names:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(folder / name)
    with contextlib.suppress(OSError):
        os.rmdir(folder)
    return True


def try_take_breaker(lock: Path) -> Breaker | None:
    """Take the breaker of ``lock`` if it is free (or its holder gone); ``None`` if held.

    OSError (other than "taken") goes to the caller: the folder is not writable.
    """
    folder = breaker_folder(lock)
    if not _free_or_cleared(folder):
        return None
    holder = new_holder()
    name = f"{host_key(socket.gethostname())}.{os.getpid()}.{holder['token']}"
    tmp = temp_path(folder.parent, socket.gethostname(), os.getpid())
    os.mkdir(tmp, DIR_MODE)  # private like every folder of the store (store/private.py)
    try:
        # Not fsynced: a process killed at any point leaves the folder whole
        # or unnamed (the rename); a power cut may leave its holder empty or
        # torn, which the empty rule removes after EMPTY_STALE_S. Each release
        # takes the breaker: an fsync here would be one more per write.
        create_with_holder(tmp / name, holder, durable=False)
        os.rename(tmp, folder)
    except OSError as exc:
        remove_folder(tmp)
        if exc.errno in _TAKEN:
            return None
        raise
    return Breaker(folder, name)


def release_breaker(breaker: Breaker) -> None:
    """Give the breaker back, in one step: rename its folder to a temp name, then remove it.

    While we hold it the folder at that name is ours (nobody removes a live
    holder's breaker), so the rename moves our folder. Killed before it, the
    breaker names a dead process; killed after, a temp folder of a dead
    process is left (removed by the next writer that takes the lock), never an
    empty breaker folder that would be waited for.
    """
    tmp = temp_path(breaker.folder.parent, socket.gethostname(), os.getpid())
    try:
        os.rename(breaker.folder, tmp)
    except OSError:
        tmp = breaker.folder
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp / breaker.holder_file)
    with contextlib.suppress(OSError):
        os.rmdir(tmp)


@contextlib.contextmanager
def breaker_held(lock: Path, deadline: float) -> Iterator[bool]:
    """Hold the breaker of ``lock``, waiting until ``deadline`` (monotonic) at most.

    Yields ``True`` when held, ``False`` when the deadline passed first.
    """
    delay = 0.002
    while (breaker := try_take_breaker(lock)) is None:
        if time.monotonic() > deadline:
            yield False
            return
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    try:
        yield True
    finally:
        release_breaker(breaker)
