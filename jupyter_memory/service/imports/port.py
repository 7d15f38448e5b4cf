"""The part of the ``Memory`` facade an import uses: its verbs, and a few of its hooks.

A protocol rather than an import of ``service.memory``: the facade imports
this package to delegate, so this package must not import the facade.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from ...core.knowledge.format import KnowledgeDoc
from ...core.knowledge.proposals import Proposal


class ImportHooks(Protocol):
    """The plumbing an import reads (``Memory.hooks``, service/hooks.py)."""

    @property
    def project_dir(self) -> Path | None: ...

    @property
    def clock(self) -> Callable[[], datetime]: ...

    def known_projects(self) -> dict[str, str]: ...

    def knowledge_doc(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> KnowledgeDoc: ...

    def import_jsonl(
        self, path: str | os.PathLike[str], *, source: str = "import"
    ) -> list[str]: ...


class MemoryPort(Protocol):
    @property
    def hooks(self) -> ImportHooks: ...

    @property
    def home(self) -> Path: ...

    @property
    def project_id(self) -> str | None: ...

    @property
    def enabled(self) -> bool: ...

    def focus(self, project: str | os.PathLike[str] | None) -> str | None: ...

    def export(self) -> list[dict[str, Any]]: ...

    def queue(self, *, include_decided: bool = False) -> list[Proposal]: ...

    def propose(
        self,
        text: str,
        kind: str,
        evidence_quote: str,
        layer: str | None = None,
        project: str | os.PathLike[str] | None = None,
        source: str = "manual",
        *,
        messages: Iterable[Any] | None = None,
        conversation: str | None = None,
        quote_origin: dict[str, str] | None = None,
    ) -> Any: ...
