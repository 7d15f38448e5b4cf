"""Proposal cards as document outputs: our MIME type with a snapshot, HTML and text fallbacks.

The lab extension renders the MIME part from the live queue (tests/browser/
test_cards_browser.py); here the kernel side: what goes into the notebook, and
that showing cards leaves nothing subscribed in the kernel.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref

import pytest

from jupyter_memory.magics.session import NotebookSession
from jupyter_memory.widgets import PROPOSAL_MIME, ProposalCards


@pytest.fixture
def session(memory_home):
    s = NotebookSession(str(memory_home))
    yield s
    s.close()


def propose(session, text, kind="rule", **kw):
    result = session.memory.propose(text, kind, text, source="manual", **kw)
    assert result["status"] == "queued", result
    return result["id"]


def listeners(session) -> int:
    # The queue's listener list: what the old widget cards grew with every display.
    return len(session.memory.hooks.knowledge_services.events._listeners)


def test_bundle_carries_ids_and_snapshot_with_fallbacks(session, project_dir):
    session.memory.focus(project_dir)
    pid = propose(session, "口径：收入不含退款", kind="info")
    bundle = ProposalCards(session, [pid])._repr_mimebundle_()
    assert set(bundle) == {PROPOSAL_MIME, "text/html", "text/plain"}
    payload = bundle[PROPOSAL_MIME]
    assert payload["version"] == 1
    (card,) = payload["cards"]
    assert card["id"] == pid and card["status"] == "pending" and card["outcome"] is None
    assert card["text"] == "口径：收入不含退款" and card["kind"] == "info"
    assert card["project"] == "sales-q3"  # Project applies to the notebook's focus
    # Where our extension is absent the HTML says how to decide it.
    assert f"%memory apply {pid} --to user" in bundle["text/html"]
    assert f"jupyter-memory apply {pid} --to user" in bundle["text/html"]
    assert "口径：收入不含退款" in bundle["text/plain"]
    assert "application/vnd.jupyter.widget-view+json" not in bundle  # no model to lose


def test_snapshot_says_what_happened_once_decided(session, project_dir):
    session.memory.focus(project_dir)
    saved = propose(session, "Revenue always excludes refunds")
    dismissed = propose(session, "Weeks start on Monday")
    cards = ProposalCards(session, [saved, dismissed])
    assert [c.status for c in (cards[0], cards[1])] == ["pending", "pending"]
    from jupyter_memory import Memory

    with Memory(home=session.memory.home) as cli:  # another process
        cli.apply(saved, to="project", project="sales-q3")
        cli.dismiss(dismissed)
    bundle = cards._repr_mimebundle_()  # shown again: the queue as it is now
    outcomes = [c["outcome"] for c in bundle[PROPOSAL_MIME]["cards"]]
    assert outcomes == ["Saved to Project · sales-q3", "Dismissed"]
    assert "Saved to Project · sales-q3" in bundle["text/html"]
    assert "%memory apply" not in bundle["text/html"]  # nothing left to decide


def test_stored_strings_are_escaped(session):
    evil = "<img src=x onerror=alert(1)> always"
    pid = propose(session, evil)
    html = ProposalCards(session, [pid])._repr_mimebundle_()["text/html"]
    assert "<img" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_unknown_proposal_is_a_card_that_says_so(session):
    bundle = ProposalCards(session, ["p-doesnotexist"])._repr_mimebundle_()
    (card,) = bundle[PROPOSAL_MIME]["cards"]
    assert card["status"] == "missing" and "p-doesnotexist" in card["note"]
    assert "p-doesnotexist" in bundle["text/plain"]


def test_showing_cards_subscribes_nothing_and_keeps_nothing_alive(session):
    # Defect: every card group added a queue listener that was never removed, so the
    # listeners (and the cards they held) piled up for the kernel's lifetime.
    pid = propose(session, "Always check the currency column")
    before = listeners(session)
    shown = [ProposalCards(session, [pid]) for _ in range(50)]
    for cards in shown:
        cards._repr_mimebundle_()
    assert listeners(session) == before
    ref = weakref.ref(shown[0])
    del shown, cards
    gc.collect()
    assert ref() is None  # no listener holds a displayed card


def test_cards_import_no_ipywidgets():
    code = (
        "import sys; from jupyter_memory.widgets import ProposalCards; "
        "print('ipywidgets' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_card_names_where_the_quote_came_from_then_the_source(session):
    typed = propose(session, "Always check the currency column")
    from_nb = propose(
        session,
        "Never average percentages",
        quote_origin={"notebook_path": "analysis/orders.ipynb"},
    )
    plain = ProposalCards(session, [typed, from_nb])._repr_mimebundle_()["text/plain"]
    assert "— manual\n" in plain  # nothing recorded: the source alone, not twice
    assert "— orders.ipynb · manual\n" in plain


def test_the_fallbacks_speak_chinese_and_keep_stored_strings_escaped(
    session, project_dir, monkeypatch
):
    session.memory.focus(project_dir)
    saved = propose(session, "<b>收入</b>不含退款", quote_origin={"cell_id": "In[12]"})
    dismissed = propose(session, "周从周一开始", kind="info", quote_origin={"message_id": "m-7"})
    pending = propose(session, "金额统一用元", kind="info")
    from jupyter_memory import Memory

    with Memory(home=session.memory.home) as cli:
        cli.apply(saved, to="project", project="sales-q3")
        cli.dismiss(dismissed)
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    bundle = ProposalCards(session, [saved, dismissed, pending, "p-gone"])._repr_mimebundle_()
    outcomes = [c["outcome"] for c in bundle[PROPOSAL_MIME]["cards"]]
    assert outcomes == ["已存入项目 · sales-q3", "已驳回", None, None]
    origins = [c["origin"] for c in bundle[PROPOSAL_MIME]["cards"]]
    assert origins[:2] == ["单元格 12", "消息 m-7"]
    plain = bundle["text/plain"]
    assert "[规则] <b>收入</b>不含退款\n  “<b>收入</b>不含退款” — 单元格 12 · 手动\n" in plain
    assert "  已存入项目 · sales-q3\n[信息] 周从周一开始" in plain
    assert f"  待处理 · %memory apply {pending} --to user" in plain
    assert "提议 p-gone：" in plain  # the missing card
    html = bundle["text/html"]
    assert "<b>收入</b>" not in html and "&lt;b&gt;收入&lt;/b&gt;不含退款" in html
    assert '<span style="font-weight:600">规则</span>' in html
    assert "<b>已驳回</b>" in html and "<b>生成此输出时尚待处理。</b>" in html
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "en")
    english = ProposalCards(session, [saved, pending])._repr_mimebundle_()
    assert (
        "[Rule] <b>收入</b>不含退款\n  “<b>收入</b>不含退款” — cell 12 · manual\n"
        in (english["text/plain"])
    )
    assert [c["outcome"] for c in english[PROPOSAL_MIME]["cards"]] == [
        "Saved to Project · sales-q3",
        None,
    ]
    assert "<b>Pending when this output was made.</b>" in english["text/html"]


def test_a_superseding_card_says_what_it_replaces_in_words(session):
    old = propose(session, "The orders_daily table refreshes at 6am UTC")
    new = propose(session, "The orders_daily table refreshes at 7am UTC")
    bundle = ProposalCards(session, [old, new])._repr_mimebundle_()
    html, plain = bundle["text/html"], bundle["text/plain"]
    assert "Replaced by: “The orders_daily table refreshes at 7am UTC”" in html
    assert "Replaces: “The orders_daily table refreshes at 6am UTC”" in plain
    assert old not in bundle["text/plain"].split("Replaced by", 1)[1].split("\n", 1)[0]
    cards = bundle[PROPOSAL_MIME]["cards"]
    assert cards[1]["replaces"] == "Replaces: “The orders_daily table refreshes at 6am UTC”"


def test_a_pending_card_shows_what_it_may_conflict_with(session):
    session.memory.save_knowledge("user", "## Rules\n- Revenue excludes refunds\n## Info\n")
    pid = propose(session, "Revenue includes refunds")
    bundle = ProposalCards(session, [pid])._repr_mimebundle_()
    assert "May conflict with: “Revenue excludes refunds”" in bundle["text/html"]
    assert "May conflict with: “Revenue excludes refunds”" in bundle["text/plain"]
    (card,) = bundle[PROPOSAL_MIME]["cards"]
    assert card["context"] == ["May conflict with: “Revenue excludes refunds”"]


def test_a_proposal_from_a_cell_says_from_a_cell_and_from_a_chat_says_so(session, monkeypatch):
    """One vocabulary (issue 31): "chat extraction" was wrong for a notebook cell."""
    mem = session.memory
    cell = mem.propose(
        "Revenue excludes refunds",
        "rule",
        "revenue excludes refunds",
        source="chat-extraction",
        messages=[{"role": "user", "text": "Remember: revenue excludes refunds."}],
        quote_origin={"notebook_path": "sales.ipynb", "cell_id": "c-42"},
    )["id"]
    chat = mem.propose(
        "Refunds post on Fridays",
        "info",
        "refunds post on Fridays",
        source="chat-extraction",
        messages=[{"role": "user", "text": "Note: refunds post on Fridays."}],
        quote_origin={"message_id": "m-7"},
    )["id"]
    bundle = ProposalCards(session, [cell, chat])._repr_mimebundle_()
    by_id = {c["id"]: c for c in bundle[PROPOSAL_MIME]["cards"]}
    assert by_id[cell]["from_cell"] is True and by_id[chat]["from_cell"] is False
    plain = bundle["text/plain"]
    assert "sales.ipynb · from a cell" in plain and "message m-7 · from a chat" in plain
    assert "extraction" not in plain and "extraction" not in bundle["text/html"]
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    plain = ProposalCards(session, [cell, chat])._repr_mimebundle_()["text/plain"]
    assert "来自单元格" in plain and "来自对话" in plain and "对话提取" not in plain
    assert "cell " not in plain  # "单元格 c-42", not the English word
