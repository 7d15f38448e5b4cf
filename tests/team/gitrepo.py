"""Real git clones for the team tests: a bare origin and one clone per person."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

GIT = shutil.which("git")


def require_git() -> str:
    if GIT is None:
        pytest.fail("the team tests need the `git` binary: apt-get install git")
    return GIT


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [require_git(), "-C", str(cwd), *args], capture_output=True, text=True, check=False
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc


def make_origin(base: Path) -> Path:
    origin = base / "origin.git"
    git(base, "init", "--bare", "-b", "main", str(origin))
    return origin


def clone(origin: Path, where: Path, name: str, email: str) -> Path:
    git(where.parent, "clone", str(origin), str(where))
    git(where, "config", "user.name", name)
    git(where, "config", "user.email", email)
    git(where, "checkout", "-B", "main")
    return where


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def push(repo: Path) -> None:
    git(repo, "push", "-q", "origin", "HEAD:main")


def pull(repo: Path) -> subprocess.CompletedProcess[str]:
    return git(repo, "pull", "--no-rebase", "--no-edit", "origin", "main", check=False)


def write_unmerged(repo: Path, relpath: str, text: str, ours: str, theirs: str) -> None:
    """Leave ``relpath`` as a merge leaves a conflict: ``text`` in the work tree, and
    stages 2 (``ours``) and 3 (``theirs``) in the index, so ``git ls-files -u`` lists it."""
    (repo / relpath).write_text(text, encoding="utf-8")
    blobs = []
    for side in (ours, theirs):
        proc = subprocess.run(
            [require_git(), "-C", str(repo), "hash-object", "-w", "--stdin"],
            input=side, capture_output=True, text=True, check=True,
        )  # fmt: skip
        blobs.append(proc.stdout.strip())
    info = "".join(
        f"100644 {blob} {stage}\t{relpath}\n" for stage, blob in zip((2, 3), blobs, strict=True)
    )
    subprocess.run(
        [require_git(), "-C", str(repo), "update-index", "--index-info"],
        input=f"0 {'0' * 40}\t{relpath}\n" + info, text=True, check=True,
    )  # fmt: skip
