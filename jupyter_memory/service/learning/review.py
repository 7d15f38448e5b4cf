"""The person reviews what the session digest (or an agent) stored: Keep, Discard, Promote.

Extracted memories are stored ``reviewed: false`` and reach no agent until the
person looks at them (docs/design.md invariant 3):

* **Keep** — ``reviewed: true`` (``Memory.update``); from then on agent recall
  may return it like any memory the person wrote.
* **Discard** — ``Memory.forget``: the file and every derived trace go.
* **Promote to knowledge** — a queue *proposal* (``Memory.propose``, source
  ``session-digest``) whose evidence is the person's original message, kept in
  the memory's evidence when it was extracted. The proposal still waits for
  Apply in the queue; nothing is applied here. The memory itself is marked
  reviewed and remembers the proposal id (``promoted_to``). When the queue
  already holds the same knowledge, nothing is queued and the memory stays
  unreviewed (status ``skipped`` with the queue's reason). A memory whose
  sources were only agent replies has no evidence of the person's words and
  cannot be promoted (invariant 4).

Whether agents may see unreviewed memories at all is the person's switch
``agent_unreviewed`` (off by default): see :meth:`ReviewMixin.agent_sees_unreviewed`.
"""

from __future__ import annotations

import re
from typing import Any

from ...core.text import normalize
from ...exceptions import PolicyError

MIN_LINE_CHARS = 8
_WORD = re.compile(r"[A-Za-z0-9_]+|[\u3400-\u9fff]")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(normalize(text)))


def best_quote(message: str, content: str) -> str:
    """The line of the person's message that shares most words with the memory, or all of it."""
    lines = [ln.strip() for ln in message.splitlines() if len(ln.strip()) >= MIN_LINE_CHARS]
    if len(lines) <= 1:
        return message.strip()
    want = _words(content)
    best = max(lines, key=lambda ln: len(_words(ln) & want))
    return best if _words(best) & want else message.strip()


class ReviewMixin:
    """Mixed into :class:`~jupyter_memory.service.memory.Memory` (through ``DigestMixin``)."""

    def unreviewed(self, *, limit: int | None = None) -> list[dict[str, Any]]:
        """Memories waiting for review, newest first, with their evidence and scene."""
        rows = [
            (root, row)
            for root in self._roots()  # type: ignore[attr-defined]
            for row in root.rows()
            if not row.reviewed
        ]
        rows.sort(key=lambda rr: rr[1].updated, reverse=True)
        out = []
        for root, row in rows[:limit] if limit else rows:
            entry = root.read(row.name)
            extra = entry.meta.model_extra or {}
            out.append(
                {
                    "id": row.id,
                    "title": row.title,
                    "text": entry.text,
                    "type": row.type,
                    "tier": row.tier,
                    "source": row.source,
                    "work_type": extra.get("work_type"),
                    "scene": extra.get("scene"),
                    "evidence": [q.model_dump() for q in entry.meta.evidence],
                    "created": row.created,
                    "layer": root.layer,
                }
            )
        return out

    def keep_memory(self, memory_id: str) -> dict[str, Any]:
        """The person keeps an extracted memory: ``reviewed: true``."""
        entry = self.update(memory_id, reviewed=True)  # type: ignore[attr-defined]
        return {"id": entry.id, "status": "kept", "reviewed": True}

    def discard_memory(self, memory_id: str) -> dict[str, Any]:
        """The person discards an extracted memory: it is forgotten."""
        self.forget(memory_id)  # type: ignore[attr-defined]
        return {"id": memory_id, "status": "discarded"}

    def promote_memory(
        self,
        memory_id: str,
        *,
        kind: str = "rule",
        layer: str | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        """Queue a knowledge proposal from a memory, quoting the person's original message."""
        entry = self.get(memory_id)  # type: ignore[attr-defined]
        evidence = [q for q in entry.meta.evidence if q.quote.strip()]
        if not evidence:
            raise PolicyError(
                f"memory {memory_id} keeps no words of the person (its sources were agent "
                "replies): without an evidence quote it cannot become a proposal"
            )
        original = evidence[0]
        quote = best_quote(original.quote, entry.text)
        origin: dict[str, str] = {}
        if original.source and "#" in original.source:
            origin["message_id"] = original.source.rsplit("#", 1)[1]
        result: dict[str, Any] = self.propose(  # type: ignore[attr-defined]
            " ".join(entry.text.split()),
            kind,
            quote,
            layer,
            project,
            "session-digest",
            messages=[{"role": "user", "text": original.quote}],
            quote_origin=origin,
        )
        proposal_id = result.get("id")
        if proposal_id is None:  # the queue already knows it (pending, applied or dismissed)
            return {"id": memory_id, "status": "skipped", "reason": result.get("reason")}
        self.update(memory_id, reviewed=True, promoted_to=proposal_id)  # type: ignore[attr-defined]
        return {"id": memory_id, "status": "promoted", "proposal": result}

    # -- what agents may see -------------------------------------------------------------

    @property
    def agent_sees_unreviewed(self) -> bool:
        """The person's switch: may agent recall return unreviewed memories? (default off)"""
        return bool(self.settings.get("agent_unreviewed", False))  # type: ignore[attr-defined]
