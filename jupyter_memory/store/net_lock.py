"""The root's write lock on a network folder (store/storage.py chooses it).

Taking the lock: the holder (store/net_holder.py) is written and fsynced to a
temp file of this process in the same folder, which is then hard-linked to
the lock's name. link(2) fails with EEXIST when the name is taken (the
classic NFS-safe exclusive create), so the lock file never exists without
its holder. On NFS a retried LINK whose first reply was lost answers EEXIST
though it worked: the temp file's link count of 2 says it did.

Only two things ever remove the lock file: breaking it when its holder is
gone, and its holder releasing it. Both run under the breaker
(store/net_breaker.py), and a lock file is only ever created on a free name,
so under the breaker the lock file that was checked is the one unlinked.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .._i18n import M_
from ..exceptions import LockTimeoutError, StoreError
from .atomic import LOCK_TIMEOUT_S, ensure_dir, fsync_dir, lock_timeout
from .deadline import bounded, waiting
from .net_breaker import breaker_held, try_take_breaker
from .net_breaker import release_breaker as _release_breaker
from .net_holder import (
    EMPTY_STALE_S,
    FOREIGN_STALE_S,
    NET_LOCK_NAME,
    Holder,
    create_with_holder,
    holder_gone,
    new_holder,
    read_holder,
    remove_dead_temps,
    write_holder_temp,
)

_held: dict[str, int] = {}
_held_guard = threading.RLock()
_owner: dict[str, int] = {}
# link(2) not offered by this file system (some SMB and FUSE mounts): the lock
# is created with O_EXCL and then written, and EMPTY_STALE_S covers a crash.
_NO_LINK = frozenset(
    e for e in (errno.EPERM, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", None), errno.ENOSYS)
    if e is not None
)  # fmt: skip


@dataclass(frozen=True)
class _Mine:
    """The lock file this writer made: its inode and its holder's token."""

    dev: int
    ino: int
    token: object


def _create_failed(path: Path, exc: OSError) -> StoreError:
    return StoreError(
        M_("cannot create lock file: {reason}", reason=exc.strerror or exc), path=path
    )


def _take_by_open(path: Path, holder: Holder) -> _Mine | None:
    """Take the lock where link(2) is missing: O_EXCL create, then write."""
    try:
        st = create_with_holder(path, holder)
    except FileExistsError:
        return None
    except OSError as exc:
        raise _create_failed(path, exc) from exc
    return _Mine(st.st_dev, st.st_ino, holder["token"])


def _try_take(root: Path, path: Path) -> _Mine | None:
    """Take the lock if it is free; ``None`` if another holder has it."""
    if os.path.lexists(path):
        return None  # held: no temp file written for nothing while waiting
    holder = new_holder()
    try:
        tmp = write_holder_temp(root, holder)
        st = os.stat(tmp)  # the lock file will be this inode
    except OSError as exc:
        raise _create_failed(path, exc) from exc
    mine = _Mine(st.st_dev, st.st_ino, holder["token"])
    try:
        try:
            os.link(tmp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                if os.stat(tmp).st_nlink == 2:  # NFS: the link was made, its reply lost
                    return mine
            if exc.errno == errno.EEXIST:
                return None
            if exc.errno in _NO_LINK:
                return _take_by_open(path, holder)
            raise _create_failed(path, exc) from exc
        return mine
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _stale(path: Path) -> bool:
    """Is the lock file at ``path`` left by a holder that is gone?"""
    seen = read_holder(path)
    return seen is not None and holder_gone(seen.data, seen.age, FOREIGN_STALE_S)


def _break_stale(path: Path) -> bool:
    """Remove a stale lock file; the check is repeated under the breaker.

    Without it two waiters could both judge the old file stale, and the second
    would remove the lock the first had just taken.
    """
    try:
        breaker = try_take_breaker(path)
    except OSError as exc:
        raise _create_failed(path, exc) from exc
    if breaker is None:
        return False
    try:
        if not _stale(path):
            return not os.path.lexists(path)  # gone meanwhile: free to take
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        return True
    finally:
        _release_breaker(breaker)


def _is_mine(path: Path, mine: _Mine) -> bool:
    seen = read_holder(path)
    if seen is None:
        return False
    token = seen.data.get("token") if isinstance(seen.data, dict) else None
    return (seen.dev, seen.ino, token) == (mine.dev, mine.ino, mine.token)


def _release(root: Path, path: Path, mine: _Mine) -> None:
    """Remove the lock file only if it is still the one this writer made.

    If it was broken meanwhile (by hand, or by another host that took its age
    for a crash) and taken by another writer, that writer's lock stays.

    Why the check and the unlink cannot be split by a race: they run under the
    breaker. While we hold it nobody can break the lock, and nobody else
    releases a lock file that is ours, so the file we found ours is still the
    file at ``path`` when we unlink it; a file that is not ours (another
    token, another inode) is left alone. Only if the breaker cannot be had
    within LOCK_TIMEOUT_S (a live writer stuck holding it) is the check made
    without it, so that our lock does not outlive us.
    """
    try:
        held = breaker_held(path, time.monotonic() + LOCK_TIMEOUT_S)
        with held:
            if _is_mine(path, mine):
                path.unlink()
    except OSError:
        if _is_mine(path, mine):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
    with contextlib.suppress(OSError):
        fsync_dir(root)


@contextlib.contextmanager
def exclusive_create_lock(
    root: Path, timeout: float = LOCK_TIMEOUT_S, *, name: str = "lock"
) -> Iterator[None]:
    """The root's write lock on a network folder: a lock file made whole by a hard link.

    Re-entrant within a thread (a nested ``locked()`` of the same root). A
    lock file whose holder process is gone (same host), that is older than
    :data:`FOREIGN_STALE_S` (another host), or that names no holder and is
    older than :data:`EMPTY_STALE_S` is removed and taken.
    """
    ensure_dir(root)
    path = root / NET_LOCK_NAME
    key = str(path)
    me = threading.get_ident()
    with _held_guard:
        if _held.get(key) and _owner.get(key) == me:
            _held[key] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield
        finally:
            with _held_guard:
                _held[key] -= 1
        return
    wait, cut = bounded(timeout)  # the request's deadline, when sooner (store/deadline.py)
    deadline = time.monotonic() + wait
    delay = 0.002
    with waiting(f"{name} {path}"):
        mine = _take(root, path, deadline, delay)
    if mine is None and cut:
        raise lock_timeout(f"{name} {path}", timeout, cut, path=root)
    if mine is None:
        raise LockTimeoutError(
            M_(
                "another writer held the lock for more than {timeout:.0f}s ({path}; "
                "remove it if its holder is gone)",
                timeout=timeout,
                path=path,
            ),
            path=root,
            held_by=f"{name} {path}",
            retry_after=2.0,
        )
    remove_dead_temps(root)
    with _held_guard:
        _held[key], _owner[key] = 1, me
    try:
        yield
    finally:
        with _held_guard:
            _held.pop(key, None)
            _owner.pop(key, None)
        _release(root, path, mine)


def _take(root: Path, path: Path, deadline: float, delay: float) -> _Mine | None:
    """Take the lock file before ``deadline`` (monotonic), or ``None``."""
    while (mine := _try_take(root, path)) is None:
        if _stale(path) and _break_stale(path):
            continue
        if time.monotonic() > deadline:
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    return mine


__all__ = ["EMPTY_STALE_S", "FOREIGN_STALE_S", "NET_LOCK_NAME", "exclusive_create_lock"]
