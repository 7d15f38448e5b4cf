"""One deadline per request bounds every wait in the store (issue 27, finding 1).

Real files, a real lock held by another process, a real (slowed) ``git``. No
wall time is asserted: each test checks that the call gave up while the lock
was still held, or that a sequence of git calls stopped short.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.exceptions import BusyError, LockTimeoutError
from jupyter_memory.store import git as store_git
from jupyter_memory.store.atomic import LOCK_NAME, root_lock
from jupyter_memory.store.deadline import request_deadline
from tests.lock_holder import Holder
from tests.team.gitrepo import git, require_git


def soon(seconds: float = 1.0) -> float:
    return time.monotonic() + seconds


def test_a_lock_wait_ends_at_the_request_deadline_naming_the_lock(tmp_path: Path) -> None:
    holder = Holder(tmp_path / LOCK_NAME)
    try:
        # Its own timeout (30 s) is longer than the hold: only the deadline stops it.
        with (
            request_deadline(soon(0.3)),
            pytest.raises(LockTimeoutError) as caught,
            root_lock(tmp_path, name="home lock"),
        ):
            pass
        assert holder.still_holding()
    finally:
        holder.release()
    assert caught.value.held_by == f"home lock {tmp_path / LOCK_NAME}"
    assert "held by another process" in str(caught.value)
    with request_deadline(soon()), root_lock(tmp_path):  # free again: taken at once
        pass


def test_git_calls_share_one_budget_per_request(tmp_path: Path, monkeypatch) -> None:
    real = require_git()
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    calls = tmp_path / "calls"
    slow = tmp_path / "bin"
    slow.mkdir()
    (slow / "git").write_text(f'#!/bin/sh\necho x >> {calls}\nsleep 0.2\nexec {real} "$@"\n')
    (slow / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{slow}{os.pathsep}{os.environ['PATH']}")
    with request_deadline(soon(0.6)), pytest.raises(BusyError) as caught:
        for _ in range(20):  # 4 s of git with a timeout of 30 s per call
            assert store_git.toplevel(repo) == repo.resolve()
    assert caught.value.held_by == "git"
    assert len(calls.read_text().splitlines()) < 20
    # Outside a request each call keeps its own timeout.
    assert store_git.toplevel(repo) == repo.resolve()


def test_a_read_answers_from_the_index_while_a_writer_holds_the_home(tmp_path: Path) -> None:
    with Memory(home=tmp_path / "home") as reader, Memory(home=tmp_path / "home") as writer:
        reader.remember("Revenue excludes refunds")
        assert [h.text for h in reader.recall("refunds")] != []
        writer.remember("Freight is cost of goods sold")  # an outside write: a sync is due
        holder = Holder(tmp_path / "home" / LOCK_NAME)
        try:
            with request_deadline(soon(), read=True):
                hits = reader.recall("refunds", record_access=False)
            assert holder.still_holding()
            # A write's request waits for the lock instead, until its deadline.
            with request_deadline(soon(0.3)), pytest.raises(LockTimeoutError):
                reader.recall("refunds", record_access=False)
        finally:
            holder.release()
        # The last consistent index answered; the outside write is found once it is free.
        assert [h.text for h in hits] == ["Revenue excludes refunds"]
        assert [h.text for h in reader.recall("freight")] == ["Freight is cost of goods sold"]


def test_the_git_add_after_a_resolving_save_is_not_cut_by_the_deadline(tmp_path: Path) -> None:
    """The file is written by then: a busy answer would say nothing was."""
    from jupyter_memory.service.knowledge.files import mark_resolved

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Ana")
    git(repo, "config", "user.email", "ana@example.org")
    kfile = repo / "knowledge.md"
    kfile.write_text("- base\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "other")
    kfile.write_text("- theirs\n")
    git(repo, "commit", "-q", "-am", "other")
    git(repo, "checkout", "-q", "main")
    kfile.write_text("- ours\n")
    git(repo, "commit", "-q", "-am", "mine")
    assert git(repo, "merge", "--no-edit", "other", check=False).returncode != 0
    kfile.write_text("- ours and theirs\n")  # the save that resolves it
    with request_deadline(time.monotonic()):  # spent: the save took all of it
        mark_resolved(kfile)
    assert git(repo, "ls-files", "--unmerged").stdout == ""
