"""REST: a Dismiss in the queue carries the person's reason to the learned rule's candidate."""

from __future__ import annotations


async def test_a_queue_dismiss_with_a_reason_rejects_the_candidate_with_it(api, server_memory):
    key = None
    server_memory.hooks.digest_record(
        "chat-0",
        [
            {"id": "a", "role": "assistant", "text": "I'll run yarn add pandas-profiling"},
            {"id": "u", "role": "user", "text": "no, use npm not yarn"},
        ],
    )
    server_memory.digest()
    key = server_memory.learning_candidates()[0].key
    code, promoted = await api("POST", "learning", "promote", body={"key": key})
    assert code == 200 and promoted["status"] == "queued"
    pid = promoted["proposal_id"]
    code, err = await api("POST", "queue", pid, "dismiss", body={"reason": 5})
    assert code == 422 and "reason" in err["message"]
    code, _ = await api("POST", "queue", pid, "dismiss", body={"reason": "we use pnpm here"})
    assert code == 200
    code, report = await api("GET", "learning")
    (cand,) = report["candidates"]
    assert cand["status"] == "rejected"
    assert [d["reason"] for d in cand["dismissals"]] == ["we use pnpm here"]


async def test_a_plain_dismiss_still_takes_an_empty_body(api, server_memory):
    result = server_memory.propose(
        "Revenue always excludes refunds", "rule", "Revenue always excludes refunds"
    )
    pid = result["proposal"]["id"]
    code, body = await api("POST", "queue", pid, "dismiss")
    assert code == 200 and body["status"] == "dismissed"
