"""``%memories --learning``: candidate rules with evidence, confidence and thresholds."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError


def _correction(magics, session: str, reply: str) -> None:
    mem = magics.service
    mem.hooks.digest_record(
        session,
        [
            {"id": "a", "role": "assistant", "text": "I'll run yarn add pandas-profiling"},
            {"id": "u", "role": "user", "text": reply},
        ],
    )
    mem.digest()


def test_memories_learning_shows_candidates_escaped(ip, magics):
    _correction(magics, "chat-1", "no, use npm not <b>yarn</b>")
    _correction(magics, "chat-2", "不对，应该用 npm 安装依赖")
    view = ip.run_line_magic("memories", "--learning")
    text = repr(view)
    assert "2 candidate rule(s)" in text and "with ≥ 5 pieces of evidence" in text
    assert "[collecting]" in text and "chat-2" in text and "应该用 npm 安装依赖" in text
    page = view._repr_html_()
    assert "&lt;b&gt;yarn&lt;/b&gt;" in page and "<b>yarn" not in page
    assert view["thresholds"]["min_confidence"] == 0.9


def test_memories_learning_is_one_mode(ip):
    with pytest.raises(UsageError, match="not both"):
        ip.run_line_magic("memories", "--learning --stats")
