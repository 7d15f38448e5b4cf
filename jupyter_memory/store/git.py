"""The ``git`` binary, as the team layer uses it (docs/teams.md).

Git is the distributed engine of a team project: we read a clone's identity,
register our merge drivers in its config, ask whether a file is unmerged,
stage a resolved file and read a file's history. Nothing here commits, pulls
or pushes: that stays the person's act. Every call runs ``git -C <folder>``
with a timeout; a missing ``git`` or a folder outside any clone gives ``None``
or ``[]``, never an exception, so a project without git keeps working.

Inside a REST request the calls share the request's deadline (store/deadline.py):
a sequence of slow calls stops when the request's time is spent, with a
:class:`BusyError` naming ``git`` (REST answers ``503 busy``), instead of
costing up to GIT_TIMEOUT_S per call.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .._i18n import M_
from ..exceptions import BusyError, StoreError
from .deadline import bounded, waiting

GIT_TIMEOUT_S = 30.0


def git_binary() -> str | None:
    return shutil.which("git")


def _run(folder: Path, *args: str, check: bool = False) -> subprocess.CompletedProcess[str] | None:
    git = git_binary()
    if git is None or not folder.is_dir():
        if check:
            raise StoreError(
                M_("git is not installed (it is needed for a team project)"), path=folder
            )
        return None
    timeout, cut = bounded(GIT_TIMEOUT_S)
    if cut and timeout <= 0:
        raise _spent(args[0])
    try:
        with waiting("git"):
            proc = subprocess.run(
                [git, "-C", str(folder), *args],
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=timeout,
                check=False,
            )
    except subprocess.TimeoutExpired as exc:
        if cut:
            raise _spent(args[0]) from exc
        if check:
            raise StoreError(
                M_("git {command} failed: {exc}", command=args[0], exc=exc), path=folder
            ) from exc
        return None
    except OSError as exc:
        if check:
            raise StoreError(
                M_("git {command} failed: {exc}", command=args[0], exc=exc), path=folder
            ) from exc
        return None
    if check and proc.returncode != 0:
        raise StoreError(
            M_(
                "git {command} failed: {stderr}",
                command=" ".join(args),
                stderr=proc.stderr.strip(),
            ),
            path=folder,
        )
    return proc


def _spent(command: str) -> BusyError:
    return BusyError(
        M_("git {command} is slow: this request's time ran out waiting for it", command=command),
        held_by="git",
        retry_after=5.0,
    )


def _out(folder: Path, *args: str) -> str | None:
    proc = _run(folder, *args)
    if proc is None or proc.returncode != 0:
        return None
    return proc.stdout


def toplevel(folder: Path) -> Path | None:
    """The work tree of the clone ``folder`` is in, or ``None``."""
    out = _out(folder, "rev-parse", "--show-toplevel")
    return Path(out.strip()) if out and out.strip() else None


def config_get(repo: Path, key: str) -> str | None:
    out = _out(repo, "config", "--get", key)
    return out.strip() if out is not None else None


def config_set(repo: Path, key: str, value: str) -> None:
    """Write ``key`` in the clone's own config (``.git/config``, never the global one)."""
    _run(repo, "config", "--local", key, value, check=True)


def identity(folder: Path) -> str | None:
    """``Name <email>`` as git would sign a commit in this clone, or ``None``."""
    name = config_get(folder, "user.name")
    email = config_get(folder, "user.email")
    if not name and not email:
        return None
    if name and email:
        return f"{name} <{email}>"
    return name or f"<{email}>"


def unmerged(repo: Path, relpath: str) -> bool:
    """Is ``relpath`` unmerged in the index (a merge left it conflicted)?"""
    out = _out(repo, "ls-files", "--unmerged", "--", relpath)
    return bool(out and out.strip())


