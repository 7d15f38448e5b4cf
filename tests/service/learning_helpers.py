"""A ServiceContext and the memory operations on real files, without the ``Memory`` facade.

The learning and tier services take the memory operations through small
Protocols; :class:`UserLayerMemories` is the least that satisfies them: it
writes through the user ``StoreRoot`` of the context (real files, real index),
so each service can be built and tested on its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from jupyter_memory.core.memories.models import (
    EvidenceQuote,
    MemoryEntry,
    MemoryMeta,
    MemoryType,
    Source,
    Tier,
)
from jupyter_memory.exceptions import NotFoundError
from jupyter_memory.service.context import ServiceContext
from jupyter_memory.service.memories.locate import Located
from jupyter_memory.service.memories.semantic import SemanticRecall


def open_context(home: Path, clock: Any) -> ServiceContext:
    ids = iter(range(1, 10_000))
    return ServiceContext.open(
        home,
        clock=clock,
        actor="person",
        semantic=SemanticRecall(None),
        id_factory=lambda: f"01TEST{next(ids):020d}",
    )


class UserLayerMemories:
    """remember / get / update / forget on the context's user layer (real files)."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx
        self.root = ctx.user

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
    ) -> MemoryEntry:
        now = created or self.ctx.clock()
        meta = MemoryMeta(
            id=self.ctx.new_id(),
            title=title or text.splitlines()[0][:80],
            type=MemoryType(type),
            tier=Tier(tier),
            scope=scope or "user",
            project=project,
            tags=list(tags),
            source=Source(source),
            confidence=confidence,
            created=now,
            updated=now,
            evidence=[EvidenceQuote.model_validate(e) for e in evidence],
            reviewed=reviewed,
            **(extra or {}),
        )
        entry = MemoryEntry(meta=meta, text=text)
        self.root.write_new(entry)
        return entry

    def _name(self, memory_id: str) -> str:
        name = self.root.name_of(memory_id)
        if name is None:
            raise NotFoundError(f"no memory with id {memory_id!r}")
        return name

    def get(self, memory_id: str) -> MemoryEntry:
        return self.root.read(self._name(memory_id))

    def update(self, memory_id: str, **changes: Any) -> MemoryEntry:
        name = self._name(memory_id)
        entry = self.root.read(name)
        if "text" in changes:
            entry.text = changes.pop("text")
        data = entry.meta.model_dump()
        data.update(changes, updated=self.ctx.clock())
        entry.meta = MemoryMeta.model_validate(data)
        self.root.write_existing(name, entry)
        return entry

    def forget(self, memory_id: str) -> None:
        self.root.delete(memory_id)

    def update_at(self, where: Located, /, **changes: Any) -> MemoryEntry:
        assert where.root is self.root, "the user layer only"
        return self.update(where.id, **changes)

    def forget_at(self, where: Located) -> None:
        assert where.root is self.root, "the user layer only"
        self.forget(where.id)
