"""Team projects on git (issue 17, docs/teams.md): init, health, settings, conflict resolve.

A team shares a project as one git repository cloned by each member. Git is
the distributed engine: we only make its merges work for our files (merge
drivers registered per clone, ``.gitattributes`` committed with the project),
say who did what, keep derived data out of the repository and off network
file systems, and report what a merge left for a person to decide.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..exceptions import JupyterMemoryError, ValidationError
from ..store import git
from ..store.atomic import write_text_atomic
from ..store.knowledge.queue import QueueStore
from ..store.knowledge.team_files import (
    KNOWLEDGE_DRIVER,
    PROPOSAL_DRIVER,
    attributes_missing,
    read_project_settings,
    write_attributes,
    write_project_settings,
)
from ..store.layout import project_gitignore
from ..store.root import StoreRoot
from .context import DoctorFinding, ServiceContext
from .knowledge.files import KnowledgeFiles, ProjectArg
from .results import MappingResult

DRIVERS = {KNOWLEDGE_DRIVER: "merge-knowledge", PROPOSAL_DRIVER: "merge-proposal"}
DRIVER_NAMES = {
    KNOWLEDGE_DRIVER: "jupyter-memory knowledge files, merged by item",
    PROPOSAL_DRIVER: "jupyter-memory shared-queue proposals, one decision each",
}


def cli_command() -> str:
    """How git should start our CLI: the script beside this Python, else from PATH."""
    script = Path(sys.executable).parent / "jupyter-memory"
    return shlex.quote(str(script)) if script.is_file() else "jupyter-memory"


def driver_line(name: str) -> str:
    return f"{cli_command()} {DRIVERS[name]} %O %A %B %P"


@dataclass(frozen=True, eq=False)
class TeamStatus(MappingResult):
    """A team project as this clone sees it: git, drivers, conflicts, storage."""

    project: str
    folder: str
    git: str | None  # the clone's work tree, or None outside git
    person: str  # who this clone's decisions are recorded as
    drivers_missing: list[str] = field(default_factory=list)
    attributes_missing: list[str] = field(default_factory=list)
    fix: str | None = None  # the one command that repairs the clone
    knowledge_conflict: bool = False
    conflict_line: int | None = None
    contested: list[dict[str, str]] = field(default_factory=list)
    shared_queue: bool = False
    storage: dict[str, str | None] = field(default_factory=dict)

    @property
    def team(self) -> bool:
        """Initialised as a team project (our ``.gitattributes`` lines are there)."""
        return not self.attributes_missing

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "folder": self.folder,
            "git": self.git,
            "person": self.person,
            "team": self.team,
            "drivers_missing": list(self.drivers_missing),
            "attributes_missing": list(self.attributes_missing),
            "fix": self.fix,
            "knowledge_conflict": self.knowledge_conflict,
            "conflict_line": self.conflict_line,
            "contested": list(self.contested),
            "shared_queue": self.shared_queue,
            "storage": dict(self.storage),
        }


@dataclass(frozen=True, eq=False)
class ProjectInit(MappingResult):
    """What ``project init`` did."""

    project: str
    folder: str
    git: str | None
    drivers: list[str]
    attributes_written: bool
    status: TeamStatus
    notices: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "folder": self.folder,
            "git": self.git,
            "drivers": list(self.drivers),
            "attributes_written": self.attributes_written,
            "status": self.status.to_dict(),
            "notices": list(self.notices),
        }


def _ensure_gitignore(root: Path) -> None:
    """Add our lines to ``.jupyter-memory/.gitignore`` (an older one lacks the newer lines)."""
    path = root / ".gitignore"
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = ""
    have = set(old.splitlines())
    missing = [line for line in project_gitignore().splitlines() if line not in have]
    if missing:
        if old and not old.endswith("\n"):
            old += "\n"
        write_text_atomic(path, old + "".join(f"{m}\n" for m in missing), root=root)


class TeamProjects:
    """``project init``, the team health check, project settings and conflict resolution."""

    def __init__(self, ctx: ServiceContext, files: KnowledgeFiles, queue_store: QueueStore) -> None:
        self.ctx = ctx
        self.files = files
        self.queue_store = queue_store

    def _root(self, project: ProjectArg | None) -> tuple[str, StoreRoot]:
        _, root, pid = self.files.layer_root("project", project)
        assert pid is not None  # layer_root names the project of a project layer
        return pid, root

    # -- init ---------------------------------------------------------------------------

    def project_init(self, folder: ProjectArg | None = None) -> ProjectInit:
        """Make a folder a team project (a person's act: it registers the project).

        Creates ``.jupyter-memory/`` with its ``.gitignore``, writes our
        ``.gitattributes`` lines, and registers both merge drivers in this
        clone's ``.git/config`` (git never shares config: each clone runs it).
        """
        target = Path(os.fspath(folder)) if folder is not None else Path.cwd()
        if not target.is_dir():
            raise ValidationError(M_("{target} is not a folder", target=target), field="dir")
        pid = self.ctx.projects.register(target)
        _, root = self.ctx.projects.resolve(pid)
        with root.locked():
            _ensure_gitignore(root.root)
            written = write_attributes(root.root)
        top = git.toplevel(root.root.parent)
        drivers: list[str] = []
        notices: list[str] = []
        if top is None:
            notices.append(
                M_(
                    "{target} is not inside a git clone: run `git init` (or clone the project), "
                    "then `jupyter-memory project init {target}` again to register the merge "
                    "drivers",
                    target=target,
                )
            )
        else:
            for name in DRIVERS:
                git.config_set(top, f"merge.{name}.name", DRIVER_NAMES[name])
                git.config_set(top, f"merge.{name}.driver", driver_line(name))
                drivers.append(name)
        self.ctx.audit.append(
            "project.init",
            actor=self.ctx.actor,
            by=self.ctx.who(root.root.parent),
            at=self.ctx.clock(),
            path=str(root.root),
            project=pid,
            git=str(top) if top else None,
        )
        return ProjectInit(
            pid, str(root.root.parent), str(top) if top else None, drivers, written,
            self.team_status(pid), notices,
        )  # fmt: skip

    # -- health -------------------------------------------------------------------------

    def team_status(self, project: ProjectArg | None = None) -> TeamStatus:
        """How a team project stands in git: clone, merge drivers, shared queue, conflicts."""
        pid, root = self._root(project)
        folder = root.root.parent
        top = git.toplevel(folder)
        missing_attrs = attributes_missing(root.root)
        missing: list[str] = []
        if top is not None:
            for name in DRIVERS:
                line = git.config_get(top, f"merge.{name}.driver")
                if not line or not _runnable(line):
                    missing.append(name)
        fix = None
        if top is not None and (missing or missing_attrs):
            fix = f"jupyter-memory project init {shlex.quote(str(folder))}"
        loaded = None
        with contextlib.suppress(JupyterMemoryError):  # a malformed file is reported elsewhere
            loaded = self.files.file_of(root).load()
        try:
            shared = read_project_settings(root.root).get("shared_queue") is True
        except JupyterMemoryError:
            shared = False
        contested = [
            c for c in self.queue_store.contested() if Path(c["path"]).is_relative_to(root.root)
        ]
        return TeamStatus(
            project=pid,
            folder=str(folder),
            git=str(top) if top else None,
            person=self.ctx.who(folder),
            drivers_missing=missing,
            attributes_missing=missing_attrs,
            fix=fix,
            knowledge_conflict=bool(loaded and loaded.conflict),
            conflict_line=loaded.conflict.first_line if loaded and loaded.conflict else None,
            contested=contested,
            shared_queue=shared,
            storage=root.storage.to_dict(),
        )

    def doctor_findings(self) -> DoctorFinding:
        """The team problems and notices ``doctor`` reports for the project in focus."""
        problems: list[tuple[str, str, str]] = []
        notices: list[str] = []
        if self.ctx.projects.project_root is None:
            return problems, notices
        status = self.team_status()
        path = status.folder
        storage = status.storage
        notices.append(
            M_(
                "project {project}: {kind} storage ({reason}); index in {index}; lock: {lock}",
                project=status.project,
                kind=storage["kind"],
                reason=storage["reason"],
                index=storage["index_dir"] or Path(path) / ".jupyter-memory/.index",
                lock=storage["lock"],
            )
        )
        if status.git is not None and status.team and status.drivers_missing:
            problems.append(
                (
                    path,
                    "merge-driver",
                    M_(
                        "this clone has no git merge driver {drivers}: two Applies in two clones "
                        "would conflict on the next pull; run `{fix}`",
                        drivers=", ".join(status.drivers_missing),
                        fix=status.fix,
                    ),
                )
            )
        if status.knowledge_conflict:
            problems.append(
                (
                    str(Path(path) / ".jupyter-memory" / "knowledge.md"),
                    "knowledge-conflict",
                    f"a git merge left a conflict at line {status.conflict_line} (both versions "
                    "are in the file); agents get the last clean version until it is resolved in "
                    "the Library editor or with `jupyter-memory knowledge resolve`",
                )
            )
        for c in status.contested:
            problems.append((c["path"], "contested", c["message"]))
        arrived = None
        with contextlib.suppress(JupyterMemoryError):  # a malformed file is reported elsewhere
            kstatus = self.files.library_status("project", status.project)
            arrived = kstatus.arrived
        if arrived is not None:
            where = str(Path(path) / ".jupyter-memory" / "knowledge.md")
            if arrived["over_cap"]:
                # Agents read it (within their budget) although no one here reviewed it.
                problems.append((where, "knowledge-arrived", arrived["message"]))
            else:
                notices.append(M_("{path}: {message}", path=where, message=arrived["message"]))
        return problems, notices

    # -- settings -----------------------------------------------------------------------

    def project_settings(
        self,
        project: ProjectArg | None = None,
        *,
        shared_queue: bool | None = None,
        storage: str | None = None,
    ) -> dict[str, Any]:
        """A project's settings: ``shared_queue`` (committed, for the team) and ``storage``
        (this machine's choice: auto, local or network)."""
        pid, root = self._root(project)
        folder = root.root.parent
        if shared_queue is not None:
            if not isinstance(shared_queue, bool):
                raise ValidationError(M_("must be true or false"), field="shared_queue")
            with root.locked():
                write_project_settings(root.root, {"shared_queue": shared_queue})
            self.ctx.audit.append(
                "settings", actor=self.ctx.actor, by=self.ctx.who(folder), at=self.ctx.clock(),
                project=pid, shared_queue=str(shared_queue),
            )  # fmt: skip
        if storage is not None:
            self.ctx.settings.set_project_storage(folder, storage)
            self.ctx.projects.forget_root(pid)
            _, root = self._root(pid)
        data = read_project_settings(root.root)
        return {
            "project": pid,
            "shared_queue": data.get("shared_queue") is True,
            "storage": self.ctx.settings.project_storage(folder) or "auto",
            "storage_in_use": root.storage.to_dict(),
        }

    # -- resolving a merge conflict -----------------------------------------------------

    def resolve_knowledge(
        self,
        project: ProjectArg | None = None,
        *,
        take: str | None = None,
        text: str | None = None,
    ) -> dict[str, Any]:
        """Resolve a conflicted project knowledge file: take ``ours`` or ``theirs``, or save
        ``text`` (the person's merge). Saved like any save (cap, canonical form) and staged."""
        if (take is None) == (text is None):
            raise ValidationError(
                M_("give exactly one of take ('ours'/'theirs') or text"), field="take"
            )
        pid, root = self._root(project)
        loaded = self.files.file_of(root).load(fresh=True)
        if loaded.conflict is None:
            raise ValidationError(
                M_("{path} has no merge conflict to resolve", path=loaded.path), field="take"
            )
        if take is not None:
            if take not in ("ours", "theirs"):
                raise ValidationError(
                    M_("{take!r} is not 'ours' or 'theirs'", take=take), field="take"
                )
            text = loaded.conflict.ours if take == "ours" else loaded.conflict.theirs
        assert text is not None
        status = self.files.save_knowledge("project", text, project=pid, base=loaded.version)
        return {"project": pid, "resolved": True, "status": status.to_dict()}


def _runnable(line: str) -> bool:
    """Does the driver command's program still exist (a moved venv breaks it)?"""
    try:
        program = shlex.split(line)[0]
    except (ValueError, IndexError):
        return False
    if os.sep in program:
        return Path(program).is_file()
    return shutil.which(program) is not None


__all__ = ["ProjectInit", "TeamProjects", "TeamStatus", "cli_command", "driver_line"]
