"""AGENTS.md / CLAUDE.md in a project folder: exact reads and durable writes.

These files belong to the person; we only keep a managed block inside them.
Reads return the text exactly as stored (line endings included) so that
everything outside the block is written back byte for byte.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from ..._i18n import M_
from ...exceptions import ParseError, StoreError
from ..atomic import ensure_dir, root_lock, write_text_atomic
from ..layout import project_gitignore, project_root

MAX_AGENT_FILE_BYTES = 1_000_000


def read_agent_file(path: Path) -> str | None:
    """The file's text, or ``None`` when it does not exist."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise StoreError(M_("is a folder, not a file"), path=path) from exc
    except OSError as exc:
        raise StoreError(
            M_("cannot read: {reason}", reason=exc.strerror or exc),
            path=path,
        ) from exc
    if len(data) > MAX_AGENT_FILE_BYTES:
        raise ParseError(
            M_(
                "over the {limit}-byte cap",
                limit=MAX_AGENT_FILE_BYTES,
            ),
            path=path,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(M_("invalid UTF-8 at byte {start}", start=exc.start), path=path) from exc


def write_agent_file(path: Path, text: str) -> str:
    """Durably replace ``path`` (caller holds :func:`agent_files_lock`); returns the sha256."""
    return write_text_atomic(path, text)


@contextlib.contextmanager
def agent_files_lock(project_dir: Path) -> Iterator[None]:
    """Serialize syncs of one project's agent files (lock kept in ``.jupyter-memory/``)."""
    root = project_root(project_dir)
    ensure_dir(root)
    # The lock file must never be committed with the project's knowledge.
    if not (root / ".gitignore").exists():
        write_text_atomic(root / ".gitignore", project_gitignore(), root=root)
    with root_lock(root):
        yield
