"""The post_run_cell hook: code cells captured as evidence, outputs never, nothing when off."""

from __future__ import annotations

import pytest


def run(ip, source):
    return ip.run_cell(source, store_history=True, raise_on_error=False)


def test_code_cells_are_recorded_with_text_and_id(ip, magics):
    run(ip, "a = 1")
    run(ip, "b = a + 1  # second")
    cells = list(magics.capture.cells)
    assert [c.text for c in cells] == ["a = 1", "b = a + 1  # second"]
    assert cells[1].cell_id == f"In[{cells[1].execution_count}]"
    assert cells[1].label == f"cell {cells[1].execution_count}"


def test_a_definitional_comment_becomes_a_proposal_with_its_cell(ip, magics):
    run(ip, "# note: revenue excludes refunds issued in the same month\nx = 1")
    assert magics.worker.wait()
    [p] = magics.service.queue()
    assert p.text == "Revenue excludes refunds issued in the same month"
    assert p.kind == "info" and p.source == "chat-extraction"
    assert p.quote_origin.cell_id == magics.capture.cells[-1].cell_id
    assert "revenue excludes refunds" in p.evidence_quote


def test_chinese_comment_becomes_a_rule(ip, magics):
    run(ip, "# 注意：收入口径不含退款\ny = 2")
    assert magics.worker.wait()
    assert [p.text for p in magics.service.queue()] == ["收入口径不含退款"]


def test_outputs_are_never_evidence(ip, magics, capsys):
    run(ip, "msg = ''.join(['Revenue always ', 'excludes refunds.'])\nprint(msg)")
    assert "Revenue always excludes refunds." in capsys.readouterr().out
    assert magics.worker.wait()
    assert magics.service.queue() == []
    assert all("Revenue always excludes" not in c.text for c in magics.capture.cells)


def test_own_magics_are_not_recorded(ip, magics):
    run(ip, "%remember Always check refunds before closing the month")
    assert magics.worker.wait()
    assert list(magics.capture.cells) == []
    assert magics.service.queue() == []


def test_nothing_recorded_or_extracted_when_memory_is_off(ip, magics):
    ip.run_line_magic("memory", "off")
    run(ip, "# note: revenue excludes refunds\nx = 1")
    assert magics.worker.wait()
    assert list(magics.capture.cells) == []
    assert magics.service.queue() == []
    ip.run_line_magic("memory", "on")
    run(ip, "# note: revenue excludes refunds\nx = 1")
    assert magics.worker.wait()
    assert len(magics.capture.cells) == 1 and len(magics.service.queue()) == 1


def test_suggestions_off_records_but_does_not_extract(ip, magics):
    ip.run_line_magic("memory", "suggestions off")
    run(ip, "# note: revenue excludes refunds\nx = 1")
    assert magics.worker.wait()
    assert len(magics.capture.cells) == 1
    assert magics.service.queue() == []
    cards = ip.run_line_magic("memory", "suggest")  # a person's request still works
    assert len(cards) == 1 and magics.service.queue()[0].text == "Revenue excludes refunds"


def test_memory_off_switch_made_elsewhere_is_seen(ip, magics, memory_home):
    from jupyter_memory import Memory

    run(ip, "z = 0")
    # Its suggestions round done first: while a round holds the session, the hook keeps
    # the switches it read last (it never waits for a round), and on a busy machine the
    # round for this cell could still be starting when the next cell ends.
    assert magics.worker.wait()
    with Memory(home=memory_home) as other:  # e.g. the CLI in a terminal
        other.update_settings(enabled=False)
    magics.session.forget_flags()  # the hook re-reads within a second; do not wait here
    run(ip, "# note: revenue excludes refunds\nx = 1")
    assert [c.text for c in magics.capture.cells] == ["z = 0"]


