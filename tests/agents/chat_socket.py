"""A Jupyter AI chat's WebSocket, as the chat panel uses it (jupyterlab_chat's ws_messages).

What the person sends reaches Jupyter AI's router as a client message (a
message written into the server's chat model directly would not: the router
routes only what clients send); the test reads every message of the chat.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from tests.support.servers import JupyterProcess

PROPOSAL_MIME = "application/vnd.jupyter-memory.proposal+json"


class ChatSocket:
    """The chat's WebSocket, as the chat panel uses it (jupyterlab_chat's ws_messages)."""

    def __init__(self, server: JupyterProcess, path: str) -> None:
        self.url = f"{server.url.replace('http', 'ws', 1)}/api/chat/ws/{path}?token={server.token}"
        self.users: dict[str, Any] = {}
        self.by_id: dict[str, dict[str, Any]] = {}  # a streamed reply comes again, updated
        self.conn: Any = None
        self.opened = False

    async def open(self) -> None:
        from tornado.websocket import websocket_connect

        self.conn = await websocket_connect(self.url)
        await self.until(lambda: self.opened)  # the connection frame

    async def until(self, done: Any, timeout: float = 60.0) -> None:
        async def read() -> None:
            while not done():  # what came with an earlier frame counts too
                frame = await self.conn.read_message()
                assert frame is not None, "the chat's WebSocket closed"
                data = json.loads(frame)
                if data.get("action") == "connection":
                    self.opened = True
                    self.users |= data["users"]
                    self.by_id |= {m["id"]: m for m in data["messages"]}
                elif data.get("action") == "users":
                    self.users |= data["users"]
                elif data.get("action") == "message":
                    self.by_id[data["message"]["id"]] = data["message"]

        await asyncio.wait_for(read(), timeout)

    def persona(self, name: str) -> str:
        return next(u for u, user in self.users.items() if user.get("display_name") == name)

    async def send(self, body: str, to: str) -> None:
        frame = {"type": "client", "action": "send", "id": uuid.uuid4().hex, "body": body}
        await self.conn.write_message(json.dumps(frame | {"metadata": {"to_persona": to}}))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.by_id.values())

    def replies(self, sender: str) -> list[str]:
        return [m["body"] for m in self.messages if m.get("sender") == sender and m.get("body")]

    def cards(self) -> list[dict[str, Any]]:
        return [
            card
            for m in self.messages
            for card in ((m.get("mime_model") or {}).get("data", {}).get(PROPOSAL_MIME) or {}).get(
                "cards", []
            )
        ]


def card_ids(chat: dict[str, Any]) -> list[str]:
    """The proposal ids of the card messages a ``.chat`` file keeps."""
    return [
        card["id"]
        for m in chat["messages"]
        for card in ((m.get("mime_model") or {}).get("data", {}).get(PROPOSAL_MIME) or {}).get(
            "cards", []
        )
    ]
