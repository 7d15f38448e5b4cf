"""``Memory.import_from``'s domain service: the importer, loaded on the first import.

The parsers of six tools load only when a person imports, so a start that
never imports (the CLI, an MCP server) does not pay for them.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .port import MemoryPort

if TYPE_CHECKING:
    from ...core.progress import Progress
    from .report import ImportReport


class MemoryImports:
    """Imports into the memory home or a project, through the facade's own verbs."""

    def __init__(self, memory: MemoryPort) -> None:
        self._memory = memory

    def import_from(
        self,
        source: str,
        path: str | os.PathLike[str],
        project: str | os.PathLike[str] | None = None,
        dry_run: bool = False,
        *,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Import another tool's notes, rules or memories (docs/import.md); an ``ImportReport``."""
        from .importer import import_from

        return import_from(self._memory, source, path, project, dry_run=dry_run, progress=progress)


__all__ = ["MemoryImports"]
