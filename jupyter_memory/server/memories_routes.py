"""Search memories (English and Chinese) at snippet level, read-only."""

from __future__ import annotations

from tornado import web

from ..core.memories.recall_query import RecallQuery
from .base import READ, MemoryHandler, authorized, off_loop
from .focus_routes import notebook_at

MAX_LIMIT = 200
# Recall ranks at most 1,000 hits (RecallQuery); the deepest page ends there.
MAX_OFFSET = 1000 - MAX_LIMIT - 1


class MemoriesHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        limit = self.int_arg("limit", 20, 1, MAX_LIMIT)
        # Later pages (issue 16): recall ranks offset + limit + 1 hits, the extra
        # one tells whether more follow.
        offset = self.int_arg("offset", 0, 0, MAX_OFFSET)
        project = self.project_arg()
        path = self.get_argument("path", "")
        if project is None and path:
            # ?path=<notebook>: the project in use for it, the one its kernel's %recall
            # searches (the person's choice, else the registered project it sits in).
            project = self.backend.memory.hooks.focus_of(notebook=notebook_at(self, path)).project
        query = RecallQuery.of(
            self.get_argument("q", ""),
            type=self.get_argument("type", None) or None,
            tier=self.get_argument("tier", None) or None,
            project=project,
            recent=self.get_argument("recent", None) or None,
            limit=offset + limit + 1,
            level="snippet",
            # A GET changes nothing, not even access counts.
            record_access=False,
        )
        ranked = self.backend.memory.hooks.recall_query(query)
        hits = ranked[offset : offset + limit]
        more = len(ranked) > offset + limit
        self.reply({"hits": hits, "count": len(hits), "offset": offset, "more": more})
