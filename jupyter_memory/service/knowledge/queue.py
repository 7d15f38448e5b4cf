"""The proposal queue: record rounds, propose, extract, list (spec 002 §3–§5).

Nothing here puts a proposal into an agent's context: a proposal becomes
knowledge only through an Apply, a person's act (docs/design.md invariant 5,
:mod:`.decisions`), which no agent tool reaches (:mod:`.agent_tools`).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..._i18n import M_, localized
from ...core.ids import new_id
from ...core.knowledge.evidence import SourceText, find_evidence, to_source, to_sources
from ...core.knowledge.extract import (
    MAX_PER_ROUND,
    KnowledgeCandidate,
    execution_state_reason,
    extract_candidates,
    recent_person_texts,
)
from ...core.knowledge.keys import dedup_hash
from ...core.knowledge.known import Known
from ...core.knowledge.proposal_merge import reopened
from ...core.knowledge.proposals import KINDS, LAYERS, SOURCES, Proposal, build_proposal
from ...core.llm import extraction_prompt, parse_extraction
from ...core.visible import refuse_hidden
from ...exceptions import LLMBudgetSpentError, ParseError, PolicyError, ValidationError
from ...store.knowledge.proposal_allowance import ProposalAllowance
from ...store.knowledge.queue import QueueStore
from ..context import ServiceContext
from ..llm_budget import over_budget_note
from ..secret_guard import PROPOSAL_REFUSED, kinds_in, redacted, refuse_secrets
from .events import QueueEvents
from .files import KnowledgeFiles, ProjectArg, check_layer
from .neighbours import NeighbourCache
from .results import ProposeResult

if TYPE_CHECKING:
    from ...core.knowledge.dedup import Neighbour

AGENT_PROPOSALS_PER_CONVERSATION = 5
DEFAULT_CONVERSATION = "default"
MAX_PROPOSAL_TEXT = 1_000
MAX_KNOWN_CHARS = 12_000  # approved + pending entries shown to the LLM (one call's prompt)


def _choice(value: str, allowed: tuple[str, ...], field: str) -> str:
    if value not in allowed:
        raise ValidationError(
            M_(
                "{value!r} is not one of: {allowed}",
                value=value,
                allowed=", ".join(allowed),
            ),
            field=field,
        )
    return value


class KnowledgeQueue:
    """Proposals into the queue, checked against the person's words; never into context."""

    def __init__(
        self,
        ctx: ServiceContext,
        files: KnowledgeFiles,
        store: QueueStore,
        events: QueueEvents,
    ) -> None:
        self.ctx = ctx
        self.files = files
        self.store = store
        self.events = events
        self._rounds: dict[str, list[SourceText]] = {}
        self._agent_calls: dict[str, int] = {}  # an unnamed conversation's allowance
        self._last_skipped: list[dict[str, str]] = []
        self._last_notice: str | None = None
        self._last_llm_call = False
        self.neighbours = NeighbourCache(store.fingerprint, self.queue, self._knowledge_known)

    # -- rounds and targets -------------------------------------------------------------

    def record_round(
        self,
        messages: Iterable[Any],
        *,
        conversation: str | None = None,
        notebook: str | None = None,
    ) -> list[SourceText]:
        """Remember this round's texts: the evidence that later proposals are checked against."""
        sources = [
            dataclasses.replace(s, text=redacted(s.text))
            for s in to_sources(messages, default_notebook=notebook)
        ]
        self._rounds[conversation or DEFAULT_CONVERSATION] = sources
        return sources

    def _proposal_target(
        self, layer: str | None, project: ProjectArg | None
    ) -> tuple[str, str | None]:
        projects = self.ctx.projects
        pid = projects.resolve(project)[0] if project is not None else projects.project_id
        layer = layer or ("project" if pid else "user")
        return check_layer(layer), pid

    def _known(self, pid: str | None, pending: list[Proposal]) -> list[Known]:
        known = self._knowledge_known(pid)
        known += [Known(p.text, "pending", p.id) for p in pending]
        return known

    def _knowledge_known(self, pid: str | None) -> list[Known]:
        """The approved entries of the User layer and of project ``pid``'s layer."""
        known: list[Known] = []
        targets: list[tuple[str, str | None, str]] = [("user", None, "user")]
        if pid is not None:
            targets.append(("project", pid, f"project {pid}"))
        for layer, proj, label in targets:
            try:
                doc = self.files.knowledge_doc(layer, project=proj)
            except ParseError:
                # A malformed file is reported where it is read for context or
                # apply; it must not also block the queue, so skip it here.
                continue
            known += [Known(leaf, "knowledge", label) for _, leaf in doc.leaves()]
        return known

    def _enqueue(
        self,
        *,
        text: str,
        kind: str,
        quote: str,
        origin: dict[str, str],
        source: str,
        layer: str,
        pid: str | None,
        conversation: str | None,
    ) -> ProposeResult:
        # The identity analysis loads with the first proposal decided, not with the
        # service every kernel's first cell builds.
        from ...core.knowledge.dedup import decide_duplicate

        store = self.store
        with self.ctx.semantic.foreground(), self.ctx.user.locked():
            scanned = [p for _, p in store.scan()[0]]
            pending = [p for p in scanned if p.is_pending]
            # A dismissed proposal in new words stays dismissed (issue 32).
            dismissed = [
                Known(p.text, "dismissed", p.id) for p in scanned if p.status == "dismissed"
            ]
            decision = decide_duplicate(
                text,
                self._known(pid, pending) + dismissed,
                store.dismissed_hashes(),
                self.ctx.semantic.text_similarity(),
            )
            if decision.action == "skip":
                return ProposeResult("skipped", None, decision.reason)
            now = self.ctx.clock()
            proposal = build_proposal(
                id=new_id(now, "p"),
                text=text,
                kind=kind,
                evidence_quote=quote,
                quote_origin=origin,
                source=source,
                suggested_layer=layer,
                project=pid,
                created=now,
                supersedes=decision.supersedes,
                supersedes_text=decision.supersedes_text,
                conversation=conversation,
                dedup_hash=dedup_hash(text),
            )
            path, digest = store.add(proposal)
            if decision.supersedes:
                old_path, old = store.find(decision.supersedes)
                old = old.model_copy(
                    update={
                        "status": "superseded",
                        "superseded_by": proposal.id,
                        "superseded_by_text": proposal.text,
                        "decided_at": now,
                    }
                )
                store.replace(old_path, old)
        self.ctx.audit.append(
            "proposal.create",
            actor=self.ctx.actor if source == "manual" else source,
            at=now,
            id=proposal.id,
            sha256=digest,  # no file name: it holds a slug of the text (issue 29)
            source=source,
            layer=layer,
            project=pid,
            supersedes=decision.supersedes,
        )
        self.events.emit("created", proposal.id, supersedes=decision.supersedes)
        return ProposeResult("queued", proposal.id, decision.reason, decision.supersedes, proposal)

    # -- proposing ----------------------------------------------------------------------

    def propose(
        self,
        text: str,
        kind: str,
        evidence_quote: str,
        layer: str | None = None,
        project: ProjectArg | None = None,
        source: str = "manual",
        *,
        messages: Iterable[Any] | None = None,
        conversation: str | None = None,
        quote_origin: dict[str, str] | None = None,
    ) -> ProposeResult:
        """Queue a proposal whose quote is verified against the person's own text.

        The texts are ``messages`` when given, else this conversation's
        recorded round; a ``manual`` proposal's own text counts too (the person
        typed it). Never reaches context until a person applies it.
        """
        if not self.ctx.settings.enabled:
            raise PolicyError(M_("memory is disabled: proposals are paused"))
        if not isinstance(text, str) or not text.strip():
            raise ValidationError(M_("must be a non-empty string"), field="text")
        if len(text) > MAX_PROPOSAL_TEXT:
            raise ValidationError(
                M_("is over {limit} characters", limit=MAX_PROPOSAL_TEXT),
                field="text",
            )
        _choice(kind, KINDS, "kind")
        _choice(source, SOURCES, "source")
        if layer is not None:
            _choice(layer, LAYERS, "layer")
        # Before the quote check: a notebook on disk may still hold the secret verbatim.
        refuse_secrets(PROPOSAL_REFUSED, text=text, evidence_quote=evidence_quote)
        if source != "manual":
            reason = execution_state_reason(text)
            if reason:
                raise ValidationError(M_("refused: {reason}", reason=reason), field="text")
        recorded = self._rounds.get(conversation or DEFAULT_CONVERSATION, [])
        # Converted lazily: an agent's sources end with the project's saved
        # notebooks, read only when the quote is not among the recent texts.
        sources: Iterable[SourceText] = (
            (to_source(m) for m in messages) if messages is not None else recorded
        )
        if source == "manual":
            sources = itertools.chain(sources, [SourceText("user", text)])
        found = find_evidence(evidence_quote, sources)
        layer, pid = self._proposal_target(layer, project)
        return self._enqueue(
            text=" ".join(text.split()),
            kind=kind,
            quote=evidence_quote,
            origin=quote_origin if quote_origin is not None else found.origin(),
            source=source,
            layer=layer,
            pid=pid,
            conversation=conversation,
        )

    def propose_knowledge(
        self,
        text: str,
        kind: str,
        evidence_quote: str,
        layer: str | None = None,
        project: str | None = None,
        *,
        conversation: str | None = None,
        messages: Iterable[Any] | None = None,
    ) -> ProposeResult:
        """The agent's only knowledge-writing tool: into the queue, never into context."""
        if not self.ctx.settings.enabled:
            raise PolicyError(M_("memory is disabled: agent proposals are paused"))
        # What a reviewer reads must be what the text is: an agent's text or quote
        # holding a control, escape or bidi character is refused, naming it.
        for value, name in ((text, "text"), (evidence_quote, "evidence_quote")):
            if isinstance(value, str):  # a non-string is refused by propose, as before
                refuse_hidden(value, field=name)
        if project is not None:
            # An agent may name a project the person already uses, never a new folder.
            project = self.ctx.projects.registered(project)
        if not self._take_proposal(conversation):
            raise PolicyError(
                M_(
                    "rate limit: at most {limit} knowledge proposals per conversation",
                    limit=AGENT_PROPOSALS_PER_CONVERSATION,
                )
            )
        return self.propose(
            text,
            kind,
            evidence_quote,
            layer,
            project,
            "agent",
            messages=messages,
            conversation=conversation,
        )

    def _take_proposal(self, conversation: str | None) -> bool:
        """Use one of the conversation's agent proposals; False when all are used.

        A named conversation's count lives in the memory home, shared by every
        process serving it (a restarted MCP server gets no new allowance); an
        unnamed one lives as long as this service.
        """
        if conversation is not None:
            allowance = ProposalAllowance(self.ctx.user.root)
            return allowance.take(conversation, AGENT_PROPOSALS_PER_CONVERSATION, self.ctx.clock())
        calls = self._agent_calls
        if calls.get(DEFAULT_CONVERSATION, 0) >= AGENT_PROPOSALS_PER_CONVERSATION:
            return False
        calls[DEFAULT_CONVERSATION] = calls.get(DEFAULT_CONVERSATION, 0) + 1
        return True

    # -- extraction ---------------------------------------------------------------------

    def _known_texts(self, pid: str | None) -> list[str]:
        """The layer's approved and pending entries, for the LLM not to propose again."""
        pending = [p for _, p in self.store.scan()[0] if p.is_pending]
        out: list[str] = []
        used = 0
        for known in self._known(pid, pending):
            used += len(known.text) + 3
            if used > MAX_KNOWN_CHARS:
                break  # one call's prompt stays bounded on a large layer
            out.append(known.text)
        return out

    def _llm_candidates(
        self, sources: list[SourceText], window: int, pid: str | None, background: bool
    ) -> list[KnowledgeCandidate]:
        client = self.ctx.settings.llm
        assert client is not None
        recent = recent_person_texts(sources, window)
        if not recent:
            return []  # nothing the person wrote: no call
        budget = self.ctx.settings.budget
        try:
            reply = budget.complete(
                client,
                extraction_prompt(recent, self._known_texts(pid)),
                use="extraction",
                background=background,
            )
        except LLMBudgetSpentError as exc:
            self._last_notice = localized(exc)
            return []
        self._last_llm_call = True
        if reply.over_budget:
            self._last_notice = localized(over_budget_note(reply.spend))
        out = []
        for item in parse_extraction(reply.text):
            try:
                found = find_evidence(item.evidence_quote, recent)
            except ValidationError:
                continue  # an LLM quote that is not the person's words is dropped
            out.append(
                KnowledgeCandidate(
                    item.text, item.kind, item.evidence_quote, "chat-extraction", found
                )
            )
        return out

    def extract(
        self,
        messages: Iterable[Any],
        project: ProjectArg | None = None,
        *,
        conversation: str | None = None,
        notebook: str | None = None,
        max_messages: int | None = None,
        background: bool = True,
        llm: bool = True,
    ) -> list[Proposal]:
        """One extraction round over the person's recent texts.

        Every explicit note (a marker line, core/knowledge/extract.py) becomes
        a proposal. With ``llm`` and an LLM configured, one LLM call reads the
        same texts too (at most 3 proposals from it): that is the end of a
        conversation (issue 32); the kernel's per-cell round passes
        ``llm=False``. The call counts against today's budget; a ``background``
        round whose budget is spent makes none and says why in
        :attr:`last_extraction_notice`. ``background=True`` (an automatic
        round) does nothing while Automatic suggestions are off; nothing at
        all happens while memory is disabled. Skipped candidates and why are
        in :attr:`last_extraction_skipped`.
        """
        skipped: list[dict[str, str]] = []
        self._last_skipped = skipped
        self._last_notice = None
        self._last_llm_call = False
        settings = self.ctx.settings.read()
        if not settings["enabled"] or (background and not settings["auto_suggestions"]):
            return []
        sources = self.record_round(messages, conversation=conversation, notebook=notebook)
        window = max_messages if max_messages is not None else int(settings["extract_max_messages"])
        layer, pid = self._proposal_target(None, project)
        queued: list[Proposal] = []
        notes = extract_candidates(sources, max_messages=window)
        self._enqueue_all(notes, None, queued, skipped, layer, pid, conversation)
        if llm and self.ctx.settings.llm is not None:
            found = self._llm_candidates(sources, window, pid, background)
            self._enqueue_all(found, MAX_PER_ROUND, queued, skipped, layer, pid, conversation)
        return queued

    def _enqueue_all(
        self,
        candidates: list[KnowledgeCandidate],
        limit: int | None,
        queued: list[Proposal],
        skipped: list[dict[str, str]],
        layer: str,
        pid: str | None,
        conversation: str | None,
    ) -> None:
        """Queue candidates (``limit`` of them at most; a person's notes have none)."""
        made = 0
        for cand in candidates:
            if limit is not None and made >= limit:
                skipped.append({"text": cand.text, "reason": M_("round limit of 3 reached")})
                continue
            reason = execution_state_reason(cand.text)
            kinds = kinds_in(cand.text) or kinds_in(cand.quote)
            if kinds:
                reason = M_("holds a secret ({kinds})", kinds=", ".join(kinds))
            if reason:
                skipped.append({"text": cand.text, "reason": reason})
                continue
            result = self._enqueue(
                text=cand.text,
                kind=cand.kind,
                quote=cand.quote,
                origin=cand.origin.origin(),
                source=cand.source,
                layer=layer,
                pid=pid,
                conversation=conversation,
            )
            if result.proposal is not None:
                queued.append(result.proposal)
                made += 1
            else:
                skipped.append({"text": cand.text, "reason": result.reason})

    @property
    def last_extraction_notice(self) -> str | None:
        """The LLM budget's word on the last round (spent, or went over), else None."""
        return self._last_notice

    @property
    def last_extraction_called_llm(self) -> bool:
        return self._last_llm_call

    @property
    def last_extraction_skipped(self) -> list[dict[str, str]]:
        return list(self._last_skipped)

    # -- reading the queue --------------------------------------------------------------

    def queue(self, *, include_decided: bool = False) -> list[Proposal]:
        """Pending proposals (oldest first); all of them with ``include_decided``."""
        good, _ = self.store.scan()
        # An impossible (early-dated) decision is listed as pending: the person settles it.
        listed = [reopened(p) for _, p in good]
        items = [p for p in listed if include_decided or p.is_pending]
        return sorted(items, key=lambda p: (p.created, p.id))

    def queue_problems(self) -> list[dict[str, str]]:
        """Proposal files that cannot be read (never rewritten; fix or remove them by hand),
        and contested decisions of a shared queue; ``kind`` says which."""
        _, bad = self.store.scan()
        problems = [{"path": str(path), "kind": "unreadable", "message": msg} for path, msg in bad]
        # A shared queue's proposal decided differently in two clones (issue 17), or
        # decided in a way no commit vouches for (issue 29).
        return problems + [
            {"path": c["path"], "kind": "contested", "message": c["message"]}
            for c in self.store.contested()
        ]

    def proposal(self, proposal_id: str) -> Proposal:
        """One proposal by id, pending or decided, from any queue this person reviews."""
        return self.store.find(proposal_id)[1]

    def decision_context(self, proposals: Iterable[Proposal]) -> dict[str, list[Neighbour]]:
        """For each pending proposal, the nearest approved and pending entries (issue 32):
        what it may conflict with, update or repeat, so the person decides with them in view.

        Lexical (no embedding): a listing must stay fast, and the nearest entries are the
        ones sharing words or slots anyway.
        """
        # Kept while the queue folders and the knowledge entries are unchanged
        # (:mod:`.neighbours`): a second page or a refresh reuses the index.
        return self.neighbours.nearest(proposals)


__all__ = [
    "AGENT_PROPOSALS_PER_CONVERSATION",
    "DEFAULT_CONVERSATION",
    "MAX_PROPOSAL_TEXT",
    "KnowledgeQueue",
]
