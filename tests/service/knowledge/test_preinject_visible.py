"""Pre-inject reorganize a person can see (issue 13, defect 5; spec 002 §6.3).

Only before an agent request that injects; the notice while it runs; bounded
in time (the agent gets the unreorganized block when it takes longer); a
visible message when it fails, also when it fails after the bound; at most once
per conversation and file, counted in the memory home; a ``.bak`` first.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, render_knowledge
from jupyter_memory.service.knowledge.preinject import NOTICE

SUBJECTS = ["Revenue", "Orders", "收入", "Churn"]


def flat_doc(n: int = 80) -> str:
    # The filler pays for label lines: a reorganize never makes the file longer.
    entries = tuple(
        Entry(f"Note that {SUBJECTS[i % 4]} must pass check {i} in region {i * 3}")
        for i in range(n)
    )
    return render_knowledge(KnowledgeDoc(entries, ()))


class SlowLLM:
    """The one allowed double, an external LLM: answers at once, or once the test opens
    ``gate`` (the order is then the test's, not a race against a clock)."""

    def __init__(self, reply: str, gate: threading.Event | None = None) -> None:
        self.reply, self.gate = reply, gate
        self.calls = 0
        self.answered = threading.Event()

    def complete(self, messages, *, max_tokens=2000):  # noqa: ANN001, ANN201
        self.calls += 1
        if self.gate is not None:
            self.gate.wait(30)
        self.answered.set()
        return self.reply


def test_context_alone_never_reorganizes(mem: Memory) -> None:
    mem.save_knowledge("user", flat_doc())
    path = Path(mem.hooks.library_status("user")["path"])
    before = path.read_bytes()
    block = mem.context(conversation="c1")
    assert 'mode="catalog"' in block  # the unreorganized file, listed in catalog mode
    assert path.read_bytes() == before and not Path(f"{path}.bak").exists()


def test_prepare_shows_the_notice_reorganizes_once_and_keeps_a_backup(
    mem: Memory, memory_home: Path
) -> None:
    mem.save_knowledge("user", flat_doc())
    path = Path(mem.hooks.library_status("user")["path"])
    before = path.read_text()
    said: list[str] = []
    report = mem.hooks.prepare_injection(conversation="chat-1", notify=said.append)
    assert said[0].startswith(NOTICE) and report.reorganized == [str(path)]
    assert mem.hooks.knowledge_doc("user").has_groups
    assert Path(f"{path}.bak").read_text() == before
    # Once per conversation and file, also from another Memory (another process).
    mem.save_knowledge("user", flat_doc(90))
    with Memory(memory_home) as other:
        again: list[str] = []
        other.hooks.prepare_injection(conversation="chat-1", notify=again.append)
        assert again == [] and not other.hooks.knowledge_doc("user").has_groups
        other.hooks.prepare_injection(conversation="chat-2", notify=again.append)
        assert again and other.hooks.knowledge_doc("user").has_groups


def test_a_failure_is_said_and_the_block_is_the_file_as_it_was(mem: Memory) -> None:
    mem.save_knowledge("user", flat_doc())
    mem.llm = SlowLLM("not a knowledge file at all")
    said: list[str] = []
    report = mem.hooks.prepare_injection(conversation="c-fail", notify=said.append)
    assert report.failed and said[0].startswith(NOTICE)
    assert "failed" in said[-1] and "as it is" in said[-1]
    assert not mem.hooks.knowledge_doc("user").has_groups
    assert 'mode="catalog"' in mem.context()


def test_a_slow_reorganize_is_bounded_and_a_late_failure_is_said_next_time(
    mem: Memory,
) -> None:
    mem.save_knowledge("user", flat_doc())
    gate = threading.Event()
    llm = SlowLLM("not a knowledge file at all", gate)
    mem.llm = llm
    said: list[str] = []
    report = mem.hooks.prepare_injection(conversation="c-slow", notify=said.append, wait=0.2)
    assert not llm.answered.is_set()  # back before the LLM's answer: the agent did not wait
    assert report.pending and "as it is" in said[-1]
    gate.set()  # the LLM answers now, after the bound
    # Generous deadlines: they bound a test whose answer never comes, not a busy machine.
    assert llm.answered.wait(60)
    deadline = time.monotonic() + 60
    late: list[str] = []
    while not late and time.monotonic() < deadline:
        time.sleep(0.05)
        mem.hooks.prepare_injection(conversation="c-slow", notify=late.append)
    assert late and "failed" in late[0]
    assert llm.calls == 1  # never tried twice in one conversation
