"""Investigation case memory, read-only: cases with their INDEX rows, one entry, search.

``GET /cases/{id}?type=&evidence=&hypothesis=`` filters the entries (all given
filters must match). Each case carries ``problems``: files that could not be
read or that share one INDEX.md row (reported; their rows are kept as they are).

Case memory is never injected into an agent's context (docs/design.md invariant 3);
the panel only shows it to the person, as text.
"""

from __future__ import annotations

from typing import Any

from tornado import web

from ..core.cases.entry_format import (
    ENTRY_TYPES,
    EVIDENCE_RE,
    HYPOTHESIS_RE,
    validate_case_id,
)
from ..exceptions import ValidationError
from ..service.cases.memory import CaseMemory, list_cases
from ..service.cases.search import search_cases
from .base import READ, MemoryHandler, authorized, off_loop


def _index_view(case: CaseMemory) -> dict[str, Any]:
    index = case.index()
    return {
        "id": index.case_id,
        "name": index.name,
        "period": index.period,
        "rows": index.rows,
        "problems": [str(p) for p in case.doctor().blocking],
    }


def _filter(handler: MemoryHandler, name: str, allowed: Any, example: str) -> str | None:
    """One filter argument, checked: a typo must not read as "no entries"."""
    value = handler.get_argument(name, "").strip()
    if not value:
        return None
    ok = value in allowed if isinstance(allowed, tuple) else allowed.match(value)
    if not ok:
        raise ValidationError(f"{value!r} is not {example}", field=name)
    return value


class CasesHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        workspace = self.backend.workspace
        query = self.get_argument("q", "").strip()
        if query:
            hits = search_cases(workspace, query, limit=100)
            self.reply({"hits": [h.to_dict() for h in hits], "count": len(hits)})
            return
        cases = [_index_view(CaseMemory(workspace, cid)) for cid in list_cases(workspace)]
        self.reply({"workspace": str(workspace), "cases": cases})


class CaseHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self, case_id: str) -> None:
        case = CaseMemory(self.backend.workspace, validate_case_id(case_id))
        records = case.entries(
            type=_filter(self, "type", ENTRY_TYPES, "one of " + ", ".join(ENTRY_TYPES)),
            evidence=_filter(self, "evidence", EVIDENCE_RE, "an evidence id like E-007"),
            hypothesis=_filter(self, "hypothesis", HYPOTHESIS_RE, "a hypothesis id like H-2"),
        )
        entries = []
        for record in records:
            item = record.to_dict()
            item.pop("body")
            entries.append(item)
        self.reply({**_index_view(case), "entries": entries})


class CaseEntryHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self, case_id: str, entry: str) -> None:
        case = CaseMemory(self.backend.workspace, validate_case_id(case_id))
        self.reply(case.get(entry).to_dict())
