"""``AgentAccess``: what an agent may see and do, in one place (docs/design.md invariants 3 and 5).

Every agent surface (the MCP server, Jupyter AI's tools and persona, ``%%ask``)
goes through this class, so the rules hold the same everywhere:

- context: approved knowledge and, in the same block, the memories recall
  would return by spec 003's tiers (``Memory.context``), nothing with memory disabled;
- knowledge: ``propose_knowledge`` (into the queue, evidence-checked against the
  person's own text) and ``expand_knowledge_catalog``; nothing here can apply,
  edit or delete knowledge;
- recall: reviewed memories only (unless the person turned ``agent_unreviewed``
  on), and never another agent's private memories;
- remember: only when the person switched agent writes on; the memory is stored
  as ``source: agent``, ``reviewed: false`` in the agent's own scope, so it
  reaches no context until the person reviews it;
- case memory: written under the team's write policy, never injected anywhere;
- projects: an agent names one only by a registered id or a registered folder's
  path (``Memory.hooks.registered_project``); nothing an agent reaches registers a
  project, creates ``.jupyter-memory/`` or builds an index outside registered roots.

Results are plain JSON-able dicts; refusals raise the package's own errors.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..core.memories.recall_query import RecallQuery
from ..core.names import validate_id
from ..core.visible import refuse_hidden
from ..exceptions import JupyterMemoryError, PolicyError, ValidationError
from ..store.learning.chat_files import read_chat_messages
from .knowledge.preinject import WAIT_S as PREINJECT_WAIT_S
from .memory import Memory
from .paths import RegisteredProject
from .secret_guard import redacted

DEFAULT_AGENT = "agent"


def _refuse_hidden(**fields: object) -> None:
    """An agent's text a person will read must show what it says (design.md invariant 12):
    a control, escape or bidi character is refused, named, as in ``propose_knowledge``."""
    for name, value in fields.items():
        if isinstance(value, str):
            refuse_hidden(value, field=name)


class AgentAccess:
    def __init__(
        self,
        memory: Memory,
        *,
        agent: str = DEFAULT_AGENT,
        project: str | os.PathLike[str] | None = None,
        workspace: str | os.PathLike[str] | None = None,
        agent_writes: bool = False,
        conversation: str | None = None,
    ) -> None:
        self.memory = memory
        self.agent = validate_id(agent, field="agent")
        # The person's focus for this agent; it must already be registered (a
        # person registers a folder with %memory focus, --project or the panel).
        self.project = (
            memory.hooks.registered_project(os.fspath(project)) if project is not None else None
        )
        self.workspace = Path(workspace) if workspace is not None else None
        self.agent_writes = agent_writes
        self.conversation = conversation
        # Where the pre-inject reorganize's notice and outcome go (the cell, the
        # chat); stderr when the surface sets nothing.
        self.notify: Callable[[str], None] | None = None
        # How long an agent request waits for it before getting the file as it is.
        self.preinject_wait = PREINJECT_WAIT_S
        # The Jupyter AI chat file this access answers in: its messages are evidence.
        self.chat_file: str | None = None

    # -- switches ----------------------------------------------------------------------

    def enabled(self) -> bool:
        """The person's master switch; off means an agent sees no memory at all."""
        return bool(self.memory.enabled)

    def _named(self, project: str | None) -> RegisteredProject | None:
        """The project an agent named, among registered ones only; never registers one."""
        return self.memory.hooks.registered_project(project) if project is not None else None

    def _project(self, project: str | None) -> RegisteredProject | None:
        """The agent's project argument, else the person's focus for this agent."""
        return self._named(project) if project is not None else self.project

    # -- the person's words (evidence) and the agent's (never evidence) --------------------

    def record_person_text(self, text: str, *, role: str = "user", **origin: str | None) -> bool:
        """Keep a chat message or cell the person wrote as evidence for agent proposals.

        Written to the memory home so an MCP server in another process can check
        quotes against it. Nothing is recorded while memory is disabled.
        """
        return self.memory.hooks.record_person_text([{"role": role, "text": text, **origin}]) > 0

    def record_agent_output(self, text: str, **origin: str | None) -> bool:
        """Keep an agent reply beside the person's text, marked as agent output.

        It never counts as evidence; it is kept so a refused quote can be told
        apart ("appears only in agent output") from an invented one.
        """
        return self.memory.hooks.record_agent_output(text, self.agent, **origin)

    # -- knowledge ---------------------------------------------------------------------

    def context(self, project: str | None = None, query: str = "") -> str:
        """The approved knowledge block with this agent's memory tiers; ``""`` when memory is off.

        Memories by spec 003's tiers under the same rules as :meth:`recall`
        (reviewed unless ``agent_unreviewed``, never another agent's private
        ones); ``query`` (the person's latest words) picks the WARM tier.

        In a named conversation this is the agent's request to inject, so a
        knowledge file that needs it is reorganized first, once per
        conversation, bounded in time, with the notice sent to :attr:`notify`.
        """
        target = self._project(project)
        if self.conversation is not None and self.enabled():
            self.memory.hooks.prepare_injection(
                target, conversation=self.conversation, notify=self.notify, wait=self.preinject_wait
            )
        return self.memory.context(
            target, conversation=self.conversation, agent=self.agent, query=query
        )

    def expand(self, labels: list[str], project: str | None = None) -> dict[str, Any]:
        return self.memory.hooks.expand_knowledge_catalog(labels, self._project(project)).to_dict()

    def propose(
        self,
        text: str,
        kind: str,
        evidence_quote: str,
        layer: str | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        """Into the queue (pending), checked against the person's own text from every surface.

        The quote may come from a chat message, a cell the kernel executed, or
        a markdown or code cell of the project's saved notebooks; never from an
        output, an agent reply or an instruction (``Memory.hooks.agent_evidence``).
        """
        named = self._named(project)
        target = named if project is not None else self.project
        unreadable: list[str] = []
        sources = self.memory.hooks.agent_evidence(target, self._chat_messages(unreadable))
        sources.unreadable.extend(unreadable)
        try:
            proposed = self.memory.propose_knowledge(
                text,
                kind,
                evidence_quote,
                layer,
                named,
                conversation=self.conversation,
                messages=sources,
            )
        except ValidationError as exc:
            if exc.field != "evidence_quote" or not sources.unreadable:
                raise
            skipped = "; ".join(sources.unreadable[:3])
            raise ValidationError(
                M_(
                    "{reason} (notebooks that could not be read: {skipped})",
                    reason=str(exc).split(": ", 1)[-1],
                    skipped=skipped,
                ),
                field="evidence_quote",
            ) from None
        result = proposed.to_dict()
        if result.get("status") == "queued":
            result["note"] = "pending: the person decides whether it enters any context"
        return result

    def _chat_messages(self, unreadable: list[str]) -> list[dict[str, Any]]:
        """The messages of this access's chat file (the person's, and personas' as agent output)."""
        if self.chat_file is None:
            return []
        path = Path(self.chat_file)
        if not path.is_file():
            return []  # a chat not saved yet has nothing to read
        try:
            messages = read_chat_messages(path)
        except JupyterMemoryError as exc:
            unreadable.append(str(exc))
            return []
        return [
            {"role": m["role"], "text": m["text"], "message_id": m["id"], "notebook_path": None}
            for m in messages
        ]

    # -- memories ------------------------------------------------------------------------

    def recall(
        self,
        query: str = "",
        *,
        type: str | None = None,
        tier: str | None = None,
        tags: list[str] | tuple[str, ...] = (),
        recent: str | None = None,
        project: str | None = None,
        limit: int = 10,
        level: str = "snippet",
    ) -> list[dict[str, Any]]:
        """Reviewed memories of the person, the project and this agent's own scope.

        Unreviewed ones too only when the person turned ``agent_unreviewed`` on.
        """
        if not self.enabled():
            return []
        request = RecallQuery.of(
            query,
            type=type,
            tier=tier,
            tags=list(tags),
            recent=recent,
            # Only an explicit project filters: the focused project is searched anyway.
            project=self._named(project),
            limit=limit,
            level=level,
            # user + project + agent:<this agent>: other agents' private notes stay private.
            agent=self.agent,
            # Unreviewed memories (session digest, agent notes) only if the person
            # switched that on (settings: agent_unreviewed, off by default).
            reviewed_only=not self.memory.hooks.agent_sees_unreviewed,
        )
        hits = self.memory.hooks.recall_query(request)
        # With spec 003's snippet level: the evidence and where it comes from; and
        # which newer memory restates a hit (issue 33).
        keep = (
            *("id", "title", "text", "type", "tier", "scope", "project", "tags", "score"),
            *("evidence", "provenance", "superseded_by"),
        )
        out = []
        for hit in hits:
            d = hit.to_dict()
            # A memory the person kept with allow_secret reaches an agent redacted.
            d["title"], d["text"] = redacted(d["title"]), redacted(d["text"])
            d["evidence"] = [redacted(q) for q in d["evidence"]]
            out.append({k: d[k] for k in keep} | {"updated": str(d.get("updated", ""))})
        return out

    def remember(
        self,
        text: str,
        *,
        title: str | None = None,
        type: str = "semantic",
        tags: list[str] | tuple[str, ...] = (),
        project: str | None = None,
    ) -> dict[str, Any]:
        """An unreviewed memory in this agent's scope, only if the person allowed agent writes."""
        if not self.agent_writes:
            raise PolicyError(
                M_(
                    "agent writes are off: the person can allow them with `jupyter-memory mcp "
                    "--allow-agent-writes` (memories stay unreviewed until the person reviews "
                    "them)"
                )
            )
        if not self.enabled():
            raise PolicyError(M_("memory is disabled by the person; nothing is stored"))
        _refuse_hidden(text=text, title=title)
        entry = self.memory.remember(
            text,
            title=title,
            type=type,
            tags=list(tags),
            source="agent",
            agent=self.agent,
            project=self._project(project),
            reviewed=False,
        )
        return {
            "id": entry.id,
            "title": entry.title,
            "scope": entry.meta.scope,
            "source": entry.meta.source.value,
            "reviewed": entry.meta.reviewed,
            "note": "stored unreviewed: it reaches no agent context until the person reviews it",
        }

    # -- investigation cases --------------------------------------------------------------

    def _case(self, case: str) -> Any:
        from .cases.memory import CaseMemory

        if self.workspace is None:
            raise PolicyError(
                M_(
                    "no investigation workspace: start the server with --workspace DIR (the "
                    "folder holding cases/ and team-profile.md)"
                )
            )
        return CaseMemory(self.workspace, case)

    def case_note(
        self,
        case: str,
        type: str,
        title: str,
        body: str,
        evidence: list[str] | tuple[str, ...] = (),
        hypotheses: list[str] | tuple[str, ...] = (),
        status: str | None = None,
        related: str | None = None,
        files: list[str] | tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """Spec 000's write decision flow (skip, update or create) under the team's
        write policy; the same type, title and body as an entry update its status,
        related entry and files. A new entry given no files links the chat the
        call came from (Jupyter AI tells it; an MCP client names no file, so
        nothing is assumed there)."""
        if not self.enabled():
            raise PolicyError(M_("memory is disabled by the person; nothing is captured"))
        _refuse_hidden(title=title, body=body)
        result = self._case(case).note(
            type,
            title,
            body,
            evidence=evidence,
            hypotheses=hypotheses,
            related=related,
            files=files,
            status=status,
            source=self.chat_file,
            actor=f"agent:{self.agent}",
        )
        if result.action == "disabled":
            raise PolicyError(result.message or result.reason)
        out: dict[str, Any] = result.to_dict()
        return out

    def case_index(
        self,
        case: str,
        *,
        type: str | None = None,
        evidence: str | None = None,
        hypothesis: str | None = None,
    ) -> dict[str, Any]:
        """The case's index as derived from its entry files (read on request only),
        with the entries matching the filters (all of them without one) and the
        files that could not be read."""
        cm = self._case(case)
        entries = cm.entries(type=type, evidence=evidence, hypothesis=hypothesis)
        filtered = (type, evidence, hypothesis) != (None, None, None)
        listed = [
            {k: v for k, v in r.to_dict().items() if k not in ("body", "path")} for r in entries
        ]
        return {
            "case": cm.case_id,
            "index": cm.index_markdown(only=entries if filtered else None),
            "entries": listed,
            "problems": [str(p) for p in cm.doctor().blocking],
        }

    def case_entry(self, case: str, entry: str) -> dict[str, Any]:
        """One entry of the case, with its record (read on request only)."""
        record = self._case(case).get(entry)
        out: dict[str, Any] = record.to_dict()
        out.pop("path")  # the file name says it; no absolute paths to an agent
        return out
