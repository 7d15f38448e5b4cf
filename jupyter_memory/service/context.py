"""The one context every domain service shares (composition, not mixins).

``Memory`` builds a :class:`ServiceContext` and hands it to each domain service
(knowledge files, queue, digest, tiers, review, semantic recall, …), so each
service can be constructed and tested on its own with a context of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from ..core.ids import new_id
from ..core.progress import ProgressFactory
from ..store.audit import AuditLog
from ..store.memories.search_index import IndexedMemory, SearchQuery
from ..store.root import StoreRoot
from .projects import Projects
from .settings import Settings

# A check ``doctor`` runs beside its own: (problems as (path, kind, message), notices).
DoctorFinding = tuple[list[tuple[str, str, str]], list[str]]


class SemanticSearch(Protocol):
    """The semantic extra as the services use it (``memories/semantic.py`` implements it).

    A protocol, so this module imports no domain package (they all import it).
    """

    @property
    def available(self) -> bool: ...

    def resolve_mode(self, mode: str | None) -> str: ...

    def notify(self, roots: Iterable[StoreRoot], *, asked: bool = False) -> None: ...

    def text_similarity(self) -> Callable[[str, str], float] | None:
        """The embedding cosine of two texts (identity decisions), ``None`` without the extra."""
        ...

    def foreground(self) -> AbstractContextManager[None]:
        """Held around a recall or a write: background embedding waits meanwhile."""
        ...

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
    # Set by an adapter that can draw progress (show_progress); None draws nothing.
    progress: ProgressFactory | None = field(default=None)
    # Checks other services register for ``doctor`` (the team check, issue 17).
    doctor_checks: list[Callable[[], DoctorFinding]] = field(default_factory=list)

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
        settings = Settings(user, audit, actor, clock)
        return cls(
            home=home,
            user=user,
            audit=audit,
            clock=clock,
            actor=actor,
            projects=Projects(home, user, storage_of=settings.project_storage),
            settings=settings,
            semantic=semantic,
            id_factory=id_factory,
        )

    def who(self, folder: Path | None = None) -> str:
        """The person acting, as named in a project's clone (git) or on this machine."""
        from .identity import person

        return person(folder)

    def show_progress(self, factory: ProgressFactory | None) -> None:
        """Show long work (indexing many files, imports, embedding) through ``factory``'s bars."""
        self.progress = factory
        for root in [self.user, *self.projects.cached_roots()]:
            root.progress = factory

    def new_id(self) -> str:
        """A sortable id, unique across processes (or the injected one, in tests)."""
        return self.id_factory() if self.id_factory else new_id(self.clock())
