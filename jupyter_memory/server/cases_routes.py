"""Investigation case memory, read-only: cases with their INDEX rows, one entry, search.

Case memory is never injected into an agent's context (docs/design.md invariant 3);
the panel only shows it to the person, as text.
"""

from __future__ import annotations

from typing import Any

from tornado import web

from ..core.cases.entry_format import validate_case_id
from ..service.cases.memory import CaseMemory, list_cases
from ..service.cases.search import search_cases
from .base import READ, MemoryHandler, authorized


def _index_view(case: CaseMemory) -> dict[str, Any]:
    index = case.index()
    return {
        "id": index.case_id,
        "name": index.name,
        "period": index.period,
        "rows": index.rows,
    }


class CasesHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
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
    def get(self, case_id: str) -> None:
        case = CaseMemory(self.backend.workspace, validate_case_id(case_id))
        entries = []
        for record in case.entries():
            item = record.to_dict()
            item.pop("body")
            entries.append(item)
        self.reply({**_index_view(case), "entries": entries})


class CaseEntryHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    def get(self, case_id: str, entry: str) -> None:
        case = CaseMemory(self.backend.workspace, validate_case_id(case_id))
        self.reply(case.get(entry).to_dict())
