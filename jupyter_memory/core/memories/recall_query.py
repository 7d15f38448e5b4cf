"""One recall request, checked once: :class:`RecallQuery`.

The four adapters (``%recall``, ``jupyter-memory recall``, ``GET /memories``
and the agents' ``recall`` tool) build one with :meth:`RecallQuery.of` from
their loose inputs (comma lists, ``"7d"``, level names) and hand it to
``Memory.hooks.recall_query``; ``Memory.recall(query, **filters)`` builds the same.
Whatever depends on the memory home (the project's id, whether the semantic
extra is installed, the time now for ``recent``) is resolved by the service.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..._i18n import M_
from ...exceptions import OversizeError, ValidationError
from ..durations import parse_duration
from ..names import validate_id
from .disclosure import Level
from .inputs import parse_enum, split_list
from .models import MemoryType, Tier, validate_scope
from .ranking import DEFAULT_RANKING, RankingParams

RECALL_MODES = ("hybrid", "lexical", "semantic")
MAX_LIMIT = 1000
MAX_QUERY_CHARS = 10_000


@dataclass(frozen=True)
class RecallQuery:
    """What to search for, where, how much and at which level of detail.

    ``recent`` is a window back from now (it narrows ``since``); ``agent`` is an
    agent's view (shared memories plus its own); ``mode`` ``None`` means hybrid
    when the semantic extra is installed, else lexical (docs/recall.md).
    ``ranking`` holds the ranking constants; adapters leave the production
    defaults, ``benchmarks/ranking_cv.py`` cross-validates other values.
    """

    text: str = ""
    types: tuple[str, ...] = ()
    tiers: tuple[str, ...] = ()
    scope: str | None = None
    agent: str | None = None
    project: str | os.PathLike[str] | None = None
    tags: tuple[str, ...] = ()
    since: datetime | None = None
    recent: timedelta | None = None
    limit: int = 10
    level: Level = Level.snippet
    budget: int | None = None
    reviewed_only: bool = False
    record_access: bool = True
    mode: str | None = None
    ranking: RankingParams = DEFAULT_RANKING

    def __post_init__(self) -> None:
        if not isinstance(self.level, Level):
            raise ValidationError(M_("{value!r} is not a level", value=self.level), field="level")
        if self.mode is not None and self.mode not in RECALL_MODES:
            raise ValidationError(
                M_(
                    "{value!r} is not one of: {choices}",
                    value=self.mode,
                    choices=", ".join(RECALL_MODES),
                ),
                field="mode",
            )
        for t in self.types:
            parse_enum(MemoryType, t, "type")
        for t in self.tiers:
            parse_enum(Tier, t, "tier")
        if self.scope is not None:
            validate_scope(self.scope)
        elif self.agent is not None:  # a scope given wins over the agent's view
            validate_id(self.agent, field="agent")
        if not isinstance(self.limit, int) or not 1 <= self.limit <= MAX_LIMIT:
            raise ValidationError(
                M_("must be an integer from 1 to {limit}", limit=MAX_LIMIT), field="limit"
            )
        if not isinstance(self.text, str):
            raise ValidationError(M_("must be a string"), field="query")
        if not isinstance(self.ranking, RankingParams):
            raise ValidationError(M_("must be RankingParams"), field="ranking")
        if len(self.text) > MAX_QUERY_CHARS:
            raise OversizeError(
                M_("is over {limit:,} characters", limit=MAX_QUERY_CHARS), field="query"
            )

    @classmethod
    def of(
        cls,
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
    ) -> RecallQuery:
        """From an adapter's inputs: comma lists or sequences, ``"7d"``, level names."""
        lvl = parse_enum(Level, level, "level")
        window = parse_duration(recent) if isinstance(recent, str) else recent
        return cls(
            text=query,
            types=tuple(parse_enum(MemoryType, t, "type").value for t in split_list(type)),
            tiers=tuple(parse_enum(Tier, t, "tier").value for t in split_list(tier)),
            scope=scope,
            agent=agent,
            project=project,
            tags=tuple(split_list(tags)),
            since=since,
            recent=window,
            limit=limit,
            level=lvl,
            budget=budget,
            reviewed_only=reviewed_only,
            record_access=record_access,
            mode=mode,
        )
