"""Translations of what the CLI and the magics say (gettext, domain ``jupyter_memory``).

The language is JupyterLab's (Settings → Language) in a kernel the lab
started (``lab.py``), else ``JUPYTER_MEMORY_LANG`` (``zh_CN``, ``zh``, ``en``…)
when set, else the locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), looked
up again whenever it changes, so a test or a kernel can switch it. English is
the source text and the fallback: a message without a translation reads in
English. The catalogues are ``locale/<lang>/LC_MESSAGES/jupyter_memory.po``
(edit these) compiled to ``.mo`` beside them by ``scripts/compile_catalogs.py``.

Texts made below the shells (an error raised by the store, a case-write
notice) are :class:`Message` values built with ``M_``: an English template
and named params. ``str()`` is the English that REST, MCP, JSON and logs
keep; a magic or the CLI shows ``localized()`` to a person.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from .lab import lab_language

DOMAIN = "jupyter_memory"
LOCALE_DIR = Path(__file__).resolve().parents[1] / "locale"
_LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def languages() -> tuple[str, ...]:
    """The languages asked for, most wanted first (``()``: the locale's default):
    JupyterLab's language in a kernel it started (``lab.py``), else
    ``JUPYTER_MEMORY_LANG``, else the locale."""
    chosen = lab_language() or os.environ.get("JUPYTER_MEMORY_LANG", "").strip()
    if chosen:
        return tuple(part for part in chosen.replace(",", ":").split(":") if part)
    for var in _LOCALE_VARS:
        value = os.environ.get(var, "").strip()
        if value:
            return tuple(part for part in value.split(":") if part)
    return ()


@lru_cache(maxsize=8)
def _catalog(langs: tuple[str, ...]) -> gettext.NullTranslations:
    return gettext.translation(
        DOMAIN, localedir=LOCALE_DIR, languages=list(langs) or None, fallback=True
    )


def tr(message: str) -> str:
    """``message`` in the person's language (the English source when there is no translation)."""
    return _catalog(languages()).gettext(message)


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "translated where shown"
    """Mark ``message`` for the catalogue; it is translated later, where it is shown (``tr``)."""
    return message


def ntr(singular: str, plural: str, n: int) -> str:
    return _catalog(languages()).ngettext(singular, plural, n)


class Message(str):
    """A text to show a person. As a ``str`` it is the English, so every caller
    that stores, compares, serializes or logs it is unchanged; it also keeps the
    English ``template`` (``str.format`` with named fields, the catalogue's
    msgid) and its ``params`` (a param may be a Message too), so a magic or the
    CLI can show :meth:`localized`. Slicing or joining gives a plain ``str``:
    English, as before."""

    template: str
    params: Mapping[str, Any]

    def __new__(cls, template: str, params: Mapping[str, Any] | None = None) -> Message:
        # params None: a text taken as it is (unpickling passes only the value)
        values = dict(params) if params is not None else None
        text = template if values is None else template.format(**values)
        self = super().__new__(cls, text)
        self.template = (
            template if values is not None else text.replace("{", "{{").replace("}", "}}")
        )
        self.params = values or {}
        return self

    def localized(self) -> str:
        return self.render(tr)

    def render(self, translate: Callable[[str], str]) -> str:
        values = {k: _rendered(v, translate) for k, v in self.params.items()}
        try:
            return translate(self.template).format(**values)
        except (KeyError, IndexError, ValueError):
            # A catalogue entry whose fields differ from the code's: the English
            # still reads (tests/test_i18n.py keeps the fields equal).
            return str(self)


def _rendered(value: Any, translate: Callable[[str], str]) -> Any:
    """A param as shown: a Message, or an error carrying one, in the same language."""
    if isinstance(value, Message):
        return value.render(translate)
    render = getattr(value, "render", None) if isinstance(value, BaseException) else None
    return render(translate) if callable(render) else value


def M_(template: str, /, **params: Any) -> Message:  # noqa: N802 - a gettext marker, like N_
    """A :class:`Message`, marked for the catalogue: translated where it is shown."""
    return Message(template, params)


def joined(separator: str, texts: list[str]) -> Message:
    """``separator.join(texts)`` that stays a Message: each text is translated where shown."""
    fields = {f"t{i}": text for i, text in enumerate(texts)}
    return Message(separator.join("{" + name + "}" for name in fields), fields)


def localized(text: object) -> str:
    """``text`` in the person's language: a Message or an error that carries one
    (``localized()``); anything else as ``str()`` gives it."""
    method = getattr(text, "localized", None)
    return str(method()) if callable(method) else str(text)


__all__ = [
    "DOMAIN",
    "LOCALE_DIR",
    "M_",
    "Message",
    "N_",
    "joined",
    "languages",
    "localized",
    "ntr",
    "tr",
]
