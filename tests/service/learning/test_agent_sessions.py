"""Agent conversations reach the digest inbox and are digested as kernel sessions are."""

from __future__ import annotations

import pytest

from jupyter_memory.exceptions import ValidationError


def _correction_turns(mem, key: str) -> None:
    mem.hooks.record_agent_turn(
        key, person="装一下 pandas-profiling", reply="好的，我用 yarn add 安装。"
    )
    mem.hooks.record_agent_turn(key, person="不对，应该用 npm 安装依赖", reply="明白，改用 npm。")


def test_a_correction_to_an_agent_reaches_the_learner(mem, clock):
    _correction_turns(mem, "chat:/work/analysis.chat")
    assert mem.hooks.digest_pending("chat:/work/analysis.chat") == 4
    mem.digest(session="chat:/work/analysis.chat")
    (cand,) = mem.learning_candidates()
    assert cand.source == "correction" and cand.rule == "应该用 npm 安装依赖。"
    assert cand.evidence_items[0].session == "chat:/work/analysis.chat"


def test_an_ended_agent_session_is_digested_like_a_kernels(mem, clock):
    key = "mcp:claude-code-4242"
    mem.hooks.record_agent_turn(
        key,
        person="We decided to reconcile refunds with the ledger because audit asks.",
    )
    end = mem.hooks.end_agent_session(key)
    assert end.digested and end.stored == 1
    assert mem.hooks.digest_pending(key) == 0
    assert mem.hooks.end_agent_session(key).left == "nothing pending"


def test_an_agent_session_with_an_llm_waits_for_the_next_digest(mem, clock):
    class NeverCalled:
        def complete(self, *args, **kwargs):  # pragma: no cover - must not run
            raise AssertionError("no LLM call at an agent session's end")

    key = "mcp:claude-code-1"
    mem.hooks.record_agent_turn(
        key,
        person="We decided to reconcile refunds with the ledger because audit asks.",
    )
    mem.llm = NeverCalled()
    end = mem.hooks.end_agent_session(key)
    assert not end.digested and end.left == "an LLM is configured: digested next time"
    assert mem.hooks.digest_pending(key) == 1


def test_a_chat_that_went_idle_is_digested_and_a_lively_one_is_not(mem, clock):
    mem.hooks.record_agent_turn(
        "chat:/a.chat",
        person="We decided to split refunds by channel because audit asks.",
    )
    clock.advance(minutes=10)
    mem.hooks.record_agent_turn(
        "chat:/b.chat",
        person="We decided to add the refund channel column because audit asks.",
    )
    mem.hooks.digest_record(
        "kernel-1",
        [
            {
                "id": "c1",
                "role": "user",
                "text": "We decided to keep kernels apart because audit asks.",
            }
        ],
    )
    clock.advance(minutes=6)
    ended = mem.hooks.digest_idle_sessions(idle_minutes=15)
    assert [(e.session_key, e.digested, e.stored) for e in ended] == [("chat:/a.chat", True, 1)]
    assert (
        mem.hooks.digest_pending("chat:/b.chat") == 1 and mem.hooks.digest_pending("kernel-1") == 1
    )
    clock.advance(minutes=10)
    assert [e.session_key for e in mem.hooks.digest_idle_sessions(idle_minutes=15)] == [
        "chat:/b.chat"
    ]


def test_a_turn_needs_words_and_bad_input_records_nothing(mem):
    with pytest.raises(ValidationError, match="person"):
        mem.hooks.record_agent_turn("chat:/a.chat", person="  ", reply=None)
    with pytest.raises(ValidationError, match="reply"):
        mem.hooks.record_agent_turn("chat:/a.chat", person="hi", reply=5)
    assert mem.hooks.digest_pending() == 0


def test_a_chat_file_recorded_by_the_persona_is_not_read_twice(mem, project_dir):
    import json

    chat = project_dir / "analysis.chat"
    chat.write_text(
        json.dumps(
            {
                "messages": [
                    {
                        "id": "u1",
                        "sender": "ana",
                        "time": 1767225600.5,
                        "type": "msg",
                        "body": "We decided to reconcile refunds with the ledger because audit asks.",
                    }
                ],
                "users": {"ana": {"username": "ana"}},
            }
        ),
        encoding="utf-8",
    )
    mem.focus(project_dir)
    mem.hooks.record_agent_turn(
        f"chat:{chat}",
        person="We decided to reconcile refunds with the ledger because audit asks.",
    )
    report = mem.digest()
    assert [b["source"] for b in report["batches"]] == [f"inbox:chat:{chat}"]
    assert len(report["stored"]) == 1
