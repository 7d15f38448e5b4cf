"""Per-conversation proposal counts in the memory home: shared by processes, durable, bounded."""

from __future__ import annotations

import multiprocessing
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from jupyter_memory.exceptions import ParseError, ValidationError
from jupyter_memory.store.knowledge import proposal_allowance
from jupyter_memory.store.knowledge.proposal_allowance import ProposalAllowance

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


def _take_twice(home: str, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    allowance = ProposalAllowance(Path(home))
    for _ in range(2):
        results.put(allowance.take("mcp-stdio:agent:42:1000", 5, T0))


@pytest.mark.slow  # processes racing: make test, not make test-fast
def test_processes_of_one_conversation_share_one_allowance(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=_take_twice, args=(str(tmp_path), results)) for _ in range(6)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=60)
        assert proc.exitcode == 0
    granted = [results.get(timeout=60) for _ in range(12)]
    assert granted.count(True) == 5 and granted.count(False) == 7
    assert ProposalAllowance(tmp_path).used("mcp-stdio:agent:42:1000") == 5


def test_conversations_are_counted_apart_and_old_ones_are_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The same rule at 20 as at the shipped 500 (505 rewrites of a growing file).
    keep = 20
    monkeypatch.setattr(proposal_allowance, "KEEP_CONVERSATIONS", keep)
    allowance = ProposalAllowance(tmp_path)
    assert allowance.take("a", 2, T0) and allowance.take("a", 2, T0)
    assert not allowance.take("a", 2, T0)
    assert allowance.take("b", 2, T0)
    # A conversation silent for longer than the keep window starts afresh ...
    later = T0 + timedelta(days=31)
    assert allowance.take("c", 2, later)
    assert allowance.used("a") == 0 and allowance.used("c") == 1
    # ... and the file never holds more than KEEP_CONVERSATIONS conversations.
    for i in range(keep + 5):
        allowance.take(f"k{i}", 2, later + timedelta(seconds=i))
    assert len(allowance.read()) == keep
    assert allowance.used(f"k{keep + 4}") == 1
    assert allowance.used("k0") == 0  # the oldest went


def test_a_damaged_file_is_named_and_kept(tmp_path: Path) -> None:
    allowance = ProposalAllowance(tmp_path)
    allowance.path.parent.mkdir(parents=True)
    allowance.path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ParseError, match="agent-proposals.json"):
        allowance.take("a", 5, T0)
    assert allowance.path.read_text(encoding="utf-8") == "{not json"
    allowance.path.write_text('{"a": {"count": "many"}}', encoding="utf-8")
    with pytest.raises(ParseError, match="count"):
        allowance.take("a", 5, T0)
    with pytest.raises(ValidationError, match="conversation"):
        ProposalAllowance(tmp_path).take("", 5, T0)
