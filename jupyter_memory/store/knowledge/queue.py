"""The proposal queue on disk: one file per proposal in ``<home>/queue/``, dismissed hashes.

Writes go through :mod:`.atomic` under the user root's lock (held by the
caller). A proposal file that cannot be read is reported with its path and
never rewritten; the rest of the queue stays usable.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..._i18n import M_
from ...core.knowledge.proposals import (
    Proposal,
    parse_proposal,
    proposal_file_name,
    render_proposal,
)
from ...core.names import validate_id
from ...exceptions import NotFoundError, ParseError, StoreError
from ..atomic import delete_durable, remove_stale_temp_files, write_text_atomic
from ..json_file import read_json, write_json
from ..layout import RootLayout
from ..links import linked
from ..mtimes import folder_fingerprint

DISMISSED_FILE = "dismissed.json"


def _contested_message(path: Path, p: Proposal, holds: str, other: dict[str, object]) -> object:
    if other.get("invalid"):
        # Set aside by the merge driver: it could not have been made (issue 29).
        return M_(
            "{path}: proposal {id}: a decision {status} by {who} dated {at}, before the "
            "proposal was created, was set aside; {holds_status} by {holds} holds "
            "(decide it again to settle it)",
            path=path,
            id=p.id,
            status=other.get("status"),
            who=other.get("decided_by") or "someone",
            at=str(other.get("decided_at") or "?")[:10],
            holds_status=p.status,
            holds=holds,
        )
    return M_(
        "{path}: proposal {id} was decided differently in two clones: {status} by {holds} "
        "holds; {other_status} by {other_by} was set aside (decide it again to settle it)",
        path=path,
        id=p.id,
        status=p.status,
        holds=holds,
        other_status=other.get("status"),
        other_by=other.get("decided_by") or "someone",
    )


class QueueStore:
    def __init__(self, layout: RootLayout) -> None:
        self.root = layout.root
        self.folder = layout.queue
        self.dismissed_path = layout.root / DISMISSED_FILE
        # Parsed proposals by path, valid while (mtime_ns, size, inode) is unchanged:
        # every enqueue compares against the whole pending queue.
        self._parsed: dict[Path, tuple[tuple[int, int, int], Proposal]] = {}
        self._paths: dict[str, Path] = {}  # each file's path, by name (see _files)

    def _read(self, path: Path) -> Proposal:
        st = path.stat()
        key = (st.st_mtime_ns, st.st_size, st.st_ino)
        hit = self._parsed.get(path)
        if hit is not None and hit[0] == key:
            return hit[1]
        proposal = parse_proposal(path.read_bytes(), path=path)
        self._parsed[path] = (key, proposal)
        return proposal

    def _files(self) -> list[Path]:
        # A linked queue/ folder, or a linked proposal file, is never read (doctor lists it).
        if linked(self.root, self.folder) or not self.folder.is_dir():
            return []
        # One scandir, whose entries know their type without a stat (a queue of 5,000
        # was three stats a file per listing with glob, is_symlink and is_file). Names
        # sort as their paths in one folder do, and each path is made once and kept:
        # pathlib's joins and comparisons were most of an apply's time on that queue.
        with os.scandir(self.folder) as entries:
            names = sorted(
                e.name
                for e in entries
                if e.name.endswith(".md") and e.is_file(follow_symlinks=False)
            )
        known = self._paths
        self._paths = {name: known.get(name) or self.folder / name for name in names}
        return list(self._paths.values())

    def scan(self) -> tuple[list[tuple[Path, Proposal]], list[tuple[Path, str]]]:
        """Every readable proposal (by file name: date order) and the unreadable files."""
        good: list[tuple[Path, Proposal]] = []
        bad: list[tuple[Path, str]] = []
        for path in self._files():
            try:
                good.append((path, self._read(path)))
            except ParseError as exc:
                bad.append((path, str(exc)))
            except OSError as exc:
                bad.append((path, f"{path}: cannot read: {exc.strerror or exc}"))
        return good, bad

    def find(self, proposal_id: str) -> tuple[Path, Proposal]:
        validate_id(proposal_id)
        matches = [p for p in self._files() if p.name.endswith(f"-{proposal_id}.md")]
        if not matches:
            raise NotFoundError(
                M_("no proposal with id {proposal_id!r} in the queue", proposal_id=proposal_id)
            )
        path = matches[0]
        proposal = parse_proposal(path.read_bytes(), path=path)
        if proposal.id != proposal_id:
            raise ParseError(
                M_(
                    "file holds proposal {id!r}, not {proposal_id!r}",
                    id=proposal.id,
                    proposal_id=proposal_id,
                ),
                path=path,
            )
        return path, proposal

    def add(self, proposal: Proposal) -> tuple[Path, str]:
        """Write a new proposal file (caller holds the lock)."""
        path = self.folder / proposal_file_name(proposal)
        if path.exists():
            raise StoreError(M_("proposal {id} already exists", id=proposal.id), path=path)
        remove_stale_temp_files(self.folder, root=self.root)
        return path, self.replace(path, proposal)

    def replace(self, path: Path, proposal: Proposal) -> str:
        text = render_proposal(proposal)
        digest = write_text_atomic(path, text, root=self.root)
        if parse_proposal(path.read_bytes(), path=path) != proposal:
            raise StoreError(M_("proposal read-back does not match what was written"), path=path)
        return digest

    def dismissed_hashes(self) -> set[str]:
        data = read_json(self.dismissed_path, [], root=self.root)
        if not isinstance(data, list) or not all(isinstance(h, str) for h in data):
            raise ParseError(M_("must be a JSON list of hashes"), path=self.dismissed_path)
        return set(data)

    def add_dismissed(self, digest: str) -> None:
        hashes = self.dismissed_hashes()
        if digest not in hashes:
            write_json(self.dismissed_path, sorted(hashes | {digest}), root=self.root)

    def purge(self, path: Path, digest: str) -> None:
        """Delete a dismissed proposal's file, its dedup hash kept (caller holds the lock).

        The hash goes into this queue's ``dismissed.json`` first: a crash between
        the two leaves the file and the hash, never neither.
        """
        self.add_dismissed(digest)
        delete_durable(path, root=self.root)
        self._parsed.pop(path, None)
        if path.exists():
            raise StoreError(M_("file still present after delete"), path=path)

    def contested(self) -> list[dict[str, str]]:
        """Proposals two clones decided differently: git's merge kept one decision and
        the other as ``contested`` (core/knowledge/proposal_merge.py); each is reported."""
        out: list[dict[str, str]] = []
        for path, p in self.scan()[0]:
            other = getattr(p, "contested", None)
            if isinstance(other, dict):
                holds = getattr(p, "decided_by", None) or "someone"
                out.append(
                    {
                        "path": str(path),
                        "id": p.id,
                        "kind": "contested",
                        "message": str(_contested_message(path, p, holds, other)),
                    }
                )
        return out

    def folders(self) -> list[Path]:
        """Every queue folder this store reads."""
        return [self.folder]

    def fingerprint(self) -> tuple[object, ...]:
        """Each queue folder's stamp and its entries' (name, mtime_ns, size, inode), from
        ``stat`` alone: equal fingerprints, same proposals (every write is a temp file
        renamed into the folder; a hand edit changes the file's stamp). What a cache
        of anything derived from the queue is keyed by; it sees another process's
        writes and a teammate's ``git pull`` of a shared queue."""
        return tuple(folder_fingerprint(f, inodes=True) for f in self.folders())

    def state(self) -> tuple[int, int]:
        """A cheap fingerprint of the queue folder (mtime, file count) for watchers."""
        try:
            return self.folder.stat().st_mtime_ns, len(self._files())
        except FileNotFoundError:
            return 0, 0
