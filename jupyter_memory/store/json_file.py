"""Small JSON documents a root owns (settings, project registry, cursors)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..exceptions import ParseError
from .atomic import write_text_atomic
from .links import linked

MAX_JSON_BYTES = 1_000_000


def read_json(path: Path, default: Any, *, root: Path | None = None) -> Any:
    """Parsed JSON, ``default`` when the file is absent; a clear error when unreadable.

    A file reached through a symlink below ``root`` (or that is one) reads as
    absent: it is not ours, and ``doctor`` reports the link (issue 19).
    """
    if path.is_symlink() or (root is not None and linked(root, path)):
        return default
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return default
    except OSError as exc:
        raise ParseError(
            M_("cannot read: {reason}", reason=exc.strerror or exc),
            path=path,
        ) from exc
    if len(data) > MAX_JSON_BYTES:
        raise ParseError(M_("over the {limit}-byte cap", limit=MAX_JSON_BYTES), path=path)
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ParseError(M_("invalid UTF-8 at byte {start}", start=exc.start), path=path) from exc
    except json.JSONDecodeError as exc:
        raise ParseError(
            M_("invalid JSON: {msg}", msg=exc.msg), path=path, line=exc.lineno
        ) from exc


def write_json(path: Path, value: Any, *, root: Path | None = None) -> str:
    """Durable write (caller holds the root lock); returns the sha256."""
    text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    return write_text_atomic(path, text, root=root)
