"""Checks and conversions of what a person or an agent hands to a memory operation.

Pure functions shared by the write path (``remember``, ``import``) and the
recall query: each names the field it refuses (``ValidationError.field``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

from ..._i18n import M_
from ...exceptions import OversizeError, ValidationError
from .models import MAX_TEXT_CHARS

E = TypeVar("E", bound=Enum)


def parse_enum(enum: type[E], value: Any, field: str) -> E:
    """``value`` (a member or its value) as a member of ``enum``."""
    try:
        return enum(value.value if hasattr(value, "value") else value)
    except ValueError:
        allowed = ", ".join(str(e.value) for e in enum)
        raise ValidationError(
            M_("{value!r} is not one of: {allowed}", value=value, allowed=allowed), field=field
        ) from None


def split_list(value: str | Sequence[str] | None) -> list[str]:
    """A comma-separated string or a sequence, as a list of non-empty items."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in (p.strip() for p in value.split(",")) if v]
    return [str(v) for v in value]


def check_text(text: Any, field: str = "text") -> str:
    if not isinstance(text, str):
        raise ValidationError(M_("must be a string"), field=field)
    if "\x00" in text:
        raise ValidationError(M_("contains NUL bytes"), field=field)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        # Lone surrogates: what Python makes of bytes that were not UTF-8.
        raise ValidationError(
            M_(
                "is not valid UTF-8 text (character {start} is {char!r})",
                start=exc.start,
                char=text[exc.start],
            ),
            field=field,
        ) from None
    if len(text) > MAX_TEXT_CHARS:
        raise OversizeError(
            M_(
                "is {n} characters, over the {limit}-character cap",
                n=len(text),
                limit=MAX_TEXT_CHARS,
            ),
            field=field,
        )
    if not text.strip():
        raise ValidationError(M_("must not be empty"), field=field)
    return text


def parse_iso(value: str) -> datetime:
    # Python 3.10's fromisoformat does not accept a trailing "Z" (JSON exports do).
    return datetime.fromisoformat(value[:-1] + "+00:00" if value[-1:] in "Zz" and value else value)


def default_title(text: str) -> str:
    first = next((ln.strip().lstrip("#").strip() for ln in text.splitlines() if ln.strip()), "")
    return (first[:77] + "…") if len(first) > 80 else first
