"""Tier housekeeping on the ``Memory`` facade (spec 003, "注意力评分与层级").

* :meth:`TiersMixin.tier_rows` — every memory with its attention score, heat
  and sector verdict (:func:`jupyter_memory.core.memories.sectors.decide`).
* :meth:`TiersMixin.start_session` — what a *new* notebook session does first:
  register itself, clear the session-tier memories that no running session can
  own any more, and merge past days' daily-tier memories into one digest per
  day. It is called by the notebook layer when a kernel loads the extension —
  never by ``Memory()`` itself, because the CLI, the server and MCP open a
  ``Memory`` in the middle of a running session.
* :meth:`TiersMixin.clear_session_tier` and :meth:`TiersMixin.merge_daily`
  are the two steps on their own. Both write through the store (``remember``,
  ``update``, ``forget``) and leave ``merge`` / ``clear-session`` records in the
  audit log.

Which session-tier memories are cleared: those created before the start of the
oldest session that is still running (or before this session's start when no
other is running). A memory written while another kernel was live may be that
kernel's, so it stays until a start after that kernel ended.

Merging: daily-tier memories of one UTC day before today, in one root, with
the same scope, project, review state and source, become one memory tagged
``daily-digest`` (frontmatter ``daily_digest: YYYY-MM-DD``, ``merged_from``).
An unreviewed memory is never merged into a reviewed digest. The digest is
written before the originals are forgotten, and a digest that already exists
for the day is extended rather than duplicated, so an interrupted merge is
finished by the next one.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ...core.memories.models import MAX_TEXT_CHARS
from ...core.memories.sectors import TierDecision, decide, expired
from ...store.learning.session_registry import SessionRegistry

if TYPE_CHECKING:
    from ...store.memories.search_index import IndexRow
    from ...store.root import StoreRoot

DIGEST_TAG = "daily-digest"
MAX_DIGEST_EVIDENCE = 20


def decide_row(row: IndexRow, now: datetime) -> TierDecision:
    return decide(
        sector=row.type,
        tier=row.tier,
        updated=row.updated,
        last_accessed=row.last_accessed,
        access_count=row.access_count,
        confidence=row.confidence,
        now=now,
    )


def sector_expired(row: IndexRow, now: datetime) -> bool:
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


class TiersMixin:
    """Mixed into :class:`~jupyter_memory.service.memory.Memory` (through ``DigestMixin``)."""

    def tier_rows(self) -> list[tuple[StoreRoot, IndexRow, TierDecision]]:
        """Every memory of the focused project and the user layer, with its tier decision."""
        now = self.clock()  # type: ignore[attr-defined]
        return [
            (root, row, decide_row(row, now))
            for root in self._roots()  # type: ignore[attr-defined]
            for row in root.rows()
        ]

    # -- a new session -------------------------------------------------------------------

    def start_session(self, session_key: str, *, pid: int | None = None) -> dict[str, Any]:
        """Register a new notebook session; clear stale session-tier memories; merge daily ones."""
        if not self.enabled:  # type: ignore[attr-defined]
            return {"session_key": session_key, "cleared": [], "merged": [], "skipped": "disabled"}
        started = self.clock()  # type: ignore[attr-defined]
        registry = SessionRegistry(self.home)  # type: ignore[attr-defined]
        others, already = registry.register(session_key, started, pid)
        if already is not None:
            # The extension was loaded again in the same kernel: not a new session,
            # so this session's own session-tier memories stay.
            return {"session_key": session_key, "cleared": [], "merged": [], "skipped": "running"}
        cutoff = min([started, *others])
        return {
            "session_key": session_key,
            "cleared": self.clear_session_tier(before=cutoff),
            "merged": self.merge_daily(),
        }

    def end_session(self, session_key: str) -> None:
        SessionRegistry(self.home).unregister(session_key)  # type: ignore[attr-defined]

    def clear_session_tier(self, *, before: datetime) -> list[str]:
        """Forget session-tier memories created before ``before``; returns their ids."""
        ids = [
            row.id
            for root in self._roots()  # type: ignore[attr-defined]
            for row in root.rows()
            if row.tier == "session" and row.created < before
        ]
        for memory_id in ids:
            self.forget(memory_id)  # type: ignore[attr-defined]
        if ids:
            self.audit.append(  # type: ignore[attr-defined]
                "clear-session",
                actor=self.actor,  # type: ignore[attr-defined]
                at=self.clock(),  # type: ignore[attr-defined]
                count=len(ids),
            )
        return ids

    # -- one digest per day ----------------------------------------------------------------

    def merge_daily(self) -> list[dict[str, Any]]:
        """Merge each past day's daily-tier memories into one digest; returns what was merged."""
        today = self.clock().date()  # type: ignore[attr-defined]
        groups: dict[tuple[Any, ...], list[tuple[StoreRoot, Any]]] = defaultdict(list)
        for root in self._roots():  # type: ignore[attr-defined]
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
            digests = [e for e in entries if (e.meta.model_extra or {}).get("daily_digest")]
            rest = [e for e in entries if e not in digests]
            if (not digests and len(rest) < 2) or not rest:
                continue
            result = self._merge_day(day, scope, project, reviewed, source, digests, rest)
            out.append(result)
        return out

    def _merge_day(
        self,
        day: str,
        scope: str,
        project: str | None,
        reviewed: bool,
        source: str,
        digests: list[Any],
        rest: list[Any],
    ) -> dict[str, Any]:
        target = digests[0] if digests else None
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
            entry = self.update(  # type: ignore[attr-defined]
                target.id, text=text, tags=tags, evidence=evidence, **extra
            )
        else:
            entry = self.remember(  # type: ignore[attr-defined]
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
            self.forget(memory_id)  # type: ignore[attr-defined]
        self.audit.append(  # type: ignore[attr-defined]
            "merge",
            actor=self.actor,  # type: ignore[attr-defined]
            at=self.clock(),  # type: ignore[attr-defined]
            id=entry.id,
            day=day,
            merged=merged_ids,
        )
        return {"id": entry.id, "day": day, "merged": merged_ids, "reviewed": reviewed}
