"""Proposal cards through the widget API: clicks change the queue and the knowledge file."""

from __future__ import annotations

import pytest

from jupyter_memory.magics.session import NotebookSession
from jupyter_memory.widgets import ProposalCard, ProposalCards


@pytest.fixture
def session(memory_home):
    s = NotebookSession(str(memory_home))
    yield s
    s.close()


def propose(session, text, kind="rule", **kw):
    result = session.memory.propose(text, kind, text, source="manual", **kw)
    assert result["status"] == "queued", result
    return result["id"]


def audit_actions(session):
    return [r["action"] for r in session.memory.audit_records()]


def test_user_click_applies_and_card_becomes_static(session):
    pid = propose(session, "Always exclude test accounts from revenue")
    card = ProposalCard(session, pid)
    assert "Always exclude test accounts" in card.body.value
    assert card.user_button in card.widget.children[1].children
    card.user_button.click()
    assert session.memory.proposal(pid).status == "applied"
    assert "Always exclude test accounts from revenue" in session.memory.knowledge("user")
    assert "Saved to User" in card.message.value
    assert "knowledge.md" in card.message.value  # the confirmation names where it went
    assert all(not hasattr(c, "children") for c in card.widget.children)  # buttons gone


def test_project_preselected_when_focused_and_saved_there(session, project_dir):
    session.memory.focus(project_dir)
    pid = propose(session, "Fiscal quarters start in February", kind="info")
    card = ProposalCard(session, pid)
    assert card.project_button.button_style == "primary"
    assert card.project_picker not in card.widget.children
    card.project_button.click()
    assert "Saved to Project · sales-q3" in card.message.value
    text = session.memory.knowledge("project", project="sales-q3")
    assert "Fiscal quarters start in February" in text
    assert (project_dir / ".jupyter-memory" / "knowledge.md").is_file()


def test_project_picker_when_project_unknown(session, project_dir):
    session.memory.focus(project_dir)
    session.memory.focus(None)
    pid = propose(session, "Never mix gross and net revenue")
    card = ProposalCard(session, pid)
    assert card.project_picker in card.widget.children
    card.project_button.click()
    assert "Pick a project first" in card.message.value
    assert session.memory.proposal(pid).status == "pending"
    card.project_picker.value = "sales-q3"
    card.project_button.click()
    assert session.memory.proposal(pid).status == "applied"
    assert session.memory.proposal(pid).applied_project == "sales-q3"


def test_dismiss_click(session):
    pid = propose(session, "Always round money to cents")
    card = ProposalCard(session, pid)
    card.dismiss_button.click()
    assert session.memory.proposal(pid).status == "dismissed"
    assert "Dismissed" in card.message.value
    assert "Always round money" not in session.memory.knowledge("user")


def test_stale_card_refuses_a_second_write(session):
    pid = propose(session, "Always use UTC timestamps")
    first, stale = ProposalCard(session, pid), ProposalCard(session, pid)
    first.user_button.click()
    before_file = session.memory.knowledge("user")
    before_audit = audit_actions(session)
    stale.dismiss_button.click()
    assert "Already saved" in stale.message.value and "nothing written" in stale.message.value
    assert session.memory.proposal(pid).status == "applied"
    assert session.memory.knowledge("user") == before_file
    assert audit_actions(session) == before_audit


def test_stale_after_dismiss_elsewhere(session):
    pid = propose(session, "Never join orders on email")
    card = ProposalCard(session, pid)
    session.memory.dismiss(pid)  # e.g. the CLI
    card.user_button.click()
    assert "Already dismissed" in card.message.value
    assert "Never join orders" not in session.memory.knowledge("user")


def test_rerender_reflects_the_queue(session):
    pid = propose(session, "Always tag exports with the run date")
    card = ProposalCard(session, pid)
    session.memory.apply(pid, to="user")
    bundle = card._repr_mimebundle_()
    assert "Saved to User" in bundle["text/plain"]
    assert "Saved to User" in card.message.value


def test_cards_group_refreshes_on_queue_event(session):
    a = propose(session, "Always check the currency column")
    b = propose(session, "Never average percentages directly")
    cards = ProposalCards(session, [a, b])
    session.memory.dismiss(b)
    assert "Dismissed" in cards[1].message.value
    assert "pending" in cards[0].plain_text()


def test_stored_strings_are_escaped(session):
    evil = "<img src=x onerror=alert(1)> always"
    pid = propose(session, evil)
    card = ProposalCard(session, pid)
    assert "<img" not in card.body.value
    assert "&lt;img src=x onerror=alert(1)&gt;" in card.body.value
    card.user_button.click()
    assert "<img" not in card.message.value


def test_errors_are_shown_on_the_card(session, memory_home):
    pid = propose(session, "Always keep raw data read-only")
    card = ProposalCard(session, pid)
    (memory_home / "knowledge.md").write_text("## Rules\n- ok\n## Bogus\n\tbad\x00\n", "utf-8")
    card.user_button.click()
    assert "Error:" in card.message.value
    assert session.memory.proposal(pid).status == "pending"
    assert card.user_button in card.widget.children[1].children  # still actionable


def test_unknown_proposal_shows_an_error(session):
    card = ProposalCard(session, "p-doesnotexist")
    assert "Error:" in card.message.value
