"""The import plan: what each parsed item becomes, decided before anything is written.

The same decisions drive ``--dry-run`` and the real import, so a dry run
shows exactly what would happen. A file is all or nothing: when one of its
items cannot be stored (a title or tag we refuse, an empty text) the whole
file is reported and none of it is planned. Items are skipped one by one
only for what is already there (a duplicate) or what knowledge never holds
(execution state such as SQL or a data file path).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from ..._i18n import M_
from ...exceptions import JupyterMemoryError
from ..knowledge.dedup import decide_duplicate
from ..knowledge.evidence import SourceText, find_evidence
from ..knowledge.extract import execution_state_reason
from ..knowledge.keys import dedup_hash
from ..knowledge.known import Known
from ..memories.models import MAX_TEXT_CHARS, MemoryMeta
from ..validation import first_problem
from .drafts import MemoryDraft, ParsedFile, ProposalDraft, text_key


@dataclass
class PlannedProposal:
    file: str
    draft: ProposalDraft
    layer: str
    supersedes: str | None = None


@dataclass
class ExistingState:
    """What is stored already: import keys and texts of memories, and the queue."""

    memory_keys: set[str] = field(default_factory=set)
    memory_texts: set[str] = field(default_factory=set)
    known: list[Known] = field(default_factory=list)  # knowledge leaves and pending items
    queued_hashes: dict[str, str] = field(default_factory=dict)  # dedup hash → status
    dismissed: set[str] = field(default_factory=set)


@dataclass
class ImportPlan:
    memories: list[tuple[str, MemoryDraft]] = field(default_factory=list)
    proposals: list[PlannedProposal] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)  # file, item, reason
    problems: list[dict[str, str]] = field(default_factory=list)  # file, reason
    files: int = 0


def memory_problem(draft: MemoryDraft, now: datetime) -> str | None:
    """Why this draft cannot be stored as a memory, or ``None``."""
    if "\x00" in draft.text:
        return "the text contains NUL characters"
    if len(draft.text) > MAX_TEXT_CHARS:
        return f"the text is over {MAX_TEXT_CHARS} characters"
    if not draft.text.strip():
        return "the text is empty"
    fields: dict[str, Any] = {
        "id": "import-check",
        "title": draft.title,
        "tags": draft.tags,
        "created": draft.created or now,
        "updated": draft.created or now,
        "scope": f"agent:{draft.agent}" if draft.agent else "user",
        **draft.extra,
    }
    try:
        MemoryMeta.model_validate(fields)
    except PydanticValidationError as exc:
        name, msg = first_problem(exc, default="memory")
        return M_("field {field!r}: {msg}", field=name, msg=msg)
    except (JupyterMemoryError, ValueError) as exc:
        return str(exc)
    return None


def _proposal_problem(draft: ProposalDraft, file_text: str) -> str | None:
    reason = execution_state_reason(draft.text)
    if reason:
        return reason
    try:
        # The file is the person's own text: they chose to import it (invariant 4).
        find_evidence(draft.quote, [SourceText("user", file_text)])
    except JupyterMemoryError as exc:
        return str(exc)
    return None


def plan_import(
    parsed: Iterable[tuple[ParsedFile, str]],
    state: ExistingState,
    *,
    default_layer: str,
    now: datetime,
) -> ImportPlan:
    """Decide every item of every parsed file (with its text) against what is stored."""
    plan = ImportPlan()
    known = list(state.known)
    keys, texts = set(state.memory_keys), set(state.memory_texts)
    for pf, file_text in parsed:
        plan.files += 1
        bad = next((p for m in pf.memories if (p := memory_problem(m, now))), None)
        if bad is not None:
            plan.problems.append({"file": pf.path, "reason": f"nothing imported: {bad}"})
            continue
        plan.skipped += [{"file": pf.path, "item": w, "reason": r} for w, r in pf.skipped]
        for draft in pf.memories:
            item = f"line {draft.line}" if draft.line else "note"
            tk = text_key(draft.text)
            if draft.key in keys:
                plan.skipped.append({"file": pf.path, "item": item, "reason": "imported before"})
            elif tk in texts:
                reason = "same text as a stored memory"
                plan.skipped.append({"file": pf.path, "item": item, "reason": reason})
            else:
                keys.add(draft.key)
                texts.add(tk)
                plan.memories.append((pf.path, draft))
        for prop in pf.proposals:
            item = f"line {prop.line}"
            text = " ".join(prop.text.split())
            problem = _proposal_problem(prop, file_text)
            status = state.queued_hashes.get(dedup_hash(text))
            if problem is None and status is not None:
                problem = f"proposed before ({status})"
            if problem is None:
                decision = decide_duplicate(text, known, state.dismissed)
                if decision.action == "skip":
                    problem = decision.reason
            if problem is not None:
                plan.skipped.append({"file": pf.path, "item": item, "reason": problem})
                continue
            planned = PlannedProposal(
                pf.path, prop, prop.layer or default_layer, decision.supersedes
            )
            plan.proposals.append(planned)
            known.append(Known(text, "pending", f"{pf.path}:{prop.line}"))
    return plan
