"""A review card says a digested memory's type in words and where its quote came
from as a session a person knows, not ``work_task`` and a kernel id (issue 31)."""

from __future__ import annotations

import pytest

from jupyter_memory.magics.session import NotebookSession
from jupyter_memory.widgets import ReviewCards

KERNEL = "kernel-3f2a9c1e-77aa-4bb1-9c0d-1234567890ab#5"


@pytest.fixture
def session(memory_home):
    s = NotebookSession(str(memory_home))
    yield s
    s.close()


def test_a_review_card_names_the_type_and_the_session_in_words(session, monkeypatch):
    entry = session.memory.remember(
        "Check the refunds before Monday",
        type="episodic",
        tier="daily",
        source="session-digest",
        reviewed=False,
        evidence=[
            {"quote": "check the refunds before Monday", "source": KERNEL},
            {"quote": "and the totals", "source": "mcp:planner#2"},
        ],
        extra={"work_type": "work_task"},
    )
    bundle = ReviewCards(session, [entry.id])._repr_mimebundle_()
    for shown in (bundle["text/plain"], bundle["text/html"]):
        assert "work_task" not in shown and "kernel-3f2a" not in shown, shown
    assert "[task]" in bundle["text/plain"]
    assert "a notebook session" in bundle["text/html"]
    assert "agent chat planner" in bundle["text/html"]
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    bundle = ReviewCards(session, [entry.id])._repr_mimebundle_()
    assert "[任务]" in bundle["text/plain"]
    assert "笔记本会话" in bundle["text/html"] and "智能体对话 planner" in bundle["text/html"]
