"""``Memory.recall``'s keyword form: the arguments a person types, checked once into a query.

:class:`MemoryRecall` takes a built :class:`RecallQuery` (what the adapters
that already hold one call, ``memory.hooks.recall_query``); this is the door
a person calls from Python, with the same names as ``%recall`` and the CLI.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from ...core.memories.disclosure import Level
from ...core.memories.hits import RecallHit
from ...core.memories.recall_query import RecallQuery
from .recall import MemoryRecall


class KeywordRecall:
    """Build a :class:`RecallQuery` from keywords and run it through ``MemoryRecall``."""

    def __init__(self, recall: MemoryRecall) -> None:
        self._recall = recall

    def recall(
        self,
        query: str = "",
        *,
        type: str | Sequence[str] | None = None,
        tier: str | Sequence[str] | None = None,
        scope: str | None = None,
        agent: str | None = None,
        project: str | os.PathLike[str] | None = None,
        tags: str | Sequence[str] = (),
        since: datetime | None = None,
        recent: str | timedelta | None = None,
        limit: int = 10,
        level: str | Level = Level.snippet,
        budget: int | None = None,
        reviewed_only: bool = False,
        record_access: bool = True,
        mode: str | None = None,
    ) -> list[RecallHit]:
        """Ranked hits from the focused project (first) and the user layer.

        The keywords build a ``RecallQuery`` (checked once); adapters that
        already hold one call ``memory.hooks.recall_query``. ``mode``:
        "lexical", "semantic" or "hybrid" (default when the semantic extra is
        installed, else lexical); see docs/recall.md.
        """
        args = (
            query, type, tier, scope, agent, project, tags, since, recent, limit, level,
            budget, reviewed_only, record_access, mode,
        )  # fmt: skip
        try:
            # The types too: 1.0 == 1, and a limit of 1.0 is refused.
            built = _built(args, tuple(map(_type_of, args)))
        except TypeError:  # a list among the arguments: not a key, checked anew
            built = _build(args)
        return self._recall.recall(built)


def _build(args: tuple[Any, ...]) -> RecallQuery:
    (
        query, type, tier, scope, agent, project, tags, since, recent, limit, level,
        budget, reviewed_only, record_access, mode,
    ) = args  # fmt: skip
    return RecallQuery.of(
        query, type=type, tier=tier, scope=scope, agent=agent, project=project,
        tags=tags, since=since, recent=recent, limit=limit, level=level,
        budget=budget, reviewed_only=reviewed_only, record_access=record_access,
        mode=mode,
    )  # fmt: skip


# The same arguments check into the same query (a frozen, pure value): a person or
# an agent asks a few queries again and again, and the checks were a tenth of the
# service's cost of a recall. ``recent`` stays a window, made a date by the plan.
@functools.lru_cache(maxsize=512)
def _built(args: tuple[Any, ...], types: tuple[type, ...]) -> RecallQuery:
    return _build(args)


_type_of = type


__all__ = ["KeywordRecall"]
