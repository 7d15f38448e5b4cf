"""The embedded, deterministic session digest: spec-001 output without an LLM.

It reads only the person's own messages (role ``user``): in code, only comment
text; in markdown and chat, every line. Signals are those of
:mod:`.digest_signals`. Scenes follow the spec's reuse rules as far as a
program can check them without guessing:

* a level-1/2 markdown heading opens a topic; the topic's label is
  ``{project}｜{heading}`` when the heading passes the label rules;
* a segment **reuses** a pool scene only when its label names the same project
  and topic (criterion 1) *and* that topic is written in the segment's new
  messages (criteria 2–3: the evidence is in the batch, not in a guess);
* otherwise it **creates** a scene with a one-line reason, or — when there is
  no usable topic or no project — leaves the scene unclassified, which the spec
  allows ("确实无法判断场景时可省略").

The result is the spec's JSON array (as :class:`SceneOutput`); run it through
:func:`~.work_memory.validate_work_memories` like any other extractor's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .digest_signals import (
    Signal,
    decision_signal,
    is_chinese,
    is_task_line,
    method_signal,
)
from .scene_labels import label_problem, make_label, normalize_topic, split_label
from .work_memory import (
    Batch,
    BatchMessage,
    MemoryOutput,
    Scene,
    SceneOutput,
    parse_batch,
    parse_pool,
)

_FULL_COMMENT = re.compile(r"^\s*(?:#+|//+|--)\s?(?P<c>.*)$")
_INLINE_COMMENT = re.compile(r"\s(?:#|//)\s?(?P<c>[^'\"]*)$")
_LIST_MARK = re.compile(r"^\s*(?:>+\s*)?(?:(?:[-*+]|\d+[.)])\s+)?(?P<box>\[[ xX]\]\s+)?")
_HEADING = re.compile(r"^\s{0,3}#{1,2}\s+(?P<t>\S.*?)\s*#*\s*$")
# ``[^\S\n]*`` (spaces of this line), not ``\s*``: from every line start of a run of
# blank lines ``\s*`` read all the rest of the run (quadratic in it); a match now starts
# on the keyword's own line, and what is found (or counted) is the same.
_CODE_HINT = re.compile(
    r"^[^\S\n]*(?:import |from \S+ import |def |class |for .+:|if .+:|print\(|return\b|"
    r"[A-Za-z_][\w.\[\]'\"]*\s*=[^=])",
    re.MULTILINE,
)
_SENTENCE_END = re.compile(r"(?<=[。！？!?])\s*|(?<=[.])\s+")


@dataclass
class _Segment:
    topic: str | None
    messages: list[BatchMessage] = field(default_factory=list)


def _heading(raw: str) -> str | None:
    """A markdown heading's text; a commented task ("# TODO: …") is not a heading."""
    match = _HEADING.match(raw)
    if match is None or is_task_line(match.group("t")):
        return None
    return match.group("t").strip().strip("*_`").strip()


def _is_code(msg: BatchMessage) -> bool:
    if msg.kind is not None:
        return msg.kind == "code"
    return bool(_CODE_HINT.search(msg.text))


def _lines(msg: BatchMessage) -> list[str]:
    """Each line the person wrote as prose (comments in code), without its list mark."""
    out: list[str] = []
    code = _is_code(msg)
    for raw in msg.text.splitlines():
        if code:
            found = _FULL_COMMENT.match(raw) or _INLINE_COMMENT.search(raw)
            if found is None:
                continue
            raw = found.group("c")
        elif _heading(raw) is not None:
            continue  # headings name topics; they are not statements
        mark = _LIST_MARK.match(raw)
        line = raw[mark.end() :] if mark else raw
        line = line.strip().lstrip("#").strip()
        if line:
            out.append(line)
    return out


def message_signals(msg: BatchMessage, project: str | None) -> list[Signal]:
    """Every clear signal in one of the person's messages, in reading order."""
    if msg.role != "user":
        return []
    found: list[Signal] = []
    for line in _lines(msg):
        if is_task_line(line):
            continue  # the person's own list: never a memory nobody has seen (issue 32)
        for sentence in _SENTENCE_END.split(line):
            signal = decision_signal(sentence, project) or method_signal(sentence)
            if signal is not None:
                found.append(signal)
    return found


def _heading_topic(msg: BatchMessage) -> str | None:
    if msg.role != "user" or _is_code(msg) or msg.kind == "chat":
        return None
    for raw in msg.text.splitlines():
        topic = _heading(raw)
        if topic is not None:
            return topic
    return None


