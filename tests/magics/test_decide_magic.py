"""``%memory apply ID`` / ``%memory dismiss ID``: deciding a card's proposal from a cell.

What a card's HTML fallback tells the person to type where the lab extension
is absent; the same decisions, refusals and "already" answers as a card.
"""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError


def propose(magics, text, kind="rule", **kw):
    result = magics.service.propose(text, kind, text, source="manual", **kw)
    assert result["status"] == "queued", result
    return result["id"]


def test_apply_to_user_and_to_the_focused_project(ip, magics, project_dir):
    ip.run_line_magic("memory", f"focus {project_dir}")
    mine = propose(magics, "口径：收入不含退款", kind="info")
    out = str(ip.run_line_magic("memory", f"apply {mine} --to user"))
    assert out.startswith("Saved to User: ") and out.endswith("knowledge.md")
    assert "口径：收入不含退款" in magics.service.knowledge("user")
    ours = propose(magics, "Fiscal weeks start on Monday")
    out = str(ip.run_line_magic("memory", f"apply {ours} --to project"))
    assert out.startswith("Saved to Project · sales-q3: ")
    assert "Fiscal weeks start on Monday" in magics.service.knowledge("project", project="sales-q3")


def test_dismiss_then_repeats_say_already_and_write_nothing(ip, magics):
    pid = propose(magics, "Never join orders on email")
    assert "Dismissed" in str(ip.run_line_magic("memory", f"dismiss {pid}"))
    before = magics.service.knowledge("user")
    again = str(ip.run_line_magic("memory", f"apply {pid} --to user"))
    assert again == "Already dismissed elsewhere; nothing written."
    assert magics.service.knowledge("user") == before
    assert magics.service.proposal(pid).status == "dismissed"


def test_already_saved_names_where(ip, magics):
    pid = propose(magics, "Always use UTC timestamps")
    ip.run_line_magic("memory", f"apply {pid} --to user")
    out = str(ip.run_line_magic("memory", f"dismiss {pid}"))
    assert out == "Already saved elsewhere (User); nothing written."
    assert magics.service.proposal(pid).status == "applied"


def test_revert_an_apply_back_to_the_queue_or_dismissed(ip, magics):
    pid = propose(magics, "Always use UTC timestamps")
    ip.run_line_magic("memory", f"apply {pid} --to user")
    out = str(ip.run_line_magic("memory", f"revert {pid}"))
    assert out.startswith(f"Reverted {pid}: removed from User (") and "back in the queue" in out
    assert "UTC" not in magics.service.knowledge("user")
    assert magics.service.proposal(pid).status == "pending"
    ip.run_line_magic("memory", f"apply {pid} --to user")
    out = str(ip.run_line_magic("memory", f"revert {pid} --then dismissed"))
    assert out.endswith("dismissed.") and magics.service.proposal(pid).status == "dismissed"
    with pytest.raises(UsageError, match="%memory dismiss: unrecognized arguments: --then pending"):
        ip.run_line_magic("memory", f"dismiss {pid} --then pending")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("apply", "needs a proposal id"),
        ("dismiss", "needs a proposal id"),
        ("apply p-1", "needs --to user or --to project"),
        ("apply p-nope --to user", "no proposal with id 'p-nope'"),
        ("dismiss ../x", "id: contains a path separator"),
    ],
)
def test_bad_input_is_a_usage_error(ip, magics, line, message):
    with pytest.raises(UsageError, match=message):
        ip.run_line_magic("memory", line)
