"""The ``Memory`` persona for Jupyter AI 3.x (``jupyter_ai.personas`` entry point).

Jupyternaut with the person's approved knowledge and their memories by tier
(the WARM ones chosen by the message it answers) in its system prompt, for the
chat's project, so ``@Memory`` in the chat and ``%%ai anything@Memory`` both
answer with it. The person's chat messages to it are kept as evidence for
agent proposals (their own words; the persona's replies never are), and each
turn (message and reply) goes to the session digest's inbox under
``chat:<chat file>``; a chat that goes quiet is digested like an ended kernel.
An explicit note marker in a message (``rule: …``) is proposed at once, without
an LLM; with an LLM configured, the turn's end (the chat quiet for
``c.JupyterMemoryServer.chat_idle_minutes``, chat_boundary.py) reads the person's
messages once, within the daily budget, and what it did is said in the chat. Each
suggestion then shows as a card in the chat (chat_cards.py, run by the server
extension).

This module is the only one that touches Jupyter AI's persona API, which is
young (tested with jupyter-ai 3.2.0, jupyter-ai-persona-manager 0.2.2,
jupyter-ai-jupyternaut 0.1.0). Without Jupyter AI nobody imports it; with
Jupyter AI but without Jupyternaut it raises ``PersonaRequirementsUnmet`` and
the persona manager skips it quietly.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

from jupyter_ai_persona_manager import PersonaDefaults, PersonaRequirementsUnmet

try:
    from jupyter_ai_jupyternaut.jupyternaut.jupyternaut import (
        JUPYTERNAUT_AVATAR_PATH,
        JupyternautPersona,
    )
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise PersonaRequirementsUnmet(
        "the Memory persona needs Jupyternaut: pip install 'jupyter-memory[jupyter-ai]'"
    ) from exc

from .._i18n import localized, tr
from ..exceptions import JupyterMemoryError
from ..service.agent_access import AgentAccess
from .chat_boundary import CHAT_IDLE_MINUTES, ChatBoundary, ending_in_own_memory
from .chat_focus import access_for_chat, chat_idle_seconds
from .jupyter_ai_tools import shared_access
from .persona_prompt import BASE_PROMPT

PERSONA_NAME = "Memory"


class MemoryPersona(JupyternautPersona):  # type: ignore[misc]
    """Jupyternaut whose system prompt carries the approved knowledge of the chat's project."""

    @property
    def defaults(self) -> PersonaDefaults:
        return PersonaDefaults(
            name=PERSONA_NAME,
            avatar_path=JUPYTERNAUT_AVATAR_PATH,
            # shown to the person in Jupyter AI: the server's language, as %%ask speaks
            description=tr("Jupyternaut with your approved knowledge (jupyter-memory)."),
            system_prompt=BASE_PROMPT,
        )

    def chat_folder(self) -> str | None:
        try:
            return str(self.get_chat_dir())
        except Exception:  # noqa: BLE001 - no persona manager (ephemeral %%ai chats)
            return None

    def chat_file(self) -> str | None:
        try:
            return str(self.get_chat_path())
        except Exception:  # noqa: BLE001 - no persona manager (ephemeral %%ai chats)
            return None

    def chat_access(self) -> AgentAccess:
        """The chat's project (the focus of the notebooks beside it) and conversation (its file).

        A ``.jupyter-memory/`` folder the person never focused (cloned, or
        written by an agent) is never used; nothing here registers a project.
        """
        return access_for_chat(shared_access(), self.chat_folder(), chat_path=self.chat_file())

    def memory_block(self, query: str = "") -> str:
        """The block for this chat, WARM memories chosen by ``query`` ("" when none or off)."""
        try:
            access = copy.copy(self.chat_access())
            access.preinject_wait = 0  # on the event loop: never wait here
            return access.context(None, query)
        except JupyterMemoryError as exc:
            # The persona still answers; the person sees why it has no memory.
            return f"[jupyter-memory could not load the approved knowledge: {exc}]"

    @property
    def system_prompt(self) -> str:
        return self.prompt_for("")

    def prompt_for(self, query: str) -> str:
        block = self.memory_block(query)
        return f"{BASE_PROMPT}\n\n{block}" if block else BASE_PROMPT

    def get_system_prompt(self, model_id: str, message: Any) -> Any:
        base = super().get_system_prompt(model_id=model_id, message=message)
        body = getattr(message, "body", "")
        return f"{base}\n\n{self.prompt_for(body if isinstance(body, str) else '')}"

    def capture(self, message: Any) -> None:
        """Keep the person's chat message as evidence (nothing while memory is off),
        and make a proposal of each explicit note marker in it, as a cell's (no LLM)."""
        body = getattr(message, "body", "")
        if not isinstance(body, str) or not body.strip():
            return
        message_id = str(getattr(message, "id", "") or "") or None
        try:
            shared_access().record_person_text(body, role="user", message_id=message_id)
            key = self.digest_key()
            if key is not None:
                made = self.chat_access().memory.hooks.chat_notes(key, body, message_id=message_id)
                if made:
                    said = tr(
                        "{n} suggestion(s) from this chat wait in the Agent Memory panel's queue"
                    )
                    self.send_message(said.format(n=len(made)))
        except JupyterMemoryError as exc:
            self.log.warning("jupyter-memory: chat message not kept as evidence: %s", exc)

    def chat_boundary(self) -> ChatBoundary:
        """This persona's end-of-turn timer (chat_boundary.py); its notices are chat messages."""
        boundary: ChatBoundary | None = getattr(self, "_jm_boundary", None)
        if boundary is None:
            try:
                loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
            except RuntimeError:  # a turn recorded outside the server's loop (a script)
                loop = None

            def say(text: str) -> None:  # from the timer's thread: YChat lives on the loop
                if loop is not None:
                    loop.call_soon_threadsafe(self.send_message, text)
                else:
                    self.send_message(text)

            boundary = ChatBoundary(
                ending_in_own_memory(self.chat_access().memory),
                say,
                idle_seconds=chat_idle_seconds(CHAT_IDLE_MINUTES),
            )
            self._jm_boundary = boundary
        return boundary

    async def prepare_injection(self) -> None:
        """Before answering: the chat's pre-inject reorganize (spec 002 §6.3), off the event loop.

        It waits (bounded) in a thread so the server keeps serving; the notice
        and the outcome are chat messages from this persona.
        """
        loop = asyncio.get_running_loop()
        access = copy.copy(self.chat_access())

        def notify(text: str) -> None:  # from the worker thread: YChat lives on the loop
            # a chat message to the person: in their language (the server's, as %%ask)
            loop.call_soon_threadsafe(self.send_message, localized(text))

        access.notify = notify
        try:
            await asyncio.to_thread(access.context)
        except JupyterMemoryError as exc:
            said = tr("[jupyter-memory could not prepare the approved knowledge: {error}]")
            self.send_message(said.format(error=exc.localized()))

    def digest_key(self) -> str | None:
        """The chat's session in the digest inbox (``chat:<chat file>``); None without a file."""
        path = self.chat_file()
        if not path:
            return None
        try:
            return f"chat:{Path(path).resolve()}"
        except OSError:
            return f"chat:{path}"

    def record_turn(self, message: Any) -> None:
        """The person's message and this persona's reply to it, for the session digest
        (like a notebook's cells: a correction of the agent is seen by the learner)."""
        key = self.digest_key()
        body = getattr(message, "body", "")
        if key is None or not isinstance(body, str) or not body.strip():
            return
        reply = "\n\n".join(self._replies_after(str(getattr(message, "id", "") or "")))
        try:
            memory = shared_access().memory
            if memory.enabled:
                memory.hooks.record_agent_turn(
                    key, person=body, reply=reply or None, turn_id=getattr(message, "id", None)
                )
                self.chat_boundary().on_turn(key)  # its end: this chat idle for a while
        except JupyterMemoryError as exc:
            self.log.warning("jupyter-memory: chat turn not kept for the digest: %s", exc)

    def _replies_after(self, message_id: str) -> list[str]:
        """This persona's messages in the chat after ``message_id`` (its reply)."""
        try:
            messages = self.chat.get_messages()
        except Exception:  # noqa: BLE001 - no chat document (ephemeral %%ai)
            return []
        ids = [getattr(m, "id", None) for m in messages]
        start = ids.index(message_id) + 1 if message_id in ids else len(messages)
        return [
            m.body
            for m in messages[start:]
            if getattr(m, "sender", None) == self.id and isinstance(m.body, str) and m.body.strip()
        ]

    async def process_message(self, message: Any) -> None:
        self.capture(message)
        await self.prepare_injection()
        await super().process_message(message)
        self.record_turn(message)
