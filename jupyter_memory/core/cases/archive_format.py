"""Compressing 已排除 entries at case archive (spec 000 "归档规则"), reversibly. Pure.

Spec 000 lets an entry whose final state is 已排除 "be compressed into a
one-line summary". Its record becomes :func:`one_line_summary` of the old
one; the full text of every entry compressed goes into the pre-archive
snapshot (``INDEX.pre-archive.md``), after the index, under
:data:`ORIGINALS_HEADING`, one fenced block per file, so
:func:`snapshot_originals` can give it back and the compression can be undone.
Legacy v1 entries are never compressed (spec 000: never overwritten,
compressed or migrated).
"""

from __future__ import annotations

import re

from ..._i18n import M_
from ...exceptions import ParseError

ORIGINALS_HEADING = "## 压缩前条目原文 (entries as they were before compression)"
COMPRESSED_MARK = "（归档时已压缩为一行摘要，原文见 INDEX.pre-archive.md）"
SUMMARY_CHARS = 120
_SENTENCE_END = re.compile(r"[。！？!?；;]|\.(?:\s|$)")
_FENCE = re.compile(r"^(`{3,})\s*markdown\s*$")


def one_line_summary(body: str) -> str:
    """The first sentence of ``body`` (at most 120 characters), then the mark."""
    text = " ".join(body.split())
    m = _SENTENCE_END.search(text)
    first = text[: m.end()].strip() if m else text
    if len(first) > SUMMARY_CHARS:
        first = first[: SUMMARY_CHARS - 1].rstrip() + "…"
    return f"{first}{COMPRESSED_MARK}"


def is_compressed(body: str) -> bool:
    return "\n" not in body and body.endswith(COMPRESSED_MARK)


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def render_snapshot(index_text: str, originals: list[tuple[str, str]]) -> str:
    """INDEX.md as it was, then the full text of each entry about to be compressed."""
    if not originals:
        return index_text
    parts = [index_text.rstrip("\n"), "", ORIGINALS_HEADING, ""]
    for name, text in originals:
        fence = _fence(text)
        parts += [f"### {name}", "", f"{fence}markdown", text.rstrip("\n"), fence, ""]
    return "\n".join(parts)


def snapshot_originals(text: str, *, path: str = "INDEX.pre-archive.md") -> dict[str, str]:
    """``{file name: full text}`` of the entries a snapshot kept before compressing them."""
    lines = text.replace("\r\n", "\n").split("\n")
    try:
        start = lines.index(ORIGINALS_HEADING)
    except ValueError:
        return {}
    out: dict[str, str] = {}
    i = start + 1
    while i < len(lines):
        line = lines[i]
        if not line.startswith("### "):
            i += 1
            continue
        name = line[4:].strip()
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        m = _FENCE.match(lines[j]) if j < len(lines) else None
        if m is None:
            raise ParseError(
                M_("the text of {name} is not in a fenced block", name=name), path=path, line=j + 1
            )
        end = next((k for k in range(j + 1, len(lines)) if lines[k] == m.group(1)), -1)
        if end < 0:
            raise ParseError(
                M_("the fenced text of {name} is not closed", name=name), path=path, line=j + 1
            )
        out[name] = "\n".join(lines[j + 1 : end]) + "\n"
        i = end + 1
    return out
