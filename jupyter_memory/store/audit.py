"""Append-only audit log (JSON lines) of every create, update and delete.

A deletion keeps only id, hash and time: a forgotten memory's text must not
survive in the log (docs/design.md, issue 2 "forget"). Memory lines carry no
file name either (its slug comes from the title); logs written before that
lose the names of a memory when it is forgotten (:meth:`AuditLog.scrub`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..exceptions import ParseError, StoreError
from .atomic import ensure_dir, fsync_dir, write_bytes_atomic
from .links import linked, refuse_link
from .private import open_private

AUDIT_FILE = "audit.jsonl"
# Fields of a line that may hold words of a memory (a file name holds the title's slug).
TEXT_FIELDS = ("path", "title", "name")
SCRUB_TRIES = 5


def audit_record(
    action: str,
    *,
    actor: str,
    at: datetime,
    id: str | None = None,
    path: str | None = None,
    sha256: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """One audit line's object (``None`` values left out)."""
    record: dict[str, Any] = {"at": at.isoformat(), "action": action, "actor": actor}
    if id is not None:
        record["id"] = id
    if path is not None:
        record["path"] = path
    if sha256 is not None:
        record["sha256"] = sha256
    record.update({k: v for k, v in extra.items() if v is not None})
    return record


def _ends_torn(fd: int) -> bool:
    """True when the file open at ``fd`` is not empty and does not end with a newline."""
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


class AuditLog:
    """One JSON object per line; appends are fsynced before returning."""

    def __init__(self, path: Path, *, root: Path | None = None) -> None:
        self.path = path
        # The storage root the log belongs to: nothing between it and the log
        # may be a link. Without one, the log's folder and the log itself.
        self.root = root

    def append(
        self,
        action: str,
        *,
        actor: str,
        at: datetime,
        id: str | None = None,
        path: str | None = None,
        sha256: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        record = audit_record(action, actor=actor, at=at, id=id, path=path, sha256=sha256, **extra)
        self._write([record])
        return record

    def append_many(self, records: list[dict[str, Any]]) -> None:
        """Append records built by :func:`audit_record` with one write and one fsync.

        For bulk imports: 10,000 creates would otherwise pay 10,000 fsyncs.
        """
        if records:
            self._write(records)

    def _write(self, records: list[dict[str, Any]]) -> None:
        line = "".join(
            json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records
        ).encode("utf-8")
        ensure_dir(self.path.parent, root=self.root)
        if self.root is not None:
            refuse_link(self.root, self.path)
        created = not self.path.exists()
        # Read and write: the last byte is read to tell whether the log ends torn.
        flags = os.O_RDWR | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = open_private(self.path, flags)  # the log names every memory file: 0600
            try:
                if _ends_torn(fd):
                    # A writer killed inside a large append left half a line: start
                    # a new one, or this record would be glued to it and lost.
                    line = b"\n" + line
                view = memoryview(line)
                while view:  # a large batch may take more than one write
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise StoreError(
                M_(
                    "audit append failed: {reason}",
                    reason=exc.strerror or exc,
                ),
                path=self.path,
            ) from exc
        if created:
            fsync_dir(self.path.parent)

    def _linked(self) -> bool:
        if self.root is None:
            return self.path.is_symlink()
        return linked(self.root, self.path)

    def mentions(self, token: str) -> bool:
        """Does any line of the log hold ``token`` (a sha256, an id)? One read, no parse."""
        if self._linked() or not self.path.exists():
            return False
        with self.path.open("rb") as fh:
            return token.encode("utf-8") in fh.read()

    def records(self) -> Iterator[dict[str, Any]]:
        """Yield every record; a torn line (crash mid-append) is skipped.

        A torn line is the last one, or one that starts a record and stops
        before its closing brace (the next append started a new line after
        it); any other line that is not JSON is a damaged log, reported with
        its line number.
        """
        if self._linked() or not self.path.exists():
            return  # a linked log is not ours to read; doctor lists the link
        with self.path.open("rb") as fh:
            lines = fh.read().split(b"\n")
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                if number == len(lines) or (number == len(lines) - 1 and not lines[-1]):
                    continue
                if raw.lstrip().startswith(b"{") and not raw.rstrip().endswith(b"}"):
                    continue
                raise ParseError(
                    M_("bad audit line: {exc}", exc=exc), path=self.path, line=number
                ) from exc
            if isinstance(rec, dict):
                yield rec

    def scrub(self, record_id: str) -> int:
        """Drop :data:`TEXT_FIELDS` from every line about ``record_id``; returns lines changed.

        The log is rewritten whole (temp file and rename). Appends take no lock,
        so the rewrite is made again when the log grew while it was being made;
        what is left is the instant between that check and the rename.
        """
        if self._linked() or not self.path.exists():
            return 0
        for _ in range(SCRUB_TRIES):
            try:
                data = self.path.read_bytes()
            except OSError as exc:
                raise StoreError(
                    M_("audit read failed: {reason}", reason=exc.strerror or exc), path=self.path
                ) from exc
            lines = data.split(b"\n")
            changed = 0
            for i, raw in enumerate(lines):
                if record_id.encode() not in raw:
                    continue
                try:
                    rec = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError):
                    continue  # a torn or damaged line: doctor reports it
                if not isinstance(rec, dict) or rec.get("id") != record_id:
                    continue
                if any(k in rec for k in TEXT_FIELDS):
                    clean = {k: v for k, v in rec.items() if k not in TEXT_FIELDS}
                    lines[i] = json.dumps(clean, ensure_ascii=False, sort_keys=True).encode()
                    changed += 1
            if not changed:
                return 0
            if self.path.stat().st_size != len(data):
                continue  # an append landed meanwhile: read again
            write_bytes_atomic(self.path, b"\n".join(lines), root=self.root)
            return changed
        raise StoreError(
            M_("the audit log kept growing; its names were not removed"), path=self.path
        )
