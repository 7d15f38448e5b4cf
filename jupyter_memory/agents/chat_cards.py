"""Proposal cards in a Jupyter AI chat (issue 30, spec 002 §4.4).

A proposal made in a chat appears in that chat's message stream as a card —
the quote, **User** / **Project** / **Dismiss** — drawn by the lab extension
from the live queue, like a notebook's cards. The mechanism is jupyterlab-chat's
own: a message's ``mime_model`` (a MIME bundle the chat renders with the
application's rendermime registry instead of the markdown body). The bundle
carries our proposal MIME type, which the lab extension's card renderer already
draws in notebooks (labextension/src/cards.ts); ``body`` and ``text/plain``
keep the card readable for a chat without our extension and for agents reading
the chat's history. A reload re-renders the message, and the card asks the
queue again, so it shows its decided state.

Which chat a proposal belongs to is read from its ``conversation``:

- ``chat:<chat file>``: the person's explicit note in a chat message (any
  message, to any persona or none: :meth:`ChatCards.on_message`), the ``Memory``
  persona's notes and its end-of-turn suggestions;
- ``jupyter-ai-chat:<hash of the chat file>``: a tool call of the chat's agent
  through jupyter-server-mcp (the chat named by ``X-Jupyter-Chat-Id``);
- ``mcp-stdio:<agent>:<client pid>:…``: our stdio MCP server started by an ACP
  agent from the chat's ``.jupyter/mcp_settings.json``
  (``jupyter-memory install jupyter-ai``): the chat whose ACP persona runs that
  agent process and is answering a prompt (else the only chat it serves).

Cards are posted whenever the queue changes (the server's change event, which
also reports other processes' writes) and when a chat opens; a chat that
already shows a proposal's card (its file holds the message) gets no second one.
Nothing here imports Jupyter AI: the live chats are the persona managers
Jupyter AI keeps in the web application's settings.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..exceptions import JupyterMemoryError
from ..widgets.cards import PROPOSAL_MIME, cards_bundle, snapshots_of
from .chat_focus import access_for_chat, chat_conversation
from .jupyter_ai_tools import shared_access

CARD_SENDER = "jupyter-memory"  # the chat user whose messages are the cards
CARD_SENDER_NAME = "Agent Memory"
TO_PERSONA = "to_persona"  # where the chat input's persona picker names the addressee
MEMORY_PERSONA_CLASS = "MemoryPersona"  # it keeps its own messages' notes (jupyter_ai_persona.py)
ROUTER_WAIT_S = 60.0


@dataclass(frozen=True)
class LiveChat:
    path: str  # the chat file, absolute and resolved
    chat: Any  # jupyterlab_chat's BaseChatModel (a YChat with RTC, else a WsChatModel)
    manager: Any  # Jupyter AI's persona manager of this chat


def chat_key(path: str | os.PathLike[str]) -> str:
    """The digest session (and proposal conversation) of a chat's own messages."""
    try:
        return f"chat:{Path(path).resolve()}"
    except OSError:
        return f"chat:{path}"


