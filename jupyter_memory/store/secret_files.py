"""The files ``doctor`` searches for secrets, and the rewrite of the derived ones.

Every regular file under a storage root (the memory home, a project's
``.jupyter-memory``): memories, knowledge, the queue, ``recent/``, the digest
inbox, the audit. Never followed: links. Left out: the index (derived, binary,
rebuilt from the files), the MCP credential (a secret by design) and files
over :data:`MAX_SCAN_BYTES` (no text we write is that large).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .atomic import root_lock
from .json_file import write_json
from .mcp_token import FILE_NAME as MCP_TOKEN

MAX_SCAN_BYTES = 8 * 1024 * 1024
SKIPPED_DIRS = frozenset({".index", ".git", "__pycache__"})
SKIPPED_FILES = frozenset({MCP_TOKEN})
# The derived files ``doctor --fix`` may rewrite (relative to the memory home):
# texts recorded for evidence and the digest's inbox, both copies of cells.
DERIVED = ("recent/*.json", "digest/inbox/*.json")


def text_files(root: Path) -> Iterator[tuple[Path, str]]:
    """(path, text) of each file under ``root`` worth searching, in a stable order."""
    if not root.is_dir() or root.is_symlink():
        return
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if any(part in SKIPPED_DIRS for part in rel[:-1]) or path.name in SKIPPED_FILES:
            continue
        if (
            path.is_symlink()
            or not path.is_file()
            or any((root / p).is_symlink() for p in rel[:-1])
        ):
            continue
        try:
            if path.stat().st_size > MAX_SCAN_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue  # unreadable files are doctor's other checks' business
        if b"\x00" in data[:4096]:
            continue  # binary (an embedding cache, a compressed archive)
        yield path, data.decode("utf-8", "replace")


def derived_files(home: Path) -> list[Path]:
    """The derived JSON files ``doctor --fix`` may redact."""
    return sorted(
        p for pattern in DERIVED for p in home.glob(pattern) if p.is_file() and not p.is_symlink()
    )


def rewrite_json_strings(path: Path, home: Path, change: Callable[[str], str]) -> bool:
    """Apply ``change`` to every string in the JSON file, under the lock its writer takes
    (``recent/``, ``digest/``); True if the file changed."""

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return change(value)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    with root_lock(home / path.relative_to(home).parts[0], within=home):
        value = json.loads(path.read_text(encoding="utf-8"))
        new = walk(value)
        if new == value:
            return False
        write_json(path, new, root=home)
        return True


__all__ = ["DERIVED", "MAX_SCAN_BYTES", "derived_files", "rewrite_json_strings", "text_files"]