def test_same_error_three_times_is_an_auto_gotcha_memory_not_a_proposal(ip, magics, capsys):
    failing = "totals = {}\ntotals['revenue_net']"
    for _ in range(2):
        run(ip, failing)
    magics.digest_feed.flush()
    assert magics.service.memories() == []
    run(ip, failing)
    assert magics.worker.wait()
    status = str(ip.run_line_magic("memory", "status"))  # flushes the feed first
    (row,) = [r for r in magics.service.memories() if r["source"] == "auto-gotcha"]
    assert row["reviewed"] is False
    memory = magics.service.get(row["id"])
    assert [e.quote for e in memory.meta.evidence] == [failing]  # the whole cell, verbatim
    assert "KeyError" in memory.text and "totals['revenue_net']" in memory.text
    # evidence for the candidate rule; the queue waits for the confidence gate
    assert magics.service.queue() == []
    (cand,) = magics.service.learning_candidates()
    assert cand.source == "gotcha" and cand.evidence == 1
    assert "last gotcha:  KeyError" in status and "1 evidence" in status
    for _ in range(3):
        run(ip, failing)
    assert magics.worker.wait()
    magics.digest_feed.flush()
    assert len([r for r in magics.service.memories() if r["source"] == "auto-gotcha"]) == 1
    assert "jupyter-memory" not in capsys.readouterr().err


def test_a_one_token_failing_line_never_fails_a_round(ip, magics, capsys):
    for _ in range(3):
        run(ip, "undefined_total_q3")
    assert magics.worker.wait()
    status = str(ip.run_line_magic("memory", "status"))
    assert "suggestion round failed" not in capsys.readouterr().err
    assert magics.worker.last.error is None
    (row,) = [r for r in magics.service.memories() if r["source"] == "auto-gotcha"]
    assert [e.quote for e in magics.service.get(row["id"]).meta.evidence] == ["undefined_total_q3"]
    for _ in range(3):
        run(ip, "zq")  # a new signature: NameError for zq, a line too short to quote
    assert magics.worker.wait()
    status = str(ip.run_line_magic("memory", "status"))
    assert "suggestion round failed" not in capsys.readouterr().err
    assert "too short to quote" in status and "name 'zq' is not defined" in status, status
    quotes = [
        e.quote
        for r in magics.service.memories()
        if r["source"] == "auto-gotcha"
        for e in magics.service.get(r["id"]).meta.evidence
    ]
    assert "zq" in quotes


def test_different_errors_do_not_add_up(ip, magics):
    run(ip, "1/0")
    run(ip, "{}['a']")
    run(ip, "int('x')")
    assert magics.worker.wait()
    assert magics.service.queue() == []


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (KeyError("revenue"), KeyError("revenue"), True),
        (ValueError("row 12 is bad"), ValueError("row 99 is bad"), True),
        (ValueError("object at 0x7f00aa"), ValueError("object at 0x7f11bb"), True),
        (KeyError("revenue"), KeyError("cost"), False),
        (KeyError("x"), ValueError("x"), False),
    ],
)
def test_exception_signature_normalises_numbers_and_addresses(a, b, same):
    from jupyter_memory.magics.capture import exception_signature

    assert (exception_signature(a) == exception_signature(b)) is same


def test_markdown_above_executed_cells_is_evidence(ip, magics, tmp_path, monkeypatch):
    import nbformat

    nb = nbformat.v4.new_notebook()
    md = nbformat.v4.new_markdown_cell("Note: churn is defined as no order in 90 days.")
    code = nbformat.v4.new_code_cell("x = 1")
    nb.cells = [md, code]
    path = tmp_path / "analysis.ipynb"
    nbformat.write(nb, str(path))
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))
    from jupyter_memory.magics.cells import CapturedCell
    from jupyter_memory.magics.memory_cmd import suggestion_round

    made = suggestion_round(magics, (CapturedCell("x = 1", code.id, 1),), None)
    assert [p.text for p in made] == ["Churn is defined as no order in 90 days."]
    assert made[0].quote_origin.cell_id == md.id
    assert made[0].quote_origin.notebook_path == str(path)


def test_markdown_found_by_source_when_the_front_end_sends_no_cell_id(
    ip, magics, tmp_path, monkeypatch
):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("口径：退款率定义为退款订单数除以支付订单数。"),
        nbformat.v4.new_code_cell("rate = 0.05"),
    ]
    path = tmp_path / "zh.ipynb"
    nbformat.write(nb, str(path))
    monkeypatch.setenv("JPY_SESSION_NAME", str(path))
    run(ip, "rate = 0.05")
    assert magics.worker.wait()
    [p] = magics.service.queue()
    assert p.text == "退款率定义为退款订单数除以支付订单数。"
    assert p.quote_origin.cell_id == nb.cells[0].id


