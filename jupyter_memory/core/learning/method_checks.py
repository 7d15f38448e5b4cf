"""What can be checked of spec 001's work_method rules ("三项判别测试", "输出前自检").

Two of the spec's tests are mechanical enough to check without a model:

* **normative** (① 规范性测试, 自检 1): a method is a normative statement — it
  holds a norm word (should / must / never / don't / prefer / avoid, 应 / 必须 /
  禁止 / 不要 / 优先 / 需 / 当…时) or is "the user holds that …" with normative
  content (用户主张 / 用户习惯);
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


def is_normative(content: str) -> bool:
    """Does the statement hold a norm word (or attribute a norm to the user)?"""
    if _EN_NORM.search(content):
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
