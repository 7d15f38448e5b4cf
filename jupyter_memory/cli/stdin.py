"""Text a command reads from stdin: UTF-8 or a clear error naming the field it was for."""

from __future__ import annotations

import sys

from ..exceptions import ValidationError


def read_stdin(field: str) -> str:
    """All of stdin as text; bytes that are not UTF-8 are an error in ``field`` (issue 16).

    Read as bytes and decoded strictly: Python's own decoding would depend on
    the locale (under ``LANG=C`` it smuggles the bad bytes in as surrogates,
    which then fail later under another field's name, or as a traceback).
    """
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # replaced by a text stream (tests, embedding): already text
        return sys.stdin.read()
    data: bytes = stream.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(
            f"the text read from stdin is not UTF-8 (byte {exc.start}: "
            f"{data[exc.start : exc.start + 4]!r}); save it as UTF-8 and try again",
            field=field,
        ) from None
