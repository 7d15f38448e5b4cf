"""Read Jupyter AI / jupyterlab-chat ``*.chat`` files, read-only, as digest messages.

A chat file is JSON with ``messages`` (``id``, ``body``, ``time`` in epoch
seconds, ``sender``) and ``users`` (a bot has ``"bot": true``; Jupyter AI
personas also have user names starting with ``jupyter-ai-personas``). Only
what is needed is read; the file is never written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError
from ..input_files import read_input_json

MAX_CHAT_FILES = 200


def find_chat_files(folder: Path) -> list[Path]:
    """``*.chat`` files under ``folder`` (hidden folders skipped), at most a bounded number."""
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("*.chat")):
        parts = path.relative_to(folder).parts
        if any(p.startswith(".") for p in parts) or not path.is_file() or path.is_symlink():
            continue
        found.append(path)
        if len(found) >= MAX_CHAT_FILES:
            break
    return found


def _is_bot(sender: str, users: dict[str, Any]) -> bool:
    user = users.get(sender)
    if isinstance(user, dict) and user.get("bot"):
        return True
    return sender.startswith("jupyter-ai-personas") or sender.startswith("@jupyter-ai")


def read_chat_messages(path: Path) -> list[dict[str, Any]]:
    """Digest messages ``{id, role, kind, text, timestamp}`` of one chat file, in order."""
    data = read_input_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise ParseError(M_("not a chat file: no 'messages' list"), path=path)
    raw_users = data.get("users")
    users: dict[str, Any] = raw_users if isinstance(raw_users, dict) else {}
    out: list[dict[str, Any]] = []
    for index, msg in enumerate(data["messages"]):
        if not isinstance(msg, dict) or msg.get("deleted"):
            continue
        body = msg.get("body")
        if not isinstance(body, str) or not body.strip():
            continue
        sender = str(msg.get("sender", ""))
        seconds = msg.get("time")
        timestamp = (
            round(seconds * 1000)
            if isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
            else None
        )
        out.append(
            {
                "id": str(msg.get("id") or f"msg-{index}"),
                "role": "assistant" if _is_bot(sender, users) else "user",
                "kind": "chat",
                "text": body,
                "timestamp": timestamp,
            }
        )
    return out
