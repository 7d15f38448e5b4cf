"""How many knowledge proposals each agent conversation has used, kept in the memory home.

A conversation can outlive the process serving it (an MCP client restarts
its stdio server, or runs two), so the count lives in
``recent/agent-proposals.json`` — ``{key: {"count": n, "last": ISO time}}`` —
and is read and rewritten atomically under the folder's inter-process lock.
A conversation silent for :data:`KEEP_DAYS` is dropped, and at most
:data:`KEEP_CONVERSATIONS` (the most recently used) are kept, so the file stays small.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError, ValidationError
from ..atomic import root_lock
from ..json_file import read_json, write_json

FILE_NAME = "agent-proposals.json"
KEEP_DAYS = 30
KEEP_CONVERSATIONS = 500
MAX_KEY_CHARS = 200


def _check_key(key: str) -> str:
    if not isinstance(key, str) or not key.strip() or len(key) > MAX_KEY_CHARS:
        raise ValidationError(
            M_(
                "must be a non-empty string of at most {limit} characters",
                limit=MAX_KEY_CHARS,
            ),
            field="conversation",
        )
    return key


class ProposalAllowance:
    """Counts per conversation; ``file_name`` keeps another count the same way.

    The pre-inject reorganize (once per conversation and knowledge file) is
    counted in ``recent/agent-preinject.json`` with the same guarantees.
    """

    def __init__(self, home: Path, file_name: str = FILE_NAME) -> None:
        self.home = home
        self.folder = home / "recent"
        self.path = self.folder / file_name

    def read(self) -> dict[str, dict[str, Any]]:
        """Counts by conversation key; a damaged file is a clear error naming it."""
        data = read_json(self.path, {}, root=self.home)
        if not isinstance(data, dict):
            raise ParseError(M_("must be a JSON object of conversation → count"), path=self.path)
        for key, value in data.items():
            count = value.get("count") if isinstance(value, dict) else None
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise ParseError(
                    M_("conversation {key!r}: count must be a whole number", key=key),
                    path=self.path,
                )
            if not isinstance(value.get("last"), str):
                raise ParseError(
                    M_("conversation {key!r}: last must be an ISO time", key=key), path=self.path
                )
        return data

    def used(self, key: str) -> int:
        entry = self.read().get(_check_key(key))
        return int(entry["count"]) if entry else 0

    def take(self, key: str, limit: int, at: datetime) -> bool:
        """Use one of ``limit`` calls of conversation ``key``; False when none is left."""
        _check_key(key)
        with root_lock(self.folder, within=self.home):
            data = self._current(self.read(), at)
            count = int(data.get(key, {}).get("count", 0))
            if count >= limit:
                return False
            data[key] = {"count": count + 1, "last": at.isoformat()}
            newest = sorted(data, key=lambda k: data[k]["last"], reverse=True)
            write_json(self.path, {k: data[k] for k in newest[:KEEP_CONVERSATIONS]}, root=self.home)
        return True

    def _current(self, data: dict[str, dict[str, Any]], at: datetime) -> dict[str, dict[str, Any]]:
        cutoff = at - timedelta(days=KEEP_DAYS)
        out = {}
        for key, value in data.items():
            try:
                last = datetime.fromisoformat(value["last"])
            except ValueError:
                raise ParseError(
                    M_(
                        "conversation {key!r}: last {last!r} is not an ISO time",
                        key=key,
                        last=value["last"],
                    ),
                    path=self.path,
                ) from None
            if last.tzinfo is None or last >= cutoff:
                out[key] = value
        return out
