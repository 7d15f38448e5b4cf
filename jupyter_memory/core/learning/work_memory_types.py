"""Vocabulary of spec-001 work memories and the catalogue of hard rules.

Each hard rule has a short, stable name: it is what ``digest validate`` prints
in ``rejected[].rule`` and what tests and tools match on, so names are never
renamed — a changed rule gets a new name.
"""

from __future__ import annotations

from enum import Enum


class WorkMemoryType(str, Enum):
    work_fact = "work_fact"
    work_method = "work_method"
    work_task = "work_task"
    work_artifact = "work_artifact"


class TaskState(str, Enum):
    open = "open"
    done = "done"
    dropped = "dropped"


MIN_PRIORITY = 70  # spec 001: "<70 … 直接丢弃" for every type
MAX_PRIORITY = 100

SCOPES = frozenset({"self", "global", "unknown"})
METHOD_TYPES = frozenset(
    {
        "sop",
        "principle",
        "constraint",
        "anti_pattern",
        "heuristic",
        "evaluation_criterion",
        "reasoning_pattern",
    }
)
ARTIFACT_TYPES = frozenset(
    {"doc", "pr", "issue", "commit", "repo", "branch", "design", "report", "prompt", "dataset"}
)
# metadata keys that only make sense on one memory type (spec 001, "metadata 字段说明")
TYPE_ONLY_METADATA = {
    "method_type": WorkMemoryType.work_method,
    "artifact_type": WorkMemoryType.work_artifact,
    "artifact_ref": WorkMemoryType.work_artifact,
    "deadline": WorkMemoryType.work_task,
    "owner": WorkMemoryType.work_task,
}
ACTIVITY_TIME_KEYS = ("activity_start_time", "activity_end_time")

RULES: dict[str, str] = {
    # the output as a whole
    "not_json": "the output is not a JSON document (no Markdown fences or prose around it)",
    "not_an_array": "the output must be a JSON array of scenes",
    # one scene object
    "scene_not_object": "each element of the array must be a scene object",
    "scene_shape": "a scene needs message_ids (list of strings) and memories (list)",
    "mixed_scene_forms": "a scene either reuses (scene_id) or creates (new_scene_*), never both",
    "invented_scene_id": "scene_id must be copied verbatim from the scene pool",
    "new_scene_incomplete": "a new scene needs both new_scene_name and new_scene_reason",
    "scene_reason_not_one_line": "new_scene_reason is one line",
    "scene_label_format": "a new scene label is '{project}｜{topic}'",
    "scene_label_activity": "a scene label names a topic, not the current activity",
    "scene_label_state": "a scene label carries no state",
    "scene_label_date": "a scene label carries no date",
    "new_scene_label_exists": "a new scene may not copy a label already in the pool",
    "scene_messages_outside_batch": "a scene's message_ids are new messages of this batch",
    "empty_scene": "a scene without memories is not output",
    # one memory
    "memory_not_object": "each memory must be an object",
    "invalid_type": "type is work_fact, work_method, work_task or work_artifact",
    "empty_content": "content is a non-empty string",
    "context_dependent_content": "content stands alone, without 'this', 'the above', '上面说的'",
    "method_not_normative": "a work_method is normative (should/must/never, 应/必须/禁止/不要/优先)",
    "method_one_off_specifics": "a work_method holds no commit id, date or 'this time' (one-off)",
    "invalid_priority": "priority is an integer from 0 to 100",
    "priority_below_70": "memories with priority below 70 are dropped",
    "empty_source_ids": "source_message_ids is a non-empty list of message ids",
    "source_outside_batch": "every source id is a message of this batch",
    "source_in_background": "background messages are context only, never a source",
    "ambiguous_source_id": "a source id that names messages of two sessions is ambiguous",
    "source_outside_scene": "source_message_ids is a subset of the scene's message_ids",
    "mixed_session_keys": "all sources of one memory come from one session key",
    "invalid_task_state": "taskState is open, done or dropped",
    "task_state_on_non_task": "taskState is only for work_task",
    "task_status_in_metadata": "task state goes in taskState, not metadata.status",
    "metadata_not_object": "metadata is an object",
    "invalid_scope": "metadata.scope is self, global or unknown",
    "invalid_method_type": "metadata.method_type is one of the spec's method types",
    "invalid_artifact_type": "metadata.artifact_type is one of the spec's artifact types",
    "metadata_wrong_type": "method_type, artifact_*, deadline and owner belong to one memory type",
    "invalid_timestamp": "deadline and activity times are ISO 8601 (date-times with an offset)",
    "activity_time_without_event_timestamp": "an activity time needs a valid event timestamp",
    "activity_time_outside_sources": "an activity time lies within its sources' event times",
    "project_without_evidence": "metadata.project needs metadata.projectEvidence",
    "project_evidence_outside_sources": "project evidence cites this memory's own sources",
    "global_scope_with_project": "a global (cross-project) memory leaves project empty",
}
