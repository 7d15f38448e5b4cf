"""Read JSON-lines input files (bulk import) with line-numbered errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..exceptions import OversizeError, ParseError

MAX_IMPORT_BYTES = 2_000_000_000
MAX_LINE_BYTES = 1_000_000


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for every non-blank line; errors name path and line."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ParseError(f"cannot read: {exc.strerror or exc}", path=path) from exc
    if size > MAX_IMPORT_BYTES:
        raise OversizeError(f"{path}: {size} bytes is over the import cap", field="file")
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            if len(raw) > MAX_LINE_BYTES:
                raise ParseError(f"line over {MAX_LINE_BYTES} bytes", path=path, line=number)
            if b"\x00" in raw:
                raise ParseError("line contains NUL bytes", path=path, line=number)
            try:
                obj = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise ParseError(
                    f"invalid UTF-8 at byte {exc.start}", path=path, line=number
                ) from exc
            except json.JSONDecodeError as exc:
                raise ParseError(f"invalid JSON: {exc.msg}", path=path, line=number) from exc
            if not isinstance(obj, dict):
                raise ParseError("each line must be a JSON object", path=path, line=number)
            yield number, obj
