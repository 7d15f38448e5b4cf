"""The person's recent text, kept on disk so that other processes can check quotes.

An agent's ``propose_knowledge`` quote must be the person's own words
(docs/design.md invariant 4). The person types in one process (the kernel, the
Jupyter server's chat) while the agent may call from another (``jupyter-memory
mcp`` started by a coding agent), so the recent texts live in a small bounded
file in the memory home: ``recent/person-text.json``, the newest
:data:`KEEP_RECORDS` records and at most :data:`MAX_TOTAL_BYTES` as JSON (so
the file stays under the JSON reader's one-megabyte cap, Chinese included),
rewritten atomically on each append (the kernel appends its executed cells in
batches about a second apart). The person's chat messages and cells are kept
as evidence; agent replies are kept marked ``assistant`` so a refusal can say
where a quote came from, and never count.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError
from ..atomic import root_lock
from ..json_file import read_json, write_json

KEEP_RECORDS = 200
MAX_RECORD_CHARS = 20_000
MAX_TOTAL_BYTES = 900_000  # the records as JSON: under json_file's one-megabyte read cap
FILE_NAME = "person-text.json"


def _size(record: dict[str, Any]) -> int:
    """The record's bytes in the file (escapes included), plus its indentation."""
    return len(json.dumps(record, ensure_ascii=False).encode("utf-8")) + 4 * (len(record) + 2)


class PersonTextLog:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.folder = home / "recent"
        self.path = self.folder / FILE_NAME

    def read(self) -> list[dict[str, Any]]:
        """Records, oldest first; a damaged file is a clear error naming it."""
        data = read_json(self.path, [], root=self.home)
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise ParseError(M_("must be a JSON list of objects"), path=self.path)
        return data

    def append(self, records: list[dict[str, Any]]) -> int:
        """Add records (each with at least ``role`` and ``text``); returns how many are kept."""
        clean = []
        for record in records:
            text = str(record.get("text", ""))[:MAX_RECORD_CHARS]
            if text.strip():
                clean.append({k: v for k, v in record.items() if v is not None} | {"text": text})
        if not clean:
            return 0
        with root_lock(self.folder, within=self.home):
            kept = (self.read() + clean)[-KEEP_RECORDS:]
            sizes = [_size(r) for r in kept]
            total = sum(sizes)
            while total > MAX_TOTAL_BYTES and len(kept) > 1:
                kept.pop(0)
                total -= sizes.pop(0)
            write_json(self.path, kept, root=self.home)
        return len(kept)

    def drop_holding(self, holds: Callable[[str], bool]) -> int:
        """Remove every record whose text ``holds`` says is forgotten; returns how many."""
        if not self.path.exists():
            return 0
        with root_lock(self.folder, within=self.home):
            records = self.read()
            kept = [r for r in records if not holds(str(r.get("text", "")))]
            if len(kept) != len(records):
                write_json(self.path, kept, root=self.home)
        return len(records) - len(kept)

    def clear(self) -> None:
        with root_lock(self.folder, within=self.home):
            write_json(self.path, [], root=self.home)
