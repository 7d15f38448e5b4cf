"""Progressive disclosure (spec 003): index (~50 tokens), snippet (~200), full."""

from __future__ import annotations

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
