"""The chat card message and which chat a proposal belongs to (agents/chat_cards.py).

Over a real jupyterlab-chat document (``YChat``) and a real ``Memory``; the
live walks are test_chat_cards_browser.py, test_acp_walk.py and
test_chat_turn_end_server.py. Marked ``jupyter_ai``: jupyterlab-chat is
Jupyter AI's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory.agents.chat_cards import (
    CARD_SENDER,
    LiveChat,
    carded_ids,
    chat_key,
    chats_for,
    post_cards,
)
from jupyter_memory.agents.chat_focus import chat_conversation
from jupyter_memory.widgets.cards import PROPOSAL_MIME, cards_bundle, snapshots_of

pytestmark = pytest.mark.jupyter_ai


def test_a_card_message_carries_the_proposal_bundle_and_is_seen_once(mem, tmp_path: Path) -> None:
    from jupyterlab_chat.ychat import YChat

    chat = YChat()
    made = mem.hooks.chat_notes(chat_key(tmp_path / "a.chat"), "rule: weeks start on Monday")
    ids = [p.id for p in made]
    assert carded_ids(chat) == set()
    post_cards(chat, cards_bundle(snapshots_of(mem, ids)))
    (message,) = chat.get_messages()
    data = message.mime_model["data"]
    assert [c["id"] for c in data[PROPOSAL_MIME]["cards"]] == ids
    assert data[PROPOSAL_MIME]["cards"][0]["evidence_quote"] == "rule: weeks start on Monday"
    # Readable without our extension, and by an agent reading the chat's history.
    assert "Weeks start on Monday" in message.body and message.body == data["text/plain"]
    assert message.sender == CARD_SENDER and chat.get_users()[CARD_SENDER].bot
    assert carded_ids(chat) == set(ids)


def test_a_proposal_goes_to_the_chat_its_conversation_names_and_no_other(tmp_path: Path) -> None:
    from jupyterlab_chat.ychat import YChat

    a, b = (str((tmp_path / n).resolve()) for n in ("a.chat", "b.chat"))
    chats = [LiveChat(a, YChat(), None), LiveChat(b, YChat(), None)]
    assert [c.path for c in chats_for(chat_key(a), chats)] == [a]
    assert [c.path for c in chats_for(chat_conversation(b), chats)] == [b]
    for other in (None, "", "ask:kernel-1", "mcp-http:mcp:abc", "mcp-stdio:mcp:notapid"):
        assert chats_for(other, chats) == []
    # An MCP client process no live chat's agent runs: no chat.
    assert chats_for("mcp-stdio:mcp:999999:12", chats) == []
