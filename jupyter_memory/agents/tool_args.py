"""Arguments of the agent tools beyond the knowledge pair, as pydantic models.

``propose_knowledge`` and ``expand_knowledge_catalog`` are described by the
models behind :func:`jupyter_memory.tool_schemas`; the models here describe
``memory_context``, ``recall``, ``remember``, ``case_note``, ``case_index`` and
``case_entry``.
Every surface (MCP server, Jupyter AI tools, ``%%ask``) takes its argument
descriptions from these models, so one edit changes what every agent reads.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticValidationError

from ..core.validation import validation_error

MemoryKind = Literal["episodic", "semantic", "procedural", "reflective"]
TierName = Literal["session", "daily", "durable"]
LevelName = Literal["index", "snippet", "full"]
_ArgsT = TypeVar("_ArgsT", bound=BaseModel)
CaseEntryType = Literal["discuss", "hesitate", "insight", "observe", "think"]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemoryContextArgs(_Args):
    project: str | None = Field(
        default=None,
        description="Id of a registered project (or the folder of one) whose approved "
        "knowledge to include (default: the project the person focused for you). "
        "Other folders are refused.",
    )
    query: str = Field(
        default="",
        max_length=10_000,
        description="What the conversation is about (the person's latest message), English "
        "or Chinese: it picks the WARM memories loaded with the block. Empty: attention alone.",
    )


class RecallArgs(_Args):
    query: str = Field(
        default="",
        max_length=10_000,
        description="Free-text query, English or Chinese; empty lists the most relevant memories.",
    )
    type: MemoryKind | None = Field(default=None, description="Only memories of this type.")
    tier: TierName | None = Field(default=None, description="Only memories of this tier.")
    tags: list[str] = Field(default_factory=list, description="Only memories with all these tags.")
    recent: str | None = Field(
        default=None,
        description="Only memories changed within this window, e.g. '7d', '12h', '2w'.",
    )
    project: str | None = Field(
        default=None, description="Search this registered project (its id, or its folder)."
    )
    limit: int = Field(default=10, ge=1, le=50, description="Maximum number of results (1-50).")
    level: LevelName = Field(
        default="snippet",
        description="Detail per hit: 'index' (title only), 'snippet' (matching lines) or 'full'.",
    )


class RememberArgs(_Args):
    text: str = Field(min_length=1, max_length=20_000, description="What to remember.")
    title: str | None = Field(default=None, max_length=300, description="A short title.")
    type: MemoryKind = Field(default="semantic", description="Kind of memory.")
    tags: list[str] = Field(default_factory=list, description="Tags for finding it again.")
    project: str | None = Field(
        default=None, description="Keep it with this registered project (its id)."
    )


# Exactly what the case files accept (core/cases/entry_format.py), so an agent
# reads the rule in the schema instead of learning it from a refusal.
CASE_ID = r"^CASE-\d{4}-\d{3}$"
# The slug may keep Chinese (any script's letters): the schema says which
# characters can never be in it; the case folder checks the rest (is_slug).
ENTRY_FILE = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}_(discuss|hesitate|insight|observe|think)_"
    r'[^\s\x00-\x1f\x7f/\\:*?"<>|_.]+\.md$'
)
EvidenceId = Annotated[str, Field(pattern=r"^E-\d{1,6}$")]
HypothesisId = Annotated[str, Field(pattern=r"^H-\d{1,6}$")]
FilePath = Annotated[str, Field(pattern=r"^[^\s()]{1,500}$")]
CaseState = Literal["已纳入", "存档待查", "已排除"]
_CASE = "Case id CASE-YYYY-NNN, e.g. 'CASE-2026-001': a folder under the workspace's cases/."
_ENTRY = (
    "File name of an entry of this case, <YYYY-MM-DD>_<type>_<slug>.md, e.g. "
    "'2026-06-14_discuss_supplier-overlap.md' or '2026-12-01_hesitate_退款不计入收入.md' "
    "(as listed by case_index)."
)


class CaseNoteArgs(_Args):
    case: str = Field(pattern=CASE_ID, description=_CASE)
    type: CaseEntryType = Field(
        description="Entry type: discuss (a branch explored but not pursued), "
        "hesitate (a doubt to verify), insight (a speculative idea), observe (an informal "
        "behavioural signal), think (the reviewable reason behind a key decision)."
    )
    title: str = Field(
        min_length=1,
        max_length=200,
        description="One line (no line breaks, no leading or trailing spaces), at most 200 "
        "characters, English or Chinese. With the same type and body as an existing entry "
        "it names that entry, and only its status, related entry and files change.",
    )
    body: str = Field(
        min_length=1,
        max_length=20_000,
        description="The record: a few sentences of background, observation and analysis, "
        "English or Chinese, at most 20,000 characters; no '## ' section headings of the "
        "entry format, and for think no step-by-step reasoning chain.",
    )
    evidence: list[EvidenceId] = Field(
        default_factory=list,
        description="Ids of formal evidence in the case's evidence_registry.json, each 'E-' "
        "and 1-6 digits, e.g. ['E-007']; nothing else (no file names or quotes). An id the "
        "registry does not hold is not linked: the result names it in 'unknown_evidence'.",
    )
    hypotheses: list[HypothesisId] = Field(
        default_factory=list,
        description="Ids of investigation hypotheses, each 'H-' and 1-6 digits, e.g. ['H-2'].",
    )
    status: CaseState | None = Field(
        default=None,
        description="后续状态: '已纳入' (turned into an investigation direction or hypothesis), "
        "'存档待查' (kept for later: a new entry's default) or '已排除' (explained or "
        "refuted). Omit to leave an existing entry's state as it is.",
    )
    related: str | None = Field(
        default=None,
        pattern=ENTRY_FILE,
        description="The existing entry this one continues (关联 Memory). " + _ENTRY,
    )
    files: list[FilePath] = Field(
        default_factory=list,
        description="Files the entry came from (关联文件), each a path relative to the case "
        "folder, e.g. 'working_papers/interview-3.md': 1-500 characters, no spaces or "
        "parentheses. New paths are added to an existing entry's list. Omitted on a new "
        "entry: the chat this call came from, when the host says which (Jupyter AI).",
    )


class CaseIndexArgs(_Args):
    case: str = Field(pattern=CASE_ID, description=_CASE)
    type: CaseEntryType | None = Field(
        default=None,
        description="Only entries of this type: discuss, hesitate, insight, observe or think.",
    )
    evidence: str | None = Field(
        default=None,
        pattern=r"^E-\d{1,6}$",
        description="Only entries linked to this evidence id, 'E-' and digits, e.g. 'E-007'.",
    )
    hypothesis: str | None = Field(
        default=None,
        pattern=r"^H-\d{1,6}$",
        description="Only entries linked to this hypothesis id, 'H-' and digits, e.g. 'H-2'.",
    )


class CaseEntryArgs(_Args):
    case: str = Field(pattern=CASE_ID, description=_CASE)
    entry: str = Field(pattern=ENTRY_FILE, description=_ENTRY)


# What is worth a case note, and that a doubtful one is not written: said the
# same way to every agent (the case_note tool, the Memory persona, the MCP
# server's instructions). Agents read English; the team's own words are kept.
CASE_GUIDANCE = (
    "Worth a note is only what is not formal yet and an investigator may want to re-check "
    "later: a path explored but not pursued (discuss), a doubt the evidence cannot settle "
    "yet (hesitate), an untested hunch (insight), an informal signal that cannot be "
    "structured yet (observe), or the reason a path was paused or a hypothesis revised "
    "(think). Not worth one: evidence, a working-paper conclusion, chit-chat, a log of what "
    "was done, a repeat of an entry in other words. When unsure, don't write: fewer notes "
    "are better than noise (拿不准时不写：宁可少记，不可滥记); a case keeps about 10-30 entries."
)

# The case tools' descriptions, shared by the MCP server and the Jupyter AI tools.
CASE_TOOL_DOCS = {
    "case_note": (
        "Keep an investigation case's memory under the team's write policy: "
        "side paths, doubts, hunches, informal observations and decision reasons that are "
        "not evidence. " + CASE_GUIDANCE + " Nothing already in evidence_registry.json or "
        "a working paper. Evidence ids the registry does not hold are not linked and are "
        "named in 'unknown_evidence'. An exact repeat is skipped; the same type, title and body "
        "as an existing entry (read it with case_entry) with a new status, related entry or "
        "files updates that entry; anything else creates an entry, linked to the one it "
        "continues. A 'disabled' policy refuses the write. Show the person the lines in "
        "the result's 'notice' at the end of your reply (one line under 'notify', none "
        "under 'silent', plus any entry the write went around) and never ask them about "
        "it. Case memory is never injected into any context; 'problems' lists entries of "
        "the case that could not be read."
    ),
    "case_index": (
        "The INDEX of an investigation case's memory, derived from its entry files, and "
        "its entries (file, title, type, date, status, evidence, hypotheses, related, "
        "files, legacy), filtered by type, evidence id and hypothesis id when given "
        "(all must match). A status '' is a legacy entry whose state is unknown; "
        "'problems' lists files that could not be read."
    ),
    "case_entry": (
        "One entry of an investigation case's memory with its record (body), by file "
        "name as listed by case_index. Read for a retrospective or when the person asks."
    ),
}


RECALL_DESCRIPTION = (
    "Search the person's memories: the ones they wrote or reviewed, and your own reviewed "
    "notes (read only). Give a memory's id from the COLD index of the knowledge block to read "
    "that memory, or words to search; use it "
    "whenever the person's earlier work may hold the answer."
)


def recall_tool_schema() -> dict[str, Any]:
    """``recall`` in OpenAI function-calling shape, from :class:`RecallArgs` (for ``%%ask``)."""
    schema = RecallArgs.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return {
        "type": "function",
        "function": {"name": "recall", "description": RECALL_DESCRIPTION, "parameters": schema},
    }


def described(model: type[BaseModel], name: str) -> Any:
    """``Annotated[<field type>, Field(description=…)]`` for a tool function's parameter."""
    info = model.model_fields[name]
    # The constraints (pattern, lengths) go along, so the tool's schema says them too.
    parts = (info.annotation, *info.metadata, Field(description=info.description))
    return Annotated.__class_getitem__(parts)  # type: ignore[attr-defined]


def parse_args(model: type[_ArgsT], values: dict[str, Any]) -> _ArgsT:
    try:
        return model.model_validate(values)
    except PydanticValidationError as exc:
        raise validation_error(exc, default="arguments") from None
