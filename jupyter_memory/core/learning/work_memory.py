"""Work memories extracted from a session (spec 001) and their strict validator.

Three shapes meet here:

* the **batch** an extractor reads: ``{"session_key", "messages": [{"id", "role",
  "text", "timestamp", "recorded_at"}], "background": [...]}`` — ``background``
  (optional) is context only and may never be cited as a source;
* the **scene pool**: ``[{"id", "label"}]``;
* the extractor's **output**, the spec's JSON array of scenes, each with
  ``memories``.

:func:`validate_work_memories` is the contract between any extractor (an LLM,
the deterministic one, a person writing JSON by hand) and the store. It
repairs nothing: a record that breaks a hard rule is rejected with the rule's
stable name (:data:`~jupyter_memory.core.learning.work_memory_types.RULES`); one that
passes is returned normalised, with its scene resolved and its event times in
ISO 8601 when — and only when — its sources carry valid timestamps.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator
from pydantic import ValidationError as PydanticValidationError

from ..._i18n import M_
from ...exceptions import ValidationError
from ..event_time import event_datetime, to_iso
from ..validation import validation_error
from .scene_labels import label_problem, normalize_topic
from .work_memory_checks import MessageIndex, Problem, check_memory, source_ids_of
from .work_memory_types import RULES, TaskState, WorkMemoryType

MAX_MESSAGE_CHARS = 200_000
MAX_BATCH_MESSAGES = 10_000
MEMORY_KEYS = frozenset(
    {"content", "type", "taskState", "priority", "source_message_ids", "metadata"}
)
Role = Literal["user", "assistant", "system", "tool"]


class BatchMessage(BaseModel):
    """One new (or background) message: a cell, a markdown cell, a chat message."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    id: str = Field(min_length=1, max_length=200)
    role: Role
    text: str = Field(max_length=MAX_MESSAGE_CHARS)
    # Raw as given: epoch ms or null. Invalid values are kept and treated as
    # "no event time" rather than failing the batch (spec: 不猜具体活动时间).
    timestamp: Any = None
    recorded_at: Any = Field(
        default=None, validation_alias=AliasChoices("recorded_at", "recordedAt")
    )
    kind: Literal["code", "markdown", "raw", "chat"] | None = None
    # Only when this message belongs to another session than the batch's.
    session_key: str | None = Field(
        default=None, min_length=1, validation_alias=AliasChoices("session_key", "sessionKey")
    )
    # The notebook's repeated-error signal (issue 8, gotchas): this cell raised
    # ``error`` (an exception signature) for the ``error_repeats``-th time in its
    # session; ``error_line`` is the failing line of the person's own cell.
    error: str | None = Field(default=None, max_length=300)
    error_line: str | None = Field(default=None, max_length=1000)
    error_repeats: int | None = Field(default=None, ge=1)
    # The project this message was recorded in (the notebook's or chat's, at capture
    # time): a scene label's project comes from the messages (spec 001), never from
    # whatever project is focused when the digest runs.
    project: str | None = Field(default=None, min_length=1, max_length=200)

    @property
    def event_time(self) -> datetime | None:
        return event_datetime(self.timestamp)


