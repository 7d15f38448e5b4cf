"""Untrusted text made safe to show a person: one rule for every surface (docs/design.md invariant 12).

Stored and proposed text may hold characters that act instead of showing:

* C0 controls (U+0000–U+001F), DEL and C1 controls (U+0080–U+009F). ESC
  starts the terminal's escape sequences: ``ESC[8m`` conceals what follows,
  ``ESC]52;…`` sets the clipboard, ``\\r`` returns to the line's start so later
  text overwrites earlier text.
* Bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F, U+061C), which
  reorder what a reader sees: a right-to-left override makes ``exe.txt`` read
  as ``txt.exe``.

:func:`visible` replaces each of them by a visible stand-in, so a surface
shows that something is there and never acts on it: a C0 control becomes its
control picture (ESC → ``␛``, so ``ESC[8m`` reads ``␛[8m`` and an OSC 52
sequence ``␛]52;c;…␇``: the rest of a sequence is printable already), DEL
``␡``, every other one ``⟨U+202E⟩``. Line breaks and tabs are kept where a
surface keeps lines. Text without such a character comes back as it is, and
a shown text shows the same again (the stand-ins are ordinary characters).

:func:`visible_html` escapes for HTML and isolates the text's direction
(``<bdi>``), so even ordinary right-to-left letters cannot reorder what
surrounds them. :func:`first_hidden` names the first such character and where
it is, for a refusal (agent proposals, :class:`~jupyter_memory.exceptions.HiddenTextError`).
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

from .._i18n import M_
from ..exceptions import HiddenTextError

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_HIDDEN = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI_CONTROLS}]")
# Every hidden character but line breaks and tabs: what a multi-line surface replaces.
HIDDEN_KEEPING_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}]")

# Unicode gives C0 controls no character name, only these aliases.
_C0_NAMES = (
    "NULL",
    "START OF HEADING",
    "START OF TEXT",
    "END OF TEXT",
    "END OF TRANSMISSION",
    "ENQUIRY",
    "ACKNOWLEDGE",
    "BELL",
    "BACKSPACE",
    "CHARACTER TABULATION",
    "LINE FEED",
    "LINE TABULATION",
    "FORM FEED",
    "CARRIAGE RETURN",
    "SHIFT OUT",
    "SHIFT IN",
    "DATA LINK ESCAPE",
    "DEVICE CONTROL ONE",
    "DEVICE CONTROL TWO",
    "DEVICE CONTROL THREE",
    "DEVICE CONTROL FOUR",
    "NEGATIVE ACKNOWLEDGE",
    "SYNCHRONOUS IDLE",
    "END OF TRANSMISSION BLOCK",
    "CANCEL",
    "END OF MEDIUM",
    "SUBSTITUTE",
    "ESCAPE",
    "INFORMATION SEPARATOR FOUR",
    "INFORMATION SEPARATOR THREE",
    "INFORMATION SEPARATOR TWO",
    "INFORMATION SEPARATOR ONE",
)


def stand_in(ch: str) -> str:
    """The visible form of one hidden character."""
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # the control pictures: ␀ … ␛ … ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return f"⟨U+{code:04X}⟩"


def visible(text: str, *, lines: bool = True) -> str:
    """``text`` with every control, escape and bidi character shown, never acting.

    ``lines`` keeps ``\\n`` and ``\\t`` as they are (a body, a block); without
    it they are shown too (a one-line cell)."""
    pattern = HIDDEN_KEEPING_LINES if lines else _HIDDEN
    if not pattern.search(text):
        return text
    return pattern.sub(lambda m: stand_in(m.group(0)), text)


def visible_html(text: object) -> str:
    """Stored text for HTML: shown as :func:`visible`, escaped, its direction isolated."""
    return f"<bdi>{html.escape(visible('' if text is None else str(text)))}</bdi>"


@dataclass(frozen=True)
class HiddenChar:
    """The first hidden character of a text: which one, and where (1-based)."""

    char: str
    position: int

    @property
    def code(self) -> str:
        return f"U+{ord(self.char):04X}"

    @property
    def name(self) -> str:
        code = ord(self.char)
        if code < 0x20:
            return _C0_NAMES[code]
        return unicodedata.name(self.char, "DELETE" if code == 0x7F else "C1 CONTROL")

    def describe(self) -> str:
        """``U+001B ESCAPE (␛)``: how a message names it."""
        return f"{self.code} {self.name} ({stand_in(self.char)})"

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "name": self.name, "position": self.position}


def first_hidden(text: str, *, lines: bool = True) -> HiddenChar | None:
    """The first character :func:`visible` would replace, or ``None``."""
    match = (HIDDEN_KEEPING_LINES if lines else _HIDDEN).search(text)
    return None if match is None else HiddenChar(match.group(0), match.start() + 1)


def refuse_hidden(text: str, *, field: str, lines: bool = True) -> str:
    """``text`` unchanged, or :class:`HiddenTextError` naming its first hidden character."""
    found = first_hidden(text, lines=lines)
    if found is None:
        return text
    raise HiddenTextError(
        M_(
            "holds {character} at character {position}: control, escape and "
            "direction characters can hide text from the person who reviews it",
            character=found.describe(),
            position=found.position,
        ),
        field=field,
        code=found.code,
        position=found.position,
    )
