"""``Memory.digest`` / ``digest_record`` / ``archive`` / ``restore`` on real files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest

from jupyter_memory.exceptions import NotFoundError, PolicyError, ValidationError

T0 = 1767225600000

CELLS = [
    {
        "id": "c1",
        "role": "user",
        "kind": "markdown",
        "text": "# Refund reconciliation",
        "timestamp": T0,
    },
    {
        "id": "c2",
        "role": "user",
        "kind": "code",
        "text": "# TODO: exclude internal test accounts from the refund totals\n"
        "# We decided to drop test accounts because finance excludes them from revenue\n"
        "rev = df.sum()",
        "timestamp": T0 + 1000,
    },
    {
        "id": "c3",
        "role": "assistant",
        "kind": "chat",
        "text": "TODO: you could add a currency conversion step",
        "timestamp": T0 + 2000,
    },
    {
        "id": "c4",
        "role": "user",
        "kind": "markdown",
        "timestamp": None,
        "text": "We decided to count revenue on the booking date because finance closes on it.",
    },
]


def test_digest_stores_unreviewed_memories_with_evidence(mem):
    assert mem.hooks.digest_record("kernel-1", CELLS) == 4
    report = mem.digest()
    assert report["extractor"] == "deterministic"
    assert [b["stored"] for b in report["batches"]] == [2]
    entries = [mem.get(item["id"]) for item in report["stored"]]
    for entry in entries:
        assert entry.meta.source.value == "session-digest"
        assert entry.meta.reviewed is False
        extra = entry.meta.model_extra or {}
        assert extra["session_key"] == "kernel-1"
        # no project: a new topic cannot be named, so the scene stays unclassified
        assert "scene_id" not in extra and "scene" not in extra
    # The TODO line of c2 makes nothing (issue 32); its decision is a lasting fact.
    assert all("TODO" not in e.text and e.meta.tags[0] == "work_fact" for e in entries)
    fact = next(e for e in entries if "test accounts" in e.text)
    assert fact.meta.tier.value == "durable" and fact.meta.type.value == "semantic"
    assert fact.meta.evidence[0].quote.startswith("# TODO: exclude internal test accounts")
    assert (fact.meta.model_extra or {})["event_start"] == "2026-01-01T00:00:01.000Z"


def test_unreviewed_digests_are_not_recalled_for_agents(mem):
    mem.hooks.digest_record("kernel-1", CELLS)
    assert len(mem.digest()["stored"]) == 2
    assert mem.recall("refund", reviewed_only=True) == []


def test_a_batch_is_consumed_once_even_when_it_yields_nothing(mem):
    mem.hooks.digest_record("k", [{"id": "a", "role": "user", "text": "thanks!"}])
    first = mem.digest()
    assert first["batches"][0]["stored"] == 0
    assert mem.digest()["batches"] == []
    mem.hooks.digest_record(
        "k",
        [{"id": "b", "role": "user", "text": "We decided to add refunds because finance asks."}],
    )
    again = mem.digest()
    assert [b["messages"] for b in again["batches"]] == [1]
    assert len(again["stored"]) == 1


def test_session_filter_and_rerun_cells_keep_the_newest_text(mem):
    mem.hooks.digest_record(
        "k1",
        [{"id": "x", "role": "user", "text": "We decided to draft a refund view because QA asks."}],
    )
    mem.hooks.digest_record(
        "k1",
        [
            {
                "id": "x",
                "role": "user",
                "text": "We decided to split refunds by channel because QA asks.",
            }
        ],
    )
    mem.hooks.digest_record(
        "k2",
        [{"id": "y", "role": "user", "text": "We decided to add refunds because finance asks."}],
    )
    report = mem.digest(session="k1")
    assert [b["session_key"] for b in report["batches"]] == ["k1"]
    assert [s["title"] for s in report["stored"]] == [
        "The user decided to split refunds by channel because QA asks."
    ]
    assert [b["session_key"] for b in mem.digest()["batches"]] == ["k2"]


def test_scene_pool_is_persisted_and_reused(mem, project_dir):
    mem.focus(project_dir)
    mem.hooks.digest_record("k", CELLS[:2])
    first = mem.digest()
    scene_ids = {(mem.get(s["id"]).meta.model_extra or {}).get("scene_id") for s in first["stored"]}
    assert scene_ids == {"sc0001"}
    mem.hooks.digest_record(
        "k",
        [
            {"id": "c9", "role": "user", "kind": "markdown", "text": "# Refund reconciliation"},
            {
                "id": "c10",
                "role": "user",
                "kind": "code",
                "text": "# We decided to match refunds to the ledger because audit asks\nx = 1",
            },
        ],
    )
    second = mem.digest()
    stored = mem.get(second["stored"][0]["id"])
    assert (stored.meta.model_extra or {})["scene_id"] == "sc0001"
    assert (stored.meta.model_extra or {})["scene"] == "sales-q3｜Refund reconciliation"
    assert stored.layer == "project"


def test_bad_messages_are_refused_and_nothing_is_recorded(mem):
    with pytest.raises(ValidationError, match=r"messages\[1\]\.role"):
        mem.hooks.digest_record("k", [CELLS[0], dict(CELLS[1], role="robot")])
    assert mem.digest()["batches"] == []


def test_disabled_memory_records_and_extracts_nothing(mem):
    mem.hooks.digest_record("k", CELLS)
    mem.update_settings(enabled=False)
    with pytest.raises(PolicyError):
        mem.hooks.digest_record("k", CELLS)
    with pytest.raises(PolicyError):
        mem.digest()
    mem.update_settings(enabled=True)
    assert len(mem.digest()["stored"]) == 2


def test_chat_files_are_read_only_sources_with_their_own_cursor(mem, project_dir):
    chat = project_dir / "analysis.chat"
    data = {
        "messages": [
            {
                "id": "u1",
                "sender": "ana",
                "time": 1767225600.5,
                "type": "msg",
                "body": "我们决定退款按退款发生日入账，因为财务月报按退款发生日冲减收入。",
            },
            {
                "id": "b1",
                "sender": "jupyter-ai-personas::jupyter_ai::Jupyternaut",
                "time": 1767225601,
                "type": "msg",
                "body": "我们决定把运费也计入退款金额的计算，因为运费随退款退回",
            },
        ],
        "users": {"ana": {"username": "ana"}},
    }
    chat.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    before = chat.read_bytes()
    mem.focus(project_dir)
    report = mem.digest()
    assert [b["source"] for b in report["batches"]] == [f"chat:{chat}"]
    (item,) = report["stored"]
    entry = mem.get(item["id"])
    assert entry.text.startswith("sales-q3：用户决定退款按退款发生日入账")
    assert (entry.meta.model_extra or {})["event_start"] == "2026-01-01T00:00:00.500Z"
    assert chat.read_bytes() == before
    assert mem.digest()["batches"] == []


class ScriptedLLM:
    def __init__(self, reply: str) -> None:
        self.reply = reply

    def complete(self, messages: Sequence[dict[str, str]], *, max_tokens: int = 2_000) -> str:
        return self.reply


def test_llm_path_is_validated_and_rejections_reported(mem):
    mem.hooks.digest_record("k", CELLS)
    mem.llm = ScriptedLLM(
        json.dumps(
            [
                {
                    "new_scene_name": "sales-q3｜退款口径",
                    "new_scene_reason": "池中没有退款议题",
                    "message_ids": ["c1", "c2", "c4"],
                    "memories": [
                        {
                            "content": "sales-q3 的收入按下单日统计，因为财务按下单日结账。",
                            "type": "work_fact",
                            "priority": 90,
                            "source_message_ids": ["c4"],
                            "metadata": {},
                        },
                        {
                            "content": "sales-q3 的退款报表需要剔除测试账号。",
                            "type": "work_task",
                            "priority": 80,
                            "source_message_ids": ["c3"],
                            "metadata": {},
                        },
                    ],
                }
            ],
            ensure_ascii=False,
        )
    )
    report = mem.digest()
    assert report["extractor"] == "llm"
    assert len(report["stored"]) == 1
    assert [r["rule"] for r in report["rejected"]] == ["source_outside_scene"]


# ---- archive -----------------------------------------------------------------------------


def test_archive_moves_cold_stale_memories_and_restore_brings_them_back(mem, clock):
    old = mem.remember(
        "Session note about a one-off export",
        tier="session",
        created=clock.now - timedelta(days=120),
    )
    fresh = mem.remember("Revenue excludes refunds", tier="durable")
    dry = mem.archive(dry_run=True)
    assert [a["id"] for a in dry["archived"]] == [old.id]
    assert Path(old.path).exists()
    done = mem.archive()
    assert [a["id"] for a in done["archived"]] == [old.id]
    archived_path = Path(done["archived"][0]["archived_path"])
    assert archived_path.exists() and archived_path.parent.name == ".old"
    assert not Path(old.path).exists()
    with pytest.raises(NotFoundError):
        mem.get(old.id)
    assert [h.id for h in mem.recall("export")] == []
    assert mem.get(fresh.id)
    assert [a["id"] for a in mem.hooks.archived()] == [old.id]
    restored = mem.restore(old.id)
    assert Path(restored["path"]).exists()
    assert mem.get(old.id).text == "Session note about a one-off export"
    assert mem.hooks.archived() == []
    events = [r["action"] for r in mem.hooks.audit.records()]
    assert "archive" in events and "restore" in events


def test_only_cold_and_90_day_stale_memories_are_archived(mem, clock):
    # durable decay is slow: 100 days old is still WARM
    mem.remember(
        "Durable fact from a while ago", tier="durable", created=clock.now - timedelta(days=100)
    )
    # cold already, but not yet 90 days untouched
    mem.remember(
        "Session note from last month", tier="session", created=clock.now - timedelta(days=30)
    )
    assert mem.archive(dry_run=True)["count"] == 0
    clock.advance(days=61)
    assert mem.archive(dry_run=True)["count"] == 1


def test_restore_unknown_id_is_not_found(mem):
    with pytest.raises(NotFoundError):
        mem.restore("m-doesnotexist")
