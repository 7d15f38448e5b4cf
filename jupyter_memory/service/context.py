"""The one context every domain service shares (composition, not mixins).

``Memory`` builds a :class:`ServiceContext` and hands it to each domain service
(knowledge files, queue, digest, tiers, review, semantic recall, …), so each
service can be constructed and tested on its own with a context of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from ..core.ids import new_id
from ..store.audit import AuditLog
from ..store.memories.search_index import IndexedMemory, SearchQuery
from ..store.root import StoreRoot
from .projects import Projects
from .settings import Settings


class SemanticSearch(Protocol):
    """The semantic extra as the services use it (``memories/semantic.py`` implements it).

    A protocol, so this module imports no domain package (they all import it).
    """

    @property
    def available(self) -> bool: ...

    def resolve_mode(self, mode: str | None) -> str: ...

    def notify(self, roots: Iterable[StoreRoot]) -> None: ...

    def search(self, root: StoreRoot, query: SearchQuery, mode: str) -> list[IndexedMemory]: ...

    def status(self, roots: Iterable[StoreRoot]) -> dict[str, Any]: ...

    def rebuild(self, roots: Iterable[StoreRoot]) -> None: ...

    def wait(self, timeout: float | None = None) -> bool: ...

    def close(self, timeout: float = 5.0) -> None: ...


@dataclass
class ServiceContext:
    """Home, roots, audit, clock, ids, actor, focus and settings of one ``Memory``."""

    home: Path
    user: StoreRoot
    audit: AuditLog
    clock: Callable[[], datetime]
    actor: str
    projects: Projects
    settings: Settings
    semantic: SemanticSearch
    id_factory: Callable[[], str] | None = field(default=None)

    @classmethod
    def open(
        cls,
        home: Path,
        *,
        clock: Callable[[], datetime],
        actor: str,
        semantic: SemanticSearch,
        id_factory: Callable[[], str] | None = None,
    ) -> ServiceContext:
        user = StoreRoot(home, layer="user")
        audit = AuditLog(user.layout.audit, root=home)
        return cls(
            home=home,
            user=user,
            audit=audit,
            clock=clock,
            actor=actor,
            projects=Projects(home, user),
            settings=Settings(user, audit, actor, clock),
            semantic=semantic,
            id_factory=id_factory,
        )

    def new_id(self) -> str:
        """A sortable id, unique across processes (or the injected one, in tests)."""
        return self.id_factory() if self.id_factory else new_id(self.clock())
