"""Hard rules of spec 001 for one memory record, checked against its batch.

Every check reports ``(rule, message)``; nothing is corrected. The order of the
checks is fixed so the first rule reported for a record is stable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ..event_time import parse_iso8601
from .method_checks import is_normative, one_off_specifics
from .work_memory_types import (
    ACTIVITY_TIME_KEYS,
    ARTIFACT_TYPES,
    MAX_PRIORITY,
    METHOD_TYPES,
    MIN_PRIORITY,
    SCOPES,
    TYPE_ONLY_METADATA,
    TaskState,
    WorkMemoryType,
)

Problem = tuple[str, str]

# A model that writes activity times at minute precision still cites its source.
ACTIVITY_TOLERANCE = timedelta(seconds=60)

_DANGLING_START = re.compile(
    r"^\s*(?:这个|那个|这些|那些|这里|那里|这|那|它们|它|此|该|上述)"
    r"|^\s*(?:this|that|these|those|it|they)\b",
    re.IGNORECASE,
)
_DANGLING_ANYWHERE = re.compile(
    r"上面说的|上面提到的|如上所述|前面说的|前面提到的|刚才说的|刚才提到的|同上|上述"
    r"|\bas (?:mentioned|discussed|described|noted|said) (?:above|earlier|before)\b"
    r"|\bthe above\b|\bsee above\b|\bas above\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class MessageIndex:
    """What the rules need to know about a batch, keyed by message id."""

    sessions: Mapping[str, frozenset[str]]  # new message id -> its session keys
    background: frozenset[str]
    event_times: Mapping[tuple[str, str], datetime | None] = field(default_factory=dict)


def dangling_reference(content: str) -> bool:
    """True when the content leans on the conversation ('this', '上面说的', …)."""
    return bool(_DANGLING_START.search(content) or _DANGLING_ANYWHERE.search(content))


def source_ids_of(raw: Mapping[str, Any]) -> list[str] | None:
    ids = raw.get("source_message_ids")
    if not isinstance(ids, list) or not ids:
        return None
    if not all(isinstance(i, str) and i.strip() for i in ids):
        return None
    return list(ids)


def check_memory(raw: Any, *, scene_ids: frozenset[str], index: MessageIndex) -> list[Problem]:
    """Every hard rule this memory breaks, in a fixed order (empty when accepted)."""
    if not isinstance(raw, dict):
        return [("memory_not_object", f"expected an object, got {type(raw).__name__}")]
    problems: list[Problem] = []
    kind = _check_type(raw, problems)
    _check_content(raw, problems)
    if kind is WorkMemoryType.work_method:
        _check_method(raw, problems)
    _check_priority(raw, problems)
    sources = _check_sources(raw, scene_ids, index, problems)
    _check_task_state(raw, kind, problems)
    _check_metadata(raw, kind, sources, index, problems)
    return problems


def _check_type(raw: dict[str, Any], problems: list[Problem]) -> WorkMemoryType | None:
    value = raw.get("type")
    try:
        return WorkMemoryType(value)
    except ValueError:
        allowed = ", ".join(t.value for t in WorkMemoryType)
        problems.append(("invalid_type", f"type {value!r} is not one of {allowed}"))
        return None


def _check_content(raw: dict[str, Any], problems: list[Problem]) -> None:
    content = raw.get("content")
    if not isinstance(content, str) or not content.strip():
        problems.append(("empty_content", "content must be a non-empty string"))
    elif dangling_reference(content):
        problems.append(
            (
                "context_dependent_content",
                "content refers to the conversation ('this', 'the above', '上面说的', …) "
                "and cannot be understood on its own",
            )
        )


def _check_method(raw: dict[str, Any], problems: list[Problem]) -> None:
    """Spec 001's work_method tests that a program can check (method_checks.py)."""
    content = raw.get("content")
    if not isinstance(content, str) or not content.strip():
        return
    if not is_normative(content):
        problems.append(
            (
                "method_not_normative",
                "a work_method needs a norm word (should, must, never, 应, 必须, 禁止, 不要, "
                "优先…), an imperative ('Check …', 'When …, do …', 当…时) or "
                "'the user holds that …'; a description is a work_fact",
            )
        )
    specifics = one_off_specifics(content)
    if specifics:
        problems.append(
            (
                "method_one_off_specifics",
                f"{', '.join(repr(x) for x in specifics[:3])} mark a one-off record; "
                "a method must hold without them (make it a work_fact or work_artifact)",
            )
        )


def _check_priority(raw: dict[str, Any], problems: list[Problem]) -> None:
    value = raw.get("priority")
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    if number is None or not number.is_integer() or not 0 <= number <= MAX_PRIORITY:
        problems.append(("invalid_priority", f"priority {value!r} is not an integer 0–100"))
    elif number < MIN_PRIORITY:
        problems.append(
            ("priority_below_70", f"priority {int(number)} is below {MIN_PRIORITY}; drop it")
        )


