"""Translations of what the CLI and the magics say (gettext, domain ``jupyter_memory``).

The language is ``JUPYTER_MEMORY_LANG`` (``zh_CN``, ``zh``, ``en``…) when set,
else the locale (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), looked
up again whenever it changes, so a test or a kernel can switch it. English is
the source text and the fallback: a message without a translation reads in
English. The catalogues are ``locale/<lang>/LC_MESSAGES/jupyter_memory.po``
(edit these) compiled to ``.mo`` beside them by ``scripts/compile_catalogs.py``.
"""

from __future__ import annotations

import gettext
import os
from functools import lru_cache
from pathlib import Path

DOMAIN = "jupyter_memory"
LOCALE_DIR = Path(__file__).parent / "locale"
_LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def languages() -> tuple[str, ...]:
    """The languages asked for, most wanted first (``()``: the locale's default)."""
    chosen = os.environ.get("JUPYTER_MEMORY_LANG", "").strip()
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


__all__ = ["DOMAIN", "LOCALE_DIR", "N_", "languages", "ntr", "tr"]
