"""Session digest in the notebook: cells → inbox, %memory digest, exit hook, review cards, tiers."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from IPython.core.error import UsageError

from jupyter_memory.magics import digest_feed as feed_module

DECISION_CELL = (
    "# We decided to drop test accounts from refund totals because finance excludes them\nrev = 1"
)


def run(ip, source):
    return ip.run_cell(source, store_history=True, raise_on_error=False)


def _pending(magics) -> list[dict]:
    feed = magics.digest_feed
    feed.flush()
    store = magics.service.hooks.learning_services.digest.store
    inbox = store.pending(feed.session_key)
    return inbox[0]["messages"] if inbox else []


def test_captured_cells_are_recorded_for_the_digest(ip, magics):
    run(ip, "a = 1")
    run(ip, DECISION_CELL)
    run(ip, "%remember Always dedupe on order_id")  # own magic: a decision, not evidence
    messages = _pending(magics)
    assert [m["text"] for m in messages] == ["a = 1", DECISION_CELL]
    assert all(m["role"] == "user" and m["kind"] == "code" for m in messages)
    assert messages[1]["id"] == magics.capture.cells[-1].cell_id
    assert isinstance(messages[1]["timestamp"], int)


def test_nothing_is_recorded_while_memory_is_off(ip, magics):
    ip.run_line_magic("memory", "off")
    run(ip, DECISION_CELL)
    assert magics.digest_feed.pending() == 0
    assert magics.service.hooks.digest_pending() == 0


def test_memory_digest_stores_unreviewed_memories_and_recall_marks_them(ip, magics):
    run(ip, DECISION_CELL)
    run(ip, "# 我们决定把退款按渠道拆分，因为财务按渠道对账\nsplit = 1")
    out = ip.run_line_magic("memory", "digest")
    assert "stored 2 memories (unreviewed)" in out and "%memories --review" in out
    hits = ip.run_line_magic("recall", "refund")
    assert hits and all(h["review"] == "unreviewed" for h in hits)
    assert hits[0]["source"] == "session-digest"
    assert "1 unreviewed" in hits.caption
    assert "unreviewed" in repr(hits) and "unreviewed" in hits._repr_html_()
    assert ip.run_line_magic("memory", "digest") == "Nothing new to digest."
    listing = ip.run_line_magic("memories", "")
    assert {r["review"] for r in listing} == {"unreviewed"} and "2 unreviewed" in listing.caption


def test_memory_digest_refuses_when_memory_is_off(ip):
    ip.run_line_magic("memory", "off")
    with pytest.raises(UsageError, match="memory is off"):
        ip.run_line_magic("memory", "digest")


def test_gotcha_cells_carry_the_error_for_the_learner(ip, magics):
    failing = "totals = {}\ntotals['revenue_net']"
    for _ in range(3):
        run(ip, failing)
    messages = _pending(magics)
    assert [m.get("error_repeats") for m in messages] == [None, None, 3]
    assert messages[2]["error"].startswith("KeyError") and (
        messages[2]["error_line"] == "totals['revenue_net']"
    )
    ip.run_line_magic("memory", "digest")
    (cand,) = [c for c in magics.service.learning_candidates() if c["source"] == "gotcha"]
    assert cand["evidence"] == 1  # one session so far; five are needed for a proposal


# ---- review cards --------------------------------------------------------------------


def _digest(ip, *cells):
    for cell in cells:
        run(ip, cell)
    ip.run_line_magic("memory", "digest")


REVIEW_MIME = "application/vnd.jupyter-memory.review+json"


def test_review_cards_keep_discard_promote(ip, magics):
    _digest(
        ip,
        DECISION_CELL,
        "# We decided to count revenue on the booking date because finance closes on it.",
        "# 我们决定把退款按渠道拆分，因为财务按渠道对账",
    )
    cards = ip.run_line_magic("memories", "--review")
    assert len(cards) == 3
    bundle = cards._repr_mimebundle_()
    # A document output of our MIME type: no widget, nothing kept in the kernel per card.
    assert set(bundle) == {REVIEW_MIME, "text/html", "text/plain"}
    by_text = {c["text"]: c for c in bundle[REVIEW_MIME]["cards"]}
    assert {c["state"] for c in by_text.values()} == {"unreviewed"}
    keep = next(c["id"] for t, c in by_text.items() if "test accounts" in t)
    discard = next(c["id"] for t, c in by_text.items() if "退款" in t)
    promote = next(c["id"] for t, c in by_text.items() if "booking date" in t)
    # The fallback names the magics that decide each card.
    assert f"%memory keep {keep}" in bundle["text/plain"]
    assert f"%memory promote {promote} --kind rule|info" in bundle["text/html"]
    mem = magics.service

    assert "Kept" in ip.run_line_magic("memory", f"keep {keep}")
    assert mem.get(keep).meta.reviewed is True
    assert "Discarded" in ip.run_line_magic("memory", f"discard {discard}")
    assert discard not in {r["id"] for r in mem.memories()}
    said = ip.run_line_magic("memory", f"promote {promote} --kind info")
    (proposal,) = [p for p in mem.queue() if p.source == "session-digest"]
    assert proposal.id in said
    assert proposal.kind == "info" and proposal.status == "pending"
    assert "booking date" in proposal.evidence_quote
    assert "booking date" not in mem.knowledge("user")
    # The same output, shown again, says what happened to each.
    again = cards._repr_mimebundle_()
    states = {c["id"]: c["state"] for c in again[REVIEW_MIME]["cards"]}
    assert states == {keep: "kept", discard: "missing", promote: "promoted"}
    assert f"Promoted to proposal {proposal.id}" in again["text/plain"]
    # A second decision is news, not an error; nothing changes.
    assert "Already reviewed" in ip.run_line_magic("memory", f"discard {keep}")
    assert mem.get(keep).meta.reviewed is True
    assert ip.run_line_magic("memories", "--review") == "Nothing to review: " + (
        "every memory was written or reviewed by you."
    )


def test_review_magics_refuse_bad_input(ip, magics):
    entry = magics.service.remember(
        "Dates are stored in UTC", source="session-digest", reviewed=False
    )
    with pytest.raises(UsageError, match="name the memory"):
        ip.run_line_magic("memory", "keep")
    with pytest.raises(UsageError, match="%memory keep: unrecognized arguments: --kind info"):
        ip.run_line_magic("memory", f"keep {entry.id} --kind info")
    with pytest.raises(UsageError, match="no memory with id"):
        ip.run_line_magic("memory", "discard m-nothere")
    assert magics.service.get(entry.id).meta.reviewed is False


def test_review_cards_escape_stored_strings(ip, magics):
    mem = magics.service
    mem.remember(
        "<img src=x onerror=alert(1)> export step",
        title="<script>alert(1)</script>",
        source="session-digest",
        reviewed=False,
        evidence=[{"quote": "<b>bold</b> claim", "source": "k#<c1>"}],
    )
    page = ip.run_line_magic("memories", "--review")._repr_mimebundle_()["text/html"]
    assert "<script>" not in page and "<img" not in page and "<b>bold" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "k#&lt;c1&gt;" in page


def test_promote_without_the_persons_words_says_why(ip, magics):
    entry = magics.service.remember(
        "Currency conversion could be added", source="session-digest", reviewed=False
    )
    (card,) = ip.run_line_magic("memories", "--review").snapshots()
    assert card.promotable is False and "no words of yours" in card.plain_text()
    with pytest.raises(UsageError, match="evidence"):
        ip.run_line_magic("memory", f"promote {entry.id}")
    assert magics.service.get(entry.id).meta.reviewed is False
    assert magics.service.queue() == []


# ---- tiers in the notebook ------------------------------------------------------------


def test_memories_lists_hot_then_warm_and_archive(ip, magics):
    mem = magics.service
    now = datetime.now(timezone.utc)
    warm = mem.remember("Quarter close is on day 3", type="semantic", created=now - timedelta(60))
    hot = mem.remember("Revenue excludes refunds", type="semantic")
    old = mem.remember(
        "One-off export", type="episodic", tier="daily", created=now - timedelta(120)
    )
    rows = ip.run_line_magic("memories", "")
    assert [(r["id"], r["heat"]) for r in rows] == [(hot.id, "HOT"), (warm.id, "WARM")]
    dry = ip.run_line_magic("memories", "--archive --dry-run")
    assert [r["id"] for r in dry] == [old.id] and dry.caption.startswith("Would archive 1")
    assert old.id in {r["id"] for r in mem.memories()}
    done = ip.run_line_magic("memories", "--archive")
    assert [r["id"] for r in done] == [old.id] and ".old/" in done.caption
    assert old.id not in {r["id"] for r in mem.memories()}
    assert "Nothing to archive" in repr(ip.run_line_magic("memories", "--archive"))
    with pytest.raises(UsageError):
        ip.run_line_magic("memories", "--dry-run")
    with pytest.raises(UsageError, match="not both"):
        ip.run_line_magic("memories", "--review --archive")


def test_first_cell_of_a_new_session_clears_old_session_memories(_shell, memory_home):
    from jupyter_memory import Memory

    with Memory(home=memory_home) as mem:
        old = mem.remember("scratch from yesterday's kernel", tier="session")
    _shell.run_line_magic("load_ext", "jupyter_memory")
    try:
        run(_shell, "x = 1")
        from jupyter_memory.magics import loaded_magics

        magics = loaded_magics(_shell)
        assert magics.digest_feed.started["cleared"] == [old.id]
        mine = magics.service.remember("scratch of this kernel", tier="session")
        run(_shell, "y = 2")  # only once per session
        assert magics.service.get(mine.id)
    finally:
        _shell.run_line_magic("unload_ext", "jupyter_memory")


def test_agent_unreviewed_switch(ip, magics):
    assert "may now recall" in ip.run_line_magic("memory", "agent-unreviewed on")
    assert magics.service.hooks.agent_sees_unreviewed is True
    assert "only memories you wrote" in ip.run_line_magic("memory", "agent-unreviewed off")
    with pytest.raises(UsageError):
        ip.run_line_magic("memory", "agent-unreviewed maybe")


# ---- shutdown ---------------------------------------------------------------------------


def test_shutdown_records_and_digests_quickly_once(ip, magics):
    run(ip, DECISION_CELL)
    feed = magics.digest_feed
    report = feed.shutdown()
    assert report["recorded"] == 1 and report["digested"] is True
    assert [r["source"] for r in magics.service.memories()] == ["session-digest"]
    assert feed.shutdown()["recorded"] == 0  # once


def test_shutdown_leaves_a_large_batch_for_next_time(ip, magics, monkeypatch):
    monkeypatch.setattr(feed_module, "EXIT_DIGEST_MAX_MESSAGES", 1)
    run(ip, DECISION_CELL)
    run(ip, "# We decided to add refunds to the weekly export because finance asks\nw = 1")
    report = magics.digest_feed.shutdown()
    assert report["digested"] is False and "next time" in report["left"]
    assert magics.service.memories() == []
    assert magics.service.hooks.digest_pending() == 2  # kept, not lost
    assert len(magics.service.digest()["stored"]) == 2


def test_shutdown_while_a_round_holds_the_service_says_so_and_keeps_the_batch(
    ip, magics, monkeypatch, capsys
):
    import threading

    monkeypatch.setattr(feed_module, "EXIT_LOCK_WAIT_S", 0.2)
    run(ip, DECISION_CELL)
    held, release = threading.Event(), threading.Event()

    def round_in_progress() -> None:  # the last cell's note round, still running
        with magics.session.lock:
            held.set()
            release.wait(30)

    worker = threading.Thread(target=round_in_progress)
    worker.start()
    held.wait(30)
    try:
        report = magics.digest_feed.shutdown()
    finally:
        release.set()
        worker.join(30)
    assert report["recorded"] == 1 and "busy" in report["left"]
    assert "digested next time" in capsys.readouterr().err
    assert magics.service.memories() == []
    assert magics.service.hooks.digest_pending() == 1  # kept for the next digest


def test_shutdown_never_raises(ip, magics, monkeypatch, capsys):
    run(ip, DECISION_CELL)

    def broken(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(type(magics.service.hooks), "digest_record", broken)
    report = magics.digest_feed.shutdown()
    assert "disk full" in report["error"] and "disk full" in capsys.readouterr().err


def test_unload_records_the_buffer(_shell, memory_home):
    from jupyter_memory import Memory
    from jupyter_memory.magics import loaded_magics

    _shell.run_line_magic("load_ext", "jupyter_memory")
    run(_shell, DECISION_CELL)
    key = loaded_magics(_shell).digest_feed.session_key
    _shell.run_line_magic("unload_ext", "jupyter_memory")
    with Memory(home=memory_home) as mem:
        assert mem.hooks.digest_pending(key) == 1


def test_review_cards_and_magics_speak_chinese(ip, magics, monkeypatch):
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    entry = magics.service.remember(
        "退款晚两天到账",
        source="session-digest",
        reviewed=False,
        evidence=[{"quote": "退款一般晚两天到账", "source": "cell"}],
    )
    page = ip.run_line_magic("memories", "--review")._repr_mimebundle_()["text/html"]
    assert "生成此输出时尚未审核。" in page and f"%memory keep {entry.id}" in page
    assert ip.run_line_magic("memory", f"keep {entry.id}").startswith(f"已保留 {entry.id}")
    assert "已审核过" in ip.run_line_magic("memory", f"keep {entry.id}")


def test_the_first_cell_says_what_earlier_digests_left_for_review(ip, magics, memory_home, capsys):
    """Issue 32: a digest at a kernel's exit told no one; the next session's first cell does."""
    from jupyter_memory import Memory

    with Memory(home=memory_home) as other:  # the session that ended earlier
        other.hooks.digest_record(
            "kernel-old", [{"id": "c1", "role": "user", "text": DECISION_CELL}]
        )
        assert len(other.digest(session="kernel-old").stored) == 1
    capsys.readouterr()
    run(ip, "%memory status")  # this extension's own magic: no reminder there
    assert "wait" not in capsys.readouterr().out
    run(ip, "a = 1")
    said = capsys.readouterr().out
    assert "1 memory from earlier sessions waits for review: %memories --review" in said
    run(ip, "b = 2")
    assert "wait" not in capsys.readouterr().out  # once a session
