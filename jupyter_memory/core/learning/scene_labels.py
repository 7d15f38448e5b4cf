"""Stable scene labels ``{project}｜{topic}`` (spec 001, "命名规则（稳定标签）").

A label names *what* a thread of work is about, never what is being done to it
right now: activity, state and dates are transient, and a label that carries
them stops matching the same topic in the next batch — the main cause of scene
fragmentation the spec warns about.

The checks look at the topic only and are tuned so the spec's own examples pass
(``Agent Memory｜L1 提取误分类排查`` and ``Billing API｜超时重试实现`` end in a
nominalised activity, which is a topic) while its counter-example fails
(``A104527 后端｜排查企业端盖章失败并修复重试逻辑`` *starts* with what is being
done). An activity verb is therefore only flagged at the start of the topic,
or when two activities are chained ("…并修复…", "… and fix …").
"""

from __future__ import annotations

import re
import unicodedata

SEPARATOR = "｜"  # U+FF5C FULLWIDTH VERTICAL LINE, as in every example of the spec
MAX_LABEL_CHARS = 120

_ZH_ACTIVITY_START = (
    "排查",
    "修复",
    "修改",
    "修正",
    "调试",
    "解决",
    "跟进",
    "继续",
    "正在",
    "开始",
    "准备",
    "尝试",
    "完成",
    "编写",
    "添加",
    "新增",
    "删除",
    "移除",
    "清理",
    "处理",
    "实现",
    "搞定",
    "看看",
    "查看",
    "检查",
    "验证",
)
_ZH_ACTIVITY_ANYWHERE = re.compile(r"正在|并(?:修复|实现|验证|排查|修改|重试|处理)|然后|之后再")
_EN_ACTIVITY_START = re.compile(
    r"^(?:fix(?:ing)?|debug(?:ging)?|investigat(?:e|ing)|implement(?:ing)?|refactoring|"
    r"testing|verify(?:ing)?|add(?:ing)?|remov(?:e|ing)|updat(?:e|ing)|try(?:ing)?|"
    r"clean(?:ing)?(?: up)?|check(?:ing)?|look(?:ing)? (?:at|into)|work(?:ing)? on|"
    r"writ(?:e|ing)|migrat(?:e|ing)|deploy(?:ing)?|continu(?:e|ing)|finish(?:ing)?|"
    r"start(?:ing)?|review(?:ing)?|explor(?:e|ing)|handl(?:e|ing)|resolv(?:e|ing)|"
    r"troubleshoot(?:ing)?)\b",
    re.IGNORECASE,
)
_EN_ACTIVITY_ANYWHERE = re.compile(
    r"\b(?:and|then) (?:fix|debug|implement|verify|retry|test|deploy)\w*\b|\bworking on\b",
    re.IGNORECASE,
)

_ZH_STATE = re.compile(
    r"进行中|已完成|未完成|完成了|待办|待确认|待处理|已解决|已修复|已上线|阻塞中|已阻塞|搁置|暂停中|收尾"
)
_EN_STATE_ANYWHERE = re.compile(r"\b(?:wip|in[ -]progress|on hold|ongoing)\b", re.IGNORECASE)
# Words that are states only when they stand as a marker: bracketed, after a
# dash or colon, or closing the label ("pending orders" is a topic, "(pending)" is not).
_EN_STATE_MARKER = re.compile(
    r"(?:[(\[（【]\s*(?:done|finished|completed|blocked|resolved|pending|todo|to-do)\s*[)\]）】])|"
    r"(?:[-–—:：]\s*(?:done|finished|completed|blocked|resolved|pending|todo|to-do)\s*$)|"
    r"(?:\b(?:done|finished|completed|blocked|resolved|todo|to-do)\s*$)",
    re.IGNORECASE,
)

_MONTHS = r"jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_DATE = re.compile(
    r"\d{4}\s*[-/.年]\s*\d{1,2}|\d{1,2}\s*月\s*\d{1,2}\s*[日号]?|\d{1,2}\s*月份?|"
    r"今天|昨天|明天|今日|昨日|明日|本周|上周|下周|这周|本月|上月|下月|"
    r"周[一二三四五六日天]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|"
    r"\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b",
    re.IGNORECASE,
)
_EN_DATE = re.compile(
    r"\b(?:today|yesterday|tomorrow|tonight|this week|last week|next week|this month|"
    r"last month|next month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|"
    rf"\b(?:{_MONTHS})[a-z]*\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|"
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})[a-z]*\b",
    re.IGNORECASE,
)


def split_label(label: str) -> tuple[str, str] | None:
    """``(project, topic)`` of a well-formed label, else None."""
    if label.count(SEPARATOR) != 1:
        return None
    project, topic = (part.strip() for part in label.split(SEPARATOR))
    if not project or not topic:
        return None
    return project, topic


def make_label(project: str, topic: str) -> str:
    return f"{project.strip()}{SEPARATOR}{topic.strip()}"


def normalize_topic(text: str) -> str:
    """Comparison key: NFKC, case-folded, whitespace squashed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def label_problem(label: str) -> tuple[str, str] | None:
    """``(rule, message)`` for the first problem of a new scene label, or None.

    Rules: ``scene_label_format``, ``scene_label_activity``, ``scene_label_state``,
    ``scene_label_date``.
    """
    if not label.strip() or len(label) > MAX_LABEL_CHARS or "\n" in label:
        return (
            "scene_label_format",
            f"a scene label is one line of at most {MAX_LABEL_CHARS} characters",
        )
    parts = split_label(label)
    if parts is None:
        return (
            "scene_label_format",
            f"{label!r} is not '{{project}}{SEPARATOR}{{topic}}' with both parts non-empty",
        )
    _, topic = parts
    if topic.startswith(_ZH_ACTIVITY_START) or _ZH_ACTIVITY_ANYWHERE.search(topic):
        return ("scene_label_activity", f"topic {topic!r} says what is being done, not the topic")
    if _EN_ACTIVITY_START.search(topic) or _EN_ACTIVITY_ANYWHERE.search(topic):
        return ("scene_label_activity", f"topic {topic!r} says what is being done, not the topic")
    if (
        _ZH_STATE.search(topic)
        or _EN_STATE_ANYWHERE.search(topic)
        or _EN_STATE_MARKER.search(topic)
    ):
        return ("scene_label_state", f"topic {topic!r} carries a state, which changes over time")
    if _DATE.search(topic) or _EN_DATE.search(topic):
        return ("scene_label_date", f"topic {topic!r} carries a date, which belongs in metadata")
    return None
