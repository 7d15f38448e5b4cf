"""Every write holds the embedder's activity gate, not only memory writes (issue 16).

The background embedder starts no batch while a recall or a write runs in the
process. Knowledge saves, proposals, decisions, digests and case notes are
foreground work too: each must pass through the one process-wide gate.
"""

from __future__ import annotations

from jupyter_memory import Memory
from jupyter_memory.service.cases.memory import CaseMemory
from jupyter_memory.service.memories.embed_worker import PROCESS_GATE
from tests.service.case_helpers import CASE, Clock, copy_sample


def _entries(action) -> int:  # type: ignore[no-untyped-def]
    before = PROCESS_GATE.entries
    action()
    return PROCESS_GATE.entries - before


def test_knowledge_writes_hold_the_gate(mem: Memory):
    assert mem.hooks.semantic.gate is PROCESS_GATE  # every Memory shares it
    text = "## Rules\n\n- Refunds are counted in the month they are paid\n"
    assert _entries(lambda: mem.save_knowledge("user", text)) >= 1
    rule = "Churn is counted per calendar month"
    ids: list[str] = []
    assert _entries(lambda: ids.append(mem.propose(rule, "rule", rule, layer="user")["id"])) >= 1
    assert _entries(lambda: mem.apply(ids[0], "user")) >= 1
    other = "Quarterly reports go out on Fridays"
    pid = mem.propose(other, "rule", other, layer="user")["id"]
    assert _entries(lambda: mem.dismiss(pid)) >= 1


def test_digest_recording_holds_the_gate(mem: Memory):
    cells = [{"id": "c1", "role": "user", "kind": "code", "text": "refunds = df.sum()"}]
    assert _entries(lambda: mem.hooks.digest_record("kernel-1", cells)) >= 1


def test_case_writes_hold_the_gate(tmp_path):
    cm = CaseMemory(copy_sample(tmp_path), CASE, clock=Clock())
    assert _entries(lambda: cm.note("insight", "证据", "供应商甲与供应商乙使用同一账户")) >= 1
