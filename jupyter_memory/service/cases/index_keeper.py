"""``CaseIndexKeeper``: one case's entry files and the ``INDEX.md`` derived from them.

The one owner of the case's :class:`~jupyter_memory.store.cases.files.CaseStore`,
its clock and its write policy. It reads the entry files (the authority),
checks ``INDEX.md`` against them, repairs and rewrites it, and reads both back
after a write. :class:`~.memory.CaseMemory`, the note writer (``note.py``) and
the archiver (``archive.py``) all go through these public methods, so the
index rules live in one place. Callers that write hold :meth:`locked`.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from ..._i18n import M_, Message, joined
from ...core.cases.entry_format import (
    CaseEntry,
    parse_entry,
    parse_entry_name,
    render_entry,
)
from ...core.cases.index_format import (
    CaseIndex,
    CaseIndexRow,
    entry_row,
    parse_index,
    parse_index_header,
    period_of,
    render_index,
    salvage_rows,
)
from ...core.cases.policy import DEFAULT_POLICY, WritePolicy, parse_team_profile
from ...exceptions import (
    ConflictError,
    DerivedIndexError,
    LinkedPathError,
    NotFoundError,
    ParseError,
    PolicyError,
    UnsafeNameError,
    ValidationError,
)
from ...store.cases.files import CaseStore, read_team_profile
from ...store.links import linked
from ..memories.embed_worker import foreground
from .index_check import index_problems
from .results import CaseProblem, CaseRecord, DoctorReport

EntryRef = str | os.PathLike[str] | CaseRecord


def _local_now() -> datetime:
    return datetime.now().astimezone()


def workspace_policy(workspace: str | os.PathLike[str]) -> WritePolicy:
    """The Memory Write Policy of ``<workspace>/team-profile.md`` (``notify`` + hint if unset,
    unknown or unreadable: spec 000's safe default never stops writing)."""
    try:
        path, text = read_team_profile(workspace)
    except LinkedPathError:
        raise  # a linked policy file is refused, never read as absent (invariant 8)
    except ParseError as exc:  # not UTF-8
        return WritePolicy(
            DEFAULT_POLICY,
            source=str(exc.path) if exc.path else None,
            hint=M_(
                "{error}; it cannot be read; using the safe default 'notify'. Save it as UTF-8 "
                "text with a line 'Memory Write Policy: silent|notify|disabled'.",
                error=exc,
            ),
        )
    return parse_team_profile(text, path=str(path))


class CaseIndexKeeper:
    """``CaseIndexKeeper(workspace, "CASE-2026-001")``: load, check, repair, write, read back."""

    def __init__(
        self,
        workspace: str | os.PathLike[str],
        case_id: str,
        *,
        name: str | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = CaseStore(workspace, case_id)
        if not self.store.workspace.is_dir():
            raise NotFoundError(
                M_("workspace folder not found: {workspace}", workspace=self.store.workspace)
            )
        if name is not None and ("\n" in name or not name.strip()):
            raise ValidationError(M_("must be one non-empty line"), field="name")
        self.name = name.strip() if name else None  # the 案件 line; else INDEX.md's, else the id
        self._clock = clock or _local_now

    @property
    def case_id(self) -> str:
        return self.store.case_id

    @property
    def workspace(self) -> Path:
        return self.store.workspace

    @property
    def memory_dir(self) -> Path:
        return self.store.memory_dir

    def now(self) -> datetime:
        return self._clock()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """The case's write lock: load, decide and write under one hold.

        Also holds the background embedder back (a write is foreground work).
        """
        with foreground(), self.store.locked():
            yield

    # -- policy --------------------------------------------------------------------------

    def policy(self) -> WritePolicy:
        """The team's Memory Write Policy (read before every write attempt)."""
        return workspace_policy(self.workspace)

    def require_writable(self) -> WritePolicy:
        pol = self.policy()
        if pol.value == "disabled":
            raise PolicyError(
                M_(
                    "Memory Write Policy is disabled in {source}: case memory is read-only",
                    source=pol.source,
                )
            )
        return pol

    # -- reading -------------------------------------------------------------------------

    def entry_name(self, entry: EntryRef) -> str:
        """The file name of an entry given by name, path (inside case_memory/) or record."""
        if isinstance(entry, CaseRecord):
            return entry.name
        raw = os.fspath(entry)
        path = Path(raw)
        if len(path.parts) > 1:
            resolved = (self.workspace / path).resolve() if not path.is_absolute() else path
            if resolved.parent != self.memory_dir:
                resolved = (self.memory_dir / path).resolve()
            if resolved.parent != self.memory_dir.resolve():
                raise UnsafeNameError(
                    M_("{raw!r} is not inside {memory_dir}", raw=raw, memory_dir=self.memory_dir),
                    field="entry",
                )
            raw = resolved.name
        if parse_entry_name(raw) is None:
            raise UnsafeNameError(
                M_("{raw!r} is not a case memory file (<YYYY-MM-DD>_<type>_<slug>.md)", raw=raw),
                field="entry",
            )
        return self._as_listed(raw)

    def _as_listed(self, name: str) -> str:
        """``name`` as the folder lists it: a Korean or Japanese name typed in NFC
        names the file HFS+ (or a copy from it) lists decomposed, and back."""
        if name.isascii():
            return name
        want = unicodedata.normalize("NFC", name)
        for listed in self.store.list_names()[0]:
            if listed == name:
                return name
            if unicodedata.normalize("NFC", listed) == want:
                return listed
        return name

    def record(self, entry: EntryRef) -> CaseRecord:
        """One entry read and parsed (strictly: an unreadable file is a ParseError)."""
        name = self.entry_name(entry)
        text = self.store.read_entry(name)
        parsed = parse_entry(text, path=self.store.relative(self.store.entry_path(name)))
        return CaseRecord(self.case_id, name, self.store.entry_path(name), parsed)

    def load(self) -> tuple[list[CaseRecord], list[CaseProblem]]:
        """Every entry file that parses, and the problems of those that do not."""
        names, stray = self.store.list_names()
        records: list[CaseRecord] = []
        problems: list[CaseProblem] = []
        rel_dir = self.store.relative(self.memory_dir)
        for name in names:
            rel = f"{rel_dir}/{name}"
            try:
                entry = parse_entry(self.store.read_entry(name), path=rel)
            except ParseError as exc:
                # Reported, its INDEX.md row kept as it is; only a write of this
                # entry stops (writes of the others go on).
                detail = M_("{reason}; its INDEX.md row is kept as it is", reason=exc.reason)
                problems.append(
                    CaseProblem("entry-unparseable", rel, detail, blocking=True, files=(name,))
                )
                continue
            date, etype, _ = parse_entry_name(name) or ("", "", "")
            if entry.legacy:  # a v1 file may lack fields its name carries
                entry = replace(entry, type=entry.type or etype, date=entry.date or date)
            if (entry.type, entry.date) != (etype, date):
                problems.append(
                    CaseProblem(
                        "name-mismatch",
                        rel,
                        M_(
                            "file says {date} {type}, its name says {name_date} {name_type}",
                            date=entry.date,
                            type=entry.type,
                            name_date=date,
                            name_type=etype,
                        ),
                    )
                )
            records.append(CaseRecord(self.case_id, name, self.memory_dir / name, entry))
        for name in stray:
            rel = self.store.relative(self.store.entry_path(name))
            problems.append(
                CaseProblem(
                    "stray", rel, M_("not named <YYYY-MM-DD>_<type>_<slug>.md; not indexed")
                )
            )
        return records, problems + self._ambiguous(records)

    def _ambiguous(self, records: list[CaseRecord]) -> list[CaseProblem]:
        by_key: dict[tuple[str, str, str], list[str]] = {}
        for r in records:
            by_key.setdefault(entry_row(r.entry).key, []).append(r.name)
        return [
            CaseProblem(
                "ambiguous",
                self.store.relative(self.store.index_path),
                M_(
                    "files {files} would own the same row {row}; "
                    "rename one title so each row names one file",
                    files=", ".join(owners),
                    row=" | ".join(key),
                ),
                blocking=True,
                files=tuple(owners),
            )
            for key, owners in by_key.items()
            if len(owners) > 1
        ]

    def expected_index(
        self, records: Iterable[CaseRecord], index_text: str | None = None
    ) -> CaseIndex:
        """The index the files imply (the 案件 name kept from INDEX.md unless given),
        with the rows of entries that cannot be read kept from INDEX.md as they are."""
        records = list(records)
        existing = self.store.read_index() if index_text is None else index_text
        ordered = [
            (r.date, r.name, entry_row(r.entry))
            for r in sorted(records, key=lambda r: (r.date, r.name))
        ]
        ordered += [(row.date, "", row) for row in self.kept_rows(records, existing)]
        rows = tuple(row for _, _, row in sorted(ordered, key=lambda t: (t[0], t[1])))
        old_name = parse_index_header(existing)[1] if existing else None
        name = self.name or old_name or self.case_id
        return CaseIndex(self.case_id, name, period_of(rows), rows)

    def unreadable(self, records: Iterable[CaseRecord]) -> list[str]:
        """Entry files in the folder that ``records`` lacks: those that cannot be read."""
        have = {r.name for r in records}
        return [n for n in self.store.list_names()[0] if n not in have]

    def kept_rows(
        self, records: Iterable[CaseRecord], index_text: str | None
    ) -> tuple[CaseIndexRow, ...]:
        """Rows of INDEX.md owned by no readable entry whose date and type are those
        of an unreadable entry file: kept as they are (the file is the authority
        and cannot be read, so its row is not guessed anew nor dropped)."""
        records = list(records)
        lost = self.unreadable(records)
        if not lost or not index_text:
            return ()
        spots = {(p[0], p[1]) for n in lost if (p := parse_entry_name(n))}
        owned = {entry_row(r.entry).key for r in records}
        return tuple(
            row
            for row in salvage_rows(index_text)
            if row.key not in owned and (row.date, row.type) in spots
        )

    def check(self, records: list[CaseRecord], problems: list[CaseProblem]) -> DoctorReport:
        """``problems`` plus every link and every way INDEX.md differs from the files."""
        report = DoctorReport(self.case_id, entries=len(records), problems=list(problems))
        # A link is never followed (issue 19): reads skip it, a write through it
        # raises LinkedPathError naming it; doctor lists each one.
        report.problems.extend(
            CaseProblem(
                "symlink",
                self.store.relative(link),
                M_("symlink is never followed; replace it with the real file or folder"),
            )
            for link in self.store.links()
        )
        if self.memory_dir.is_dir() and not linked(self.workspace, self.memory_dir):
            index_text = self.store.read_index()
            report.problems.extend(
                index_problems(
                    self.expected_index(records, index_text or ""),
                    index_text,
                    {entry_row(r.entry).key: self.store.relative(r.path) for r in records},
                    self.store.relative(self.store.index_path),
                )
            )
        return report

    # -- writing (the caller holds the lock) ---------------------------------------------

    def ensure_index(
        self, actor: str, target: str | None = None
    ) -> tuple[list[CaseRecord], DoctorReport]:
        """Repair INDEX.md from the files before writing entry ``target``.

        Writing stops (raises, naming the entry file and INDEX.md) only when
        ``target`` itself cannot be read or would share its INDEX.md row with
        another file; every other damaged or ambiguous entry is reported in the
        returned report and its row kept, and the write goes on."""
        records, problems = self.load()
        report = self.check(records, problems)
        self.stop_if_blocked(report, target)
        if any(p.repairable for p in report.problems):
            self.write_index(records, actor, action="case.repair")
            report.repaired = True
        return records, report

    def stop_if_blocked(self, report: DoctorReport, target: str | None) -> None:
        """Raise, naming the entry file and INDEX.md, when ``target`` cannot be
        read or shares its INDEX.md row with another file."""
        stopping = [p for p in report.blocking if target is not None and target in p.files]
        if stopping:
            index = self.store.relative(self.store.index_path)
            entry = self.store.relative(self.store.entry_path(target or ""))
            lines = joined("; ", [p.as_message() for p in stopping])
            raise DerivedIndexError(
                M_(
                    "case memory writing stopped for {case_id}: {entry} and its row in {index} "
                    "cannot be told apart or read: {lines}",
                    case_id=self.case_id,
                    entry=entry,
                    index=index,
                    lines=lines,
                )
            )

    def write_index(self, records: list[CaseRecord], actor: str, *, action: str) -> None:
        text = render_index(self.expected_index(records))
        self.store.write("INDEX.md", text, action=action, actor=actor, at=self.now())

    def write_entry(self, name: str, entry: CaseEntry, actor: str, *, action: str) -> Path:
        return self.store.write(
            name, render_entry(entry), action=action, actor=actor, at=self.now()
        )

    def why_not_rewritable(self, record: CaseRecord) -> Message | None:
        """Why ``record``'s file must be left alone, or ``None`` when it may be rewritten."""
        if record.legacy:
            return M_("a legacy v1 entry: read-only, never rewritten")
        text = self.store.read_entry(record.name)
        if render_entry(record.entry) != text.replace("\r\n", "\n"):
            return M_(
                "edited beyond the entry format; rewriting it would lose text, so it is "
                "left alone (edit its status by hand)"
            )
        return None

    def rewrite(self, record: CaseRecord, new: CaseEntry, actor: str) -> None:
        """Replace an entry file (never a legacy one, never one edited beyond our format)."""
        why = self.why_not_rewritable(record)
        if why is not None:
            raise ConflictError(
                M_("{name} is {why}", name=record.name, why=why)
                if record.legacy
                else M_("{name} was {why}", name=record.name, why=why)
            )
        self.write_entry(record.name, new, actor, action="case.update")

    def delete_entry(self, name: str, actor: str) -> None:
        self.store.delete(name, actor=actor, at=self.now())

    def verify(self, name: str, records: list[CaseRecord]) -> None:
        """Read the entry and INDEX.md back and compare status and links."""
        rel = self.store.relative(self.store.entry_path(name))
        entry = parse_entry(self.store.read_entry(name), path=rel)
        index = self._read_back()
        rows = [r for r in index.rows if r.key == entry_row(entry).key]
        expected = self.expected_index(records).rows
        if len(rows) != 1 or rows[0] != entry_row(entry) or len(index.rows) != len(expected):
            raise DerivedIndexError(
                M_(
                    "read-back mismatch between {rel} and INDEX.md (status or links differ)",
                    rel=rel,
                )
            )

    def verify_gone(self, gone: list[CaseRecord], records: list[CaseRecord]) -> None:
        """Read INDEX.md back after deleting ``gone``: no file, no row left of them."""
        rows = self._read_back().rows
        keys = {r.key for r in rows}
        left = [r.name for r in gone if entry_row(r.entry).key in keys or r.path.exists()]
        if left or len(rows) != len(self.expected_index(records).rows):
            raise DerivedIndexError(
                M_("read-back after archive: still present: {names}", names=", ".join(left))
            )

    def _read_back(self) -> CaseIndex:
        return parse_index(self.store.read_index() or "", path=str(self.store.index_path))


__all__ = ["CaseIndexKeeper", "EntryRef", "workspace_policy"]
