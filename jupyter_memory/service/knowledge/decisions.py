"""A person's decisions on the queue: apply, dismiss, process all (spec 002 §6–§6.1).

Apply is the one way a proposal becomes knowledge (docs/design.md invariant 5);
no agent tool reaches this module. After knowledge of a project changed, the
hook registered with :meth:`KnowledgeDecisions.on_project_applied` runs once
per project (the AGENTS.md auto-sync, wired in :mod:`.wiring`); its report is
part of the result, so the person sees it.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable

from ..._i18n import M_, Message
from ...core.knowledge.format import INFO, RULES, append_entry, check_save_size, render_knowledge
from ...core.knowledge.keys import dedup_hash, dedup_key
from ...core.knowledge.proposal_merge import reopened
from ...core.knowledge.proposals import Proposal
from ...core.knowledge.replace_entry import replace_leaf
from ...exceptions import ConflictError, JupyterMemoryError, ValidationError
from ...store.root import StoreRoot
from ..context import ServiceContext
from .events import QueueEvents
from .files import KnowledgeFiles, ProjectArg, check_layer, refuse_conflicted
from .queue import KnowledgeQueue
from .results import (
    PICK_A_PROJECT,
    AgentsMdAutosync,
    AlreadyDecided,
    Applied,
    Dismissed,
    PlannedTarget,
    ProcessAllPlan,
    ProcessAllResult,
    SkippedProposal,
)

# Runs after an Apply changed a project's knowledge: ``None`` when it did nothing.
ProjectAppliedHook = Callable[[str], AgentsMdAutosync | None]


def needs_project_pick(p: Proposal) -> bool:
    """Suggested for Project with none named: only the person can pick it (spec 002 §4.4)."""
    return p.suggested_layer == "project" and p.project is None


def _decided(p: Proposal) -> AlreadyDecided | None:
    """The decision a proposal already has, or ``None`` while it is pending."""
    if p.status == "applied":
        return AlreadyDecided(p.id, "saved", layer=p.applied_to, project=p.applied_project)
    if p.status == "dismissed":
        return AlreadyDecided(p.id, "dismissed")
    if p.status == "superseded":
        return AlreadyDecided(p.id, "superseded", superseded_by=p.superseded_by)
    return None


def also_locked(root: StoreRoot, held: StoreRoot) -> contextlib.AbstractContextManager[None]:
    """``root``'s lock, unless it is the root whose lock is ``held`` (file locks do not nest)."""
    return contextlib.nullcontext() if root.root == held.root else root.locked()


def _cause(exc: JupyterMemoryError) -> str:
    """An error without its figures: the same refusal of many items is one failure."""
    message = exc.message
    template = message.template if isinstance(message, Message) else str(message)
    return f"{type(exc).__name__}|{getattr(exc, 'field', '')}|{template}"


