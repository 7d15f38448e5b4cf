"""Search memories (English and Chinese) at snippet level, read-only."""

from __future__ import annotations

from tornado import web

from ..core.memories.recall_query import RecallQuery
from .base import READ, ApiError, MemoryHandler, authorized

MAX_LIMIT = 200


class MemoriesHandler(MemoryHandler):
    @web.authenticated
    @authorized(action="read", resource=READ)
    def get(self) -> None:
        try:
            limit = int(self.get_argument("limit", "20"))
        except ValueError:
            raise ApiError(
                422, "limit: must be a whole number", error="invalid", field="limit"
            ) from None
        if not 1 <= limit <= MAX_LIMIT:
            raise ApiError(422, f"limit: must be 1..{MAX_LIMIT}", error="invalid", field="limit")
        query = RecallQuery.of(
            self.get_argument("q", ""),
            type=self.get_argument("type", None) or None,
            tier=self.get_argument("tier", None) or None,
            project=self.project_arg(),
            recent=self.get_argument("recent", None) or None,
            limit=limit,
            level="snippet",
            # A GET changes nothing, not even access counts.
            record_access=False,
        )
        hits = self.backend.memory.recall_query(query)
        self.reply({"hits": hits, "count": len(hits)})
