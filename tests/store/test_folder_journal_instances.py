"""A write's inotify window reuses an instance of an earlier window (closing one waits for
the kernel's grace period): what the earlier window saw never reaches a later one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from jupyter_memory.store.memories import folder_journal as journal

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify: Linux")


def test_a_later_window_sees_only_its_own_changes(tmp_path: Path) -> None:
    with journal.watching(tmp_path, expect="a.md") as first:
        assert first.ok
        (tmp_path / "foreign.md").write_text("x")  # unread: this window is never judged
        reused = first.fd
    with journal.watching(tmp_path, expect="b.md") as second:
        assert second.fd == reused  # the same instance, emptied
        (tmp_path / "b.md").write_text("y")
        assert second.clean(journal.stamp_of(tmp_path))
    with journal.watching(tmp_path, expect="c.md") as third:
        (tmp_path / "foreign.md").write_text("changed")
        assert not third.clean(journal.stamp_of(tmp_path))


def test_two_open_windows_use_two_instances(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    with journal.watching(tmp_path / "one") as one, journal.watching(tmp_path / "two") as two:
        assert one.fd != two.fd
        (tmp_path / "two" / "x.md").write_text("x")
        assert one.clean(journal.stamp_of(tmp_path / "one"))
        assert not two.clean(journal.stamp_of(tmp_path / "two"))


def test_a_forked_child_does_not_share_the_instances(tmp_path: Path) -> None:
    with journal.watching(tmp_path):
        pass  # one instance kept for the next window
    kept = list(journal._instances._free)
    assert kept
    pid = os.fork()
    if pid == 0:  # the child: none kept, so its windows read only their own queues
        os._exit(0 if journal._instances._free == [] else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert journal._instances._free == kept  # the parent keeps its own
