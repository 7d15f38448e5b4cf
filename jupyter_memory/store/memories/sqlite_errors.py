"""SQLite's errors as the store's: a :class:`StoreError` naming the file and the cause.

A full disk, a read-only mount or a failing disk reaches SQLite as
``sqlite3.OperationalError`` ("database or disk is full", "attempt to write a
readonly database", "disk I/O error"); a person must read which file and why,
never a traceback (issue 29). Also the read-only home's way of opening an
index: SQLite's ``immutable`` URI, which makes no -shm, -wal or lock file.
"""

from __future__ import annotations

import functools
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from ..._i18n import M_
from ...exceptions import StoreError

F = TypeVar("F", bound=Callable[..., Any])
FULL_BELOW = 256 * 1024  # free bytes under which a failed write is put down to a full disk


def index_error(exc: sqlite3.Error, path: Path) -> StoreError:
    """The store's error for a SQLite failure on the index at ``path``."""
    text = str(exc)
    if "full" in text or _nearly_full(path):  # SQLite says "disk I/O error" for some
        message = M_("the disk is full: the index cannot be written ({reason})", reason=text)
    elif "readonly" in text or "read-only" in text:
        message = M_(
            "the index is on a read-only disk and cannot be written ({reason})", reason=text
        )
    else:
        message = M_("the index cannot be read or written: {reason}", reason=text)
    return StoreError(message, path=path)


# SQLite's result codes of a disk or a lock, not of a damaged file (sqlite3.Error.sqlite_errorname).
DISK_CODES: tuple[str, ...] = (
    "SQLITE_FULL",
    "SQLITE_IOERR",
    "SQLITE_READONLY",
    "SQLITE_CANTOPEN",
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_PERM",
    "SQLITE_NOMEM",
)


def is_disk_error(exc: sqlite3.Error) -> bool:
    """A full, read-only, failing or busy disk: the file itself may be fine, never rebuild it."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    return name.startswith(DISK_CODES)


def _nearly_full(path: Path) -> bool:
    for folder in (path, *path.parents):
        try:
            return shutil.disk_usage(folder).free < FULL_BELOW
        except OSError:
            continue
    return False


def store_errors(method: F) -> F:
    """Turn a SQLite error of an index method into :func:`index_error` (its folder named)."""

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise index_error(exc, self.layout.index_dir) from exc

    return wrapper  # type: ignore[return-value]


def immutable_uri(path: Path) -> str:
    return f"file:{quote(str(path))}?immutable=1"


def open_immutable(path: Path) -> sqlite3.Connection:
    """A connection to an index that nobody can change (a read-only mount): nothing is written."""
    return sqlite3.connect(
        immutable_uri(path), uri=True, isolation_level=None, check_same_thread=False
    )
