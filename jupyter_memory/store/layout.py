"""Where things live inside a storage root (docs/design.md, "Where things live").

A root is the user's memory home or a project's ``.jupyter-memory`` folder.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

PROJECT_DIR_NAME = ".jupyter-memory"
_PROJECT_GITIGNORE = (
    ".index/\n.jupyter-memory.lock\n.jupyter-memory.netlock\n.jupyter-memory.netlock.break/\n"
    ".*.tmp\n"
)


@dataclass(frozen=True)
class RootLayout:
    root: Path
    # A project on a network file system keeps its index in the user's local
    # cache instead of ``<root>/.index`` (store/storage.py, docs/teams.md).
    index_home: Path | None = None

    @property
    def memories(self) -> Path:
        return self.root / "memories"

    @property
    def archive(self) -> Path:
        return self.root / "memories" / ".old"

    @property
    def index_dir(self) -> Path:
        return self.index_home if self.index_home is not None else self.root / ".index"

    @property
    def index_root(self) -> Path:
        """The folder index paths are checked for links from (invariant 8)."""
        return self.index_home if self.index_home is not None else self.root

    @property
    def index_db(self) -> Path:
        return self.index_dir / "index.sqlite"

    @property
    def access_db(self) -> Path:
        return self.index_dir / "access.sqlite"

    @property
    def audit(self) -> Path:
        return self.root / "audit.jsonl"

    @property
    def knowledge(self) -> Path:
        return self.root / "knowledge.md"

    @property
    def queue(self) -> Path:
        return self.root / "queue"

    @property
    def settings(self) -> Path:
        return self.root / "settings.json"


def project_root(project_dir: Path) -> Path:
    return project_dir / PROJECT_DIR_NAME


def holds_memories(project_dir: Path) -> bool:
    """Whether a project folder has stored memories (looking creates nothing)."""
    return (project_root(project_dir) / "memories").is_dir()


def project_gitignore() -> str:
    """Contents of ``.jupyter-memory/.gitignore``: derived data is never committed."""
    return _PROJECT_GITIGNORE


def kept_out_of_git(parts: tuple[str, ...]) -> bool:
    """Whether a path in a project root (its parts below it) is one our ``.gitignore``
    keeps out of git.

    Those (the index, the locks, temp files) are this clone's own and must be
    private; the rest of ``.jupyter-memory/`` is the team's, and a checkout gives
    it the mode git gives every file (docs/storage.md, "Who can read it").
    """
    return any(_IGNORED.fullmatch(part) for part in parts)


# The .gitignore lines as one pattern over a path's parts (no slash in a line but a
# trailing one: git matches each at any depth), for doctor over a checkout's every file.
_IGNORED = re.compile(
    "|".join(fnmatch.translate(line.rstrip("/")) for line in _PROJECT_GITIGNORE.splitlines())
)
