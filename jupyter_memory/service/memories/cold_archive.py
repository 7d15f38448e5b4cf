"""The *cold archive* of memories (spec 003; not the case archive, see docs/design.md §4).

:meth:`ColdArchive.archive` moves memories whose attention fell below 0.1,
that were not touched for 90 days and whose sector TTL ran out
(:mod:`jupyter_memory.core.memories.sectors`, through :class:`TiersService`)
into ``memories/.old/`` byte for byte; :meth:`ColdArchive.restore` brings one
back. Both go through the store and leave a record in the audit log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...store.memories.cold_archive import archive_file, archived, restore_file
from .tier_results import ColdArchivedMemory, ColdArchiveItem, ColdArchiveReport, ColdRestore
from .tiers import TiersService

if TYPE_CHECKING:
    # Types only: the context module imports this package (semantic recall).
    from ..context import ServiceContext


class ColdArchive:
    """Moves cold, stale memories into ``.old/`` and back, for one ``ServiceContext``."""

    def __init__(self, ctx: ServiceContext, tiers: TiersService) -> None:
        self.ctx = ctx
        self.tiers = tiers

    def archive(self, *, dry_run: bool = False) -> ColdArchiveReport:
        """Move memories with attention < 0.1, untouched for 90+ days and past their
        sector TTL, into ``.old/`` (see :mod:`jupyter_memory.core.memories.sectors`)."""
        now = self.ctx.clock()
        moved = []
        for root, row, verdict in self.tiers.tier_rows():
            if not verdict.archive:
                continue
            archived_path = None
            if not dry_run:
                archived_path = str(archive_file(root, row.name))
                self.ctx.audit.append(
                    "archive", actor=self.ctx.actor, at=now, id=row.id, layer=root.layer
                )
            moved.append(
                ColdArchiveItem(
                    id=row.id,
                    title=row.title,
                    layer=root.layer,
                    attention=round(verdict.attention, 4),
                    path=str(root.files.path_of(row.name)),
                    archived_path=archived_path,
                )
            )
        return ColdArchiveReport(dry_run=dry_run, archived=moved)

    def archived(self) -> list[ColdArchivedMemory]:
        """Every memory in the cold archive: id, layer and file name."""
        return [
            ColdArchivedMemory(id=mid, layer=root.layer, name=name)
            for root in self.ctx.projects.roots()
            for mid, name in archived(root)
        ]

    def restore(self, memory_id: str) -> ColdRestore:
        """Bring a memory back from the cold archive (``.old/``)."""
        last_error: Exception | None = None
        for root in self.ctx.projects.roots():
            try:
                path = restore_file(root, memory_id)
            except KeyError as exc:  # NotFoundError in this layer; try the next one
                last_error = exc
                continue
            self.ctx.audit.append(
                "restore", actor=self.ctx.actor, at=self.ctx.clock(), id=memory_id, layer=root.layer
            )
            return ColdRestore(id=memory_id, layer=root.layer, path=str(path))
        assert last_error is not None
        raise last_error
