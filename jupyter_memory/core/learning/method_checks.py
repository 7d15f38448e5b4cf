"""What can be checked of spec 001's work_method rules ("三项判别测试", "输出前自检").

Two of the spec's tests are mechanical enough to check without a model:

* **normative** (① 规范性测试, 自检 1): a method is a normative statement — it
  holds a norm word (should / must / never / don't / prefer / avoid, 应 / 必须 /
  禁止 / 不要 / 优先 / 需 / 当…时) or is "the user holds that …" with normative
  content (用户主张 / 用户习惯). English says the same with a plain imperative
  ("Check key uniqueness …") and with a conditional whose main clause is one
  ("When a join multiplies row counts, check …" — the English 当…时); a
  "when …, …" whose main clause describes ("…, the row count doubled") is not;
* **no one-off specifics** (② 可迁移性测试 and the one-off gate, 自检 2): a
  commit id, a calendar date or a "this time / today / 这次 / 本次" marks a
  record of what happened once — a work_fact or work_artifact, not a method.
  File and command names are allowed: the spec's own methods name them
  ("必须用 npx tsgo -p tsconfig.build.json 重建 dist").

The other tests (guidance for future tasks, actionable, no invented reasons)
need judgement; the prompt asks the model to apply them (digest_prompt.py).
"""

from __future__ import annotations

import re

_EN_NORM = re.compile(
    r"\b(?:should|must|never|always|don't|do not|does not need|avoid|prefer(?:s|red)?|"
    r"need(?:s)? to|make sure|ensure|ought to|ha(?:s|ve) to|is required to|"
    r"(?:the )?user (?:holds|prefers|insists|wants|expects))\b",
    re.IGNORECASE,
)
_ZH_NORM = re.compile(
    r"必须|禁止|不要|不得|不应|不能|应该|应当|务必|避免|优先|需要|需|别|应|"
    r"当.{1,40}?时|用户主张|用户习惯|用户偏好|用户坚持"
)
# 应 / 需 / 别 inside ordinary words (响应, 应用, 需求, 区别 …) are not norms.
_ZH_NOT_NORM = re.compile(
    r"[响反对相供适回效感答呼照报顺理]应|应(?:用|收|付|急|聘|答|对|变|酬)|需求|"
    r"[区类性差级识分告派]别|别(?:人|处|名|的)"
)
_COMMIT = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
_DATE = re.compile(
    r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{4}/\d{1,2}/\d{1,2}\b|\d{4}年\d{1,2}月(?:\d{1,2}[日号])?"
    r"|\d{1,2}月\d{1,2}[日号]"
)
_ONE_OFF = re.compile(
    r"\b(?:this time|today|yesterday|tonight|this morning|for now|right now|just now)\b"
    r"|这次|本次|今天|昨天|今晚|刚刚|这一次",
    re.IGNORECASE,
)


