"""The embedded deterministic extractor (spec 002 §4.1) and the execution-state check.

No LLM: it reads the person's most recent texts (default the last 8 user
messages or cells; agent output and system instructions are never read),
splits them into sentences and keeps the *normative* ones ("always / never /
must / should / do not …", "必须 / 不要 / 应该 / 务必 / 注意 …" → a rule) and the
*definitional* ones ("is defined as / means / excludes / includes …",
"口径 / 定义为 / 是指 / 不含 / 包含 …" → info). In code cells only comments are
read. The sentence itself is the evidence quote, so it always passes the
evidence check. Questions are skipped, and so is execution state (SQL, temp
or cache tables, paths of intermediate files), which belongs in the
conversation, not in long-term knowledge (spec §4.3).
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
_PREFIX = re.compile(
    r"^\s*(?:note|nb|n\.b\.|important|remember|fyi|gotcha|pitfall|careful|correction|注意|备注|備註|提醒)\s*[:：]\s*",
    re.IGNORECASE,
)
_GOTCHA = re.compile(r"^\s*(?:gotcha|pitfall|careful|watch out|坑|踩坑)\b", re.IGNORECASE)
_CORRECTION = re.compile(
    r"^\s*(?:correction\b|actually\b|no,|not quite|不对|不對|更正|纠正|糾正)", re.IGNORECASE
)
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
_PATH = re.compile(
    r"(?:(?:^|[\s'\"(])(?:/tmp/|/var/tmp/|~/|\./|\.\./|[A-Za-z]:\\)\S+|"
    r"[\w./\\~-]+\.(?:csv|tsv|parquet|pq|pkl|pickle|feather|arrow|h5|hdf5|xlsx?|npy|npz|jsonl?|db|sqlite)\b)",
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
    if source.role == "code":
        lines = []
        for line in source.text.splitlines():
            m = _COMMENT.match(line)
            if m and m.group("text").strip():
                lines.append(m.group("text"))
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
    return least <= len(norm) <= MAX_SENTENCE_CHARS


def _tidy(sentence: str) -> str:
    text = _PREFIX.sub("", sentence)
    text = text.replace("**", "").replace("__", "").replace("`", "")
    text = " ".join(text.split())
    return text[:1].upper() + text[1:] if text[:1].isascii() else text


def recent_person_texts(
    sources: Iterable[SourceText], max_messages: int = DEFAULT_MAX_MESSAGES
) -> list[SourceText]:
    own = [s for s in sources if s.is_persons_own]
    return own[-max_messages:] if max_messages > 0 else []


def extract_candidates(
    sources: Iterable[SourceText], *, max_messages: int = DEFAULT_MAX_MESSAGES
) -> list[KnowledgeCandidate]:
    """Every normative or definitional sentence of the recent person texts, oldest first.

    The caller applies dedup and :data:`MAX_PER_ROUND` (dedup first, so three
    duplicates do not hide a fourth new sentence).
    """
    out: list[KnowledgeCandidate] = []
    seen: set[str] = set()
    for source in recent_person_texts(sources, max_messages):
        for sentence in sentences(source):
            if sentence.rstrip().endswith(("?", "？")) or not _long_enough(sentence):
                continue
            kind = classify(sentence)
            if kind is None or execution_state_reason(sentence):
                continue
            text = _tidy(sentence)
            key = normalize_quote(text).casefold()
            if not text or key in seen:
                continue
            seen.add(key)
            origin = "gotcha" if _GOTCHA.match(sentence) else "chat-extraction"
            if _CORRECTION.match(sentence):
                origin = "correction"
            out.append(KnowledgeCandidate(text, kind, sentence, origin, source))
    return out
