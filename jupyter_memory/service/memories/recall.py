"""Recall: plan a :class:`RecallQuery` into index searches, rank, disclose (:class:`MemoryRecall`).

Hits come from the focused project (boosted) and the user layer, lexical or
through the semantic extra (docs/recall.md); the token ``budget`` drops hits
to index level, then stops; access counts are recorded unless told otherwise.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ...core.memories.agent_sectors import sector_factor
from ...core.memories.attention import heat
from ...core.memories.disclosure import Level, evidence_lines, provenance_line, snippet
from ...core.memories.embedding import keep_keyword_matches
from ...core.memories.hits import RecallHit
from ...core.memories.recall_query import RecallQuery
from ...core.memories.supersede import newer_first, newest_versions
from ...core.text import estimate_tokens
from ...store.memories.search_index import IndexedMemory, SearchQuery
from ...store.root import StoreRoot
from ..context import ServiceContext
from .agent_sectors import agent_preferred_sectors
from .tiers import sector_expired

Ranked = tuple[float, StoreRoot, IndexedMemory]
# What ``core/ids.py`` makes: a prefix, a dash, 20 base-32 characters.
_ID_QUERY = re.compile(r"[a-z]+-[0-9a-z]{20}")
Key = tuple[str, str]  # (layer, memory id)


_LEVEL_NAMES = {level: level.value for level in Level}  # Enum.value is a Python property


# ~1 kB each: a few thousand memories a session keeps coming back to.
@functools.lru_cache(maxsize=1 << 12)
def _index_template(
    memory_id: str,
    title: str,
    type: str,
    tier: str,
    scope: str,
    project: str | None,
    source: str,
    reviewed: bool,
    created: datetime,
    updated: datetime,
    layer: str,
    path: str,
) -> dict[str, Any]:
    """An index-level hit's fields that only a write changes, in the model's order
    (the same memories come back recall after recall; callers copy it). Its
    count is the other levels' with no text, evidence or provenance."""
    return {
        "id": memory_id,
        "title": title,
        "text": "",
        "type": type,
        "tier": tier,
        "scope": scope,
        "project": project,
        "tags": [],
        "source": source,
        "score": 0.0,
        "attention": 0.0,
        "heat": "",
        "reviewed": reviewed,
        "created": created,
        "updated": updated,
        "layer": layer,
        "path": path,
        "level": Level.index.value,
        "tokens": estimate_tokens(f"{memory_id} {title}   "),
        "superseded_by": None,
        "evidence": [],
        "provenance": "",
    }


