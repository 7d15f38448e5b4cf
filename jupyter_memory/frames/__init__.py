"""pandas DataFrames of every index, queue and audit log, for retrospectives.

Each function takes a :class:`~jupyter_memory.Memory` (or opens one on the
default home) and reads through the service: no file I/O here. pandas is
imported inside the functions, so importing this module stays cheap.

Columns (dtypes):

``memories_frame``
    id, title (object); type, tier, scope, heat, layer, source (category);
    project (object); tags (object: list of str); confidence, attention
    (float64); reviewed (bool); access_count (int64); created, updated,
    last_accessed (datetime64[ns, UTC]); path (object).
``queue_frame`` — every proposal, all statuses
    id, text, evidence_quote (object); kind, source, status, suggested_layer,
    applied_to (category); project, applied_project, supersedes, cell_id,
    notebook_path, message_id (object); created, decided_at
    (datetime64[ns, UTC]); decision_seconds (float64: created → decided).
``knowledge_frame`` — one row per leaf entry of the approved knowledge files
    layer, section (category: rules/info); project, label (object: the
    catalog parent, empty for top-level entries), text, path (object);
    position (int64: order within its section).
``knowledge_history_frame`` — one row per item added or removed, or decision, in a project
    at (datetime64[ns, UTC]); change (category: added, removed, dismissed, apply,
    save, reorganize); item, by, commit, proposal, evidence (object); section,
    source (category: git, audit, queue).
``audit_frame`` — one row per audit line
    at (datetime64[ns, UTC]); action, actor, layer (category); id, sha256,
    path (object); plus any extra keys the record carries.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..service.memory import Memory

# Set by ``%load_ext jupyter_memory`` (magics/__init__.py): the kernel's own ``Memory``,
# held under the kernel session's lock, so a frame without ``memory=`` reads the
# project in use for this notebook, as ``%recall`` does (issue 30). None outside a
# kernel with the extension loaded: a ``Memory()`` on the default home.
KernelMemory = Callable[[], AbstractContextManager["Memory"]]
_kernel_memory: KernelMemory | None = None


def use_kernel_memory(provider: KernelMemory | None) -> None:
    """The kernel's ``Memory`` for frames called without one (``None``: forget it)."""
    global _kernel_memory
    _kernel_memory = provider


MEMORY_COLUMNS = [
    "id",
    "title",
    "type",
    "tier",
    "scope",
    "project",
    "tags",
    "source",
    "confidence",
    "reviewed",
    "created",
    "updated",
    "access_count",
    "last_accessed",
    "attention",
    "heat",
    "layer",
    "path",
]
QUEUE_COLUMNS = [
    "id",
    "text",
    "kind",
    "evidence_quote",
    "source",
    "status",
    "suggested_layer",
    "project",
    "created",
    "decided_at",
    "decision_seconds",
    "applied_to",
    "applied_project",
    "supersedes",
    "cell_id",
    "message_id",
    "notebook_path",
]
KNOWLEDGE_COLUMNS = ["layer", "project", "section", "label", "text", "position", "path"]
AUDIT_COLUMNS = ["at", "action", "actor", "layer", "id", "sha256", "path"]


@contextlib.contextmanager
def _memory(memory: Memory | None) -> Iterator[Memory]:
    if memory is not None:
        yield memory
    elif _kernel_memory is not None:
        with _kernel_memory() as mem:
            yield mem
    else:
        from ..service.memory import Memory

        yield Memory()


def _typed(frame: Any, times: list[str], categories: list[str]) -> Any:
    import pandas as pd

    for col in times:
        frame[col] = pd.to_datetime(frame[col], utc=True, format="ISO8601")
    for col in categories:
        frame[col] = frame[col].astype("category")
    return frame