def _check_sources(
    raw: dict[str, Any], scene_ids: frozenset[str], index: MessageIndex, problems: list[Problem]
) -> list[str]:
    sources = source_ids_of(raw)
    if sources is None:
        problems.append(
            ("empty_source_ids", "source_message_ids must be a non-empty list of message ids")
        )
        return []
    sessions: set[str] = set()
    for sid in sources:
        keys = index.sessions.get(sid)
        if keys is None:
            if sid in index.background:
                problems.append(
                    ("source_in_background", f"{sid!r} is a background message, not a new one")
                )
            else:
                problems.append(("source_outside_batch", f"{sid!r} is not a message of this batch"))
            continue
        if len(keys) > 1:
            problems.append(
                ("ambiguous_source_id", f"{sid!r} names messages of sessions {sorted(keys)}")
            )
            continue
        if sid not in scene_ids:
            problems.append(
                ("source_outside_scene", f"{sid!r} is not among the scene's message_ids")
            )
        sessions.update(keys)
    if len(sessions) > 1:
        problems.append(
            ("mixed_session_keys", f"sources come from sessions {sorted(sessions)}; use one")
        )
    return sources


def _check_task_state(
    raw: dict[str, Any], kind: WorkMemoryType | None, problems: list[Problem]
) -> None:
    state = raw.get("taskState")
    if state is None:
        return
    if state not in {s.value for s in TaskState}:
        problems.append(("invalid_task_state", f"taskState {state!r} is not open, done or dropped"))
    elif kind is not None and kind is not WorkMemoryType.work_task:
        problems.append(("task_state_on_non_task", f"taskState on a {kind.value}"))


def _check_metadata(
    raw: dict[str, Any],
    kind: WorkMemoryType | None,
    sources: list[str],
    index: MessageIndex,
    problems: list[Problem],
) -> None:
    meta = raw.get("metadata", {})
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        problems.append(("metadata_not_object", "metadata must be an object ({} when empty)"))
        return
    if kind is WorkMemoryType.work_task and "status" in meta:
        problems.append(
            ("task_status_in_metadata", "use the top-level taskState, not metadata.status")
        )
    scope = meta.get("scope")
    if scope is not None and scope not in SCOPES:
        problems.append(("invalid_scope", f"scope {scope!r} is not self, global or unknown"))
    method_type = meta.get("method_type")
    if method_type is not None and method_type not in METHOD_TYPES:
        problems.append(("invalid_method_type", f"method_type {method_type!r} is unknown"))
    artifact_type = meta.get("artifact_type")
    if artifact_type is not None and artifact_type not in ARTIFACT_TYPES:
        problems.append(("invalid_artifact_type", f"artifact_type {artifact_type!r} is unknown"))
    for key, owner in TYPE_ONLY_METADATA.items():
        if kind is not None and key in meta and kind is not owner:
            problems.append(
                (
                    "metadata_wrong_type",
                    f"metadata.{key} belongs to {owner.value}, not {kind.value}",
                )
            )
    _check_times(meta, sources, index, problems)
    _check_project(meta, sources, problems)


def _check_times(
    meta: dict[str, Any], sources: list[str], index: MessageIndex, problems: list[Problem]
) -> None:
    if "deadline" in meta and parse_iso8601(meta["deadline"], allow_date=True) is None:
        problems.append(
            ("invalid_timestamp", f"metadata.deadline {meta['deadline']!r} is not ISO 8601")
        )
    given: list[tuple[str, datetime]] = []
    for key in ACTIVITY_TIME_KEYS:
        if key not in meta:
            continue
        moment = parse_iso8601(meta[key], allow_date=False)
        if not isinstance(moment, datetime):
            problems.append(
                (
                    "invalid_timestamp",
                    f"metadata.{key} {meta[key]!r} is not an ISO 8601 date-time with an offset",
                )
            )
            continue
        given.append((key, moment))
    if not given:
        return
    known = [t for t in (_event_time(sid, index) for sid in sources) if t is not None]
    if not known:
        problems.append(
            (
                "activity_time_without_event_timestamp",
                "no source has a valid event timestamp; recorded_at never stands in for it",
            )
        )
        return
    low, high = min(known) - ACTIVITY_TOLERANCE, max(known) + ACTIVITY_TOLERANCE
    for key, moment in given:
        if not low <= moment <= high:
            problems.append(
                (
                    "activity_time_outside_sources",
                    f"metadata.{key} is outside the event times of its sources",
                )
            )


def _event_time(sid: str, index: MessageIndex) -> datetime | None:
    keys = index.sessions.get(sid)
    if not keys or len(keys) != 1:
        return None
    return index.event_times.get((next(iter(keys)), sid))


def _check_project(meta: dict[str, Any], sources: list[str], problems: list[Problem]) -> None:
    project = meta.get("project")
    if project is None or project == "":
        return
    if meta.get("scope") == "global":
        problems.append(
            ("global_scope_with_project", "scope global means cross-project: leave project empty")
        )
    cited = evidence_message_ids(meta.get("projectEvidence"))
    if not cited:
        problems.append(
            ("project_without_evidence", "metadata.project needs projectEvidence citing a message")
        )
    elif not set(cited) <= set(sources):
        outside = sorted(set(cited) - set(sources))
        problems.append(
            (
                "project_evidence_outside_sources",
                f"project evidence {outside} is not among this memory's source_message_ids",
            )
        )


def evidence_message_ids(evidence: Any) -> list[str]:
    """Message ids cited by ``projectEvidence``: an id, a list of ids, or objects with
    ``message_id`` (the spec names the field, not its shape)."""
    items = evidence if isinstance(evidence, list) else [evidence]
    ids: list[str] = []
    for item in items:
        if isinstance(item, str) and item.strip():
            ids.append(item)
        elif isinstance(item, dict) and isinstance(item.get("message_id"), str):
            ids.append(item["message_id"])
    return ids
