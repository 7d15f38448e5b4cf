"""The proposal queue: propose, extract, apply, dismiss, process all (spec 002 §3–§6.1).

Nothing here puts a proposal into an agent's context: a proposal becomes
knowledge only through :meth:`apply`, a person's act (docs/design.md invariant 5),
which no agent tool reaches (see :mod:`jupyter_memory.service.agent_tools`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from ...core.ids import new_id
from ...core.knowledge.dedup import Known, decide, dedup_hash, dedup_key
from ...core.knowledge.evidence import SourceText, find_evidence, to_sources
from ...core.knowledge.extract import (
    MAX_PER_ROUND,
    Candidate,
    execution_state_reason,
    extract_candidates,
    recent_person_texts,
)
from ...core.knowledge.format import (
    INFO,
    RULES,
    append_entry,
    check_save_size,
    render_knowledge,
)
from ...core.knowledge.proposals import KINDS, LAYERS, SOURCES, Proposal, build_proposal
from ...core.llm import extraction_prompt, parse_extraction
from ...exceptions import JupyterMemoryError, ParseError, PolicyError, ValidationError
from ...store.knowledge.proposal_allowance import ProposalAllowance
from .agents_md import autosync_after_apply
from .files import (
    AGENT_PROPOSALS_PER_CONVERSATION,
    DEFAULT_CONVERSATION,
    KnowledgeFilesMixin,
    check_layer,
)

MAX_PROPOSAL_TEXT = 1_000


def _choice(value: str, allowed: tuple[str, ...], field: str) -> str:
    if value not in allowed:
        raise ValidationError(f"{value!r} is not one of: {', '.join(allowed)}", field=field)
    return value


class KnowledgeQueueMixin(KnowledgeFilesMixin):
    # Provided by Memory: an agent's project name, among registered projects only.
    registered_project: Callable[[str], str]

    # -- rounds and targets -------------------------------------------------------------

    def record_round(
        self,
        messages: Iterable[Any],
        *,
        conversation: str | None = None,
        notebook: str | None = None,
    ) -> list[SourceText]:
        """Remember this round's texts: the evidence that later proposals are checked against."""
        sources = to_sources(messages, default_notebook=notebook)
        self._kn().rounds[conversation or DEFAULT_CONVERSATION] = sources
        return sources

    def _proposal_target(
        self, layer: str | None, project: str | os.PathLike[str] | None
    ) -> tuple[str, str | None]:
        pid = self._project(project)[0] if project is not None else self.project_id
        layer = layer or ("project" if pid else "user")
        return check_layer(layer), pid

    def _known(self, pid: str | None, pending: list[Proposal]) -> list[Known]:
        known: list[Known] = []
        targets: list[tuple[str, str | None, str]] = [("user", None, "user")]
        if pid is not None:
            targets.append(("project", pid, f"project {pid}"))
        for layer, proj, label in targets:
            try:
                doc = self.knowledge_doc(layer, project=proj)
            except ParseError:
                # A malformed file is reported where it is read for context or
                # apply; it must not also block the queue, so skip it here.
                continue
            known += [Known(leaf, "knowledge", label) for _, leaf in doc.leaves()]
        known += [Known(p.text, "pending", p.id) for p in pending]
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
    ) -> dict[str, Any]:
        store = self._queue_store()
        with self.user.locked():
            pending = [p for _, p in store.scan()[0] if p.is_pending]
            decision = decide(text, self._known(pid, pending), store.dismissed_hashes())
            if decision.action == "skip":
                return {"status": "skipped", "id": None, "reason": decision.reason}
            now = self.clock()
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
                conversation=conversation,
                dedup_hash=dedup_hash(text),
            )
            path, digest = store.add(proposal)
            if decision.supersedes:
                old_path, old = store.find(decision.supersedes)
                old = old.model_copy(
                    update={"status": "superseded", "superseded_by": proposal.id, "decided_at": now}
                )
                store.replace(old_path, old)
        self.audit.append(
            "proposal.create",
            actor=self.actor if source == "manual" else source,
            at=now,
            id=proposal.id,
            path=str(path),
            sha256=digest,
            source=source,
            layer=layer,
            project=pid,
            supersedes=decision.supersedes,
        )
        self._emit("created", proposal.id, supersedes=decision.supersedes)
        return {
            "status": "queued",
            "id": proposal.id,
            "reason": decision.reason,
            "supersedes": decision.supersedes,
            "proposal": proposal.to_dict(),
        }

    # -- proposing ----------------------------------------------------------------------

    def propose(
        self,
        text: str,
        kind: str,
        evidence_quote: str,
        layer: str | None = None,
        project: str | os.PathLike[str] | None = None,
        source: str = "manual",
        *,
        messages: Iterable[Any] | None = None,
        conversation: str | None = None,
        quote_origin: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """Queue a proposal whose quote is verified against the person's own text.

        The texts are ``messages`` when given, else this conversation's
        recorded round; a ``manual`` proposal's own text counts too (the person
        typed it). Never reaches context until a person applies it.
        """
        if not self.enabled:
            raise PolicyError("memory is disabled: proposals are paused")
        if not isinstance(text, str) or not text.strip():
            raise ValidationError("must be a non-empty string", field="text")
        if len(text) > MAX_PROPOSAL_TEXT:
            raise ValidationError(f"is over {MAX_PROPOSAL_TEXT} characters", field="text")
        _choice(kind, KINDS, "kind")
        _choice(source, SOURCES, "source")
        if layer is not None:
            _choice(layer, LAYERS, "layer")
        if source != "manual":
            reason = execution_state_reason(text)
            if reason:
                raise ValidationError(f"refused: {reason}", field="text")
        conv = conversation or DEFAULT_CONVERSATION
        if messages is not None:
            sources = to_sources(messages)
        else:
            sources = list(self._kn().rounds.get(conv, []))
        if source == "manual":
            sources.append(SourceText("user", text))
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
    ) -> dict[str, Any]:
        """The agent's only knowledge-writing tool: into the queue, never into context."""
        if not self.enabled:
            raise PolicyError("memory is disabled: agent proposals are paused")
        if project is not None:
            # An agent may name a project the person already uses, never a new folder.
            project = self.registered_project(project)
        if not self._take_proposal(conversation):
            raise PolicyError(
                f"rate limit: at most {AGENT_PROPOSALS_PER_CONVERSATION} knowledge proposals "
                "per conversation"
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
        unnamed one lives as long as this ``Memory``.
        """
        if conversation is not None:
            allowance = ProposalAllowance(self.user.root)
            return allowance.take(conversation, AGENT_PROPOSALS_PER_CONVERSATION, self.clock())
        calls = self._kn().agent_calls
        if calls.get(DEFAULT_CONVERSATION, 0) >= AGENT_PROPOSALS_PER_CONVERSATION:
            return False
        calls[DEFAULT_CONVERSATION] = calls.get(DEFAULT_CONVERSATION, 0) + 1
        return True

    def _llm_candidates(self, sources: list[SourceText], window: int) -> list[Candidate]:
        client = self.llm
        assert client is not None
        recent = recent_person_texts(sources, window)
        out = []
        for item in parse_extraction(client.complete(extraction_prompt(recent))):
            try:
                found = find_evidence(item.evidence_quote, recent)
            except ValidationError:
                continue  # an LLM quote that is not the person's words is dropped
            out.append(
                Candidate(item.text, item.kind, item.evidence_quote, "chat-extraction", found)
            )
        return out

    def extract(
        self,
        messages: Iterable[Any],
        project: str | os.PathLike[str] | None = None,
        *,
        conversation: str | None = None,
        notebook: str | None = None,
        max_messages: int | None = None,
        background: bool = True,
    ) -> list[Proposal]:
        """One extraction round: at most 3 new proposals from the person's recent texts.

        ``background=True`` (an automatic round) does nothing while Automatic
        suggestions are off; nothing at all happens while memory is disabled.
        Skipped candidates and why are in :attr:`last_extraction_skipped`.
        """
        state = self._kn()
        state.last_skipped = []
        settings = self.settings
        if not settings["enabled"] or (background and not settings["auto_suggestions"]):
            return []
        sources = self.record_round(messages, conversation=conversation, notebook=notebook)
        window = max_messages if max_messages is not None else int(settings["extract_max_messages"])
        layer, pid = self._proposal_target(None, project)
        candidates = (
            self._llm_candidates(sources, window)
            if self.llm
            else extract_candidates(sources, max_messages=window)
        )
        queued: list[Proposal] = []
        for cand in candidates:
            if len(queued) >= MAX_PER_ROUND:
                state.last_skipped.append({"text": cand.text, "reason": "round limit of 3 reached"})
                continue
            reason = execution_state_reason(cand.text)
            if reason:
                state.last_skipped.append({"text": cand.text, "reason": reason})
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
            if result["status"] == "queued":
                queued.append(Proposal.model_validate(result["proposal"]))
            else:
                state.last_skipped.append({"text": cand.text, "reason": result["reason"]})
        return queued

    @property
    def last_extraction_skipped(self) -> list[dict[str, str]]:
        return list(self._kn().last_skipped)

    # -- the queue ----------------------------------------------------------------------

    def queue(self, *, include_decided: bool = False) -> list[Proposal]:
        """Pending proposals (oldest first); all of them with ``include_decided``."""
        good, _ = self._queue_store().scan()
        items = [p for _, p in good if include_decided or p.is_pending]
        return sorted(items, key=lambda p: (p.created, p.id))

    def queue_problems(self) -> list[dict[str, str]]:
        """Proposal files that cannot be read (never rewritten; fix or remove them by hand)."""
        _, bad = self._queue_store().scan()
        return [{"path": str(path), "message": msg} for path, msg in bad]

    def proposal(self, proposal_id: str) -> Proposal:
        return self._queue_store().find(proposal_id)[1]

    def _decided(self, p: Proposal) -> dict[str, Any] | None:
        if p.status == "applied":
            return {
                "id": p.id,
                "status": "already_saved",
                "layer": p.applied_to,
                "project": p.applied_project,
            }
        if p.status == "dismissed":
            return {"id": p.id, "status": "already_dismissed"}
        if p.status == "superseded":
            return {"id": p.id, "status": "already_superseded", "superseded_by": p.superseded_by}
        return None

    def apply(
        self, proposal_id: str, to: str, project: str | os.PathLike[str] | None = None
    ) -> dict[str, Any]:
        """A person's approval: merge the entry into Rules or Info of the chosen file.

        With the ``agents_md_autosync`` switch on, an Apply to a project also
        re-syncs that project's AGENTS.md block; its report is under ``agents_md``.
        """
        result = self._apply_one(proposal_id, to, project)
        if result["status"] == "applied" and result["layer"] == "project":
            sync = autosync_after_apply(self, result["project"])
            if sync is not None:
                result["agents_md"] = sync
        return result

    def _apply_one(
        self, proposal_id: str, to: str, project: str | os.PathLike[str] | None
    ) -> dict[str, Any]:
        check_layer(to, "to")
        store = self._queue_store()
        path, p = store.find(proposal_id)
        done = self._decided(p)
        if done is not None:
            return done
        if to == "project" and project is None and p.project is not None:
            project = p.project
        layer, root, pid = self._layer_root(to, project)
        kfile = self._file(root)
        section = RULES if p.kind == "rule" else INFO
        with root.locked():
            # Fresh from disk: a save checks its base under this same lock, so
            # what is read here is what the file holds until the write.
            loaded = kfile.load(fresh=True)  # a malformed file raises here, left as it is
            key = dedup_key(p.text)
            present = any(dedup_key(leaf) == key for _, leaf in loaded.doc.leaves())
            digest = None
            version = loaded.version
            if not present:  # re-applying after a crash between the two writes adds nothing
                text = render_knowledge(append_entry(loaded.doc, section, p.text))
                check_save_size(text)
                digest = version = kfile.write(text)
        now = self.clock()
        with self.user.locked():
            path, p = store.find(proposal_id)
            done = self._decided(p)
            if done is not None:  # decided by someone else meanwhile
                return done
            p = p.model_copy(
                update={
                    "status": "applied",
                    "decided_at": now,
                    "applied_to": layer,
                    "applied_project": pid,
                }
            )
            store.replace(path, p)
        self._audit_knowledge_write(
            "proposal.apply", kfile, digest, layer, pid, at=now, id=p.id, section=section
        )
        self._emit("applied", p.id, layer=layer, project=pid)
        return {
            "id": p.id,
            "status": "applied",
            "layer": layer,
            "project": pid,
            "section": section,
            "path": str(kfile.path),
            "version": version,
        }

    def dismiss(self, proposal_id: str) -> dict[str, Any]:
        """A person's refusal; the same proposal is never suggested again."""
        store = self._queue_store()
        with self.user.locked():
            path, p = store.find(proposal_id)
            done = self._decided(p)
            if done is not None:
                return done
            now = self.clock()
            p = p.model_copy(update={"status": "dismissed", "decided_at": now})
            store.add_dismissed(p.dedup_hash or dedup_hash(p.text))
            digest = store.replace(path, p)
        self.audit.append(
            "proposal.dismiss", actor=self.actor, at=now, id=p.id, path=str(path), sha256=digest
        )
        self._emit("dismissed", p.id)
        return {"id": p.id, "status": "dismissed"}

    def process_all(self, to: str, project: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """Apply every pending item; items that still need a project picked are skipped and listed.

        AGENTS.md auto-sync runs once per project at the end (``agents_md``: one
        report per project), not once per item.
        """
        check_layer(to, "to")
        applied: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        for p in self.queue():
            target = project if project is not None else p.project
            if to == "project" and target is None and self.project_id is None:
                skipped.append({"id": p.id, "text": p.text, "reason": "pick a project"})
                continue
            try:
                applied.append(self._apply_one(p.id, to, target))
            except JupyterMemoryError as exc:
                skipped.append({"id": p.id, "text": p.text, "reason": str(exc)})
        result: dict[str, Any] = {"applied": applied, "skipped": skipped}
        projects = {a["project"] for a in applied if a["status"] == "applied" and a["project"]}
        reports = [r for pid in sorted(projects) if (r := autosync_after_apply(self, pid))]
        if reports:
            result["agents_md"] = reports
        return result


__all__ = ["KnowledgeQueueMixin"]
