"""Session-digest state on disk: pending messages, cursors and scene pools.

Everything lives under ``<memory home>/digest/`` and is written durably under
that folder's lock:

* ``inbox/<hash>.json`` — one file per session key: ``{"session_key",
  "consumed", "messages"}``. ``consumed`` is the cursor: messages before it
  were digested; a batch is the messages after it. Advancing the cursor and
  dropping old consumed messages is one atomic rewrite of the file, so a batch
  is consumed once — also when it yields nothing — and a crash before the
  rewrite only means the batch is digested again, never lost.
* ``cursors.json`` — how many messages of each read-only source (a Jupyter AI
  ``*.chat`` file) were digested.
* ``scenes/<hash>.json`` — the scene pool of one project (``[{"id", "label"}]``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError
from ..atomic import root_lock
from ..json_file import read_json, write_json
from ..links import linked

KEEP_CONSUMED = 12  # consumed messages kept as background context for the next batch
MAX_PENDING = 5_000  # a session that is never digested stops growing past this


def _key_file(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:24] + ".json"


class DigestStore:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.folder = home / "digest"
        self.inbox = self.folder / "inbox"
        self.scenes = self.folder / "scenes"
        self.cursor_file = self.folder / "cursors.json"

    # -- pending messages ---------------------------------------------------------------

    def _read_inbox(self, path: Path) -> dict[str, Any]:
        data = read_json(path, None, root=self.home)
        if data is None:
            return {}
        ok = (
            isinstance(data, dict)
            and isinstance(data.get("session_key"), str)
            and isinstance(data.get("consumed"), int)
            and isinstance(data.get("messages"), list)
        )
        if not ok:
            raise ParseError(
                M_("not a digest inbox {{session_key, consumed, messages}}"), path=path
            )
        return dict(data)

    def append(self, session_key: str, messages: list[dict[str, Any]]) -> int:
        """Add new messages of a session; returns how many are pending."""
        path = self.inbox / _key_file(session_key)
        with root_lock(self.folder, within=self.home):
            data = self._read_inbox(path) or {
                "session_key": session_key,
                "consumed": 0,
                "messages": [],
            }
            data["messages"].extend(messages)
            overflow = len(data["messages"]) - data["consumed"] - MAX_PENDING
            if overflow > 0:
                del data["messages"][:overflow]
            write_json(path, data, root=self.home)
            return len(data["messages"]) - int(data["consumed"])

    def has_inbox(self, session_key: str) -> bool:
        """Was anything ever recorded for this session (consumed or not)?"""
        path = self.inbox / _key_file(session_key)
        return not linked(self.home, path) and path.is_file()

    def pending(self, session_key: str | None = None) -> list[dict[str, Any]]:
        """Inboxes with unconsumed messages: ``{session_key, consumed, messages}`` each."""
        if session_key is not None:
            paths = [self.inbox / _key_file(session_key)]
        else:
            listable = self.inbox.is_dir() and not linked(self.home, self.inbox)
            paths = sorted(self.inbox.glob("*.json")) if listable else []
        out = []
        for path in paths:
            data = self._read_inbox(path)
            if data and len(data["messages"]) > data["consumed"]:
                out.append(data)
        return out

    def consume(self, session_key: str, upto: int) -> None:
        """Mark the first ``upto`` messages consumed and drop all but the last few of them."""
        path = self.inbox / _key_file(session_key)
        with root_lock(self.folder, within=self.home):
            data = self._read_inbox(path)
            if not data:
                return
            consumed = max(int(data["consumed"]), min(upto, len(data["messages"])))
            drop = max(0, consumed - KEEP_CONSUMED)
            data["messages"] = data["messages"][drop:]
            data["consumed"] = consumed - drop
            write_json(path, data, root=self.home)

    def drop_holding(self, holds: Callable[[str], bool]) -> int:
        """Remove every message (pending or consumed) whose text ``holds`` says is forgotten."""
        listable = self.inbox.is_dir() and not linked(self.home, self.inbox)
        if not listable:
            return 0
        dropped = 0
        with root_lock(self.folder, within=self.home):
            for path in sorted(self.inbox.glob("*.json")):
                data = self._read_inbox(path)
                if not data:
                    continue
                messages, consumed = data["messages"], int(data["consumed"])
                gone = [i for i, m in enumerate(messages) if holds(str(m.get("text", "")))]
                if not gone:
                    continue
                data["messages"] = [m for i, m in enumerate(messages) if i not in set(gone)]
                data["consumed"] = consumed - sum(1 for i in gone if i < consumed)
                write_json(path, data, root=self.home)
                dropped += len(gone)
        return dropped

    # -- cursors of read-only sources ----------------------------------------------------

    def cursors(self) -> dict[str, int]:
        data = read_json(self.cursor_file, {}, root=self.home)
        if not isinstance(data, dict) or not all(isinstance(v, int) for v in data.values()):
            raise ParseError(M_("must be a JSON object of source → count"), path=self.cursor_file)
        return {str(k): int(v) for k, v in data.items()}

    def set_cursor(self, source: str, value: int) -> None:
        with root_lock(self.folder, within=self.home):
            data = self.cursors()
            data[source] = value
            write_json(self.cursor_file, data, root=self.home)

    # -- scene pools ---------------------------------------------------------------------

    def pool(self, project: str) -> list[dict[str, str]]:
        path = self.scenes / _key_file(project)
        data = read_json(path, [], root=self.home)
        if not isinstance(data, list) or not all(
            isinstance(r, dict) and isinstance(r.get("id"), str) and isinstance(r.get("label"), str)
            for r in data
        ):
            raise ParseError(M_("must be a JSON array of {{id, label}}"), path=path)
        return [{"id": r["id"], "label": r["label"]} for r in data]

    def add_scenes(self, project: str, labels: list[str]) -> dict[str, str]:
        """Give each new label a pool id (``sc0001`` …); returns label → id."""
        path = self.scenes / _key_file(project)
        with root_lock(self.folder, within=self.home):
            pool = self.pool(project)
            by_label = {r["label"]: r["id"] for r in pool}
            for label in labels:
                if label not in by_label:
                    by_label[label] = f"sc{len(pool) + 1:04d}"
                    pool.append({"id": by_label[label], "label": label})
            write_json(path, pool, root=self.home)
        return by_label
