"""Read JSON-lines input files (bulk import) with line-numbered errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..exceptions import OversizeError, ParseError

MAX_IMPORT_BYTES = 2_000_000_000
MAX_LINE_BYTES = 1_000_000


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for every non-blank line; errors name path and line."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ParseError(
            M_("cannot read: {reason}", reason=exc.strerror or exc),
            path=path,
        ) from exc
    if size > MAX_IMPORT_BYTES:
        raise OversizeError(
            M_("{path}: {size} bytes is over the import cap", path=path, size=size), field="file"
        )
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            if len(raw) > MAX_LINE_BYTES:
                raise ParseError(
                    M_("line over {limit} bytes", limit=MAX_LINE_BYTES),
                    path=path,
                    line=number,
                )
            if b"\x00" in raw:
                raise ParseError(M_("line contains NUL bytes"), path=path, line=number)
            try:
                obj = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise ParseError(
                    M_("invalid UTF-8 at byte {start}", start=exc.start), path=path, line=number
                ) from exc
            except json.JSONDecodeError as exc:
                raise ParseError(
                    M_("invalid JSON: {msg}", msg=exc.msg), path=path, line=number
                ) from exc
            if not isinstance(obj, dict):
                raise ParseError(M_("each line must be a JSON object"), path=path, line=number)
            yield number, obj
