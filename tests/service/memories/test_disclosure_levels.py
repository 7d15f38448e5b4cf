"""Spec 003's levels (issue 33): L2 carries evidence and provenance; the COLD index names ids."""

from __future__ import annotations

from datetime import datetime, timezone

from jupyter_memory import Memory
from jupyter_memory.core.memories.context_tiers import TierCandidate, select_tiers
from jupyter_memory.core.memories.disclosure import Level, evidence_lines, provenance_line
from jupyter_memory.service.agent_access import AgentAccess

QUOTES = [
    ("finance said refunds are netted out separately", "notebooks/q3.ipynb"),
    ("confirmed in the Q3 close " + "x" * 300, None),
    ("third", None),
    ("fourth", None),
]


def test_evidence_by_level():
    assert evidence_lines(QUOTES, Level.index) == []
    snippet = evidence_lines(QUOTES, Level.snippet, "refunds")
    assert snippet[0] == "finance said refunds are netted out separately — notebooks/q3.ipynb"
    assert len(snippet) == 3 and len(snippet[1]) < 200  # the first few, each cut
    assert len(evidence_lines(QUOTES, Level.full)) == 4


def test_provenance_line():
    line = provenance_line(
        source="session-digest",
        created=datetime(2026, 11, 30, 9, tzinfo=timezone.utc),
        layer="project",
        project="sales-q3",
        reviewed=False,
        evidence=2,
    )
    assert line == "session-digest · 2026-11-30 · project/sales-q3 · evidence ×2 · unreviewed"


def test_snippet_hits_carry_evidence_and_provenance(mem: Memory):
    m = mem.remember(
        "Revenue excludes refunds in the Q3 report",
        evidence=[{"quote": "finance said refunds are netted out", "source": "q3.ipynb"}],
        source="user-correction",
    )
    (hit,) = mem.recall("refunds", record_access=False)
    assert hit.level == "snippet"
    assert hit.evidence == ["finance said refunds are netted out — q3.ipynb"]
    assert hit.provenance == (
        f"user-correction · {m.meta.created.date().isoformat()} · user · evidence ×1 · reviewed"
    )
    (index,) = mem.recall("refunds", level="index", record_access=False)
    assert index.evidence == [] and index.provenance == ""


def test_cold_index_lists_ids_and_recall_takes_an_id(mem: Memory):
    tiers = select_tiers([TierCandidate(id="m-1", title="Old note", text="", attention=0.1)])
    assert [t.line for t in tiers.cold] == ["- m-1: Old note"]
    note = mem.remember("Quarterly targets are set by the finance team", tier="session")
    private = mem.remember("Scratch idea of another agent", agent="qa")
    access = AgentAccess(mem, agent="dev")
    assert [h["id"] for h in access.recall(note.id)] == [note.id]
    # An id is no way around the rules: another agent's private memory stays out.
    assert access.recall(private.id) == []


def test_the_agent_block_cold_index_names_ids(mem: Memory, clock):
    old = mem.remember("Quarterly targets are set by the finance team", tier="session")
    clock.advance(days=10)  # a session memory's attention halves each day: COLD
    block = AgentAccess(mem, agent="dev").context()
    assert f"- {old.id}: Quarterly targets are set by the finance team" in block
    assert "call recall with its id" in block


def test_agents_get_the_evidence_and_provenance(mem: Memory):
    mem.remember(
        "Revenue excludes refunds in the Q3 report",
        evidence=[{"quote": "finance said refunds are netted out", "source": "q3.ipynb"}],
    )
    (hit,) = AgentAccess(mem, agent="dev").recall("refunds")
    assert hit["evidence"] == ["finance said refunds are netted out — q3.ipynb"]
    assert hit["provenance"].startswith("manual · ") and hit["superseded_by"] is None
