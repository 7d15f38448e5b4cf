"""A :class:`Message` kept as text in a file or a table, and read back translatable.

A reason saved in the index (why a file could not be read) is shown later, in
the language of whoever asks then. It is stored as JSON holding the English, the
template and the params (nested Messages kept as such, any other param as its
``str``). Read back, the Message is rebuilt only when it gives exactly the
stored English again (a param whose ``repr`` was part of the text would not):
otherwise, and for rows written as plain English, the English is returned as
it was, so nothing reads differently than before.
"""

from __future__ import annotations

import json
from typing import Any

from . import Message

_KEY = "jm-message"


def _plain(value: Any) -> Any:
    if isinstance(value, Message):
        return {_KEY: {"template": value.template, "params": _params(value)}}
    error = value.args[0] if isinstance(value, BaseException) and value.args else None
    as_message = getattr(value, "as_message", None) if isinstance(value, BaseException) else None
    if callable(as_message):
        return _plain(as_message())
    if isinstance(error, Message) and str(value) == str(error):
        return _plain(error)
    return str(value)


def _params(message: Message) -> dict[str, Any]:
    return {key: _plain(value) for key, value in message.params.items()}


def _rebuilt(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {_KEY}:
        inner = value[_KEY]
        params = {k: _rebuilt(v) for k, v in dict(inner.get("params") or {}).items()}
        return Message(str(inner["template"]), params)
    return value


def stored_text(reason: object) -> str:
    """``reason`` (an error, a Message or text) as the text to store."""
    plain = _plain(reason)
    if isinstance(plain, str):
        return plain
    return json.dumps({"en": str(reason), **plain}, ensure_ascii=False)


def read_stored(text: str) -> str:
    """What :func:`stored_text` kept: a Message where it rebuilds exactly, else the English."""
    if not text.startswith("{"):
        return text
    try:
        data = json.loads(text)
        english = str(data["en"])
        message = _rebuilt({_KEY: data[_KEY]})
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return text
    return message if str(message) == english else english


__all__ = ["read_stored", "stored_text"]
