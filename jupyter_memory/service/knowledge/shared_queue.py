"""A shared review queue: a project's proposals as files in the project folder (issue 17).

Opt-in per project (``jupyter-memory settings --project DIR --shared-queue on``,
kept in the project's ``project.json``, so every clone reads the same switch).
Proposals for such a project are written to ``<project>/.jupyter-memory/queue/``,
one file per proposal so git merges them, carrying who proposed them
(``proposed_by``); any member's queue lists them and any member may decide
them (``decided_by``). Everything else stays in the person's own queue in the
memory home. Two clones that decided one proposal differently meet in git's
merge of that file (:mod:`...core.knowledge.proposal_merge`): one decision
holds and the other is kept as ``contested`` and reported.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..._i18n import M_
from ...core.knowledge.proposal_merge import dated_before_creation
from ...core.knowledge.proposals import Proposal
from ...exceptions import ConflictError
from ...store.knowledge.queue import QueueStore
from ...store.knowledge.team_files import shared_queue_on
from ...store.layout import RootLayout, project_root
from ...store.root import StoreRoot
from ..projects import Projects
from .decision_check import DecisionWriters, early_decisions

Who = Callable[[Path | None], str]


class TeamQueueStore(QueueStore):
    """The person's queue plus the shared queues of the registered projects that have one."""

    def __init__(self, layout: RootLayout, projects: Projects, who: Who) -> None:
        super().__init__(layout)
        self.projects = projects
        self.who = who
        self._shared: dict[Path, QueueStore] = {}
        self._writers = DecisionWriters()

    # -- which queues ------------------------------------------------------------------

    def shared_stores(self) -> dict[str, QueueStore]:
        """Project id → queue store of every registered project whose queue is shared."""
        out: dict[str, QueueStore] = {}
        for pid, folder in self.projects.known().items():
            root = project_root(Path(folder))
            if shared_queue_on(root):
                if root not in self._shared:
                    self._shared[root] = QueueStore(RootLayout(root))
                out[pid] = self._shared[root]
        return out

    def folders(self) -> list[Path]:
        """Every queue folder read: the person's, then each shared one (for watchers)."""
        return [self.folder, *(s.folder for s in self.shared_stores().values())]

    def _store_of(self, path: Path) -> tuple[str | None, QueueStore]:
        for pid, store in self.shared_stores().items():
            if path.parent == store.folder:
                return pid, store
        return None, self

    def _project_root(self, pid: str) -> StoreRoot:
        return self.projects.resolve(pid)[1]

    # -- QueueStore, over all queues ---------------------------------------------------

    def _files(self) -> list[Path]:
        files = super()._files()
        for store in self.shared_stores().values():
            files += store._files()
        return files

    def add(self, proposal: Proposal) -> tuple[Path, str]:
        pid = proposal.project
        store = self.shared_stores().get(pid) if pid is not None else None
        if pid is None or store is None:
            return super().add(proposal)
        root = self._project_root(pid)
        person = self.who(root.root.parent)
        # An agent's proposal is queued in the person's session: say both.
        by = f"an agent, in {person}'s session" if proposal.source == "agent" else person
        proposal = proposal.model_copy(update={"proposed_by": by})
        with root.locked():
            return store.add(proposal)

    def replace(self, path: Path, proposal: Proposal) -> str:
        pid, store = self._store_of(path)
        if pid is None:
            return super().replace(path, self._signed(proposal, None))
        root = self._project_root(pid)
        with root.locked():
            # Re-read under the project's lock: a teammate on the same shared
            # folder may have decided it since it was read.
            current = store.find(proposal.id)[1]
            # An impossible (early-dated) decision may be decided again (issue 29).
            settled = not current.is_pending and not dated_before_creation(current)
            if settled and current.status != proposal.status:
                raise ConflictError(
                    M_(
                        "proposal {id} was already {status} by {who}",
                        id=proposal.id,
                        status=current.status,
                        who=getattr(current, "decided_by", None) or "someone else",
                    ),
                    state=current.status,
                )
            return QueueStore.replace(store, path, self._signed(proposal, root.root.parent))

    def _signed(self, proposal: Proposal, folder: Path | None) -> Proposal:
        """A decided proposal names who decided it."""
        if proposal.is_pending or getattr(proposal, "decided_by", None):
            return proposal
        return proposal.model_copy(update={"decided_by": self.who(folder)})

    def purge(self, path: Path, digest: str) -> None:
        pid, store = self._store_of(path)
        if pid is None:
            super().purge(path, digest)
            return
        # A shared proposal's hash is kept in the project's dismissed.json, which
        # git carries to every clone: a teammate is not offered it again either.
        super().add_dismissed(digest)
        with self._project_root(pid).locked():
            store.purge(path, digest)

    def dismissed_hashes(self) -> set[str]:
        hashes = super().dismissed_hashes()
        for store in self.shared_stores().values():
            hashes |= store.dismissed_hashes()
            good, _ = store.scan()
            hashes |= {p.dedup_hash for _, p in good if p.status == "dismissed" and p.dedup_hash}
        return hashes

    def contested(self) -> list[dict[str, str]]:
        """Two clones' decisions kept apart by git's merge, plus decisions no commit
        vouches for: dated before their proposal, or committed by someone else (issue 29)."""
        out = super().contested()
        seen = {c["path"] for c in out}
        good, _ = self.scan()
        decided = [(path, p) for path, p in good if not p.is_pending]
        extra = early_decisions(decided)
        for store in self.shared_stores().values():
            mine = [(path, p) for path, p in decided if path.parent == store.folder]
            extra += self._writers.unvouched(store.folder, mine)
        return out + [c for c in extra if c["path"] not in seen]

    def state(self) -> tuple[int, int]:
        mtime, count = super().state()
        for store in self.shared_stores().values():
            m, c = store.state()
            mtime, count = max(mtime, m), count + c
        return mtime, count


__all__ = ["TeamQueueStore"]
