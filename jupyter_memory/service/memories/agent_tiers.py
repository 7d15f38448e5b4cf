"""Gather the memories an agent's context may carry, then pick spec 003's tiers (core).

The governance rules are the ones of agent recall (``AgentAccess.recall``,
docs/design.md invariant 3), applied here in the index query so nothing else
is ever read:

* nothing while memory is disabled;
* reviewed memories only, unless the person switched ``agent_unreviewed`` on
  (an unreviewed session digest or agent note stays out);
* scopes ``user``, ``project`` and the asking agent's own ``agent:<name>``:
  another agent's private memories stay out (with no agent named, as in
  ``%memory context``, no ``agent:*`` memory at all);
* the focused (or named, registered) project's root and the User root only,
  and from either root no memory that names another project.

Which memories are read: per root, the ``POOL`` with the highest attention
(the index computes attention in SQL, so only those rows reach Python) and,
when there is a conversation text, the ``POOL`` most relevant to it by the
lexical recall ranking (FTS5 bm25, ``relevance`` > 0). The selection itself —
HOT, WARM, the COLD title index, budgets in tokens — is pure
(:func:`jupyter_memory.core.memories.context_tiers.select_tiers`). Bodies are
read only for memories that can be HOT or WARM. Loading a block records no
access: being shown to an agent is not a use, or HOT memories would keep
themselves hot.
"""

from __future__ import annotations

import os
from dataclasses import replace

from ...core.memories.agent_sectors import sector_factor
from ...core.memories.context_tiers import (
    WARM_MIN_ATTENTION,
    MemoryTiers,
    TierCandidate,
    select_tiers,
)
from ...store.memories.search_index import IndexedMemory, SearchQuery
from ...store.root import StoreRoot
from ..context import ServiceContext
from .agent_sectors import agent_preferred_sectors
from .tiers import sector_expired

# Rows read per root and per ranking; HOT (~500 tokens) and WARM (10) need far fewer.
POOL = 40
# A conversation text longer than this is cut: the person's latest words decide.
MAX_QUERY_CHARS = 2_000

ProjectArg = str | os.PathLike[str]


class AgentMemoryTiers:
    """The memory part of an agent's context block, for one ``ServiceContext``."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

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
        base = SearchQuery(
            scopes=["user", "project", *([f"agent:{agent}"] if agent else [])],
            reviewed_only=not settings["agent_unreviewed"],
            limit=POOL,
            now=self.ctx.clock(),
        )
        candidates: dict[str, TierCandidate] = {}
        others = 0
        preferred = agent_preferred_sectors(self.ctx, agent)
        for root in projects.roots(project):
            if root.behind_link():
                continue  # reads find nothing behind a link (invariant 8)
            seen = self._gather(root, base, query, focus, candidates, preferred)
            # Eligible memories never read (the count the COLD index gives).
            others += max(0, len(root.index.filtered_ids(base)) - seen)
        return select_tiers(list(candidates.values()), query=query, others=others)

    def _gather(
        self,
        root: StoreRoot,
        base: SearchQuery,
        query: str,
        focus: str | None,
        out: dict[str, TierCandidate],
        preferred: frozenset[str] = frozenset(),
    ) -> int:
        """Add ``root``'s candidates to ``out``; returns how many of its rows were read."""
        rows: dict[str, IndexedMemory] = {r.id: r for r in root.search(base)}
        relevance: dict[str, float] = {}
        if query:
            for row in root.search(replace(base, text=query)):
                rows.setdefault(row.id, row)
                relevance[row.id] = row.relevance
        now = base.now or self.ctx.clock()
        for row in rows.values():
            if row.project is not None and row.project != focus:
                continue  # another project's memory, even when kept in the User layer
            expired = sector_expired(row, now)
            loaded = not expired and row.attention > WARM_MIN_ATTENTION
            text = (root.index.body_of(row.name) or "") if loaded else ""
            out[row.id] = TierCandidate(
                id=row.id,
                title=row.title,
                text=text,
                attention=row.attention,
                # the agent's preferred sectors (spec 003) first among equally relevant
                relevance=(relevance.get(row.id, 0.0) if query else 1.0)
                * sector_factor(row.type, preferred),
                in_project=root.layer == "project" or row.project is not None,
                expired=expired,
                updated=row.updated.isoformat(),
            )
        return len(rows)


__all__ = ["POOL", "AgentMemoryTiers"]
