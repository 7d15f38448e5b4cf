"""Another tool's configuration file (``~/.claude.json``, ``~/.codex/config.toml`` …).

``jupyter-memory install`` reads it, writes it back durably with the mode it
had, and keeps the bytes it had before our first change beside it
(``<name>.jupyter-memory.bak``), so ``--uninstall`` can put them back exactly.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from .atomic import delete_durable, write_bytes_atomic
from .input_files import read_input_text

BACKUP_SUFFIX = ".jupyter-memory.bak"


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def read_config(path: Path) -> str | None:
    """The file's text, ``None`` when there is no file; errors name the file."""
    if not path.exists() and not path.is_symlink():
        return None
    return read_input_text(path)


def read_backup(path: Path) -> bytes | None:
    backup = backup_path(path)
    return backup.read_bytes() if backup.is_file() else None


def write_backup(path: Path, data: bytes) -> Path:
    backup = backup_path(path)
    write_bytes_atomic(backup, data)
    return backup


def drop_backup(path: Path) -> None:
    delete_durable(backup_path(path))


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None


def write_config(path: Path, data: bytes | None) -> None:
    """Replace the file with ``data`` (``None``: remove it), keeping its permissions."""
    if data is None:
        delete_durable(path)
        return
    mode = _mode(path)
    write_bytes_atomic(path, data)
    if mode is not None:
        # The durable write makes a private file; a file others could read stays so.
        with contextlib.suppress(OSError):
            os.chmod(path, mode)


__all__ = [
    "BACKUP_SUFFIX",
    "backup_path",
    "drop_backup",
    "read_backup",
    "read_config",
    "write_backup",
    "write_config",
]
