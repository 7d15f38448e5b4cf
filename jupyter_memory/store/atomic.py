"""Durable file writes: the one write path every stored file goes through.

A write is durable or it is an error (docs/design.md invariant 2): unique temp file
in the same folder, write + flush + fsync, ``os.replace``, fsync of the folder,
then a read-back comparison. Callers hold the root's lock (:func:`root_lock`)
around a write and the index update that follows it.

Each write takes the storage ``root`` it belongs to and refuses a symlink
anywhere between that root and the target (:mod:`.links`, issue 19); without
a root only the target and its own folder are checked.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from .._i18n import M_
from ..exceptions import LinkedPathError, LockTimeoutError, StoreError
from .deadline import bounded, waiting
from .links import linked, refuse_link
from .private import FILE_MODE, make_private_dirs

LOCK_TIMEOUT_S = 30.0
LOCK_NAME = ".jupyter-memory.lock"
# Lock file → (thread holding it, depth): root_lock is re-entrant within a thread.
_held: dict[str, tuple[int, int]] = {}
_held_guard = threading.Lock()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fsync_dir(folder: Path) -> None:
    """Make a rename or unlink in ``folder`` survive a power cut."""
    if os.name == "nt":  # Windows cannot open a directory for fsync
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _refuse(path: Path, root: Path | None) -> None:
    if root is not None:
        refuse_link(root, path)
    elif path.is_symlink():
        raise LinkedPathError(path)


def ensure_dir(folder: Path, *, root: Path | None = None) -> None:
    """Create ``folder`` (and parents), refusing a symlink on the way from ``root``.

    What is created at or below ``root`` (or ``folder`` itself, without one) is 0700
    (:mod:`.private`); parents above it are not ours and get the usual mode.
    """
    _refuse(folder, root)
    try:
        make_private_dirs(folder, root if root is not None else folder)
    except OSError as exc:
        raise StoreError(
            M_(
                "cannot create folder: {reason}",
                reason=exc.strerror or exc,
            ),
            path=folder,
        ) from exc


def write_bytes_atomic(
    path: Path, data: bytes, *, verify: bool = True, root: Path | None = None
) -> str:
    """Replace ``path`` with ``data`` durably; return the content's sha256.

    On any failure the temp file is removed, the old file (if any) is left as
    it was, and a :class:`StoreError` naming ``path`` is raised.
    """
    folder = path.parent
    ensure_dir(folder, root=root)
    _refuse(path, root)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        fsync_dir(folder)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise StoreError(
            M_("write failed: {reason}", reason=exc.strerror or exc),
            path=path,
        ) from exc
    digest = sha256_bytes(data)
    if verify:
        try:
            back = path.read_bytes()
        except OSError as exc:
            raise StoreError(
                M_(
                    "read-back failed: {reason}",
                    reason=exc.strerror or exc,
                ),
                path=path,
            ) from exc
        if sha256_bytes(back) != digest:
            raise StoreError(M_("read-back differs from what was written"), path=path)
    return digest


def write_text_atomic(
    path: Path, text: str, *, verify: bool = True, root: Path | None = None
) -> str:
    return write_bytes_atomic(path, text.encode("utf-8"), verify=verify, root=root)


def delete_durable(path: Path, *, root: Path | None = None) -> bool:
    """Remove ``path`` and fsync its folder; ``False`` when it was already gone."""
    if root is not None:
        # Removing a link itself would be harmless, but a linked folder above
        # it would make us delete a file outside the store.
        refuse_link(root, path)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StoreError(
            M_("delete failed: {reason}", reason=exc.strerror or exc),
            path=path,
        ) from exc
    fsync_dir(path.parent)
    return True


def move_durable(src: Path, dst: Path, *, root: Path | None = None) -> None:
    """Rename ``src`` to ``dst`` (same file system) and fsync both folders."""
    ensure_dir(dst.parent, root=root)
    _refuse(src, root)
    _refuse(dst, root)
    if dst.exists():
        raise StoreError(M_("target already exists"), path=dst)
    try:
        os.replace(src, dst)
    except OSError as exc:
        raise StoreError(
            M_("move failed: {reason}", reason=exc.strerror or exc),
            path=src,
        ) from exc
    fsync_dir(dst.parent)
    if src.parent != dst.parent:
        fsync_dir(src.parent)


@contextlib.contextmanager
def root_lock(
    root: Path,
    timeout: float = LOCK_TIMEOUT_S,
    *,
    within: Path | None = None,
    name: str = "lock",
) -> Iterator[None]:
    """Hold the inter-process write lock of one storage root (or of a folder ``within`` one).

    Waits ``timeout`` at most, and no longer than the request's deadline
    (:mod:`.deadline`); past either a :class:`LockTimeoutError` names the lock
    as ``<name> <lock file>`` (``home lock …``, ``project lock …``).
    """
    ensure_dir(root, root=within)
    # The lock file is opened for writing (and truncated): never through a link.
    _refuse(root / LOCK_NAME, within)
    key, me = str(root / LOCK_NAME), threading.get_ident()
    with _held_guard:
        nested = _held.get(key, (0, 0))[0] == me
        if nested:
            _held[key] = (me, _held[key][1] + 1)
    if nested:
        # The same thread already holds it (a shared-queue write inside an
        # Apply): a second flock on a new descriptor would wait for itself.
        try:
            yield
        finally:
            with _held_guard:
                _held[key] = (me, _held[key][1] - 1)
        return
    # filelock on first use: it imports asyncio (~25 ms), which a read-only CLI call
    # (recall, --version) or an MCP server's start does not need.
    from filelock import FileLock, Timeout

    held_by = f"{name} {root / LOCK_NAME}"
    wait, cut = bounded(timeout)
    lock = FileLock(str(root / LOCK_NAME), timeout=wait, mode=FILE_MODE)
    try:
        with waiting(held_by):
            lock.acquire()
    except Timeout as exc:
        raise lock_timeout(held_by, timeout, cut, path=root) from exc
    except OSError as exc:  # a read-only or full disk: the lock file cannot be made
        raise StoreError(
            M_("cannot take the lock: {reason}", reason=exc.strerror or exc),
            path=root / LOCK_NAME,
        ) from exc
    with _held_guard:
        _held[key] = (me, 1)
    try:
        yield
    finally:
        with _held_guard:
            _held.pop(key, None)
        lock.release()


def lock_timeout(held_by: str, timeout: float, cut: bool, *, path: Path) -> LockTimeoutError:
    """The error of a lock not had in time: the lock's own timeout, or the request's."""
    if cut:
        message = M_(
            "{held_by} is held by another process; this request could not wait longer",
            held_by=held_by,
        )
    else:
        message = M_("another writer held the lock for more than {timeout:.0f}s", timeout=timeout)
    return LockTimeoutError(message, path=path, held_by=held_by, retry_after=2.0)


def remove_stale_temp_files(folder: Path, *, root: Path | None = None) -> list[Path]:
    """Delete ``.*.tmp`` leftovers of writers killed mid-write (caller holds the lock)."""
    removed: list[Path] = []
    if not folder.is_dir() or folder.is_symlink() or (root is not None and linked(root, folder)):
        return removed  # never delete anything in a folder reached through a link
    for tmp in folder.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            tmp.unlink()
            removed.append(tmp)
    return removed


def write_many_atomic(items: list[tuple[Path, bytes]], *, root: Path | None = None) -> list[str]:
    """Durably write a batch of new files with one flush of the file system.

    Each file still appears whole or not at all (temp + rename); the batch
    pays for one ``os.sync`` instead of one fsync per file (bulk import).
    """
    temps: list[tuple[Path, Path]] = []
    try:
        for path, data in items:
            ensure_dir(path.parent, root=root)
            _refuse(path, root)
            fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            temps.append((Path(tmp_name), path))
        if hasattr(os, "sync"):
            os.sync()
        else:  # pragma: no cover - platforms without sync(2)
            for tmp, _ in temps:
                with tmp.open("rb+") as fh:
                    os.fsync(fh.fileno())
        for tmp, path in temps:
            os.replace(tmp, path)
        for folder in {path.parent for _, path in temps}:
            fsync_dir(folder)
    except OSError as exc:
        for tmp, _ in temps:
            with contextlib.suppress(OSError):
                tmp.unlink()
        raise StoreError(M_("batch write failed: {reason}", reason=exc.strerror or exc)) from exc
    return [sha256_bytes(data) for _, data in items]
