"""Updated facts first (issue 33): a memory that restates another with a new value.

A memory's frontmatter ``supersedes`` names the older memories it restates
(identity's "update of the same subject": the writer asks ``core.knowledge.identity``). Recall puts
the newest version of a fact directly above every older one it returns (and
brings the newest in when only an older one matched), marking the older ones
``superseded_by``; an agent's context block carries only the newest. Pure:
the service reads the links from the index and the rows.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

# Older memories looked at when a new one is stored: the best lexical matches.
CANDIDATES = 5
K = TypeVar("K", bound=Hashable)


def newest_versions(links: Mapping[K, Sequence[K]]) -> dict[K, K]:
    """Older id → the newest memory restating it, following chains (a → b → c gives
    a and b → c); a cycle (two hand edits naming each other) is cut where it closes."""
    newer: dict[K, K] = {}
    for new, olds in links.items():
        for old in olds:
            if old != new:
                newer.setdefault(old, new)
    out: dict[K, K] = {}
    for old in newer:
        seen = {old}
        at = newer[old]
        while at in newer and newer[at] not in seen:
            seen.add(at)
            at = newer[at]
        if at != old:
            out[old] = at
    return out


def newer_first(ids: Sequence[K], newest: Mapping[K, K]) -> list[K]:
    """``ids`` (best first) with the newest version of each superseded one placed
    directly above it: moved up when it is further down, added when absent."""
    out: list[K] = []
    placed: set[K] = set()
    for i in ids:
        if i in placed:
            continue
        new = newest.get(i)
        if new is not None and new not in placed:
            out.append(new)
            placed.add(new)
        out.append(i)
        placed.add(i)
    return out


def superseded_ids(links: Mapping[str, Sequence[str]]) -> frozenset[str]:
    """Every id some newer memory supersedes."""
    return frozenset(newest_versions(links))


__all__ = [
    "CANDIDATES",
    "newer_first",
    "newest_versions",
    "superseded_ids",
]
