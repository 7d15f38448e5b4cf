"""The only disk I/O for investigation case memory (spec 000).

Layout inside a workspace::

    team-profile.md                          team write policy (read only)
    cases/CASE-YYYY-NNN/evidence_registry.json  formal evidence (read only, never written)
    cases/CASE-YYYY-NNN/working_papers/      formal working papers (read only)
    cases/CASE-YYYY-NNN/case_memory/         entries + INDEX.md (the only folder written)
    cases/.case-memory/audit.jsonl           audit log of every case memory write
    cases/.case-memory/locks/CASE-.../       the per-case write lock

Keeping the lock and the audit log outside the case folders means a case
folder holds nothing but what spec 000 lists. The workspace is a storage root
(:mod:`.links`): a symlink below it — ``cases/``, a case folder, ``INDEX.md``,
an entry — is never followed. Listings and reads skip what lies beyond a link,
the registry and team profile are refused when linked (a policy file that is
skipped could loosen what may be written), and every write raises
:class:`~jupyter_memory.exceptions.LinkedPathError`. Every write goes through
:func:`~jupyter_memory.store.atomic.write_text_atomic` and is refused unless
its target lies inside the case's ``case_memory/`` folder (red line 1: the
evidence registry, working papers and workflow files are never written).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from ..._i18n import M_
from ...core.cases.entry_format import (
    CASE_ID_RE,
    parse_entry_name,
    validate_case_id,
)
from ...core.cases.index_format import INDEX_NAME, SNAPSHOT_NAME
from ...core.cases.policy import PROFILE_NAME
from ...core.names import reject_unsafe
from ...exceptions import (
    LinkedPathError,
    NotFoundError,
    ParseError,
    StoreError,
    UnsafeNameError,
)
from ..atomic import delete_durable, remove_stale_temp_files, root_lock, write_text_atomic
from ..audit import AuditLog
from ..links import first_link, linked, links_below, refuse_link

CASES_DIR = "cases"
MEMORY_DIR = "case_memory"
REGISTRY_NAME = "evidence_registry.json"
WORKING_PAPERS = "working_papers"
META_DIR = ".case-memory"


def _read(path: Path, root: Path, *, refuse: bool = False) -> str | None:
    """UTF-8 text of ``path``; ``None`` when absent or reached through a link below ``root``.

    ``refuse``: a linked file is an error instead (files that decide what may
    be written must not silently read as absent).
    """
    link = first_link(root, path)
    if link is not None:
        if refuse:
            raise LinkedPathError(link, root=root)
        return None
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ParseError(M_("not UTF-8 text: {reason}", reason=exc.reason), path=path) from exc
    except OSError as exc:
        raise StoreError(
            M_("cannot read: {reason}", reason=exc.strerror or exc),
            path=path,
        ) from exc


class CaseStore:
    """Files of one case: read everything, write only inside ``case_memory/``."""

    def __init__(self, workspace: str | os.PathLike[str], case_id: str) -> None:
        self.workspace = Path(workspace).expanduser().resolve()
        self.case_id = validate_case_id(case_id)
        self.case_dir = self.workspace / CASES_DIR / case_id
        self.memory_dir = self.case_dir / MEMORY_DIR
        self.meta_dir = self.workspace / CASES_DIR / META_DIR
        self.audit = AuditLog(self.meta_dir / "audit.jsonl", root=self.workspace)

    # -- paths --------------------------------------------------------------------

    @property
    def index_path(self) -> Path:
        return self.memory_dir / INDEX_NAME

    @property
    def snapshot_path(self) -> Path:
        return self.memory_dir / SNAPSHOT_NAME

    @property
    def registry_path(self) -> Path:
        return self.case_dir / REGISTRY_NAME

    @property
    def profile_path(self) -> Path:
        return self.workspace / PROFILE_NAME

    def entry_path(self, name: str) -> Path:
        reject_unsafe(name, field="entry")
        return self.memory_dir / name

    def relative(self, path: Path) -> str:
        return path.relative_to(self.workspace).as_posix()

    def _inside_memory_dir(self, path: Path) -> Path:
        """Refuse any write target outside ``case_memory/`` (red line 1) or reached through a link."""
        if path.parent != self.memory_dir:
            raise UnsafeNameError(
                M_(
                    "case memory writes only inside {memory_dir}, not {path}",
                    memory_dir=self.memory_dir,
                    path=path,
                ),
                field="path",
            )
        return refuse_link(self.workspace, path)

    # -- reads ----------------------------------------------------------------------

    def list_names(self) -> tuple[list[str], list[str]]:
        """``(entry file names, stray .md names)`` in ``case_memory/``, sorted (links left out)."""
        if linked(self.workspace, self.memory_dir):
            return [], []
        try:
            names = sorted(os.listdir(self.memory_dir))
        except FileNotFoundError:
            return [], []
        except OSError as exc:
            raise StoreError(
                M_("cannot list: {reason}", reason=exc.strerror or exc),
                path=self.memory_dir,
            ) from exc
        names = [n for n in names if not (self.memory_dir / n).is_symlink()]
        entries = [n for n in names if parse_entry_name(n)]
        stray = [
            n
            for n in names
            if n.endswith(".md") and n not in (INDEX_NAME, SNAPSHOT_NAME) and n not in entries
        ]
        return entries, stray

    def read_entry(self, name: str) -> str:
        text = _read(self.entry_path(name), self.workspace)
        if text is None:
            raise NotFoundError(
                M_(
                    "no case memory entry {name} in {memory_dir}",
                    name=name,
                    memory_dir=self.memory_dir,
                )
            )
        return text

    def read_index(self) -> str | None:
        return _read(self.index_path, self.workspace)

    def read_snapshot(self) -> str | None:
        return _read(self.snapshot_path, self.workspace)

    def read_profile(self) -> str | None:
        return read_team_profile(self.workspace)[1]

    def read_registry(self) -> object | None:
        """The decoded registry; invalid JSON is a :class:`ParseError` (exclusion
        cannot be checked, so writing must stop)."""
        text = _read(self.registry_path, self.workspace, refuse=True)
        if text is None:
            return None
        try:
            data: object = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ParseError(
                M_(
                    "not valid JSON ({msg}); exclusion cannot be checked, nothing written",
                    msg=exc.msg,
                ),
                path=self.registry_path,
                line=exc.lineno,
            ) from exc
        return data

    def read_working_papers(self) -> list[tuple[str, str]]:
        """``(relative name, text)`` of every Markdown working paper."""
        folder = self.case_dir / WORKING_PAPERS
        if linked(self.workspace, folder) or not folder.is_dir():
            return []
        papers = []
        for path in sorted(folder.rglob("*.md")):
            text = _read(path, self.workspace)
            if text is not None:
                papers.append((path.relative_to(self.case_dir).as_posix(), text))
        return papers

    def links(self) -> list[Path]:
        """Symlinks in this case's folder, the case-memory log folder and the
        team profile (``cases/`` itself when that is the link), for doctor."""
        parts = [
            f"{CASES_DIR}/{self.case_id}",
            f"{CASES_DIR}/{META_DIR}",
            PROFILE_NAME,
        ]
        return links_below(self.workspace, parts)

    # -- writes (caller holds :meth:`locked`) -----------------------------------------------

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        with root_lock(self.meta_dir / "locks" / self.case_id, within=self.workspace):
            remove_stale_temp_files(self.memory_dir, root=self.workspace)
            yield

    def _log(self, action: str, path: Path, digest: str | None, actor: str, at: datetime) -> None:
        self.audit.append(
            action, actor=actor, at=at, id=self.case_id, path=self.relative(path), sha256=digest
        )

    def write(self, name: str, text: str, *, action: str, actor: str, at: datetime) -> Path:
        path = self._inside_memory_dir(self.entry_path(name))
        digest = write_text_atomic(path, text, root=self.workspace)
        self._log(action, path, digest, actor, at)
        return path

    def delete(self, name: str, *, actor: str, at: datetime) -> bool:
        path = self._inside_memory_dir(self.entry_path(name))
        gone = delete_durable(path, root=self.workspace)
        if gone:
            self._log("case.delete", path, None, actor, at)
        return gone


def read_team_profile(workspace: str | os.PathLike[str]) -> tuple[Path, str | None]:
    """``(path, text or None)`` of the workspace's ``team-profile.md``."""
    root = Path(workspace).expanduser().resolve()
    path = root / PROFILE_NAME
    return path, _read(path, root, refuse=True)


