"""Tier housekeeping (spec 003, "注意力评分与层级"): :class:`TiersService`.

* :meth:`TiersService.tier_rows` — every memory with its attention score, heat
  and sector verdict (:func:`jupyter_memory.core.memories.sectors.decide_tier`).
* :meth:`TiersService.start_session` — what a *new* notebook session does first:
  register itself, clear the session-tier memories that no running session can
  own any more, and merge past days' daily-tier memories into one memory per
  day (the *daily merge*). It is called by the notebook layer when a kernel
  loads the extension — never by ``Memory()`` itself, because the CLI, the
  server and MCP open a ``Memory`` in the middle of a running session.
* :meth:`TiersService.clear_session_tier` and :meth:`TiersService.merge_daily`
  are the two steps on their own. Both write through the memory operations
  (``remember``, ``update``, ``forget``, given as :class:`TierMemoryWrites`) and
  leave ``merge`` / ``clear-session`` records in the audit log.

Which session-tier memories are cleared: those created before the start of the
oldest session that is still running (or before this session's start when no
other is running). A memory written while another kernel was live may be that
kernel's, so it stays until a start after that kernel ended.

Merging: daily-tier memories of one UTC day before today, in one root, with
the same scope, project, review state and source, become one memory tagged
``daily-digest`` (frontmatter ``daily_digest: YYYY-MM-DD``, ``merged_from``).
An unreviewed memory is never merged into a reviewed digest. The merged memory
is written before the originals are forgotten, and one that already exists
for the day is extended rather than duplicated, so an interrupted merge is
finished by the next one.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Protocol

from ...core.memories.models import MAX_TEXT_CHARS, MemoryEntry, MemoryType, Source, Tier
from ...core.memories.sectors import TierDecision, decide_tier, expired
from ...store.learning.session_registry import SessionRegistry
from ...store.memories.search_index import IndexedMemory
from ...store.root import StoreRoot
from ..context import ServiceContext
from .tier_results import DailyMerge, SessionStart

DIGEST_TAG = "daily-digest"
MAX_DIGEST_EVIDENCE = 20


def decide_row(row: IndexedMemory, now: datetime) -> TierDecision:
    return decide_tier(
        sector=row.type,
        tier=row.tier,
        updated=row.updated,
        last_accessed=row.last_accessed,
        access_count=row.access_count,
        confidence=row.confidence,
        now=now,
    )


def sector_expired(row: IndexedMemory, now: datetime) -> bool:
    return expired(
        row.type,
        updated=row.updated,
        last_accessed=row.last_accessed,
        access_count=row.access_count,
        now=now,
    )


def _bullet(text: str) -> str:
    lines = text.strip().splitlines() or [""]
    return "\n".join([f"- {lines[0]}", *(f"  {ln}" for ln in lines[1:])])


class TierMemoryWrites(Protocol):
    """The memory operations tier housekeeping writes through (``Memory`` has them)."""

    def remember(
        self,
        text: str,
        *,
        title: str | None = None,
        type: str | MemoryType = MemoryType.procedural,
        tier: str | Tier = Tier.durable,
        tags: Iterable[str] = (),
        scope: str | None = None,
        source: str | Source = Source.manual,
        project: str | None = None,
        confidence: float = 1.0,
        evidence: Iterable[Any] = (),
        reviewed: bool = True,
        created: datetime | None = None,
        extra: dict[str, Any] | None = None,
    ) -> MemoryEntry: ...

    def update(self, memory_id: str, **changes: Any) -> MemoryEntry: ...

    def forget(self, memory_id: str) -> object: ...


class TiersService:
    """Tier verdicts, the session-tier clear and the daily merge of one ``ServiceContext``."""

    def __init__(self, ctx: ServiceContext, memories: TierMemoryWrites) -> None:
        self.ctx = ctx
        self.memories = memories
        self.sessions = SessionRegistry(ctx.home)

    def tier_rows(self) -> list[tuple[StoreRoot, IndexedMemory, TierDecision]]:
        """Every memory of the focused project and the user layer, with its tier decision."""
        now = self.ctx.clock()
        return [
            (root, row, decide_row(row, now))
            for root in self.ctx.projects.roots()
            for row in root.rows()
        ]

    # -- a new session -------------------------------------------------------------------

    def start_session(self, session_key: str, *, pid: int | None = None) -> SessionStart:
        """Register a new notebook session; clear stale session-tier memories; merge daily ones."""
        if not self.ctx.settings.enabled:
            return SessionStart(session_key, skipped="disabled")
        started = self.ctx.clock()
        others, already = self.sessions.register(session_key, started, pid)
        if already is not None:
            # The extension was loaded again in the same kernel: not a new session,
            # so this session's own session-tier memories stay.
            return SessionStart(session_key, skipped="running")
        cutoff = min([started, *others])
        return SessionStart(
            session_key,
            cleared=self.clear_session_tier(before=cutoff),
            merged=self.merge_daily(),
        )

    def end_session(self, session_key: str) -> None:
        """The session ``session_key`` ended: it leaves the running-sessions registry."""
        self.sessions.unregister(session_key)

    def clear_session_tier(self, *, before: datetime) -> list[str]:
        """Forget session-tier memories created before ``before``; returns their ids."""
        ids = [
            row.id
            for root in self.ctx.projects.roots()
            for row in root.rows()
            if row.tier == "session" and row.created < before
        ]
        for memory_id in ids:
            self.memories.forget(memory_id)
        if ids:
            self.ctx.audit.append(
                "clear-session", actor=self.ctx.actor, at=self.ctx.clock(), count=len(ids)
            )
        return ids

    # -- one merged memory per day -----------------------------------------------------------

    def merge_daily(self) -> list[DailyMerge]:
        """Merge each past day's daily-tier memories into one memory; returns what was merged."""
        today = self.ctx.clock().date()
        groups: dict[tuple[Any, ...], list[tuple[StoreRoot, IndexedMemory]]] = defaultdict(list)
        for root in self.ctx.projects.roots():
            for row in root.rows():
                if row.tier != "daily" or row.created.date() >= today:
                    continue
                key = (
                    root.layer,
                    row.created.date().isoformat(),
                    row.scope,
                    row.project,
                    row.reviewed,
                    row.source,
                )
                groups[key].append((root, row))
        out = []
        for (_, day, scope, project, reviewed, source), members in sorted(
            groups.items(), key=lambda kv: kv[0][1]
        ):
            entries = [root.read(row.name) for root, row in members]
            merged = [e for e in entries if (e.meta.model_extra or {}).get("daily_digest")]
            rest = [e for e in entries if e not in merged]
            if (not merged and len(rest) < 2) or not rest:
                continue
            out.append(self._merge_day(day, scope, project, reviewed, source, merged, rest))
        return out

    def _merge_day(
        self,
        day: str,
        scope: str,
        project: str | None,
        reviewed: bool,
        source: str,
        merged: list[MemoryEntry],
        rest: list[MemoryEntry],
    ) -> DailyMerge:
        target = merged[0] if merged else None
        parts = [target.text] if target is not None else []
        for entry in sorted(rest, key=lambda e: e.meta.created):
            bullet = _bullet(entry.text)
            if not any(bullet in p for p in parts):
                parts.append(bullet)
        text = "\n".join(parts)[:MAX_TEXT_CHARS]
        everyone = ([target] if target is not None else []) + rest
        tags = sorted({t for e in everyone for t in e.meta.tags} | {DIGEST_TAG})
        evidence = [q.model_dump() for e in everyone for q in e.meta.evidence][:MAX_DIGEST_EVIDENCE]
        types = {e.meta.type.value for e in everyone}
        merged_ids = [e.id for e in rest]
        earlier = list((target.meta.model_extra or {}).get("merged_from", [])) if target else []
        extra = {"daily_digest": day, "merged_from": earlier + merged_ids}
        if target is not None:
            entry = self.memories.update(
                target.id, text=text, tags=tags, evidence=evidence, **extra
            )
        else:
            entry = self.memories.remember(
                text,
                title=f"Daily digest {day}",
                type=types.pop() if len(types) == 1 else "episodic",
                tier="daily",
                tags=tags,
                scope=scope,
                source=source,
                project=project,
                confidence=max(e.meta.confidence for e in rest),
                evidence=evidence,
                reviewed=reviewed,
                created=max(e.meta.created for e in rest),
                extra=extra,
            )
        for memory_id in merged_ids:
            self.memories.forget(memory_id)
        self.ctx.audit.append(
            "merge",
            actor=self.ctx.actor,
            at=self.ctx.clock(),
            id=entry.id,
            day=day,
            merged=merged_ids,
        )
        return DailyMerge(id=entry.id, day=day, merged=merged_ids, reviewed=reviewed)
