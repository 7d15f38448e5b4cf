"""Evidence quotes (docs/design.md invariant 4, spec 002 §4.1).

A proposal's quote must appear verbatim in text the *person* wrote in this
round: their chat messages, markdown cells and code cells. Agent output and
system instructions (Execute Plan, Resolve Comments, HTML Report and similar
instruction messages) never count, even when they repeat the person's words.

"Verbatim" is compared after normalisation: NFKC (full-width forms, compatibility
characters), every run of whitespace collapsed to one space, and whitespace
next to a CJK character removed (Chinese is written without spaces, so
``收入 不含 退款`` and ``收入不含退款`` are the same quote). Case and
punctuation are kept: a quote is the person's words, not a paraphrase.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..._i18n import M_
from ...exceptions import ValidationError

MIN_QUOTE_CHARS = 6  # after normalisation; 3 when the quote contains CJK
MIN_CJK_QUOTE_CHARS = 3
MAX_QUOTE_CHARS = 1_000

USER_ROLES = frozenset({"user", "human", "person"})
CELL_ROLES = frozenset({"markdown", "code", "cell", "raw"})
SYSTEM_ROLES = frozenset({"system", "developer", "instruction"})
# Messages that look like user turns but are instructions the UI sent for the
# person (buttons, commands): never evidence of what the person said.
# One ``\s*`` before the optional bracket and one after it (not two adjacent
# ``\s*`` that split a run of spaces every possible way: quadratic in the run).
_INSTRUCTION_RE = re.compile(
    r"^\s*(?:[\[(<]\s*)?(?:execute\s+plan|resolve\s+comments?|(?:generate\s+)?html\s+report|"
    r"system\s+instruction|执行计划|執行計劃|執行計畫|解决批注|解決批註|处理批注|處理批註|"
    r"生成\s*html\s*报告|生成\s*html\s*報告)\b",
    re.IGNORECASE,
)
_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_SPACE_NEAR_CJK = re.compile(rf"(?<=[{_CJK}]) | (?=[{_CJK}])")
_WS = re.compile(r"\s+")
_HAS_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class SourceText:
    """One piece of conversation or notebook text and where it came from."""

    role: str
    text: str
    message_id: str | None = None
    cell_id: str | None = None
    notebook_path: str | None = None
    instruction: bool = False

    @property
    def is_persons_own(self) -> bool:
        """Text the person wrote: user chat turns and cells, never instructions."""
        if self.instruction:
            return False
        if self.role in CELL_ROLES:
            return True
        return self.role in USER_ROLES and not is_system_instruction(self.text)

    def origin(self) -> dict[str, str]:
        out = {"message_id": self.message_id, "cell_id": self.cell_id}
        out["notebook_path"] = self.notebook_path
        return {k: v for k, v in out.items() if v}


def is_system_instruction(text: str) -> bool:
    return bool(_INSTRUCTION_RE.match(text))


def normalize_quote(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _WS.sub(" ", text).strip()
    return _SPACE_NEAR_CJK.sub("", text)


def _field(obj: Any, *names: str) -> Any:
    for name in names:
        value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence):  # nbformat may store a cell source as a list of lines
        return "".join(str(part) for part in value)
    if value is None:
        return ""
    return str(value)


def to_source(item: Any, *, default_notebook: str | None = None) -> SourceText:
    """A plain string (a user message), a dict or an object with role and text.

    nbformat cells are accepted as they are: ``cell_type`` becomes the role,
    ``source`` the text and ``id`` the cell id.
    """
    if isinstance(item, SourceText):
        return item
    if isinstance(item, str):
        return SourceText("user", item, notebook_path=default_notebook)
    cell_type = _field(item, "cell_type")
    role = str(cell_type or _field(item, "role", "type") or "").strip().lower()
    if not role:
        raise ValidationError(
            M_("message has no role (user, assistant, system, markdown, code)"), field="role"
        )
    text = _as_text(_field(item, "text", "content", "source"))
    ident = _field(item, "message_id", "id")
    cell_id = _field(item, "cell_id") or (ident if cell_type else None)
    return SourceText(
        role=role,
        text=text,
        message_id=None if cell_type else (str(ident) if ident is not None else None),
        cell_id=str(cell_id) if cell_id is not None else None,
        notebook_path=_field(item, "notebook_path", "notebook", "path") or default_notebook,
        instruction=bool(_field(item, "instruction", "is_instruction")),
    )


def to_sources(items: Iterable[Any], *, default_notebook: str | None = None) -> list[SourceText]:
    return [to_source(item, default_notebook=default_notebook) for item in items]


def check_quote_shape(quote: str) -> str:
    """The normalised quote, or :class:`ValidationError` saying why there is none."""
    if not isinstance(quote, str) or not quote.strip():
        raise ValidationError(
            M_("a proposal needs an evidence quote from the person's own words"),
            field="evidence_quote",
        )
    norm = normalize_quote(quote)
    least = MIN_CJK_QUOTE_CHARS if _HAS_CJK.search(norm) else MIN_QUOTE_CHARS
    if len(norm) < least:
        raise ValidationError(
            M_(
                "quote {quote!r} is too short to be evidence (at least {least} characters)",
                quote=quote,
                least=least,
            ),
            field="evidence_quote",
        )
    if len(norm) > MAX_QUOTE_CHARS:
        raise ValidationError(
            M_("quote is over {limit} characters", limit=MAX_QUOTE_CHARS), field="evidence_quote"
        )
    return norm


def find_evidence(quote: str, sources: Iterable[SourceText]) -> SourceText:
    """The person's text containing ``quote``; :class:`ValidationError` otherwise.

    The error says whether the quote was found only in agent output or an
    instruction, so the caller can tell the agent why it was refused.
    """
    norm = check_quote_shape(quote)
    elsewhere: SourceText | None = None
    for source in sources:
        if norm not in normalize_quote(source.text):
            continue
        if source.is_persons_own:
            return source
        elsewhere = elsewhere or source
    if elsewhere is not None:
        system = (
            elsewhere.instruction or elsewhere.role in SYSTEM_ROLES or elsewhere.role in USER_ROLES
        )
        what = M_("a system instruction") if system else M_("agent output")
        raise ValidationError(
            M_("quote appears only in {what}, not in the person's own words", what=what),
            field="evidence_quote",
        )
    raise ValidationError(
        M_("quote does not appear in the person's messages or cells"), field="evidence_quote"
    )
