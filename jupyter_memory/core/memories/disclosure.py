"""Progressive disclosure (spec 003): index (~50 tokens), snippet (~200), full."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from enum import Enum

from ..text import analyze, estimate_tokens, normalize, squash_whitespace

SNIPPET_TOKENS = 200


class Level(str, Enum):
    index = "index"  # type: ignore[assignment]  # shadows str.index on purpose
    snippet = "snippet"
    full = "full"


def snippet(text: str, query: str, max_tokens: int = SNIPPET_TOKENS) -> str:
    """A window of ``text`` around the first query term, about ``max_tokens`` long."""
    flat = squash_whitespace(text)
    if estimate_tokens(flat) <= max_tokens:
        return flat
    # Budget in characters: CJK is ~1 char/token, Latin ~4 chars/token.
    ratio = max(1.0, len(flat) / max(1, estimate_tokens(flat)))
    width = int(max_tokens * ratio)
    low = normalize(flat)
    start = 0
    for term in analyze(query):
        pos = low.find(term)
        if pos >= 0:
            start = max(0, pos - width // 4)
            break
    end = min(len(flat), start + width)
    start = max(0, end - width)
    piece = flat[start:end]
    return ("…" if start > 0 else "") + piece + ("…" if end < len(flat) else "")


# Spec 003's L2 carries each match's summary *and evidence*: a few quotes, short.
SNIPPET_EVIDENCE = 3
EVIDENCE_CHARS = 160


def evidence_lines(
    quotes: Sequence[tuple[str, str | None]], level: Level, query: str = ""
) -> list[str]:
    """The evidence a hit shows: none at index level, the first few, cut, at snippet
    level, every quote at full level; each ``quote — source`` when it has one."""
    if level is Level.index:
        return []
    chosen = quotes if level is Level.full else quotes[:SNIPPET_EVIDENCE]
    out = []
    for quote, source in chosen:
        text = squash_whitespace(quote)
        if level is Level.snippet and len(text) > EVIDENCE_CHARS:
            text = snippet(text, query, max_tokens=EVIDENCE_CHARS // 4)
        out.append(f"{text} — {source}" if source else text)
    return out


def provenance_line(
    *,
    source: str,
    created: datetime,
    layer: str,
    project: str | None,
    reviewed: bool,
    evidence: int,
) -> str:
    """Where a memory comes from, in one line: how it was made, when, which layer, how
    much evidence backs it, and whether a person reviewed it (spec 003's L2)."""
    where = f"{layer}/{project}" if project else layer
    parts = [source, created.date().isoformat(), where]
    if evidence:
        parts.append(f"evidence ×{evidence}")
    parts.append("reviewed" if reviewed else "unreviewed")
    return " · ".join(parts)
