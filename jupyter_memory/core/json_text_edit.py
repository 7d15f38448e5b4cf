"""Edit one member of a JSON document as text, leaving every other byte where it was.

``json.dumps`` of a parsed file re-lays the whole file out; a person's
hand-formatted ``mcp.json`` (one-line objects, its own spacing) should see
only our lines change. These helpers find a container's members by their
spans (the standard decoder's ``raw_decode`` reads each value) and insert,
replace or cut one. The caller parses the result and compares it with what it
meant, and falls back to a full re-dump when they differ (a duplicate key, say).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


@dataclass(frozen=True)
class Member:
    key: str | None  # None for an array element
    start: int  # the key (object) or the value (array)
    value_start: int
    end: int


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def members(text: str, open_at: int) -> tuple[int, list[Member]]:
    """The closing bracket's index and the members of the object/array opening at ``open_at``."""
    closing = "}" if text[open_at] == "{" else "]"
    out: list[Member] = []
    i = _skip(text, open_at + 1)
    if text[i] == closing:
        return i, out
    while True:
        start = i
        key: str | None = None
        if closing == "}":
            key, i = _DECODER.raw_decode(text, i)
            i = _skip(text, i)
            if text[i] != ":":
                raise ValueError("':' expected")
            i = _skip(text, i + 1)
        value_start = i
        _, i = _DECODER.raw_decode(text, i)
        out.append(Member(key, start, value_start, i))
        i = _skip(text, i)
        if text[i] == ",":
            i = _skip(text, i + 1)
            continue
        if text[i] == closing:
            return i, out
        raise ValueError("',' or closing bracket expected")


def top(text: str) -> int:
    """Where the document's top-level object opens."""
    i = _skip(text, 0)
    if i >= len(text) or text[i] != "{":
        raise ValueError("not an object")
    return i


def _line_indent(text: str, at: int) -> str | None:
    """The whitespace before ``at`` on its line; ``None`` when other text precedes it."""
    lead = text[text.rfind("\n", 0, at) + 1 : at]
    return lead if not lead.strip() else None


def _unit(indent: int | str) -> str:
    return indent if isinstance(indent, str) else " " * indent


def _value_text(value: Any, indent: int | str, at: str | None) -> str:
    """``value`` laid out over lines at indentation ``at``, or on one line when ``at`` is None."""
    if at is None:
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, indent=_unit(indent), ensure_ascii=False).replace("\n", "\n" + at)


def _member_text(key: str | None, value: Any, indent: int | str, at: str | None) -> str:
    head = f"{json.dumps(key, ensure_ascii=False)}: " if key is not None else ""
    return head + _value_text(value, indent, at)


def insert(text: str, open_at: int, key: str | None, value: Any, indent: int | str) -> str:
    """``text`` with a member added last to the container opening at ``open_at``."""
    close_at, found = members(text, open_at)
    if found:
        last = found[-1]
        at = _line_indent(text, last.start)
        sep = ",\n" + at if at is not None else ", "
        piece = sep + _member_text(key, value, indent, at)
        return text[: last.end] + piece + text[last.end :]
    line = text[text.rfind("\n", 0, open_at) + 1 : open_at]
    own = line[: len(line) - len(line.lstrip())]  # the container's own line's indentation
    inner = own + _unit(indent)
    piece = "\n" + inner + _member_text(key, value, indent, inner) + "\n" + own
    return text[: open_at + 1] + piece + text[close_at:]


def replace(text: str, member: Member, value: Any, indent: int | str) -> str:
    """``text`` with ``member``'s value replaced, laid out as the old one was (lines or one)."""
    multi = "\n" in text[member.value_start : member.end]
    at = (_line_indent(text, member.start) or "") if multi else None
    return text[: member.value_start] + _value_text(value, indent, at) + text[member.end :]


def delete(text: str, open_at: int, index: int) -> str:
    """``text`` without the container's member ``index`` (and the comma that went with it)."""
    close_at, found = members(text, open_at)
    if len(found) == 1:
        return text[: open_at + 1] + text[close_at:]
    if index > 0:
        return text[: found[index - 1].end] + text[found[index].end :]
    return text[: found[0].start] + text[found[1].start :]


__all__ = ["Member", "delete", "insert", "members", "replace", "top"]
