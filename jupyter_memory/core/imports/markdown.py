"""Markdown helpers every source shares: optional frontmatter, blocks under headings.

Frontmatter is read with the same safe YAML loader as our own files (no
aliases, a size cap), but it is optional and any keys are allowed: other
tools' files are not ours to police, only to read faithfully.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError
from ..frontmatter_io import MAX_FRONTMATTER_BYTES, load_yaml
from .bounds import check_depth, too_deep

_CLOSE_RE = re.compile(r"^---[ \t]*\r?$", re.MULTILINE)
_HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t#]*$")
_BULLET_RE = re.compile(r"^[ \t]{0,3}(?:[-*+]|\d{1,3}[.)])[ \t]+(.*)$")
_FENCE_RE = re.compile(r"^[ \t]{0,3}(```|~~~)")


def plain(value: Any) -> Any:
    """YAML dates and times as ISO strings, recursively (frontmatter stays JSON-safe)."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def split_optional_frontmatter(text: str, *, path: str) -> tuple[dict[str, Any], str, int]:
    """(frontmatter mapping or {}, body, line number where the body starts)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return {}, text, 1
    first_nl = text.index("\n") + 1
    close = _CLOSE_RE.search(text, first_nl)
    if close is None:
        raise ParseError(M_("frontmatter is not closed by a '---' line"), path=path)
    fm = text[first_nl : close.start()]
    if len(fm.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        raise ParseError(
            M_("frontmatter over {limit} bytes", limit=MAX_FRONTMATTER_BYTES), path=path
        )
    import yaml  # on first use: only an import of Markdown notes parses with it

    try:
        meta = load_yaml(fm) if fm.strip() else {}
    except yaml.YAMLError as exc:
        raise ParseError(M_("invalid YAML frontmatter: {exc}", exc=exc), path=path) from exc
    except RecursionError:
        raise too_deep(path) from None
    check_depth(meta, path=path)
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise ParseError(
            M_("frontmatter must be a mapping, not a {kind}", kind=type(meta).__name__), path=path
        )
    end = close.end()
    if text[end : end + 2] == "\r\n":
        end += 2
    elif text[end : end + 1] == "\n":
        end += 1
    body_line = text.count("\n", 0, end) + 1
    return plain(meta), text[end:], body_line


@dataclass(frozen=True)
class Block:
    """A bullet or a paragraph, with the heading it sits under."""

    heading: str  # the nearest heading's text ("" before any heading)
    text: str  # the block's words, without the bullet marker
    raw: str  # the block's lines as written (the evidence quote)
    line: int  # 1-based line number of its first line
    bullet: bool


def blocks(body: str, *, first_line: int = 1) -> list[Block]:
    """Top-level bullets and paragraphs under their headings; code fences skipped.

    A bullet's indented continuation lines and sub-bullets belong to it, so
    one item of a list is one block.
    """
    out: list[Block] = []
    heading = ""
    current: list[str] = []
    start = 0
    is_bullet = False
    in_fence = False

    def flush() -> None:
        nonlocal current
        if current:
            raw = "\n".join(current).strip()
            words = " ".join(
                (m.group(1) if (m := _BULLET_RE.match(ln)) else ln).strip() for ln in current
            ).strip()
            if words:
                out.append(Block(heading, " ".join(words.split()), raw, start, is_bullet))
        current = []

    for offset, line in enumerate(body.splitlines()):
        number = first_line + offset
        if _FENCE_RE.match(line):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        h = _HEADING_RE.match(line)
        if h:
            flush()
            heading = h.group(2).strip()
            continue
        if not line.strip():
            flush()
            continue
        if _BULLET_RE.match(line) and not line[:1].isspace():
            flush()  # a new top-level item; indented lines continue the current one
            start, is_bullet = number, True
        elif not current:
            start, is_bullet = number, False
        current.append(line)
    flush()
    return out
