"""The person's own text that an agent's quote is checked against, from every surface.

Spec 002 §4.1 and docs/design.md invariant 4: the person's text is "cells,
markdown or chat". An agent's ``propose_knowledge`` (MCP, Jupyter AI, ``%%ask``)
may therefore quote, in this order:

1. the recent texts in ``recent/person-text.json`` (:class:`PersonTextLog`):
   chat messages to an agent and the cells the kernel executed, recorded by
   whichever process saw them (agent replies are kept there too, marked as
   agent output, so a refusal can say where a quote came from);
2. the messages of the Jupyter AI chat the agent answers in (the person's;
   a persona's are agent output), read by the caller from the chat file;
3. the markdown and code cells of the saved notebooks of the project in use
   (read lazily, only when the quote is not among the recent texts).

Never an output (outputs are not read), a raw cell, an agent reply or an
instruction message; never a notebook outside the project, behind a link or
in a hidden folder (``.ipynb_checkpoints``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...core.knowledge.evidence import SourceText, to_sources
from ...exceptions import JupyterMemoryError, PolicyError
from ...store.knowledge.notebook_cells import project_notebooks, read_cells
from ...store.knowledge.person_text import PersonTextLog
from ..context import ServiceContext
from ..secret_guard import redacted, redacted_records

NOTEBOOK_CELL_TYPES = ("markdown", "code")


class EvidenceSources:
    """The sources of one quote check, produced lazily; unreadable notebooks are noted."""

    def __init__(self, recent: list[SourceText], folder: Path | None) -> None:
        self.recent = recent
        self.folder = folder
        self.unreadable: list[str] = []

    def __iter__(self) -> Iterator[SourceText]:
        yield from self.recent
        if self.folder is None:
            return
        # Walked only when the quote was not among the recent texts.
        for path in project_notebooks(self.folder):
            try:
                cells = read_cells(path)
            except JupyterMemoryError as exc:
                # One broken notebook must not hide the person's words in the others.
                self.unreadable.append(str(exc))
                continue
            for cell in cells:
                if cell.cell_type in NOTEBOOK_CELL_TYPES and cell.source.strip():
                    yield SourceText(
                        cell.cell_type, cell.source, cell_id=cell.cell_id, notebook_path=str(path)
                    )


class AgentEvidence:
    """Records the person's text for other processes and builds the sources of a quote check."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def _log(self) -> PersonTextLog:
        return PersonTextLog(self.ctx.home)

    def record_person_text(self, records: Iterable[Mapping[str, Any]]) -> int:
        """Keep the person's chat messages or executed cells; how many were recorded.

        Each record has ``role`` (``user`` for a chat message, ``code`` or
        ``markdown`` for a cell) and ``text``, and may name its ``cell_id``,
        ``message_id`` and ``notebook_path``. Nothing is kept while memory is
        disabled; a record that is not the person's own is refused. Secrets in a
        text are kept as ``⟨redacted: kind⟩``.
        """
        clean = [{k: v for k, v in dict(r).items() if v is not None} for r in records]
        for record, source in zip(clean, to_sources(clean), strict=True):
            if not source.is_persons_own:
                raise PolicyError(
                    M_(
                        "role {role!r} is not the person's own text; it is never evidence",
                        role=record.get("role"),
                    )
                )
        if not clean or not self.ctx.settings.enabled:
            return 0
        # Kept redacted: this file feeds evidence checks and refusals in every process.
        self._log().append(redacted_records(clean))
        return len(clean)

    def record_agent_output(
        self,
        text: str,
        agent: str,
        *,
        cell_id: str | None = None,
        message_id: str | None = None,
        notebook_path: str | None = None,
    ) -> bool:
        """Keep an agent reply, marked as agent output: never evidence, only for the refusal."""
        if not self.ctx.settings.enabled:
            return False
        origin = {"cell_id": cell_id, "message_id": message_id, "notebook_path": notebook_path}
        record = {"role": "assistant", "text": redacted(text), "agent": agent, **origin}
        self._log().append([record])
        return True

    def project_folder(self, project: str | None) -> Path | None:
        """The folder of a registered project id (read from the registry, never registered)."""
        if project is None:
            return None
        folder = self.ctx.projects.known().get(str(project))
        return Path(folder) if folder else None

    def sources(
        self, project: str | None, chat: Iterable[Mapping[str, Any]] = ()
    ) -> EvidenceSources:
        """The person's recent texts, then ``chat`` (the messages of the chat the agent
        answers in, as read from its file), then the cells of ``project``'s saved notebooks."""
        recent = to_sources(self._log().read()) + to_sources(chat)
        return EvidenceSources(recent, self.project_folder(project))


__all__ = ["NOTEBOOK_CELL_TYPES", "AgentEvidence", "EvidenceSources"]
