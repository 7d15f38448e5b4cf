"""Project knowledge that arrived by git without a local Apply (issue 29).

An Apply, a save and a reorganize check the 8,000-character cap and write an
audit line with the file's sha256. A teammate can bypass all of it by
committing ``knowledge.md`` by hand; after a pull every clone's agents read
it. We cannot stop a commit, but we can say what happened: the file's
version is not one this home wrote, the file is as committed (``git status``
clean) and the last commit that touched it is someone else's. Library status
(``arrived``), the panel and ``doctor`` show it, with the size against the cap;
the agent context keeps its own budget either way (core/knowledge/context.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...core.knowledge.format import SAVE_CAP_CHARS
from ...store import git
from ...store.audit import AuditLog
from ...store.knowledge.files import LoadedKnowledge


@dataclass(frozen=True)
class Arrival:
    by: str  # the author of the last commit that changed the file
    commit: str
    chars: int
    over_cap: bool

    @property
    def message(self) -> str:
        if self.over_cap:
            return str(
                M_(
                    "arrived by git from {by}; {chars} characters, over the {cap} cap",
                    by=self.by,
                    chars=f"{self.chars:,}",
                    cap=f"{SAVE_CAP_CHARS:,}",
                )
            )
        return str(
            M_(
                "arrived by git from {by} (commit {commit}), not applied in this clone",
                by=self.by,
                commit=self.commit[:10],
            )
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "commit": self.commit,
            "chars": self.chars,
            "over_cap": self.over_cap,
            "cap": SAVE_CAP_CHARS,
            "message": self.message,
        }


class Arrivals:
    """``arrival(loaded)`` per file version, cached: git is asked once per version."""

    def __init__(self, audit: AuditLog, identity: Any) -> None:
        self.audit = audit
        self.identity = identity  # folder -> this clone's ``Name <email>``
        self._cache: dict[tuple[Path, str], Arrival | None] = {}

    def written(self, path: Path, version: str | None) -> None:
        """This home just wrote ``version`` of ``path`` (and audited it): not an arrival."""
        if version is not None:
            self._cache[(path, version)] = None

    def _written_here(self, loaded: LoadedKnowledge) -> bool:
        # Every write of a knowledge file here audits its sha256 (a save, an Apply,
        # a reorganize); a byte search of the log finds it without parsing each line.
        return self.audit.mentions(loaded.version)

    def arrival(self, loaded: LoadedKnowledge) -> Arrival | None:
        if not loaded.exists:
            return None
        key = (loaded.path, loaded.version)
        if key not in self._cache:
            self._cache[key] = None if self._written_here(loaded) else self._ask_git(loaded)
        return self._cache[key]

    def _ask_git(self, loaded: LoadedKnowledge) -> Arrival | None:
        top = git.toplevel(loaded.path.parent)
        if top is None:
            return None
        rel = os.path.relpath(loaded.path.resolve(), top.resolve())
        if not git.committed_as_is(top, rel):
            return None  # changed here and not committed: a hand edit, not a pull
        history = git.file_history(top, rel, limit=1)
        if not history:
            return None
        last = history[0]
        author = f"{last.author} <{last.email}>"
        if author == self.identity(top):
            return None  # this person's own commit
        chars = len(loaded.text)
        return Arrival(author, last.commit, chars, chars > SAVE_CAP_CHARS)


__all__ = ["Arrival", "Arrivals"]
