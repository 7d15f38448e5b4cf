"""Reviewing digested memories: Keep, Discard, Promote (a queue proposal), and what agents see."""

from __future__ import annotations

import pytest

from jupyter_memory.exceptions import NotFoundError, PolicyError
from jupyter_memory.service.agent_access import AgentAccess
from jupyter_memory.service.learning.review import best_quote

ZH_DECISION = "我们决定把退款按渠道拆分，因为财务按渠道对账。"
CELLS = [
    {
        "id": "c1",
        "role": "user",
        "kind": "code",
        "text": "# We decided to drop internal test accounts from refunds because finance excludes them\n"
        "rev = df.sum()",
    },
    {
        "id": "c2",
        "role": "user",
        "kind": "markdown",
        "text": "We decided to count revenue on the booking date because finance closes on it.",
    },
    {"id": "c3", "role": "user", "kind": "markdown", "text": ZH_DECISION},
]


@pytest.fixture
def digested(mem):
    mem.hooks.digest_record("kernel-1", CELLS)
    stored = mem.digest()["stored"]
    assert len(stored) == 3
    return {mem.get(s["id"]).text: s["id"] for s in stored}


def _id(digested: dict, needle: str) -> str:
    return next(i for text, i in digested.items() if needle in text)


def test_unreviewed_lists_digest_memories_with_their_evidence(mem, digested):
    rows = mem.unreviewed()
    assert {r["id"] for r in rows} == set(digested.values())
    fact = next(r for r in rows if "test accounts" in r["text"])
    assert fact["source"] == "session-digest" and fact["work_type"] == "work_fact"
    assert fact["evidence"][0]["quote"].startswith("# We decided to drop internal test accounts")
    assert fact["evidence"][0]["source"] == "kernel-1#c1"


def test_keep_marks_reviewed_and_agents_then_see_it(mem, digested):
    agent = AgentAccess(mem)
    assert agent.recall("refund") == []
    kept = _id(digested, "test accounts")
    assert mem.hooks.keep_memory(kept) == {"id": kept, "status": "kept", "reviewed": True}
    assert mem.get(kept).meta.reviewed is True
    assert [h["id"] for h in agent.recall("refund")] == [kept]
    assert {r["id"] for r in mem.unreviewed()} == set(digested.values()) - {kept}


def test_discard_forgets(mem, digested):
    gone = _id(digested, "退款")
    mem.hooks.discard_memory(gone)
    with pytest.raises(NotFoundError):
        mem.get(gone)
    assert gone not in {r["id"] for r in mem.unreviewed()}


def test_promote_queues_a_proposal_quoting_the_original_message(mem, digested):
    decided = _id(digested, "booking date")
    result = mem.hooks.promote_memory(decided, kind="info")
    assert result["status"] == "promoted"
    proposal = mem.proposal(result["proposal"]["id"])
    assert proposal.status == "pending" and proposal.source == "session-digest"
    assert proposal.kind == "info"
    assert proposal.evidence_quote == CELLS[1]["text"]
    assert proposal.quote_origin.message_id == "c2"
    entry = mem.get(decided)
    assert entry.meta.reviewed is True and (entry.meta.model_extra or {})["promoted_to"] == (
        proposal.id
    )
    assert "booking date" not in mem.knowledge("user")  # proposed, never applied
    # promoting the same knowledge again queues nothing new
    again = mem.hooks.promote_memory(_id(digested, "booking date"))
    assert again["status"] == "skipped"


def test_promote_chinese_memory(mem, digested):
    result = mem.hooks.promote_memory(_id(digested, "退款"))
    proposal = mem.proposal(result["proposal"]["id"])
    assert proposal.evidence_quote == ZH_DECISION


def test_a_memory_without_the_persons_words_cannot_be_promoted(mem):
    entry = mem.remember(
        "Currency conversion could be added",
        source="session-digest",
        reviewed=False,
        tier="daily",
    )
    with pytest.raises(PolicyError, match="evidence"):
        mem.hooks.promote_memory(entry.id)
    assert mem.queue() == []


def test_agents_see_unreviewed_memories_only_when_the_person_turns_it_on(mem, digested):
    agent = AgentAccess(mem)
    assert agent.recall("refund") == [] and not mem.hooks.agent_sees_unreviewed
    assert mem.update_settings(agent_unreviewed=True)["agent_unreviewed"] is True
    assert len(agent.recall("refund")) == 1
    mem.update_settings(agent_unreviewed=False)
    assert agent.recall("refund") == []
    assert mem.context() == ""  # memories never enter the knowledge block


def test_best_quote_picks_the_line_that_carries_the_memory():
    message = "import pandas as pd\n# TODO: exclude internal test accounts\nrev = df.sum()"
    assert best_quote(message, "To do: exclude internal test accounts.") == (
        "# TODO: exclude internal test accounts"
    )
    assert best_quote("one line only", "anything") == "one line only"
