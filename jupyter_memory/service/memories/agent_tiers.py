"""Gather the memories an agent's context may carry, then pick spec 003's tiers (core).

The governance rules are the ones of agent recall (``AgentAccess.recall``,
docs/design.md invariant 3), applied in the index query so nothing else is
ever read:

* nothing while memory is disabled;
* reviewed memories only, unless the person switched ``agent_unreviewed`` on
  (an unreviewed session digest or agent note stays out);
* scopes ``user``, ``project`` and the asking agent's own ``agent:<name>``:
  another agent's private memories stay out (with no agent named, as in
  ``%memory context``, no ``agent:*`` memory at all);
* the focused (or named, registered) project's root and the User root only,
  and from either root no memory that names another project.

What is read, per root: the eligible memories in attention order (the index
computes attention in SQL), up to ``POOL_CAP``; the bodies of those that can
be HOT or WARM (attention > 0.5, within their sector's lifetime), analysed
for relevance; and the count of all eligible memories, for the COLD index.
That *pool* is kept between calls and rebuilt when a memory file of the root
changes (here or in another process: :meth:`StoreRoot.generation`), when the
rules' inputs change (agent, review switch, project) or after
``POOL_SECONDS``, so attention is never more than that stale. A folder's
mtime moves in coarse ticks, so a pool built within ``SETTLE_NS`` of the
last change is not reused (a second write in the same tick would not move
it again). Access counts
recorded meanwhile show at the next rebuild. Each call then only scores the
pool against the conversation text and selects (pure:
:mod:`jupyter_memory.core.memories.context_tiers`). Loading a block records
no access: being shown to an agent is not a use, or HOT memories would keep
themselves hot.

The COLD count is of the eligible memories by the index's filters, i.e. what
``recall`` can reach; a User-layer memory naming another project is never
listed or loaded, but past the pool it is not told apart in that count.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, replace
from datetime import datetime

from ...core.memories.agent_sectors import sector_factor
from ...core.memories.context_tiers import (
    WARM_MIN_ATTENTION,
    MemoryTiers,
    TierCandidate,
    relevance_scores,
    select_tiers,
    terms_of,
)
from ...core.memories.supersede import superseded_ids
from ...store.memories.search_index import SearchQuery
from ...store.root import StoreRoot
from ..context import ServiceContext
from .agent_sectors import agent_preferred_sectors
from .tiers import sector_expired

# The most memories read per root for one pool (attention order). Past it, the
# memories with the least attention are not considered for WARM.
POOL_CAP = 1_000
# Titles kept for the COLD index beyond the loadable memories.
COLD_POOL = 40
POOL_SECONDS = 60.0
# Far above any file system's timestamp tick.
SETTLE_NS = 2_000_000_000
# A conversation text longer than this is cut: the person's latest words decide.
MAX_QUERY_CHARS = 2_000

ProjectArg = str | os.PathLike[str]


@dataclass(frozen=True)
class _Loadable:
    candidate: TierCandidate  # relevance 1.0: the conversation's is given per call
    terms: frozenset[str]
    sector: str = ""  # the memory's type: an agent's preferred sectors rank first


@dataclass(frozen=True)
class _Pool:
    key: tuple[object, ...]
    built: datetime
    settled: bool  # built well after the folder's last change (see the module docstring)
    loadable: tuple[_Loadable, ...]  # attention > WARM_MIN_ATTENTION, not expired
    cold: tuple[TierCandidate, ...]  # the next ones by attention, titles only
    eligible: int  # every memory passing the index filters


class AgentMemoryTiers:
    """The memory part of an agent's context block, for one ``ServiceContext``."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx
        self._pools: dict[tuple[object, ...], _Pool] = {}
        self._lock = threading.Lock()

    def tiers(
        self,
        project: ProjectArg | None = None,
        *,
        agent: str | None = None,
        query: str = "",
    ) -> MemoryTiers:
        """HOT, WARM (relevant to ``query``) and the COLD index an agent may see."""
        settings = self.ctx.settings.read()
        if not settings["enabled"]:
            return MemoryTiers()
        query = " ".join(query.split())[:MAX_QUERY_CHARS]
        projects = self.ctx.projects
        focus = projects.resolve(project)[0] if project is not None else projects.project_id
        now = self.ctx.clock()
        base = SearchQuery(
            scopes=["user", "project", *([f"agent:{agent}"] if agent else [])],
            reviewed_only=not settings["agent_unreviewed"],
            limit=POOL_CAP,
            now=now,
        )
        pools = [
            self._pool(root, base, focus, now)
            for root in projects.roots(project)
            if not root.behind_link()  # reads find nothing behind a link (invariant 8)
        ]
        loadable = [item for pool in pools for item in pool.loadable]
        scores = relevance_scores(query, {item.candidate.id: item.terms for item in loadable})
        # The asking agent's preferred sectors (spec 003) first among equally relevant.
        preferred = agent_preferred_sectors(self.ctx, agent)
        if preferred:
            for item in loadable:
                key = item.candidate.id
                scores[key] = scores.get(key, 1.0) * sector_factor(item.sector, preferred)
        candidates = [item.candidate for item in loadable]
        candidates += [c for pool in pools for c in pool.cold]
        others = sum(pool.eligible for pool in pools) - len(candidates)
        return select_tiers(candidates, query=query, relevance=scores, others=others)

    def _pool(self, root: StoreRoot, base: SearchQuery, focus: str | None, now: datetime) -> _Pool:
        key = (str(root.root), tuple(base.scopes), base.reviewed_only, focus)
        with self._lock:
            pool = self._pools.get(key)
            generation = root.generation()
            fresh = (
                pool is not None
                and pool.settled
                and pool.key == (*key, generation)
                and 0 <= (now - pool.built).total_seconds() < POOL_SECONDS
            )
            if not fresh:
                pool = self._build(root, base, focus, now, (*key, generation))
                self._pools[key] = pool
            assert pool is not None
            return pool

    def _build(
        self,
        root: StoreRoot,
        base: SearchQuery,
        focus: str | None,
        now: datetime,
        key: tuple[object, ...],
    ) -> _Pool:
        generation = key[-1]
        settled = not isinstance(generation, int) or time.time_ns() - generation > SETTLE_NS
        rows = root.search(replace(base, now=now))  # eligible, most attention first
        eligible_ids = root.index.filtered_ids(base)
        # A fact restated with a new value: only its newest version goes to an
        # agent, and only when that version may go itself (an unreviewed digest
        # restating the person's own memory must not hide it).
        may_go = set(eligible_ids)
        links = {new: olds for new, olds in root.index.supersede_links().items() if new in may_go}
        superseded = superseded_ids(links)
        loadable: list[_Loadable] = []
        cold: list[TierCandidate] = []
        skipped = 0
        for row in rows:
            if row.id in superseded or (row.project is not None and row.project != focus):
                skipped += 1  # another project's memory, even when kept in the User layer
                continue
            expired = sector_expired(row, now)
            loads = not expired and row.attention > WARM_MIN_ATTENTION
            if not loads and len(cold) >= COLD_POOL:
                continue
            text = (root.index.body_of(row.name) or "") if loads else ""
            candidate = TierCandidate(
                id=row.id,
                title=row.title,
                text=text,
                attention=row.attention,
                relevance=1.0 if loads else 0.0,
                in_project=root.layer == "project" or row.project is not None,
                expired=expired,
                updated=row.updated.isoformat(),
            )
            if loads:
                terms = terms_of(row.title, " ".join(row.tags), text)
                loadable.append(_Loadable(candidate, terms, str(row.type)))
            else:
                cold.append(candidate)
        eligible = len(eligible_ids) - skipped
        return _Pool(key, now, settled, tuple(loadable), tuple(cold), max(0, eligible))


__all__ = ["COLD_POOL", "POOL_CAP", "POOL_SECONDS", "AgentMemoryTiers"]
