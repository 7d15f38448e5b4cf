"""Read files a person names on the command line (inputs to check, never stored).

Unlike :func:`~.json_file.read_json`, a missing file is an error here: the
person asked for that file. Every error names the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..exceptions import ParseError

MAX_INPUT_BYTES = 20_000_000


def read_input_text(path: Path | str) -> str:
    """The file's UTF-8 text; :class:`ParseError` naming the file when it cannot be read."""
    target = Path(path)
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        raise ParseError("no such file", path=target) from None
    except IsADirectoryError:
        raise ParseError("is a directory, not a file", path=target) from None
    except OSError as exc:
        raise ParseError(f"cannot read: {exc.strerror or exc}", path=target) from exc
    if len(data) > MAX_INPUT_BYTES:
        raise ParseError(f"over the {MAX_INPUT_BYTES}-byte cap", path=target)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"invalid UTF-8 at byte {exc.start}", path=target) from exc


def read_input_json(path: Path | str) -> Any:
    """The file's JSON; :class:`ParseError` naming the file and line when it is not JSON."""
    text = read_input_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", path=Path(path), line=exc.lineno) from exc