def test_cards_of_a_collapsed_burst_go_under_their_own_cells(ip, magics, monkeypatch):
    import contextvars
    import threading

    from jupyter_memory.magics.cells import CapturedCell

    shown: list[tuple[str, list[str]]] = []
    where = contextvars.ContextVar("where", default="?")

    def show(proposals, cell):
        shown.append((where.get(), [p.text for p in proposals]))

    monkeypatch.setattr(magics.worker, "_show", show)
    gate = threading.Event()
    original = magics.worker._run_round

    def slow_round(*args):
        gate.wait(60)  # set once all three are submitted: the order under test
        return original(*args)

    monkeypatch.setattr(magics.worker, "_run_round", slow_round)
    first = CapturedCell("# note: revenue excludes refunds\nx = 1", "c-first", 1)
    blocker = CapturedCell("z = 0", "c-blocker", 0)
    second = CapturedCell("y = 2", "c-second", 2)

    def ctx(label):
        c = contextvars.copy_context()
        c.run(where.set, label)
        return c

    magics.worker.submit(ctx("blocker"), blocker, (blocker,), None)  # occupies the worker
    magics.worker.submit(ctx("first"), first, (blocker, first), None)
    magics.worker.submit(ctx("second"), second, (blocker, first, second), None)
    gate.set()
    assert magics.worker.wait()
    assert shown == [("first", ["Revenue excludes refunds"])]


def test_a_switch_read_begun_before_the_off_switch_does_not_outlive_forget_flags(
    ip, magics, memory_home, monkeypatch
):
    """A read of the switches that began before the person turned memory off elsewhere
    (the suggestions thread's, slow on a busy machine) ends after ``forget_flags``: the
    next cell still reads the switches again instead of taking that read as fresh."""
    import threading

    from jupyter_memory import Memory

    session = magics.session
    session.flags(fresh=True)  # the service is open
    began, finish = threading.Event(), threading.Event()
    real = session._read_flags

    def slow_read():
        flags = real()  # read before the switch goes off
        began.set()
        finish.wait(60)
        return flags

    monkeypatch.setattr(session, "_read_flags", slow_read)
    session.forget_flags()
    reader = threading.Thread(target=session.flags)
    reader.start()
    assert began.wait(60)
    monkeypatch.setattr(session, "_read_flags", real)
    with Memory(home=memory_home) as other:  # e.g. the CLI in a terminal
        other.update_settings(enabled=False)
    session.forget_flags()
    finish.set()
    reader.join(60)
    run(ip, "# note: revenue excludes refunds\nx = 1")
    assert [c.text for c in magics.capture.cells] == []


def test_a_flush_waits_for_a_gotcha_the_background_flush_is_writing(ip, magics, monkeypatch):
    """``%memory status`` flushes the feed and then reports the last gotcha: a flush the
    feed's own thread started a moment before must be finished first, or the report (and a
    test reading the memories) misses the gotcha being written (CI under load, stop 40)."""
    import threading

    feed = magics.digest_feed
    hooks = magics.service.hooks
    capture = hooks.capture_gotcha
    entered, release = threading.Event(), threading.Event()

    def slow_capture(*args, **kwargs):
        entered.set()
        release.wait(10)  # the background flush holds here until the foreground flush runs
        return capture(*args, **kwargs)

    monkeypatch.setattr(hooks, "capture_gotcha", slow_capture)
    failing = "totals = {}\ntotals['revenue_net']"
    for _ in range(3):
        run(ip, failing)
    assert entered.wait(30)  # the feed's thread is writing the gotcha now
    threading.Timer(0.2, release.set).start()
    feed.flush()  # returns only once that write is done
    assert feed.last_gotcha is not None
    assert [r["source"] for r in magics.service.memories()] == ["auto-gotcha"]