def _resolved(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except OSError:
        return os.path.abspath(path)


def live_chats(settings: dict[str, Any]) -> list[LiveChat]:
    managers = settings.get("jupyter-ai", {}).get("persona-managers", {})
    chats = []
    for manager in list(managers.values()) if isinstance(managers, dict) else []:
        try:
            chats.append(LiveChat(_resolved(manager.get_chat_path()), manager.chat, manager))
        except Exception:  # noqa: BLE001 - a chat being stopped: no card for it now
            continue
    return chats


def _pid_of_conversation(conversation: str) -> int | None:
    parts = conversation.split(":")
    if len(parts) >= 3 and parts[0] == "mcp-stdio":
        try:
            return int(parts[2])
        except ValueError:
            return None
    return None


def _agent_pid(persona: Any) -> int | None:
    """The pid of an ACP persona's agent process (a class attribute of jupyter-ai-acp-client)."""
    future = getattr(type(persona), "_subprocess_future", None)
    if future is None or not future.done() or future.cancelled() or future.exception():
        return None
    return getattr(future.result(), "pid", None)


def _prompting(persona: Any) -> bool:
    """Whether an ACP persona is answering a prompt now (its session's prompt lock is held)."""
    client_future = getattr(type(persona), "_client_future", None)
    session_future = getattr(persona, "_client_session_future", None)
    try:
        client = client_future.result() if client_future is not None else None
        session = session_future.result() if session_future is not None else None
    except Exception:  # noqa: BLE001 - not started, failed, or still starting
        return False
    locks = getattr(client, "_prompt_locks_by_session", {}) or {}
    lock = locks.get(getattr(session, "session_id", None))
    return bool(lock is not None and lock.locked())


def chats_for(conversation: str | None, chats: list[LiveChat]) -> list[LiveChat]:
    """The live chats a proposal of ``conversation`` was made in (none: not a chat's)."""
    if not conversation:
        return []
    if conversation.startswith("chat:"):
        path = _resolved(conversation.removeprefix("chat:"))
        return [c for c in chats if c.path == path]
    if conversation.startswith("jupyter-ai-chat:"):
        return [c for c in chats if chat_conversation(c.path) == conversation]
    pid = _pid_of_conversation(conversation)
    if pid is None:
        return []
    served = [
        (chat, persona)
        for chat in chats
        for persona in _personas(chat)
        if _agent_pid(persona) == pid
    ]
    busy = [chat for chat, persona in served if _prompting(persona)]
    if busy:
        return busy
    only = {chat.path: chat for chat, _ in served}
    return list(only.values()) if len(only) == 1 else []


def _personas(chat: LiveChat) -> list[Any]:
    try:
        return list(chat.manager.personas.values())
    except Exception:  # noqa: BLE001 - a manager still initializing
        return []


def carded_ids(chat: Any) -> set[str]:
    """The proposals whose card this chat already shows (its file keeps the messages)."""
    ids: set[str] = set()
    try:
        messages = chat.get_messages()
    except Exception:  # noqa: BLE001 - a document not loaded yet
        return ids
    for message in messages:
        mime = getattr(message, "mime_model", None)
        data = mime.get("data") if isinstance(mime, dict) else getattr(mime, "data", None)
        payload = data.get(PROPOSAL_MIME) if isinstance(data, dict) else None
        for card in (payload or {}).get("cards", []) if isinstance(payload, dict) else []:
            if isinstance(card, dict) and isinstance(card.get("id"), str):
                ids.add(card["id"])
    return ids


def post_cards(chat: Any, bundle: dict[str, Any]) -> str:
    """One chat message holding these cards (the chat's own ``mime_model``)."""
    from jupyterlab_chat.models import MimeModel, NewMessage, User

    if CARD_SENDER not in chat.get_users():
        chat.set_user(
            User(
                username=CARD_SENDER,
                name=CARD_SENDER_NAME,
                display_name=CARD_SENDER_NAME,
                bot=True,
            )
        )
    text = bundle["text/plain"]
    data = {PROPOSAL_MIME: bundle[PROPOSAL_MIME], "text/plain": text}
    message = NewMessage(body=text, sender=CARD_SENDER, mime_model=MimeModel(data=data))
    # No mention lookup: the card's text names no one.
    return str(chat.add_message(message, trigger_actions=[]))


class ChatCards:
    """Posts the cards of the chats served by this Jupyter server (see the module docstring)."""

    def __init__(self, settings: dict[str, Any], log: logging.Logger | None = None) -> None:
        self.settings = settings
        self.log = log or logging.getLogger(__name__)
        self._lock = asyncio.Lock()
        self._again = False
        self._memory: Any = None
        self._memory_lock = threading.Lock()
        self.observed: set[str] = set()  # chat ids whose messages are read for notes
        self.posted = 0  # card messages posted (tests, logs)

    # -- Jupyter AI's router: every chat, every message the person sends -----------------

    async def attach(self) -> bool:
        """Wait for Jupyter AI's message router, then follow every chat it opens."""
        waited = 0.0
        while (router := self.settings.get("jupyter-ai", {}).get("router")) is None:
            if waited >= ROUTER_WAIT_S:
                return False
            await asyncio.sleep(0.2)
            waited += 0.2
        router.observe_chat_init(lambda chat_id, _chat: self._follow(router, chat_id))
        # A closed chat loses its message observers (the router drops them): on its
        # next opening it is followed again.
        router.observe_chat_stop(self.observed.discard)
        for chat_id in list(getattr(router, "active_chats", {})):
            self._follow(router, chat_id)
        return True

    def _follow(self, router: Any, chat_id: str) -> None:
        if chat_id not in self.observed:
            self.observed.add(chat_id)
            router.observe_chat_msg(chat_id, self.on_message)
        self.refresh()  # a chat opened again: its new pending proposals

    def on_message(self, chat_id: str, message: Any) -> None:
        """A message the person sent: its explicit notes become proposals (their cards follow).

        A message to the ``Memory`` persona is left to it (it keeps the same notes
        and says so in its reply).
        """
        body = getattr(message, "body", "")
        if not isinstance(body, str) or not body.strip():
            return
        to = (getattr(message, "metadata", None) or {}).get(TO_PERSONA) or ""
        if isinstance(to, str) and to.endswith(f"::{MEMORY_PERSONA_CLASS}"):
            return
        chat = next((c for c in live_chats(self.settings) if c.chat.get_id() == chat_id), None)
        if chat is None:
            return
        message_id = str(getattr(message, "id", "") or "") or None
        asyncio.get_running_loop().create_task(self._notes(chat.path, body, message_id))

    async def _notes(self, path: str, body: str, message_id: str | None) -> None:
        def run() -> int:
            shared = shared_access()
            # The person's words: evidence for any agent's quote, in this process or another.
            shared.record_person_text(body, role="user", message_id=message_id)
            access = access_for_chat(shared, os.path.dirname(path), chat_path=path)
            return len(access.memory.hooks.chat_notes(chat_key(path), body, message_id=message_id))

        try:
            made = await asyncio.to_thread(run)
        except JupyterMemoryError as exc:
            self.log.warning("jupyter-memory: chat message not read for notes: %s", exc)
            return
        if made:
            await self.post_new()

    # -- the queue changed: cards for new proposals of live chats ------------------------

    async def on_changed(self, logger: Any, schema_id: str, data: dict[str, Any]) -> None:
        """The server's change event (server/changes.py): the queue may hold a chat's proposal."""
        if data.get("area") == "queue":
            await self.post_new()

    def refresh(self) -> None:
        try:
            asyncio.get_running_loop().create_task(self.post_new())
        except RuntimeError:  # no loop (a script): nothing is live to post into
            return

    async def post_new(self) -> int:
        """Post a card message in each live chat for its pending proposals it does not show."""
        if self._lock.locked():
            self._again = True  # one more round when this one ends
            return 0
        async with self._lock:
            posted = 0
            while True:
                self._again = False
                posted += await self._round()
                if not self._again:
                    return posted

    async def _round(self) -> int:
        chats = live_chats(self.settings)
        if not chats:
            return 0
        try:
            pending = await asyncio.to_thread(self._pending)
        except JupyterMemoryError as exc:
            self.log.warning("jupyter-memory: chat cards: queue not read: %s", exc)
            return 0
        wanted: dict[str, tuple[LiveChat, list[str]]] = {}
        shown = {chat.path: carded_ids(chat.chat) for chat in chats}
        for proposal in pending:
            for chat in chats_for(proposal.conversation, chats):
                if proposal.id not in shown[chat.path]:
                    wanted.setdefault(chat.path, (chat, []))[1].append(proposal.id)
        posted = 0
        for chat, ids in wanted.values():
            try:
                bundle = await asyncio.to_thread(self._bundle, ids)
                post_cards(chat.chat, bundle)
            except Exception as exc:  # noqa: BLE001 - one chat's failure leaves the others
                self.log.warning("jupyter-memory: cards not posted in %s: %s", chat.path, exc)
                continue
            self.log.info("jupyter-memory: %d card(s) posted in %s", len(ids), chat.path)
            posted += 1
            self.posted += 1
        return posted

    def _mem(self) -> Any:
        with self._memory_lock:
            if self._memory is None:
                from ..service.memory import Memory

                self._memory = Memory(home=str(shared_access().memory.home))
            return self._memory

    def _pending(self) -> list[Any]:
        return list(self._mem().queue())

    def _bundle(self, ids: Iterable[str]) -> dict[str, Any]:
        return cards_bundle(snapshots_of(self._mem(), list(ids)))


__all__ = ["CARD_SENDER", "ChatCards", "LiveChat", "carded_ids", "chats_for", "post_cards"]