def _segments(batch: Batch) -> list[_Segment]:
    segments = [_Segment(topic=None)]
    for msg in batch.messages:
        heading = _heading_topic(msg)
        if heading is not None:
            usable = label_problem(make_label("p", heading)) is None
            segments.append(_Segment(topic=heading if usable else None))
        segments[-1].messages.append(msg)
    return [s for s in segments if s.messages]


def _mentions(segment: _Segment, topic: str) -> bool:
    key = normalize_topic(topic)
    return any(key in normalize_topic(m.text) for m in segment.messages if m.role == "user")


def _scene_fields(
    segment: _Segment, pool: Sequence[Scene], project: str | None
) -> dict[str, str | None]:
    candidates = []
    for scene in pool:
        parts = split_label(scene.label)
        if parts is None:
            continue
        same_project = project is None or normalize_topic(parts[0]) == normalize_topic(project)
        if same_project and _mentions(segment, parts[1]):
            candidates.append((scene, parts[1]))
    if segment.topic is not None:
        key = normalize_topic(segment.topic)
        exact = [s for s, topic in candidates if normalize_topic(topic) == key]
        if exact:
            return {"scene_id": exact[0].id}
        if project is None:
            return {}
        label = make_label(project, segment.topic)
        if label_problem(label) is not None:
            return {}
        if is_chinese(segment.topic):
            reason = f"场景池中没有「{segment.topic}」这一议题，本批以该标题开启新的线索。"
        else:
            reason = f"No scene in the pool has the topic '{segment.topic}'; this batch opens it."
        return {"new_scene_name": label, "new_scene_reason": reason}
    if len(candidates) == 1:
        return {"scene_id": candidates[0][0].id}
    return {}  # no topic, or more than one candidate: unclassified rather than a guess


def _memories(
    segment: _Segment, project: str | None, session_of: dict[str, str]
) -> list[MemoryOutput]:
    merged: dict[tuple[str, str], tuple[Signal, list[str]]] = {}
    for msg in segment.messages:
        for signal in message_signals(msg, project):
            key = (session_of[msg.id], signal.key)
            if key in merged:
                if msg.id not in merged[key][1]:
                    merged[key][1].append(msg.id)
            else:
                merged[key] = (signal, [msg.id])
    return [
        MemoryOutput(
            content=signal.content,
            type=signal.type,
            priority=signal.priority,
            source_message_ids=sources,
            metadata=dict(signal.metadata),
        )
        for signal, sources in merged.values()
    ]


def _names_project(text: str, name: str) -> bool:
    if is_chinese(name):
        return name in text
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE) is not None


def segment_project(
    segment: _Segment, known_projects: Sequence[str], recorded: str | None = None
) -> str | None:
    """The project a segment's messages point to (spec 001, 命名规则):

    a known project the person's messages name (``known_projects`` only help to
    match, the longest name first), else the project its messages were recorded
    in (``BatchMessage.project``; ``recorded`` for messages that carry none).
    Never the project focused when the digest runs.
    """
    texts = [m.text for m in segment.messages if m.role == "user"]
    for name in sorted(known_projects, key=len, reverse=True):
        if name and any(_names_project(t, name) for t in texts):
            return name
    counts = Counter(m.project or recorded for m in segment.messages if m.project or recorded)
    return counts.most_common(1)[0][0] if counts else None


def extract_work_memories(
    batch: Batch | Any,
    pool: Sequence[Scene] | Any = (),
    *,
    project: str | None = None,
    known_projects: Sequence[str] = (),
) -> list[SceneOutput]:
    """Spec-001 scenes with the memories the person's clear signals support.

    A segment's project is the one its messages point to (:func:`segment_project`);
    ``project`` stands for the project messages without a recorded one were
    recorded in. Without a project no new scene can be named, so new topics
    stay unclassified. Zero scenes is a valid, common result.
    """
    batch = parse_batch(batch)
    pool = parse_pool(list(pool) if pool is not None else None)
    session_of = {m.id: batch.session_of(m) for m in batch.messages}
    scenes: list[SceneOutput] = []
    for segment in _segments(batch):
        where = segment_project(segment, known_projects, project)
        memories = _memories(segment, where, session_of)
        if not memories:
            continue  # the spec outputs no empty scenes
        fields = _scene_fields(segment, pool, where)
        scenes.append(
            SceneOutput(
                scene_id=fields.get("scene_id"),
                new_scene_name=fields.get("new_scene_name"),
                new_scene_reason=fields.get("new_scene_reason"),
                message_ids=[m.id for m in segment.messages],
                memories=memories,
            )
        )
    return scenes
