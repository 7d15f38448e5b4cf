"""The embedded deterministic extractor: explicit notes only (spec 002 §4.1, issue 32).

No LLM: a proposal comes only from a *note marker* at the start of a comment
or a markdown / chat line — ``note:``, ``rule:``, ``info:``, ``gotcha:``,
``注意：``, ``备注：``, ``规则：``, ``口径：`` (any case, half- or full-width colon;
the one table is :data:`NOTE_MARKERS`, documented in docs/knowledge.md). A
marked line always makes exactly one candidate, whatever its wording: its
kind comes from the marker, else from the wording (:func:`classify`), else
``info``. Ordinary comments and prose never make one: "should / must /
includes / 注意 …" somewhere in a sentence is how people write, not a rule
they want kept (宁缺毋滥; on public notebooks the keyword extractor this
replaces proposed ~8 lines per 100 cells, none of them a team rule,
benchmarks/noise_bench.py). Reading other sentences is the LLM's job, at the
end of a conversation (service/knowledge/boundary.py).

It reads the person's most recent texts (default the last 8 user messages or
cells; agent output and system instructions are never read). The marked line
is the evidence quote, so it always passes the evidence check. Execution state
(SQL, temp or cache tables, paths of intermediate files) belongs in the
conversation, not in long-term knowledge (spec §4.3): such a note is skipped
with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..._i18n import M_
from .evidence import SourceText, normalize_quote

DEFAULT_MAX_MESSAGES = 8
MAX_PER_ROUND = 3
MIN_SENTENCE_CHARS = 8
MIN_CJK_SENTENCE_CHARS = 4
MAX_SENTENCE_CHARS = 300
MAX_NOTE_CHARS = 600  # a note wrapped over many lines is cut at a word here

_RULE_EN = re.compile(
    r"\b(always|never|must|mustn't|must not|should|shouldn't|should not|do not|don't|"
    r"avoid|make sure|ensure|prefer|only use|instead of)\b",
    re.IGNORECASE,
)
_INFO_EN = re.compile(
    r"\b(is defined as|are defined as|defined as|means|refers to|excludes?|excluding|"
    r"includes?|including|is calculated as|is computed as|stands for|corresponds to)\b",
    re.IGNORECASE,
)
_RULE_ZH = re.compile(
    r"必须|必須|不要|不能|不得|应该|應該|应当|應當|务必|務必|禁止|一律|只用|只能|统一|統一|注意|请勿|請勿|避免|优先|優先"
)
_INFO_ZH = re.compile(
    r"口径|口徑|定义为|定義為|是指|指的是|不含|不包含|包含|包括|不包括|等于|等於|即为|即為|代表"
)
# The note markers (issue 32): marker → kind (None: from the wording, else info)
# and the proposal's source. docs/knowledge.md, "Notes", shows this table.
NOTE_MARKERS: tuple[tuple[str, str | None, str], ...] = (
    ("note", None, "chat-extraction"),
    ("rule", "rule", "chat-extraction"),
    ("info", "info", "chat-extraction"),
    ("gotcha", "rule", "gotcha"),
    ("注意", None, "chat-extraction"),
    ("备注", None, "chat-extraction"),
    ("備註", None, "chat-extraction"),
    ("规则", "rule", "chat-extraction"),
    ("規則", "rule", "chat-extraction"),
    ("口径", "info", "chat-extraction"),
    ("口徑", "info", "chat-extraction"),
)
_MARKER_KIND = {m.casefold(): (kind, source) for m, kind, source in NOTE_MARKERS}
# A marker, optional spaces, a half- or full-width colon, then the note.
_NOTE = re.compile(
    r"^(?P<marker>"
    + "|".join(re.escape(m) for m, _, _ in NOTE_MARKERS)
    + r")\s*[:：]\s*(?P<body>.+)$",
    re.IGNORECASE,
)
# Where a comment starts: a whole-line comment, or after code ("x = 1  # note: …").
_TRAILING_COMMENT = re.compile(r"\s(?:#|--|//)\s*(?P<text>.*)$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；;])|\n+")
_COMMENT = re.compile(r"^\s*(?:#(?![!%])|--|//)\s?(?P<text>.*)$")
_MD_MARK = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d{1,3}[.)]\s+)+")
_CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

# Execution state (spec §4.3): kept out of knowledge files.
_SQL = re.compile(
    r"\b(select\s+[\s\S]+?\s+from\s+\w|insert\s+into\s+\w|update\s+\w+\s+set\s|delete\s+from\s+\w|"
    r"create\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+)?(?:table|view)\s|drop\s+(?:table|view)\s|"
    r"alter\s+table\s|with\s+\w+\s+as\s*\(|merge\s+into\s)",
    re.IGNORECASE,
)
_TEMP_TABLE = re.compile(
    r"(?:\b(?:tmp|temp|cache|cached|scratch)_\w+|\b\w+_(?:tmp|temp|cache|cached)\b|"
    r"(?<![\w#])#{1,2}[A-Za-z_]\w*\b(?=\s|$|[,.;)])|\btemp(?:orary)?\s+tables?\b|\bcache\s+tables?\b|"
    r"临时表|臨時表|缓存表|緩存表|快取表|暂存表|暫存表)",
    re.IGNORECASE,
)
# The file-name branch starts only where a run of path characters starts (the
# lookbehind): tried from every position of a long dotted, hex or URL-like run it
# scanned the rest of the run again (quadratic; 0.7 s on 3,000 characters in the
# post-run hook). ``search`` finds the same first match: one starting inside a run
# means one starting at the run's start matches too.
_PATH = re.compile(
    r"(?:(?:^|[\s'\"(])(?:/tmp/|/var/tmp/|~/|\./|\.\./|[A-Za-z]:\\)\S+|"
    r"(?<![\w./\\~-])[\w./\\~-]+\.(?:csv|tsv|parquet|pq|pkl|pickle|feather|arrow|h5|hdf5|xlsx?|npy|npz|jsonl?|db|sqlite)\b)",
    re.IGNORECASE,
)


def execution_state_reason(text: str) -> str | None:
    """Why ``text`` is execution state rather than knowledge, or ``None``."""
    if _SQL.search(text):
        return M_("it contains a SQL statement; keep queries in the conversation, not in knowledge")
    if _TEMP_TABLE.search(text):
        return M_("it names a temp or cache table, which is execution state")
    if _PATH.search(text):
        return M_("it contains a file path of an intermediate output, which is execution state")
    return None


def classify(sentence: str) -> str | None:
    """``"rule"``, ``"info"`` or ``None`` when the sentence is neither."""
    if _RULE_EN.search(sentence) or _RULE_ZH.search(sentence):
        return "rule"
    if _INFO_EN.search(sentence) or _INFO_ZH.search(sentence):
        return "info"
    return None


@dataclass(frozen=True)
class KnowledgeCandidate:
    text: str
    kind: str
    quote: str
    source: str  # chat-extraction | correction | gotcha
    origin: SourceText


def _readable_lines(source: SourceText) -> list[str]:
    """The lines a note can start: comments of a code cell, every line of other texts.

    A code line that is not a comment is an empty string, so a comment block
    ends there (a note's continuation lines stay within its block).
    """
    if source.role == "code":
        lines = []
        for line in source.text.splitlines():
            m = _COMMENT.match(line) or _TRAILING_COMMENT.search(line)
            lines.append(m.group("text") if m and m.group("text").strip() else "")
        return lines
    return [_MD_MARK.sub("", line) for line in source.text.splitlines()]


def sentences(source: SourceText) -> list[str]:
    out: list[str] = []
    for line in _readable_lines(source):
        for piece in _SENTENCE_END.split(line):
            piece = piece.strip()
            if piece:
                out.append(piece)
    return out


def _long_enough(sentence: str) -> bool:
    norm = normalize_quote(sentence)
    least = MIN_CJK_SENTENCE_CHARS if _CJK_RE.search(norm) else MIN_SENTENCE_CHARS
    return least <= len(norm)


def _tidy(sentence: str) -> str:
    text = sentence.replace("**", "").replace("__", "").replace("`", "")
    text = " ".join(text.split())
    return text[:1].upper() + text[1:] if text[:1].isascii() else text


@dataclass(frozen=True)
class Note:
    """One marked line: the note's text, its kind and source, and the line as quoted."""

    text: str
    kind: str
    source: str
    quote: str


# Characters of code, not prose: a "note:" listing types or calls is program output.
_CODE_CHARS = re.compile(r"[\[\](){}<>=_`\\/|*#@$]")
MAX_CODE_SHARE = 0.15


_DOTTED = re.compile(r"\w\.\w")  # np.dtype, df.groupby: a dotted name


def _is_code(text: str) -> bool:
    chars = [c for c in text if not c.isspace()]
    code = len(_CODE_CHARS.findall(text)) + len(_DOTTED.findall(text))
    return bool(chars) and code > MAX_CODE_SHARE * len(chars)


def _body(line: str) -> str:
    """The line without its marker (a continuation line may have none)."""
    stripped = line.strip().replace("**", "").replace("__", "")
    match = _NOTE.match(stripped)
    return match.group("body").strip() if match else stripped


WRAP_CHARS = 50  # a line this long without a full stop was wrapped (PEP 8 wraps near 79)


def _wrapped(line: str) -> bool:
    """Does the line look cut by a wrap rather than ended (long, no closing punctuation)?

    A line ending in a colon goes on too: what it introduces is part of the note.
    """
    return len(line) >= WRAP_CHARS and not line.endswith(
        (".", "。", "!", "！", "?", "？", ";", "；")
    )


def _continues(line: str) -> bool:
    """Does this line carry on the note above (a wrapped comment or paragraph)?"""
    stripped = line.strip()
    if not stripped:
        return False
    match = _NOTE.match(stripped)
    # "note:     a: …" under "note: … are:" (indented after the marker) carries on too
    return match is None or bool(re.match(r"^[^:：]*[:：]\s{2,}", stripped))


def note_of(line: str) -> Note | None:
    """The note a line starts with a marker (after comment and markdown marks), else None."""
    stripped = line.strip().replace("**", "").replace("__", "")
    match = _NOTE.match(stripped)
    if match is None:
        return None
    body = match.group("body").strip()
    if not body:
        return None
    marker_kind, source = _MARKER_KIND[match.group("marker").casefold()]
    kind = marker_kind or classify(body) or "info"
    return Note(_tidy(body), kind, source, line.strip())


def recent_person_texts(
    sources: Iterable[SourceText], max_messages: int = DEFAULT_MAX_MESSAGES
) -> list[SourceText]:
    own = [s for s in sources if s.is_persons_own]
    return own[-max_messages:] if max_messages > 0 else []


def extract_candidates(
    sources: Iterable[SourceText], *, max_messages: int = DEFAULT_MAX_MESSAGES
) -> list[KnowledgeCandidate]:
    """Every marked note of the recent person texts, oldest first; nothing else.

    A note wrapped over the following lines of its comment block or paragraph
    is one note (cut at :data:`MAX_NOTE_CHARS`); one too short to be evidence,
    or whose text is mostly code (a listing of types or calls), is not a note. The caller applies dedup and the execution-state check.
    """
    out: list[KnowledgeCandidate] = []
    seen: set[str] = set()
    for source in recent_person_texts(sources, max_messages):
        lines = _readable_lines(source)
        i = 0
        while i < len(lines):
            note = note_of(lines[i])
            i += 1
            if note is None:
                continue
            body = _body(lines[i - 1])
            last = lines[i - 1].strip()
            # a note wrapped over lines of its comment block or paragraph is one note
            while (
                i < len(lines)
                and _continues(lines[i])
                and (_wrapped(last) or last.endswith((":", "：")))
            ):
                last = lines[i].strip()
                body = f"{body} {_body(last)}"
                i += 1
            if _is_code(body):
                continue  # a listing of types or calls, not a sentence a person keeps
            text = _tidy(body)
            if len(text) > MAX_NOTE_CHARS:
                text = text[:MAX_NOTE_CHARS].rsplit(" ", 1)[0] + " …"
            if not _long_enough(text):
                continue
            key = normalize_quote(text).casefold()
            if key in seen:
                continue
            seen.add(key)
            out.append(KnowledgeCandidate(text, note.kind, note.quote, note.source, source))
    return out