class MemoryRecall:
    """Ranked, budgeted hits for one :class:`RecallQuery`."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx
        # Per layer, the last links the index handed out and their newest versions:
        # the index hands out the same mapping while its data is unchanged.
        self._newest: dict[str, tuple[Mapping[str, Sequence[str]], dict[str, str]]] = {}

    def plan(self, q: RecallQuery, project_filter: str | None) -> SearchQuery:
        """The index query: filters resolved, ``recent`` turned into ``since`` at the time now."""
        now = self.ctx.clock()
        since = q.since
        if q.recent is not None:
            since = max(since, now - q.recent) if since else now - q.recent
        if q.scope is not None:
            scopes = [q.scope]
        elif q.agent is not None:
            scopes = ["user", "project", f"agent:{q.agent}"]
        else:
            scopes = []
        return SearchQuery(
            text=q.text,
            types=list(q.types),
            tiers=list(q.tiers),
            scopes=scopes,
            project=project_filter,
            tags=list(q.tags),
            since=since,
            reviewed_only=q.reviewed_only,
            limit=q.limit,
            now=now,
            ranking=q.ranking,
        )

    def recall(self, q: RecallQuery) -> list[RecallHit]:
        """Ranked hits for a built query (``Memory.recall`` builds one from keywords)."""
        semantic = self.ctx.semantic
        mode = semantic.resolve_mode(q.mode)
        projects = self.ctx.projects
        project_filter = projects.resolve(q.project)[0] if q.project is not None else None
        search = self.plan(q, project_filter)
        ranked: list[Ranked] = []
        # A named agent's preferred sectors (spec 003) rank ahead of equally relevant others.
        preferred = agent_preferred_sectors(self.ctx, q.agent)
        by_id = self.by_id(q, search)
        with semantic.foreground():  # background embedding waits while the person recalls
            for root in projects.roots(q.project) if by_id is None else ():
                boost = q.ranking.project_boost if root.layer == "project" else 1.0
                rows = (
                    root.search(search)
                    if mode == "lexical"
                    else semantic.search(root, search, mode)
                )
                ranked.extend(
                    (row.score * boost * sector_factor(row.type, preferred), root, row)
                    for row in rows
                )
        if by_id is not None:
            ranked = by_id
        # Equal scores: the newest indexed first, as the index orders them
        # (ranking_key), so a shorter recall is a prefix of a longer one.
        ranked.sort(key=lambda t: (t[0], t[2].rid), reverse=True)
        if mode == "hybrid":  # every layer's memories with all the query's words keep a place
            keyword = {i for i, (_, _, row) in enumerate(ranked) if row.extra.get("keyword")}
            ranked = [ranked[i] for i in keep_keyword_matches(range(len(ranked)), keyword, q.limit)]
        ranked, newest = self.newer_first(ranked, search)
        hits: list[RecallHit] = []
        used = 0
        top = max((s for s, _, _ in ranked), default=1.0) or 1.0
        now = self.ctx.clock()
        for score, root, row in ranked[: q.limit]:
            later = newest.get((root.layer, row.id))
            hit = self.hit(root, row, score / top, q.level, q.text, now, later)
            if q.budget is not None:
                if used + hit.tokens > q.budget:
                    if q.level is Level.index:
                        break
                    hit = self.hit(root, row, score / top, Level.index, q.text, now, later)
                    if used + hit.tokens > q.budget:
                        break
                used += hit.tokens
            hits.append(hit)
        if q.record_access and hits:
            at = self.ctx.clock()
            for root in {id(r): r for _, r, _ in ranked}.values():
                ids = [h.id for h in hits if h.layer == root.layer]
                root.record_access(ids, at)
        return hits

    def by_id(self, q: RecallQuery, search: SearchQuery) -> list[Ranked] | None:
        """A query that is one memory id (the COLD index names them, spec 003): that
        memory, when it passes the query's filters; ``None`` for any other query."""
        text = q.text.strip()
        if not _ID_QUERY.fullmatch(text):
            return None
        for root in self.ctx.projects.roots(q.project):
            rows = root.index.rows_by_id(search, {text: 1.0})
            if rows:
                return [(1.0, root, rows[0])]
        return None

    def newer_first(
        self, ranked: list[Ranked], search: SearchQuery
    ) -> tuple[list[Ranked], dict[tuple[str, str], str]]:
        """The newest version of each superseded hit directly above it (issue 33).

        Links stay within a layer. A newest version that did not match is brought
        in when it passes the query's filters, scored as the hit it supersedes (a
        newer one found on its own keeps its score if that is higher). Returns the
        order and, per superseded (layer, id), the newest id.
        """
        roots = {r.layer: r for _, r, _ in ranked}
        newest: dict[Key, Key] = {}
        for layer, root in roots.items():
            links = self.newest_versions(layer, root)
            newest.update({(layer, old): (layer, new) for old, new in links.items()})
        if not newest:
            return ranked, {}
        items = {(r.layer, row.id): (score, r, row) for score, r, row in ranked}
        order = newer_first([(r.layer, row.id) for _, r, row in ranked], newest)
        for layer, root in roots.items():
            wanted = {
                key[1]: items[older][0]
                for key, older in zip(order, order[1:], strict=False)
                if key[0] == layer and key not in items and older in items
            }
            if wanted:
                for row in root.index.rows_by_id(search, wanted):
                    items[(layer, row.id)] = (wanted[row.id], root, row)
        out = [items[k] for k in order if k in items]
        for i in range(len(out) - 2, -1, -1):  # never a lower score than what it supersedes
            below = out[i + 1]
            if newest.get((below[1].layer, below[2].id)) == (out[i][1].layer, out[i][2].id):
                out[i] = (max(out[i][0], below[0]), out[i][1], out[i][2])
        return out, {old: new[1] for old, new in newest.items()}

    def newest_versions(self, layer: str, root: StoreRoot) -> dict[str, str]:
        """Older id → newest id in ``root``, worked out again only when its links change."""
        links = root.index.supersede_links()
        held = self._newest.get(layer)
        if held is None or held[0] is not links:
            held = self._newest[layer] = (links, newest_versions(links))
        return held[1]

    def hit(
        self,
        root: StoreRoot,
        row: IndexedMemory,
        score: float,
        level: Level,
        query: str,
        now: datetime,
        superseded_by: str | None = None,
    ) -> RecallHit:
        if level is Level.index:
            # What does not change between recalls comes from the template (a copy);
            # what does (score, attention, heat, the supersede link) is set on it.
            d = _index_template(
                row.id, row.title, row.type, row.tier, row.scope, row.project, row.source,
                row.reviewed, row.created, row.updated, root.layer, root.files.path_str(row.name),
            ).copy()  # fmt: skip
            d["tags"] = row.tags  # the row's own list, made for this search
            d["score"] = round(score, 4)
            d["attention"] = round(row.attention, 4)
            # a memory past its sector TTL is COLD whatever its score
            # (core/memories/sectors.py)
            d["heat"] = "COLD" if sector_expired(row, now) else heat(row.attention)
            d["superseded_by"] = superseded_by
            d["evidence"] = []
            return RecallHit.adopt(d)
        body, quotes = root.index.snippet_of(row.name) or ("", [])
        text = body if level is Level.full else snippet(body, query)
        evidence = evidence_lines(quotes, level, query)
        provenance = provenance_line(
            source=row.source,
            created=row.created,
            layer=root.layer,
            project=row.project,
            reviewed=row.reviewed,
            evidence=len(quotes),
        )
        tokens = estimate_tokens(f"{row.id} {row.title} {text} {' '.join(evidence)} {provenance}")
        # Every field comes from our own index, already validated; the literal
        # names every field (tests/service/memories/test_recall_hits.py).
        return RecallHit.adopt(
            {
                "id": row.id,
                "title": row.title,
                "text": text,
                "type": row.type,
                "tier": row.tier,
                "scope": row.scope,
                "project": row.project,
                "tags": row.tags,
                "source": row.source,
                "score": round(score, 4),
                "attention": round(row.attention, 4),
                # a memory past its sector TTL is COLD whatever its score
                # (core/memories/sectors.py)
                "heat": "COLD" if sector_expired(row, now) else heat(row.attention),
                "reviewed": row.reviewed,
                "created": row.created,
                "updated": row.updated,
                "layer": root.layer,
                "path": root.files.path_str(row.name),
                "level": _LEVEL_NAMES[level],
                "tokens": tokens,
                "superseded_by": superseded_by,
                "evidence": evidence,
                "provenance": provenance,
            }
        )