def memories_frame(memory: Memory | None = None) -> Any:
    """Every memory of the user layer and the focused project, with attention and heat."""
    import pandas as pd

    with _memory(memory) as mem:
        rows = mem.memories()
    frame = pd.DataFrame(rows, columns=MEMORY_COLUMNS)
    frame["access_count"] = frame["access_count"].fillna(0).astype("int64")
    frame["confidence"] = frame["confidence"].astype("float64")
    frame["attention"] = frame["attention"].astype("float64")
    frame["reviewed"] = frame["reviewed"].astype(bool)
    return _typed(
        frame,
        ["created", "updated", "last_accessed"],
        ["type", "tier", "scope", "heat", "layer", "source"],
    )


def queue_frame(memory: Memory | None = None) -> Any:
    """Every proposal ever queued (pending, applied, dismissed, superseded)."""
    import pandas as pd

    rows = []
    with _memory(memory) as mem:
        proposals = mem.queue(include_decided=True)
    for p in proposals:
        d = p.to_dict()
        origin = d.pop("quote_origin", None) or {}
        d.update({k: origin.get(k) for k in ("cell_id", "message_id", "notebook_path")})
        rows.append(d)
    frame = pd.DataFrame(rows, columns=QUEUE_COLUMNS)
    frame = _typed(
        frame,
        ["created", "decided_at"],
        ["kind", "source", "status", "suggested_layer", "applied_to"],
    )
    frame["decision_seconds"] = (frame["decided_at"] - frame["created"]).dt.total_seconds()
    return frame


def knowledge_frame(memory: Memory | None = None, projects: list[str] | None = None) -> Any:
    """Leaf entries of User knowledge and of each project's knowledge (default: all known)."""
    import pandas as pd

    rows = []
    with _memory(memory) as mem:
        places: list[tuple[str, str | None]] = [("user", None)]
        for project in projects if projects is not None else sorted(mem.hooks.known_projects()):
            places.append(("project", project))
        for layer, pid in places:
            doc = mem.hooks.knowledge_doc(layer, project=pid)
            path = mem.hooks.library_status(layer, project=pid).path
            for section, entries in (("rules", doc.rules), ("info", doc.info)):
                position = 0
                for entry in entries:
                    leaves = [(entry.text, c) for c in entry.children] or [("", entry.text)]
                    for label, text in leaves:
                        rows.append(
                            {
                                "layer": layer,
                                "project": pid,
                                "section": section,
                                "label": label,
                                "text": text,
                                "position": position,
                                "path": path,
                            }
                        )
                        position += 1
    frame = pd.DataFrame(rows, columns=KNOWLEDGE_COLUMNS)
    frame["position"] = frame["position"].astype("int64")
    return _typed(frame, [], ["layer", "section"])


def audit_frame(memory: Memory | None = None) -> Any:
    """The audit log: who did what, when (a forgotten memory keeps only id and hash)."""
    import pandas as pd

    with _memory(memory) as mem:
        records: list[dict[str, Any]] = list(mem.hooks.audit_records())
    extra = sorted({k for r in records for k in r} - set(AUDIT_COLUMNS))
    frame = pd.DataFrame(records, columns=AUDIT_COLUMNS + extra)
    return _typed(frame, ["at"], ["action", "actor", "layer"])


HISTORY_COLUMNS = [
    "at", "change", "item", "section", "by", "commit", "proposal", "evidence", "source"
]  # fmt: skip


def knowledge_history_frame(memory: Memory | None = None, project: str | None = None) -> Any:
    """A project's knowledge history, git and the audit log together (docs/teams.md)."""
    import pandas as pd

    with _memory(memory) as mem:
        rows = [r.to_dict() for r in mem.hooks.knowledge_history(project=project)]
    frame = pd.DataFrame(rows, columns=HISTORY_COLUMNS)
    return _typed(frame, ["at"], ["change", "section", "source"])


__all__ = [
    "audit_frame",
    "knowledge_frame",
    "knowledge_history_frame",
    "memories_frame",
    "queue_frame",
]