def list_case_ids(workspace: str | os.PathLike[str]) -> list[str]:
    """Ids of every case under ``<workspace>/cases`` that has a ``case_memory/`` folder."""
    base = Path(workspace).expanduser()
    root = base / CASES_DIR
    if linked(base, root):
        return []
    try:
        names = sorted(os.listdir(root))
    except FileNotFoundError:
        return []
    return [
        n
        for n in names
        if CASE_ID_RE.match(n)
        and not linked(base, root / n / MEMORY_DIR)
        and (root / n / MEMORY_DIR).is_dir()
    ]


def stat_entries(
    workspace: str | os.PathLike[str],
) -> Iterator[tuple[str, str, str, str, str, int, int]]:
    """``(case id, file name, date, type, path, mtime_ns, size)`` of every entry
    file in the workspace: one ``stat`` per file, so a reader can skip files it
    has already seen unchanged."""
    root = Path(workspace).expanduser() / CASES_DIR
    for case_id in list_case_ids(workspace):
        found = []
        with os.scandir(root / case_id / MEMORY_DIR) as it:
            for e in it:
                parts = parse_entry_name(e.name)
                if parts and not e.is_symlink():
                    st = e.stat()
                    found.append((e.name, parts[0], parts[1], e.path, st.st_mtime_ns, st.st_size))
        found.sort()
        for name, date, etype, path, mtime, size in found:
            yield case_id, name, date, etype, path, mtime, size


def read_text_file(path: str | os.PathLike[str]) -> str | None:
    """UTF-8 text of an entry :func:`stat_entries` found (its folders were checked
    there); ``None`` when it vanished meanwhile or became a link."""
    target = Path(path)
    return _read(target, target.parent)
