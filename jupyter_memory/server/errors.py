"""Service exceptions → (HTTP status, JSON payload), without importing tornado.

Shared by the request handlers and the reorganize worker process, so both
report the same error the same way.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import (
    BusyError,
    ConflictError,
    JupyterMemoryError,
    KnowledgeConflictError,
    LockTimeoutError,
    NotFoundError,
    OversizeError,
    ParseError,
    PolicyError,
    StoreError,
    UpstreamError,
    ValidationError,
)


def status_and_payload(exc: JupyterMemoryError) -> tuple[int, dict[str, Any]]:
    message = str(exc)
    if isinstance(exc, OversizeError):
        return 413, {"message": message, "error": "too_large", "field": exc.field}
    if isinstance(exc, ValidationError):
        return 422, {"message": message, "error": "invalid", "field": exc.field}
    if isinstance(exc, NotFoundError):
        return 404, {"message": message, "error": "not_found"}
    if isinstance(exc, KnowledgeConflictError):
        # Both sides, so the editor can show the newer file beside the person's text.
        return 409, {
            "message": message,
            "error": "conflict",
            "state": exc.state,
            "path": str(exc.path),
            "current": {"text": exc.current_text, "version": exc.current_version},
            "yours": {"text": exc.text, "base": exc.base},
        }
    if isinstance(exc, ConflictError):
        return 409, {"message": message, "error": "conflict", "state": exc.state}
    if isinstance(exc, PolicyError):
        return 409, {"message": message, "error": "refused_by_policy"}
    if isinstance(exc, ParseError):
        # Text that does not parse (a save, or a stored file edited by hand): the
        # message names the file and line to fix.
        return 422, {"message": message, "error": "unparseable", "path": str(exc.path or "")}
    if isinstance(exc, UpstreamError):
        # A model or service past this server failed (a bad gateway), not the request.
        return 502, {"message": message, "error": "upstream_failed", "service": exc.service}
    if isinstance(exc, (BusyError, LockTimeoutError)):
        # Another process holds what this needs (a lock, a slow git) past the request's
        # deadline: nothing was written; the panel says so and asks again.
        return 503, {
            "message": message,
            "error": "busy",
            "retry_after": exc.retry_after,
            "held_by": exc.held_by,
        }
    if isinstance(exc, StoreError):
        return 500, {"message": message, "error": "write_failed", "path": str(exc.path or "")}
    return 500, {"message": message, "error": "memory_error"}