# Base-form verbs an English method opens with ("Check …", "Use …"). Closed
# lists: a description's verb is inflected ("Checks are run", "Uses the …").
# Verbs that are rarely a sentence's opening noun:
_VERBS = frozenset(
    [
        "apply",
        "avoid",
        "calculate",
        "check",
        "compare",
        "compute",
        "confirm",
        "convert",
        "cross-check",
        "deduplicate",
        "dedupe",
        "define",
        "delete",
        "describe",
        "divide",
        "do",
        "double-check",
        "ensure",
        "exclude",
        "explain",
        "impute",
        "include",
        "inspect",
        "keep",
        "normalise",
        "normalize",
        "prefer",
        "put",
        "rebuild",
        "recompute",
        "reindex",
        "remove",
        "rename",
        "replace",
        "rerun",
        "re-run",
        "separate",
        "subtract",
        "take",
        "treat",
        "truncate",
        "use",
        "validate",
        "verify",
        "wait",
    ]
)
# Verbs that also open descriptions as nouns ("Test accounts are …", "Drop rate is …"):
# imperative only when an object or adverb follows ("Drop the …", "Test it first").
_NOUN_VERBS = frozenset(
    [
        "add",
        "adjust",
        "aggregate",
        "align",
        "ask",
        "back",
        "book",
        "bucket",
        "cap",
        "cast",
        "clean",
        "clip",
        "copy",
        "count",
        "document",
        "drop",
        "fill",
        "filter",
        "fix",
        "flag",
        "group",
        "handle",
        "index",
        "join",
        "label",
        "limit",
        "load",
        "lock",
        "log",
        "look",
        "lowercase",
        "map",
        "mark",
        "measure",
        "merge",
        "move",
        "name",
        "note",
        "parse",
        "partition",
        "pin",
        "plot",
        "quote",
        "read",
        "record",
        "refresh",
        "report",
        "reset",
        "restart",
        "review",
        "round",
        "run",
        "sample",
        "save",
        "scale",
        "set",
        "show",
        "sort",
        "split",
        "start",
        "state",
        "stop",
        "store",
        "strip",
        "sum",
        "tag",
        "test",
        "trim",
        "update",
        "weight",
        "write",
    ]
)
_OBJECT_START = frozenset(
    [
        "a",
        "an",
        "the",
        "every",
        "each",
        "all",
        "both",
        "any",
        "no",
        "that",
        "this",
        "these",
        "those",
        "it",
        "its",
        "them",
        "your",
        "whether",
        "if",
        "only",
        "out",
        "up",
        "down",
        "off",
        "again",
        "first",
        "twice",
        "for",
        "on",
        "in",
        "with",
        "to",
        "from",
        "by",
        "before",
        "after",
        "over",
    ]
)
# A noun opening followed by a verb or "of" is a description ("Use of the cache is …").
_NOT_OBJECT = frozenset(
    ["of", "is", "are", "was", "were", "has", "have", "had", "can", "will", "may"]
)
# Openers of a condition or time clause; the main clause follows its comma.
_CONDITION = re.compile(
    r"^\s*(?:when(?:ever)?|if|before|after|once|unless|while|whenever|for every|for each|"
    r"in case)\b[^,;:]{1,200}?,\s*(?P<main>.+)$",
    re.IGNORECASE | re.DOTALL,
)
_LEAD = re.compile(r"^\s*(?:(?:please|always|first|then|also|and)\b[\s,]*)+", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _imperative(clause: str) -> bool:
    """Does the clause open with a base-form verb (after "please / always / first")?"""
    words = [w.lower() for w in _WORD.findall(_LEAD.sub("", clause).lstrip())[:2]]
    if not words or (len(words) > 1 and words[1] in _NOT_OBJECT):
        return False
    if words[0] in _VERBS:
        return True
    return words[0] in _NOUN_VERBS and len(words) > 1 and words[1] in _OBJECT_START


def _english_imperative(content: str) -> bool:
    """A plain imperative sentence, or a condition whose main clause is one."""
    for sentence in re.split(r"(?<=[.!;])\s+", content.strip()):
        cond = _CONDITION.match(sentence)
        if _imperative(cond.group("main") if cond else sentence):
            return True
    return False


def is_normative(content: str) -> bool:
    """Does the statement hold a norm word, an English imperative (or attribute a norm to the user)?"""
    if _EN_NORM.search(content) or _english_imperative(content):
        return True
    for found in _ZH_NORM.finditer(content):
        around = content[max(0, found.start() - 1) : found.end() + 1]
        if not _ZH_NOT_NORM.search(around):
            return True
    return False


def one_off_specifics(content: str) -> list[str]:
    """The commit ids, dates and one-off markers in the statement (empty when none)."""
    found: list[str] = []
    for pattern in (_COMMIT, _DATE, _ONE_OFF):
        found += [m.group(0) for m in pattern.finditer(content)]
    return found
