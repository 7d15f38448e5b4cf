"""What the learning services need from other domains, as small Protocols.

The session digest, the self-learner and review write memories and queue
knowledge proposals; they take those operations in their constructors typed
as these Protocols, so learning imports neither the facade nor another domain's
service class (imports stay one-way). ``Memory`` hands in the real memory
writer and reader and the knowledge queue. Where a memory id is, review asks
the memories domain's one resolver (:mod:`..memories.locate`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from ...core.knowledge.proposals import Proposal
from ...core.memories.models import MemoryEntry, MemoryType, Source, Tier
from ..memories.locate import Located


class ProposalQueue(Protocol):
    """The knowledge queue: propose (never apply) and read one proposal back."""

    def propose(
        self,
        text: str,
        kind: str,
        evidence_quote: str,
        layer: str | None = None,
        project: str | None = None,
        source: str = "manual",
        *,
        messages: Iterable[Any] | None = None,
        quote_origin: dict[str, str] | None = None,
    ) -> Mapping[str, Any]: ...

    def proposal(self, proposal_id: str) -> Proposal: ...


class ChatExtraction(Protocol):
    """One extraction round over a conversation's texts (``KnowledgeQueue.extract``)."""

    def extract(
        self,
        messages: Iterable[Any],
        project: str | None = None,
        *,
        conversation: str | None = None,
        notebook: str | None = None,
        max_messages: int | None = None,
        background: bool = True,
        llm: bool = True,
    ) -> list[Proposal]: ...

    @property
    def last_extraction_notice(self) -> str | None: ...

    @property
    def last_extraction_called_llm(self) -> bool: ...


class KnowledgeQueuePort(ProposalQueue, ChatExtraction, Protocol):
    """What the learning services get of the knowledge queue: propose and extract."""


class QueueChanges(Protocol):
    """Queue-change events (created, applied, dismissed…), for the self-learner."""

    def on_queue_change(self, callback: Callable[[dict[str, Any]], None]) -> Callable[[], None]: ...


class WorkMemoryWriter(Protocol):
    """Stores one extracted work memory (``Memory.remember``)."""

    def remember(
        self,
        text: str,
        *,
        type: str | MemoryType = MemoryType.procedural,
        tier: str | Tier = Tier.durable,
        tags: Iterable[str] = (),
        source: str | Source = Source.manual,
        confidence: float = 1.0,
        evidence: Iterable[Any] = (),
        reviewed: bool = True,
        extra: dict[str, Any] | None = None,
    ) -> MemoryEntry: ...


class MemoryLookup(Protocol):
    """Reads one memory by id."""

    def get(self, memory_id: str) -> MemoryEntry: ...


class MemoryListing(MemoryLookup, Protocol):
    """Reads one memory by id, and the listing (``Memory.memories``)."""

    def list(
        self, *, limit: int | None = None, include_cold: bool = True
    ) -> list[dict[str, Any]]: ...


class GotchaWrites(WorkMemoryWriter, Protocol):
    """Writes the repeated-error capture makes: a new memory, or an update of its own."""

    def update(self, memory_id: str, **changes: Any) -> MemoryEntry: ...


class ReviewWrites(Protocol):
    """Marks or forgets one memory after the person's review, where the review found it."""

    def update_at(self, where: Located, /, **changes: Any) -> MemoryEntry: ...

    def forget_at(self, where: Located) -> object: ...