def merge_left_unmerged(path: Path) -> bool | None:
    """Did git leave the file ``path`` unmerged (a merge in progress, conflicted there)?

    ``None`` when the file is not in a clone (or git is missing): no git to ask.
    Conflict markers in a file's text are not the answer: a teammate can commit
    such lines and git merges them cleanly (issue 29).
    """
    top = toplevel(path.parent)
    if top is None:
        return None
    try:
        rel = str(path.resolve().relative_to(top.resolve()))
    except ValueError:
        return None
    return unmerged(top, rel)


def committed_as_is(repo: Path, relpath: str) -> bool:
    """Is ``relpath`` tracked and unchanged since the last commit (nothing to commit)?"""
    tracked = _out(repo, "ls-files", "--error-unmatch", "--", relpath)
    if not tracked:
        return False
    changed = _out(repo, "status", "--porcelain", "--", relpath)
    return changed is not None and not changed.strip()


def stage(repo: Path, relpath: str) -> None:
    """``git add`` one file: marks a resolved conflict as resolved."""
    _run(repo, "add", "--", relpath, check=True)


@dataclass(frozen=True)
class FileCommit:
    commit: str
    parent: str | None
    author: str
    email: str
    at: str  # ISO 8601, the author date


def file_history(repo: Path, relpath: str, *, limit: int = 500) -> list[FileCommit]:
    """Commits that changed ``relpath``, newest first, merges left out."""
    out = _out(
        repo,
        "log",
        f"--max-count={limit}",
        "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%aI",
        # Each commit is diffed against its first parent; a merge only joins
        # what its parents' commits did, and those are listed themselves.
        "--no-merges",
        "--",
        relpath,
    )
    commits: list[FileCommit] = []
    for line in (out or "").splitlines():
        parts = line.split("\x1f")
        if len(parts) != 5:
            continue
        parents = parts[1].split()
        commits.append(FileCommit(parts[0], parents[0] if parents else None, *parts[2:]))
    return commits


@dataclass(frozen=True)
class AddedLine:
    commit: str
    author: str  # ``Name <email>``
    committer: str  # ``Name <email>``
    path: str  # relative to the repository
    line: str  # the added line, without its ``+``


def added_lines(repo: Path, relpath: str, prefix: str, *, limit: int = 2000) -> list[AddedLine]:
    """Lines starting with ``prefix`` that commits added under ``relpath``, newest first.

    One ``git log -p`` for the whole folder (merges left out: their sides are
    listed), so checking who wrote a field of many files costs one call.
    """
    out = _out(
        repo, "log", f"--max-count={limit}", "--no-merges", "--no-renames", "--unified=0",
        "--no-color", "--format=\x1e%H\x1f%an <%ae>\x1f%cn <%ce>", "-p", "--", relpath,
    )  # fmt: skip
    found: list[AddedLine] = []
    for chunk in (out or "").split("\x1e")[1:]:
        head, _, diff = chunk.partition("\n")
        parts = head.split("\x1f")
        if len(parts) != 3:
            continue
        path = None
        for line in diff.splitlines():
            if line.startswith("+++ "):
                path = line[6:] if line.startswith("+++ b/") else None
            elif path and line.startswith("+" + prefix):
                found.append(AddedLine(parts[0], parts[1], parts[2], path, line[1:]))
    return found


def head_commit(repo: Path) -> str | None:
    out = _out(repo, "rev-parse", "HEAD")
    return out.strip() if out else None


def show(repo: Path, commit: str, relpath: str) -> str | None:
    """``relpath`` as it was at ``commit`` (``None`` when it did not exist there)."""
    return _out(repo, "show", f"{commit}:{relpath}")


__all__ = [
    "AddedLine",
    "added_lines",
    "head_commit",
    "FileCommit",
    "committed_as_is",
    "config_get",
    "config_set",
    "file_history",
    "git_binary",
    "identity",
    "merge_left_unmerged",
    "show",
    "stage",
    "toplevel",
    "unmerged",
]
