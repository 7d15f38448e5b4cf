"""Read files a person names on the command line (inputs to check, never stored).

Unlike :func:`~.json_file.read_json`, a missing file is an error here: the
person asked for that file. Every error names the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..exceptions import ParseError

MAX_INPUT_BYTES = 20_000_000


def read_input_text(path: Path | str) -> str:
    """The file's UTF-8 text; :class:`ParseError` naming the file when it cannot be read."""
    target = Path(path)
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        raise ParseError(M_("no such file"), path=target) from None
    except IsADirectoryError:
        raise ParseError(M_("is a directory, not a file"), path=target) from None
    except OSError as exc:
        raise ParseError(
            M_("cannot read: {reason}", reason=exc.strerror or exc),
            path=target,
        ) from exc
    if len(data) > MAX_INPUT_BYTES:
        raise ParseError(M_("over the {limit}-byte cap", limit=MAX_INPUT_BYTES), path=target)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(M_("invalid UTF-8 at byte {start}", start=exc.start), path=target) from exc


def read_input_json(path: Path | str) -> Any:
    """The file's JSON; :class:`ParseError` naming the file and line when it is not JSON."""
    text = read_input_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(
            M_("invalid JSON: {msg}", msg=exc.msg), path=Path(path), line=exc.lineno
        ) from exc
