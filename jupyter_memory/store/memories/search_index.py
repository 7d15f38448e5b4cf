"""The engine interface the service talks to, so another backend can be added.

A backend indexes :class:`~jupyter_memory.core.memories.models.MemoryEntry` objects
keyed by file name and answers :class:`SearchQuery` with :class:`IndexRow`s.
It is derived data: everything in it can be rebuilt from the files.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from ...core.memories.models import MemoryEntry
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


@dataclass
class IndexRow:
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


@dataclass
class SyncReport:
    added: int = 0
    updated: int = 0
    removed: int = 0
    problems: list[tuple[str, str]] = field(default_factory=list)  # (file name, reason)
    notices: list[str] = field(default_factory=list)


class SearchIndex(Protocol):
    def sync(self, stats: Iterable[FileStat], load: LoadFn) -> SyncReport: ...

    def upsert(self, entry: MemoryEntry, stat: FileStat) -> None: ...

    def remove(self, name: str) -> None: ...

    def rebuild(self, stats: Iterable[FileStat], load: LoadFn) -> SyncReport: ...

    def search(self, query: SearchQuery) -> list[IndexRow]: ...

    def name_of(self, memory_id: str) -> str | None: ...

    def body_of(self, name: str) -> str | None: ...

    def rows(self) -> list[IndexRow]: ...

    def problems(self) -> list[tuple[str, str]]: ...

    def record_access(self, ids: Sequence[str], at: datetime) -> None: ...

    def close(self) -> None: ...


class LoadFn(Protocol):
    def __call__(self, name: str) -> MemoryEntry: ...
