"""The engine interface the service talks to, so another backend can be added.

A backend indexes :class:`~jupyter_memory.core.memories.models.MemoryEntry` objects
keyed by file name and answers :class:`SearchQuery` with :class:`IndexedMemory`
rows. It is derived data: everything in it can be rebuilt from the files.
:class:`SearchIndex` lists everything the store and the service use of an
engine; :data:`IndexFactory` is how a storage root opens one
(``store/root.py``), so nothing above the store names a concrete engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from ...core.memories.models import MemoryEntry
from ...core.memories.ranking import DEFAULT_RANKING, RankingParams
from ...core.progress import Progress
from ..layout import RootLayout
from .files import FileStat


@dataclass(frozen=True)
class SearchQuery:
    text: str = ""
    types: Sequence[str] = ()
    tiers: Sequence[str] = ()
    scopes: Sequence[str] = ()  # exact scopes allowed; empty = all
    project: str | None = None
    tags: Sequence[str] = ()  # every tag must be present
    since: datetime | None = None
    reviewed_only: bool = False
    limit: int = 10
    now: datetime | None = None
    ranking: RankingParams = DEFAULT_RANKING  # the constants of the order (docs/recall.md)


@dataclass
class IndexedMemory:
    """One memory as the index knows it: metadata, access statistics and, in a search, scores."""

    id: str
    name: str
    title: str
    type: str
    tier: str
    scope: str
    project: str | None
    tags: list[str]
    source: str
    confidence: float
    created: datetime
    updated: datetime
    reviewed: bool
    score: float = 0.0
    relevance: float = 0.0
    attention: float = 0.0
    access_count: int = 0
    last_accessed: datetime | None = None
    extra: dict[str, object] = field(default_factory=dict)
    # The index's row number: later rows are newer; the tie-break of equal scores.
    rid: int = 0


# The ``IndexedMemory.extra`` flag of a search hit that holds every word of the
# query as the all-words pass matches it (relaxation "all_then_any": the hits of
# that pass; an engine's search sets it, hybrid recall keeps those hits).
ALL_WORDS = "all_words"


def ranking_key(row: IndexedMemory) -> tuple[float, int]:
    """Sort key for best-first order (``reverse=True``): the score, then the newest
    indexed. The index's SQL orders the same way, so the hits of a shorter recall
    are a prefix of a longer one's and the pages of one query never overlap or skip
    a hit when many score the same (bounded ranking picks its pool in this order)."""
    return (row.score, row.rid)


@dataclass
class IndexSyncReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)  # (file name, reason)
    notices: list[str] = field(default_factory=list)


class LoadFn(Protocol):
    def __call__(self, name: str) -> MemoryEntry: ...


class VectorStore(Protocol):
    """An engine's stored embeddings (the semantic extra), keyed by memory id and ``ekey``."""

    def use_model(self, name: str) -> None: ...

    def clear(self) -> None: ...

    def prune(self) -> int: ...

    def pending(self, limit: int) -> list[tuple[str, str, str, str]]: ...

    def counts(self) -> tuple[int, int]: ...

    def save(self, items: Sequence[tuple[str, str]], vectors: Any) -> int: ...

    def rows_since(self, rid: int) -> list[tuple[int, str, bytes]]: ...

    def count(self) -> int: ...

    def save_rate(self, notes_per_s: float) -> None: ...

    def rate(self) -> float | None: ...


class SearchIndex(Protocol):
    # True once the index was opened on a read-only mount (answers from its last state).
    read_only: bool

    # -- keeping in step with the files
    def sync(
        self, stats: Iterable[FileStat], load: LoadFn, progress: Progress | None = None
    ) -> IndexSyncReport: ...

    def rebuild(
        self, stats: Iterable[FileStat], load: LoadFn, progress: Progress | None = None
    ) -> IndexSyncReport: ...

    def upsert(self, entry: MemoryEntry, stat: FileStat) -> None: ...

    def upsert_many(self, items: Iterable[tuple[MemoryEntry, FileStat]]) -> None: ...

    def remove(self, name: str) -> None: ...

    def forget_access(self, memory_id: str) -> None: ...

    def scrub(self) -> None:
        """After a forget: take the removed text out of every file of the index."""

    # -- reads
    def search(self, query: SearchQuery) -> list[IndexedMemory]:
        """Ranked hits; those holding every word flagged ``extra[ALL_WORDS]``."""
        ...

    def filtered_ids(self, query: SearchQuery) -> list[str]: ...

    def rows_by_id(self, query: SearchQuery, scores: dict[str, float]) -> list[IndexedMemory]: ...

    def name_of(self, memory_id: str) -> str | None: ...

    def body_of(self, name: str) -> str | None: ...

    def snippet_of(self, name: str) -> tuple[str, list[tuple[str, str | None]]] | None:
        """The body and the evidence quotes (quote, source), or None when not indexed."""
        ...

    def supersede_links(self) -> Mapping[str, Sequence[str]]:
        """Newer memory id → the older ids its frontmatter says it supersedes (read
        only: an engine may hand out the same mapping while its data is unchanged)."""
        ...

    def rows(self) -> list[IndexedMemory]: ...

    def listing(
        self, *, now: datetime, limit: int, include_cold: bool
    ) -> tuple[list[IndexedMemory], int]:
        """The first ``limit`` rows of the listing order (HOT, WARM, then COLD when
        ``include_cold``; newest first) and how many memories the index holds."""
        ...

    def count(self) -> int: ...

    def problems(self) -> list[tuple[str, str]]: ...

    # -- access statistics, embeddings, lifetime
    def record_access(self, ids: Sequence[str], at: datetime) -> None: ...

    def embeddings(self) -> VectorStore: ...

    def watch(self, load: LoadFn) -> bool:
        """Watch the folder for in-place edits so other processes' opens need not stat
        every file (long-running processes); False where it cannot."""
        ...

    def stop_watching(self) -> None: ...

    def close(self) -> None: ...


# How a storage root opens its engine (one call per connection wanted).
IndexFactory = Callable[[RootLayout], SearchIndex]