class KnowledgeDecisions:
    """Apply and dismiss proposals of the queue into the knowledge files."""

    def __init__(
        self,
        ctx: ServiceContext,
        files: KnowledgeFiles,
        queue: KnowledgeQueue,
        events: QueueEvents,
    ) -> None:
        self.ctx = ctx
        self.files = files
        self.queue = queue
        self.events = events
        self._project_applied: ProjectAppliedHook | None = None

    def on_project_applied(self, hook: ProjectAppliedHook | None) -> None:
        """Run ``hook(project_id)`` after an Apply to a project (one hook; ``None`` removes it)."""
        self._project_applied = hook

    def _after(self, project_id: str) -> AgentsMdAutosync | None:
        hook = self._project_applied
        return hook(project_id) if hook is not None else None

    def after_project_change(self, project_id: str) -> AgentsMdAutosync | None:
        """The after-Apply hook, for another change of a project's knowledge (a revert)."""
        return self._after(project_id)

    def apply(
        self,
        proposal_id: str,
        to: str,
        project: ProjectArg | None = None,
        replaces: str | None = None,
    ) -> Applied | AlreadyDecided:
        """A person's approval: merge the entry into Rules or Info of the chosen file.

        ``replaces`` (the text of an entry in that file, e.g. one the proposal
        contradicts) makes it a replacement: that entry is removed in the same
        write, and the audit records it (``replaced``: the old entry's hash).
        With the ``agents_md_autosync`` switch on, an Apply to a project also
        re-syncs that project's AGENTS.md block; its report is under ``agents_md``.
        """
        if replaces is not None and (not isinstance(replaces, str) or not replaces.strip()):
            raise ValidationError(M_("must be a non-empty string"), field="replaces")
        result = self._apply_one(proposal_id, to, project, replaces)
        if isinstance(result, Applied) and result.layer == "project" and result.project:
            sync = self._after(result.project)
            if sync is not None:
                result = dataclasses.replace(result, agents_md=sync)
        return result

    def _apply_one(
        self, proposal_id: str, to: str, project: ProjectArg | None, replaces: str | None = None
    ) -> Applied | AlreadyDecided:
        check_layer(to, "to")
        store = self.queue.store
        path, p = store.find(proposal_id)
        p = reopened(p)
        done = _decided(p)
        if done is not None:
            return done
        if to == "project" and project is None and p.project is not None:
            project = p.project
        layer, root, pid = self.files.layer_root(to, project)
        kfile = self.files.file_of(root)
        section = RULES if p.kind == "rule" else INFO
        # The decision is a compare-and-swap on the proposal's status, taken under
        # the queue's (user root's) lock with the knowledge write inside it: a
        # Dismiss or an Apply to the other layer from another process waits, then
        # finds the proposal decided, so exactly one decision writes anything.
        # Lock order is user root, then project root (nothing takes them the
        # other way round); the user root is not locked twice.
        with (
            self.ctx.semantic.foreground(),
            self.ctx.user.locked(),
            also_locked(root, self.ctx.user),
        ):
            path, p = store.find(proposal_id)
            p = reopened(p)
            done = _decided(p)
            if done is not None:  # decided by someone else meanwhile
                return done
            # Fresh from disk: a save checks its base under this same lock, so
            # what is read here is what the file holds until the write.
            loaded = kfile.load(fresh=True)  # a malformed file raises here, left as it is
            refuse_conflicted(loaded)  # git left a merge conflict in it (issue 17)
            key = dedup_key(p.text)
            present = any(dedup_key(leaf) == key for _, leaf in loaded.doc.leaves())
            digest = None
            version = loaded.version
            if replaces is not None and not present:
                replaced = replace_leaf(loaded.doc, replaces, section, p.text)
                if replaced is None:
                    raise ValidationError(
                        M_("no entry {text!r} in {layer} knowledge to replace",
                           text=replaces, layer=layer),
                        field="replaces",
                    )  # fmt: skip
                text = render_knowledge(replaced)
                check_save_size(text)
                digest = version = kfile.write(text)
            elif not present:  # re-applying after a crash between the two writes adds nothing
                text = render_knowledge(append_entry(loaded.doc, section, p.text))
                check_save_size(text)
                digest = version = kfile.write(text)
            now = self.ctx.clock()
            p = p.model_copy(
                update={
                    "status": "applied",
                    "decided_at": now,
                    "applied_to": layer,
                    "applied_project": pid,
                    "reverted_at": None,  # a newer decision than the revert
                }
            )
            store.replace(path, p)
        self.files.audit_write(
            "proposal.apply", kfile, digest, layer, pid, at=now, id=p.id, section=section,
            item=dedup_hash(p.text),
            **({"replaced": dedup_hash(replaces)} if replaces is not None else {}),
        )  # fmt: skip
        self.events.emit("applied", p.id, layer=layer, project=pid)
        return Applied(
            p.id,
            layer=layer,
            project=pid,
            section=section,
            path=str(kfile.path),
            version=version,
        )

    def dismiss(self, proposal_id: str, reason: str | None = None) -> Dismissed | AlreadyDecided:
        """A person's refusal; the same proposal is never suggested again.

        ``reason`` (optional) is kept on the proposal as ``dismiss_reason``; the
        self-learner records it when the proposal came from a candidate rule.
        """
        if reason is not None and not isinstance(reason, str):
            raise ValidationError(M_("must be a string"), field="reason")
        reason = reason.strip() if reason else None
        store = self.queue.store
        with self.ctx.semantic.foreground(), self.ctx.user.locked():
            path, p = store.find(proposal_id)
            p = reopened(p)
            done = _decided(p)
            if done is not None:
                return done
            now = self.ctx.clock()
            update: dict[str, object] = {
                "status": "dismissed",
                "decided_at": now,
                "reverted_at": None,  # a newer decision than any revert
            }
            if reason:
                update["dismiss_reason"] = reason
            p = p.model_copy(update=update)
            store.add_dismissed(p.dedup_hash or dedup_hash(p.text))
            digest = store.replace(path, p)
        folder = self.ctx.projects.folder_of(p.project) if p.project else None
        # no queue file name in the log: it holds a slug of the text (issue 29)
        self.ctx.audit.append(
            "proposal.dismiss", actor=self.ctx.actor, by=self.ctx.who(folder), at=now,
            id=p.id, sha256=digest, project=p.project,
        )  # fmt: skip
        self.events.emit("dismissed", p.id, reason=reason)
        return Dismissed(p.id)

    def process_all_plan(self) -> ProcessAllPlan:
        """What :meth:`process_all` would do now: pending items per layer and project.

        The panel and the CLI show it and ask before applying (issue 32).
        """
        counts: dict[tuple[str, str | None], int] = {}
        pick = 0
        for p in self.queue.queue():
            if needs_project_pick(p):
                pick += 1
                continue
            key = ("project", p.project) if p.suggested_layer == "project" else ("user", None)
            counts[key] = counts.get(key, 0) + 1
        targets = [PlannedTarget(layer, pid, n) for (layer, pid), n in sorted(
            counts.items(), key=lambda kv: (kv[0][0] != "user", kv[0][1] or ""))]  # fmt: skip
        return ProcessAllPlan(targets, pick)

    def process_all(self, expect: int | None = None) -> ProcessAllResult:
        """Apply every pending item to the layer it was suggested for (spec 002 §4.4).

        Process all picks no layer and no project: an item suggested for User
        goes to User, one suggested for a project goes to that project. An item
        suggested for Project without a project still needs the person to pick
        one; it is skipped and listed with "pick a project", also while a
        project is in focus (the panel shows it with its project picker). An
        item whose Apply fails (its project is no longer registered, a
        malformed file) is skipped with the error. AGENTS.md auto-sync runs
        once per project at the end (``agents_md``: one report per project),
        not once per item.

        ``expect`` is the ``total`` of the plan the person confirmed
        (:meth:`process_all_plan`): when the queue changed since, nothing is
        applied and :class:`ConflictError` (``state="plan_changed"``) says so,
        so what runs is what was shown.
        """
        if expect is not None:
            total = self.process_all_plan().total
            if total != expect:
                raise ConflictError(
                    M_(
                        "the queue changed since the plan was shown ({expect} to apply, now "
                        "{total}); nothing was applied: look at the plan again",
                        expect=expect,
                        total=total,
                    ),
                    state="plan_changed",
                )
        applied: list[Applied | AlreadyDecided] = []
        skipped: list[SkippedProposal] = []
        for p in self.queue.queue():
            if needs_project_pick(p):
                skipped.append(SkippedProposal(p.id, p.text, PICK_A_PROJECT))
                continue
            target = p.project if p.suggested_layer == "project" else None
            try:
                applied.append(self._apply_one(p.id, p.suggested_layer, target))
            except JupyterMemoryError as exc:
                skipped.append(SkippedProposal(p.id, p.text, exc.as_message(), _cause(exc)))
        projects = {a.project for a in applied if isinstance(a, Applied) and a.project}
        reports = [r for pid in sorted(projects) if (r := self._after(pid)) is not None]
        return ProcessAllResult(applied, skipped, reports or None)


__all__ = [
    "PICK_A_PROJECT",
    "KnowledgeDecisions",
    "ProjectAppliedHook",
    "also_locked",
    "needs_project_pick",
]
