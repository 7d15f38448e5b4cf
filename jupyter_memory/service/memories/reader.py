"""Reading memories: one by id, the listing with heat, counts, the export (:class:`MemoryReader`)."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from ..._i18n import M_
from ...core.memories.models import MemoryEntry
from ...core.memories.sectors import TierDecision
from ...core.memories.supersede import newest_versions
from ...core.memories.usage import HEATS, usage_stats
from ...exceptions import ValidationError
from ...store.memories.search_index import IndexedMemory
from ...store.root import StoreRoot
from ..context import ServiceContext
from .locate import locate
from .results import IndexHealth, MemoryPage, MemoryStats
from .tiers import decide_row

HEAT_ORDER = {"HOT": 0, "WARM": 1, "COLD": 2}
# Named here: inside the class, ``list`` is the method.
Records = list[dict[str, Any]]


def _record(root: StoreRoot, row: IndexedMemory, verdict: TierDecision) -> dict[str, Any]:
    """One listed memory: its index row with the tier decision at the time of listing."""
    return {
        "id": row.id,
        "title": row.title,
        "type": row.type,
        "tier": row.tier,
        "scope": row.scope,
        "project": row.project,
        "tags": row.tags,
        "source": row.source,
        "confidence": row.confidence,
        "reviewed": row.reviewed,
        "created": row.created,
        "updated": row.updated,
        "access_count": row.access_count,
        "last_accessed": row.last_accessed,
        "attention": round(verdict.attention, 4),
        "heat": verdict.heat,
        "expired": verdict.expired,
        "layer": root.layer,
        "path": os.path.join(root.files.folder, row.name),
    }


def _listing_order(d: dict[str, Any]) -> tuple[int, float]:
    return HEAT_ORDER[d["heat"]], -d["updated"].timestamp()


class MemoryReader:
    """Reads of the focused project and the user layer; nothing here writes a memory."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def get(self, memory_id: str) -> MemoryEntry:
        """One memory by id (the project layers first, then the user layer), with its file path."""
        where = locate(self.ctx, memory_id)
        entry = where.root.read(where.name)
        entry.path = str(where.root.files.path_of(where.name))
        entry.superseded_by = newest_versions(where.root.index.supersede_links()).get(memory_id)
        return entry

    def list(self, *, limit: int | None = None, include_cold: bool = True) -> list[dict[str, Any]]:
        """All memories with attention and heat, HOT then WARM then COLD, newest first.

        Heat is the tier decision of :mod:`jupyter_memory.core.memories.sectors`: the
        attention score, except that a memory past its sector TTL is COLD.
        """
        if limit:
            return self.list_page(limit=limit, include_cold=include_cold).rows
        out: list[dict[str, Any]] = []
        now = self.ctx.clock()
        for root in self.ctx.projects.roots():
            for row in root.rows():
                verdict = decide_row(row, now)
                if not include_cold and verdict.heat == "COLD":
                    continue
                out.append(_record(root, row, verdict))
        out.sort(key=_listing_order)
        return out

    def list_page(self, *, limit: int, offset: int = 0, include_cold: bool = True) -> MemoryPage:
        """Rows ``offset`` to ``offset + limit`` of :meth:`list`'s order, whether more
        follow, and how many memories there are in all (COLD ones included).

        Each layer's index orders its memories in SQL (``store/memories/listing_sql``)
        and hands over only the rows that can be on the page, so the first page
        of 100,000 memories costs about what it costs for 100 (issue 16). The
        heat shown is decided again here, by the core.
        """
        if limit < 1 or offset < 0:
            raise ValidationError(
                M_("limit must be at least 1 and offset at least 0"), field="limit"
            )
        now = self.ctx.clock()
        rows: list[dict[str, Any]] = []
        total = 0
        want = offset + limit + 1  # one more than the page: is there more?
        for root in self.ctx.projects.roots():
            head, count = root.listing(now=now, limit=want, include_cold=include_cold)
            total += count
            for row in head:
                verdict = decide_row(row, now)
                if include_cold or verdict.heat != "COLD":
                    rows.append(_record(root, row, verdict))
        rows.sort(key=_listing_order)
        page = rows[offset : offset + limit]
        return MemoryPage(page, offset, total, more=len(rows) > offset + len(page))

    def stats(self) -> MemoryStats:
        """Counts by type, tier, scope, project, heat and layer, and how many wait for review."""
        rows = self.list()

        def count(key: str) -> dict[str, int]:
            return dict(Counter(str(r[key]) for r in rows))

        projects = self.ctx.projects
        roots = projects.roots()
        heats = count("heat")
        return MemoryStats(
            total=len(rows),
            by_type=count("type"),
            by_tier=count("tier"),
            by_scope=count("scope"),
            by_project=dict(Counter(str(r["project"] or "-") for r in rows)),
            # every heat level, 0 where there are none (spec 003's HOT/WARM/COLD)
            by_heat={h: heats.get(h, 0) for h in HEATS},
            by_layer=count("layer"),
            unreviewed=sum(1 for r in rows if not r["reviewed"]),
            home=str(self.ctx.home),
            project=projects.project_id,
            project_dir=str(projects.project_dir) if projects.project_dir else None,
            index=[
                IndexHealth(
                    layer=root.layer,
                    root=str(root.root),
                    entries=root.index.count(),
                    unreadable_files=len(root.index.problems()),
                )
                for root in roots
            ],
            semantic=self.ctx.semantic.status(roots),
            usage=usage_stats(rows),
        )

    def export(self) -> Records:
        """Every memory as its stored fields plus ``layer``, ``attention`` and ``heat``."""
        out = []
        for row in self.list():
            d = self.get(row["id"]).to_dict()
            d.update({"layer": row["layer"], "attention": row["attention"], "heat": row["heat"]})
            out.append(d)
        return out

    def audit_records(self) -> Records:
        """Audit records, oldest first (read by ``frames.audit_frame``).

        A forgotten memory must not come back through audit views: for an id
        that was later deleted only the deletion (id, hash, time) is shown.
        """
        records = list(self.ctx.audit.records())
        deleted = {r.get("id") for r in records if r.get("action") == "delete"}
        return [
            r
            for r in records
            if r.get("action") == "delete" or r.get("id") not in deleted or "id" not in r
        ]