class Batch(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    session_key: str = Field(
        min_length=1, validation_alias=AliasChoices("session_key", "sessionKey")
    )
    messages: list[BatchMessage] = Field(max_length=MAX_BATCH_MESSAGES)
    background: list[BatchMessage] = Field(default_factory=list, max_length=MAX_BATCH_MESSAGES)

    @model_validator(mode="after")
    def _unique_ids(self) -> Batch:
        seen: set[tuple[str, str]] = set()
        for group in (self.messages, self.background):
            for msg in group:
                key = (self.session_of(msg), msg.id)
                if key in seen:
                    raise ValueError(
                        M_(
                            "message id {id!r} appears twice in session {session!r}",
                            id=msg.id,
                            session=key[0],
                        )
                    )
                seen.add(key)
        return self

    def session_of(self, msg: BatchMessage) -> str:
        return msg.session_key or self.session_key

    def message_index(self) -> MessageIndex:
        sessions: dict[str, set[str]] = {}
        times: dict[tuple[str, str], datetime | None] = {}
        for msg in self.messages:
            key = self.session_of(msg)
            sessions.setdefault(msg.id, set()).add(key)
            times[(key, msg.id)] = msg.event_time
        background = frozenset(m.id for m in self.background) - frozenset(sessions)
        return MessageIndex(
            sessions={k: frozenset(v) for k, v in sessions.items()},
            background=background,
            event_times=times,
        )


class Scene(BaseModel):
    """One row of the scene pool: ``id | stable label``."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str = Field(min_length=1, max_length=200)
    label: str = Field(min_length=1, max_length=400)


class MemoryOutput(BaseModel):
    """One memory as an extractor emits it (spec 001, 任务三)."""

    model_config = ConfigDict(populate_by_name=True, defer_build=True)

    content: str
    type: WorkMemoryType
    priority: int
    source_message_ids: list[str]
    metadata: dict[str, Any] = Field(default_factory=dict)
    task_state: TaskState | None = Field(default=None, alias="taskState")

    def to_spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {"content": self.content, "type": self.type.value}
        if self.task_state is not None:
            out["taskState"] = self.task_state.value
        out.update(
            priority=self.priority,
            source_message_ids=list(self.source_message_ids),
            metadata=dict(self.metadata),
        )
        return out


class SceneOutput(BaseModel):
    """One scene of an extractor's output: reuse (``scene_id``), new, or unclassified."""

    model_config = ConfigDict(defer_build=True)

    scene_id: str | None = None
    new_scene_name: str | None = None
    new_scene_reason: str | None = None
    message_ids: list[str]
    memories: list[MemoryOutput]

    def to_spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.scene_id is not None:
            out["scene_id"] = self.scene_id
        if self.new_scene_name is not None:
            out["new_scene_name"] = self.new_scene_name
        if self.new_scene_reason is not None:
            out["new_scene_reason"] = self.new_scene_reason
        out["message_ids"] = list(self.message_ids)
        out["memories"] = [m.to_spec() for m in self.memories]
        return out


class SceneRef(BaseModel):
    """The scene an accepted memory belongs to, resolved against the pool."""

    model_config = ConfigDict(defer_build=True)

    status: Literal["reused", "new", "unclassified"]
    id: str | None = None
    label: str | None = None
    reason: str | None = None
    message_ids: list[str] = Field(default_factory=list)


class WorkMemory(BaseModel):
    """An accepted memory: exactly what the extractor said, plus resolved context."""

    model_config = ConfigDict(populate_by_name=True, defer_build=True)

    content: str
    type: WorkMemoryType
    priority: int = Field(ge=70, le=100)
    task_state: TaskState | None = Field(default=None, alias="taskState")
    source_message_ids: list[str] = Field(min_length=1)
    metadata: dict[str, Any] = Field(default_factory=dict)
    scene: SceneRef
    session_key: str
    event_start: str | None = None  # ISO 8601 from valid source timestamps only
    event_end: str | None = None
    notes: list[str] = Field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


class Rejection(BaseModel):
    model_config = ConfigDict(defer_build=True)
    record: Any
    rule: str
    message: str
    scene_index: int | None = None
    memory_index: int | None = None
    other_rules: list[str] = Field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class ValidationReport(BaseModel):
    model_config = ConfigDict(defer_build=True)
    accepted: list[WorkMemory] = Field(default_factory=list)
    rejected: list[Rejection] = Field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "accepted": [m.to_dict() for m in self.accepted],
            "rejected": [r.to_dict() for r in self.rejected],
        }


def parse_batch(data: Any) -> Batch:
    """A :class:`Batch` from JSON data; a bad batch names the offending field."""
    if isinstance(data, Batch):
        return data
    try:
        return Batch.model_validate(data)
    except PydanticValidationError as exc:
        raise validation_error(exc, default="batch", prefix="batch") from None


def parse_pool(data: Any) -> list[Scene]:
    """The scene pool from JSON data (``null`` is an empty pool)."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise ValidationError(
            M_("the scene pool must be a JSON array of {{id, label}}"), field="pool"
        )
    scenes: list[Scene] = []
    seen: set[str] = set()
    for i, row in enumerate(data):
        try:
            scene = row if isinstance(row, Scene) else Scene.model_validate(row)
        except PydanticValidationError as exc:
            raise validation_error(exc, default="scene", prefix=f"pool[{i}]") from None
        if scene.id in seen:
            raise ValidationError(
                M_("scene id {id!r} appears twice", id=scene.id), field=f"pool[{i}].id"
            )
        seen.add(scene.id)
        scenes.append(scene)
    return scenes


def parse_output_text(text: str) -> Any:
    """The extractor's JSON, or raise ``ValueError`` (fences and prose are not JSON)."""
    return json.loads(text)


def _reject(
    report: ValidationReport,
    record: Any,
    problems: Sequence[Problem],
    scene_index: int | None,
    memory_index: int | None,
) -> None:
    rule, message = problems[0]
    report.rejected.append(
        Rejection(
            record=record,
            rule=rule,
            message=message,
            scene_index=scene_index,
            memory_index=memory_index,
            other_rules=[p[0] for p in problems[1:]],
        )
    )


