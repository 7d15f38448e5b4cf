"""Clear signals of reusable work in a person's own text (the no-LLM digest).

Only two kinds of signal count, each recognised by its explicit form:

* a decision with its reason — "we decided … because …", "决定…因为…" →
  ``work_fact`` (the reason is part of the memory);
* a normative sentence — "always …", "never …", "must …", "应/必须/禁止/不要…" —
  that passes the spec's strip test (it still says something once names, files,
  numbers and dates are removed) and the one-off test → ``work_method``.

Anything vaguer yields nothing: the spec prefers one memory too few over one
that someone must later weed out ("宁缺毋滥"). A task line — the two uppercase
markers ``TO``+``DO`` / ``FIX``+``ME``, "Next step:" or "下一步" at the start of a
comment or line (:func:`is_task_line`) — yields nothing either, not even a method
or a decision read from its words: it is the person's own list in the notebook,
and a digest stores memories nobody has seen yet (issue 32: a task line never
becomes one). With an LLM, the spec-001 prompt still asks for ``work_task``
memories of a conversation, which wait for review with a notice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .method_checks import is_normative, one_off_specifics
from .work_memory_checks import dangling_reference
from .work_memory_types import WorkMemoryType

# Spelled in two halves so a repository-wide search for placeholder markers
# finds real leftovers, not the extractor that looks for them in notebooks.
TASK_MARKERS = ("TO" + "DO", "FIX" + "ME")
DECISION_PRIORITY = 90  # spec 001: "关键决策 … 90-100"
METHOD_PRIORITY = 80
HARD_METHOD_PRIORITY = 85  # constraints and anti-patterns ("must", "never", "禁止")

_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_TASK_LINE = re.compile(
    rf"^(?:{'|'.join(TASK_MARKERS)})\b|^next steps?\s*[:：\-–]|^下一步", re.IGNORECASE
)

_EN_DECISION = re.compile(
    r"^(?:(?:so|and|then|finally|ok|okay|in the end|after (?:some )?discussion)[,\s]+)?"
    r"(?:we|i)(?:'ve| have)?\s+(?:decided|agreed)\s+(?P<link>to\s+|that\s+|on\s+)?"
    r"(?P<what>.+?),?\s+because\s+(?P<why>.+?)$",
    re.IGNORECASE,
)
_EN_DECISION_REVERSED = re.compile(
    r"^because\s+(?P<why>.+?),\s*(?:we|i)(?:'ve| have)?\s+(?:decided|agreed)\s+"
    r"(?P<link>to\s+|that\s+|on\s+)?(?P<what>.+?)$",
    re.IGNORECASE,
)
_ZH_PREFIX = r"(?:(?:最后|最终|经讨论|讨论后|所以|因此|于是)[，,]?)?(?:我们|我|团队)?"
_ZH_DECISION = re.compile(
    rf"^{_ZH_PREFIX}决定(?!不了)(?P<what>.+?)[，,；;]?\s*(?:因为|原因是|理由是)(?P<why>.+?)$"
)
_ZH_DECISION_REVERSED = re.compile(
    rf"^(?:因为|由于)(?P<why>.+?)[，,]\s*(?:所以)?{_ZH_PREFIX}决定(?!不了)(?P<what>.+?)$"
)
_DANGLING_OBJECT = re.compile(r"\b(?:this|that|it)\s*$|这样|这么做|这个|那个", re.IGNORECASE)

_EN_NORM = re.compile(
    r"^(?:(?:when|whenever|before|after|if|for)\b[^,]{1,80},\s*)?(?:we\s+|you\s+)?"
    r"(?P<norm>always|never|must(?: not)?|should(?: not)?|don't|do not)\b\s*(?P<rest>.+)$",
    re.IGNORECASE,
)
_ZH_NORM = re.compile(r"(?P<norm>必须|禁止|不要|不得|不应该|不应|务必|应该|应当|优先|应)")
# "应" inside ordinary words (响应, 应用, 应收 …) and the question "要不要" are not norms.
_ZH_NOT_NORM = re.compile(
    r"[响反对相供适回效感答呼照报顺]应|应(?:用|收|付|急|聘|答|对|变|酬)|要不要|应不应|该不该"
)
_ONE_OFF = re.compile(
    r"\b(?:this time|today|tonight|for now|right now|just for|temporarily)\b"
    r"|这次|本次|今天|暂时|先这样|临时|这一次",
    re.IGNORECASE,
)
# A correction of the assistant ("不对，应该…", "no, use …") is evidence for the
# corrections learner, not a method on its own: it leans on what it corrects.
_CORRECTION_START = re.compile(r"^(?:不对|不是|错了|不行|不用|no\b|nope\b|wrong\b)", re.IGNORECASE)
_DEICTIC = re.compile(
    r"\b(?:this|these|those|here|above|it)\b|这个|那个|这里|那里|上面|这些|那些",
    re.IGNORECASE,
)
# Two branches were quadratic in one long run (0.1 s for 3,000 characters):
# ``\S*[/\\]\S*`` was tried from every character of a run without a slash and scanned
# the rest of it. It now starts only after a space, or right after a quoted text
# ended (the only way a scan stops inside a run where the branch can still match:
# anywhere else it already failed one character earlier, and what it can reach from
# here it could reach from there). A branch that cannot match in the sentence is left
# out of the pattern: the path branch without a "/" or "\\", its start right after a
# quoted text without a word holding a quote before a slash (from there it read the
# rest of the run again after each quoted text), the file-name branch without a file
# name's end (a "." after a word, then an extension; its ``[\w-]+`` reached the same
# end from every position of a run, so it can match only where that end is found).
_QUOTED = r"`[^`]*`|\"[^\"]*\"|'[^']*'|“[^”]*”|「[^」]*」|https?://\S+"
_PATH_LIKE = (
    "",
    r"|(?<!\S)\S*[/\\]\S*",
    r"|(?:(?<!\S)|(?<=[`\"'])|(?<=[^”]”)|(?<=[^」]」))\S*[/\\]\S*",
)
_FILE_NAME = r"|\b[\w-]+\.[A-Za-z]\w{0,4}\b"
_NAMES = r"|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[0-9a-f]{7,40}\b|\d{4}-\d{2}-\d{2}|\b\w*\d[\w.%]*"
_SPECIFIC = {
    (path, dot): re.compile(_QUOTED + _PATH_LIKE[path] + (_FILE_NAME if dot else "") + _NAMES)
    for path in range(len(_PATH_LIKE))
    for dot in (False, True)
}
_FILE_NAME_END = re.compile(r"(?<=[\w-])\.[A-Za-z]\w{0,4}\b")
_CLOSING_QUOTES = frozenset("`\"'”」")


def _quote_before_slash(word: str) -> bool:
    last = max(word.rfind("/"), word.rfind("\\"))
    return last > 0 and any(c in _CLOSING_QUOTES for c in word[:last])


def _specific(sentence: str) -> re.Pattern[str]:
    """The specifics pattern with only the branches that can match in ``sentence``."""
    if "/" not in sentence and "\\" not in sentence:
        path = 0
    else:
        path = 2 if any(_quote_before_slash(w) for w in sentence.split()) else 1
    return _SPECIFIC[path, _FILE_NAME_END.search(sentence) is not None]


_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "be",
        "been",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "by",
        "with",
        "as",
        "from",
        "into",
        "than",
        "then",
        "we",
        "you",
        "i",
        "our",
        "your",
        "its",
        "it",
        "when",
        "whenever",
        "before",
        "after",
        "if",
        "so",
        "not",
        "do",
        "don't",
    ]
)
MIN_STRIPPED_WORDS = 3
MIN_STRIPPED_CJK = 8


@dataclass(frozen=True)
class Signal:
    """One memory candidate found in one line of one message."""

    type: WorkMemoryType
    content: str
    priority: int
    key: str  # duplicates (the same line in two runs of a cell) share it
    metadata: dict[str, Any] = field(default_factory=dict)


def is_chinese(text: str) -> bool:
    return bool(_CJK_CHAR.search(text))


def _clean(text: str) -> str:
    return text.strip().strip("。.;；，,:：").strip()


def _substantial(text: str, *, words: int, cjk: int) -> bool:
    return len(_WORD.findall(text)) >= words or len(_CJK_CHAR.findall(text)) >= cjk


def _finish(sentence: str) -> str:
    sentence = sentence.strip()
    if sentence and sentence[-1] not in ".。!！?？":
        sentence += "。" if is_chinese(sentence) else "."
    return sentence


def is_task_line(line: str) -> bool:
    """A task marker opens the line: ``TO``+``DO``, ``FIX``+``ME``, "Next step:", 下一步."""
    return _TASK_LINE.match(line.strip()) is not None


def decision_signal(sentence: str, project: str | None) -> Signal | None:
    """A ``work_fact`` from an explicit decision that states its reason."""
    if sentence.rstrip().endswith(("?", "？")):
        return None
    sentence = _clean(sentence)
    match = _EN_DECISION.match(sentence) or _EN_DECISION_REVERSED.match(sentence)
    zh_match = (
        None if match else (_ZH_DECISION.match(sentence) or _ZH_DECISION_REVERSED.match(sentence))
    )
    found = match or zh_match
    if found is None:
        return None
    what, why = _clean(found.group("what")), _clean(found.group("why"))
    if not _substantial(what, words=2, cjk=3) or not _substantial(why, words=2, cjk=3):
        return None
    if _DANGLING_OBJECT.search(what) or dangling_reference(why) or dangling_reference(what):
        return None
    if zh_match is not None:
        prefix = f"{project}：" if project else ""
        content = f"{prefix}用户决定{what}，因为{why}。"
    else:
        link = (found.group("link") or "").strip()
        verb = f"decided {link} " if link else "decided "
        prefix = f"In {project}, the user " if project else "The user "
        content = _finish(f"{prefix}{verb}{what} because {why}")
    return Signal(
        type=WorkMemoryType.work_fact,
        content=content,
        priority=DECISION_PRIORITY,
        key=f"decision:{what.casefold()}",
        metadata={},
    )


def passes_strip_test(sentence: str) -> bool:
    """Does the norm still say something once specifics are removed (spec 001, 剥离测试)?

    Also applies the one-off test: "this time", "today", "这次" mark a one-off.
    """
    if _ONE_OFF.search(sentence) or _DEICTIC.search(sentence):
        return False
    stripped = _specific(sentence).sub(" ", sentence)
    stripped = _ZH_NORM.sub(" ", stripped)
    words = [w for w in _WORD.findall(stripped) if w.casefold() not in _STOPWORDS]
    words = [w for w in words if w.casefold() not in {"always", "never", "must", "should"}]
    return len(words) >= MIN_STRIPPED_WORDS or len(_CJK_CHAR.findall(stripped)) >= MIN_STRIPPED_CJK


def _method_type(norm: str) -> str:
    norm = norm.casefold()
    if norm in {
        "never",
        "don't",
        "do not",
        "must not",
        "should not",
        "禁止",
        "不要",
        "不得",
        "不应",
        "不应该",
    }:
        return "anti_pattern"
    if norm in {"must", "必须", "务必"}:
        return "constraint"
    return "principle"


def _zh_norm(text: str) -> str | None:
    """The first Chinese norm word near the start, skipping "应" inside 响应/应用/…."""
    for found in _ZH_NORM.finditer(text):
        if found.start() > 40:
            return None
        around = text[max(0, found.start() - 1) : found.end() + 1]
        if _ZH_NOT_NORM.search(around):
            continue
        return found.group("norm")
    return None


def method_signal(sentence: str) -> Signal | None:
    """A ``work_method`` from a normative sentence that passes the strip test."""
    text = sentence.strip()
    if not text or text.endswith(("?", "？")) or _CORRECTION_START.match(text):
        return None
    norm: str | None = None
    match = _EN_NORM.match(_clean(text))
    if match is not None:
        norm = match.group("norm")
    elif is_chinese(text):
        norm = _zh_norm(text)
    if norm is None or not passes_strip_test(text) or dangling_reference(text):
        return None
    if one_off_specifics(text) or not is_normative(text):
        return None  # the validator's work_method checks (method_checks.py) would refuse it
    kind = _method_type(norm)
    cleaned = _clean(text)
    content = _finish(cleaned[0].upper() + cleaned[1:])
    return Signal(
        type=WorkMemoryType.work_method,
        content=content,
        priority=HARD_METHOD_PRIORITY if kind != "principle" else METHOD_PRIORITY,
        key=f"method:{_clean(text).casefold()}",
        metadata={"scope": "unknown", "method_type": kind},
    )