def _scene_problem(
    scene: dict[str, Any], pool: Sequence[Scene], new_ids: Iterable[str]
) -> tuple[Problem | None, SceneRef]:
    message_ids = scene.get("message_ids")
    ids = list(message_ids) if isinstance(message_ids, list) else []
    unresolved = SceneRef(status="unclassified", message_ids=[str(i) for i in ids])
    if not isinstance(message_ids, list) or not all(isinstance(i, str) for i in message_ids):
        return ("scene_shape", "message_ids must be a list of message id strings"), unresolved
    scene_id = scene.get("scene_id")
    name, reason = scene.get("new_scene_name"), scene.get("new_scene_reason")
    if scene_id is not None and (name is not None or reason is not None):
        mixed = ("mixed_scene_forms", "give scene_id (reuse) or new_scene_* (new), not both")
        return mixed, unresolved
    outside = sorted(set(ids) - set(new_ids))
    if scene_id is not None:
        by_id = {s.id: s for s in pool}
        if not isinstance(scene_id, str) or scene_id not in by_id:
            return (
                "invented_scene_id",
                f"scene_id {scene_id!r} is not in the scene pool (ids are copied, never made up)",
            ), unresolved
        ref = SceneRef(status="reused", id=scene_id, label=by_id[scene_id].label, message_ids=ids)
    elif name is not None or reason is not None:
        new_problem = _new_scene_problem(name, reason, pool)
        if new_problem is not None:
            return new_problem, unresolved
        ref = SceneRef(status="new", label=name, reason=reason, message_ids=ids)
    else:
        ref = unresolved
    if outside:
        return (
            "scene_messages_outside_batch",
            f"message_ids {outside} are not new messages of this batch",
        ), ref
    return None, ref


def _new_scene_problem(name: Any, reason: Any, pool: Sequence[Scene]) -> Problem | None:
    if not isinstance(name, str) or not name.strip():
        return ("new_scene_incomplete", "a new scene needs a non-empty new_scene_name")
    if not isinstance(reason, str) or not reason.strip():
        return ("new_scene_incomplete", "a new scene needs a one-line new_scene_reason")
    if "\n" in reason.strip():
        return ("scene_reason_not_one_line", "new_scene_reason must be a single line")
    problem = label_problem(name)
    if problem is not None:
        return problem
    if normalize_topic(name) in {normalize_topic(s.label) for s in pool}:
        return (
            "new_scene_label_exists",
            f"{name!r} is already in the pool: reuse its scene_id instead of copying the label",
        )
    return None


def _scene_notes(scene: dict[str, Any]) -> list[str]:
    if "scene_name" in scene:
        return ["scene_name ignored: a scene's label comes from the pool or new_scene_name"]
    return []


def _accept(
    raw: dict[str, Any], ref: SceneRef, index: MessageIndex, notes: list[str]
) -> WorkMemory:
    sources = source_ids_of(raw) or []
    session = next(iter(index.sessions[sources[0]]))
    times = sorted(t for t in (index.event_times.get((session, s)) for s in sources) if t)
    extra = sorted(set(raw) - MEMORY_KEYS)
    own_notes = list(notes)
    if extra:
        own_notes.append(f"ignored field(s) not in spec 001: {', '.join(extra)}")
    return WorkMemory(
        content=raw["content"],
        type=WorkMemoryType(raw["type"]),
        priority=int(raw["priority"]),
        taskState=raw.get("taskState"),
        source_message_ids=sources,
        metadata=dict(raw.get("metadata") or {}),
        scene=ref,
        session_key=session,
        event_start=to_iso(times[0]) if times else None,
        event_end=to_iso(times[-1]) if times else None,
        notes=own_notes,
    )


def validate_work_memories(batch: Any, output: Any, pool: Any = None) -> ValidationReport:
    """Check an extractor's output against its batch and scene pool.

    ``batch`` and ``pool`` are trusted inputs: a malformed one raises
    :class:`~jupyter_memory.exceptions.ValidationError` naming the field.
    ``output`` is what is being judged: JSON text or the parsed array (or
    :class:`SceneOutput` objects); every problem in it becomes a rejection.
    """
    checked = parse_batch(batch)
    scenes_pool = parse_pool(pool)
    report = ValidationReport()
    if isinstance(output, str):
        try:
            output = parse_output_text(output)
        except ValueError as exc:
            _reject(report, output, [("not_json", f"{RULES['not_json']}: {exc}")], None, None)
            return report
    if not isinstance(output, list):
        _reject(report, output, [("not_an_array", RULES["not_an_array"])], None, None)
        return report
    index = checked.message_index()
    for si, scene in enumerate(output):
        if isinstance(scene, SceneOutput):
            scene = scene.to_spec()
        if not isinstance(scene, dict):
            _reject(report, scene, [("scene_not_object", RULES["scene_not_object"])], si, None)
            continue
        memories = scene.get("memories")
        if not isinstance(memories, list):
            _reject(report, scene, [("scene_shape", "memories must be a list")], si, None)
            continue
        problem, ref = _scene_problem(scene, scenes_pool, index.sessions)
        if not memories:
            problems = [problem] if problem else []
            _reject(report, scene, [*problems, ("empty_scene", RULES["empty_scene"])], si, None)
            continue
        scene_ids = frozenset(ref.message_ids)
        for mi, raw in enumerate(memories):
            problems = ([problem] if problem else []) + check_memory(
                raw, scene_ids=scene_ids, index=index
            )
            if problems:
                _reject(report, raw, problems, si, mi)
            else:
                report.accepted.append(_accept(raw, ref, index, _scene_notes(scene)))
    return report
