"""A project's knowledge history: git's commits and the audit log together (issue 17).

Each row is one item of the project's ``knowledge.md`` that was added or
removed, by whom and when, and, when we can tell, from which proposal and with
which evidence quote. Commits give who and when across the team (every clone's
Applies arrive as commits); this clone's audit log and the proposal files
(the person's queue and a shared queue) add the proposal, its evidence and
the decisions that wrote no item (Dismiss). Changes not yet committed are
listed with ``commit`` empty. Nothing is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ...core.knowledge.format import parse_knowledge
from ...core.knowledge.keys import dedup_hash
from ...core.knowledge.merge import parse_conflicted
from ...core.knowledge.proposals import Proposal
from ...exceptions import ParseError
from ...store import git
from ...store.knowledge.queue import QueueStore
from ..context import ServiceContext
from .files import KnowledgeFiles, ProjectArg

AUDITED = (
    "proposal.apply",
    "proposal.revert",
    "proposal.dismiss",
    "knowledge.save",
    "knowledge.reorganize",
)


@dataclass(frozen=True)
class HistoryRow:
    at: str
    change: str  # added, removed, dismissed, save, reorganize, apply, revert
    item: str | None
    section: str | None
    by: str | None
    commit: str | None = None
    proposal: str | None = None
    evidence: str | None = None
    source: str = "git"  # git, audit, queue

    def to_dict(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "change": self.change,
            "item": self.item,
            "section": self.section,
            "by": self.by,
            "commit": self.commit,
            "proposal": self.proposal,
            "evidence": self.evidence,
            "source": self.source,
        }


def _items(text: str | None) -> dict[str, tuple[str, str]]:
    """dedup hash → (section, text) of every leaf; a conflicted text counts its clean side."""
    if not text:
        return {}
    try:
        conflict = parse_conflicted(text)
        doc = parse_knowledge(conflict.ours if conflict else text)
    except ParseError:
        return {}
    return {dedup_hash(leaf): (section, leaf) for section, leaf in doc.leaves()}


class KnowledgeHistory:
    def __init__(self, ctx: ServiceContext, files: KnowledgeFiles, queue_store: QueueStore) -> None:
        self.ctx = ctx
        self.files = files
        self.queue_store = queue_store

    def _proposals(self) -> dict[str, Proposal]:
        good, _ = self.queue_store.scan()
        return {p.id: p for _, p in good}

    def history(self, project: ProjectArg | None = None) -> list[HistoryRow]:
        """Newest first: item changes from git, decisions from the audit and the queue."""
        _, root, pid = self.files.layer_root("project", project)
        path = root.layout.knowledge
        proposals = self._proposals()
        by_item: dict[str, Proposal] = {}
        for p in proposals.values():
            if p.status == "applied" and p.applied_project in (pid, None):
                by_item.setdefault(p.dedup_hash or dedup_hash(p.text), p)
        rows: list[HistoryRow] = []
        top = git.toplevel(path.parent)
        if top is not None:
            rel = os.path.relpath(path, top)
            rows += self._git_rows(top, rel, by_item)
        rows += self._audit_rows(pid, proposals)
        rows += self._queue_rows(pid, proposals)
        return sorted(rows, key=lambda r: r.at, reverse=True)

    def _git_rows(self, top: Any, rel: str, by_item: dict[str, Proposal]) -> list[HistoryRow]:
        rows: list[HistoryRow] = []

        def diff(old: str | None, new: str | None, **where: Any) -> None:
            before, after = _items(old), _items(new)
            for key, change in [(k, "added") for k in after if k not in before] + [
                (k, "removed") for k in before if k not in after
            ]:
                section, text = (after if change == "added" else before)[key]
                p = by_item.get(key) if change == "added" else None
                rows.append(
                    HistoryRow(
                        change=change, item=text, section=section,
                        proposal=p.id if p else None,
                        evidence=p.evidence_quote if p else None, **where,
                    )
                )  # fmt: skip

        for c in git.file_history(top, rel):
            old = git.show(top, c.parent, rel) if c.parent else None
            diff(old, git.show(top, c.commit, rel), at=c.at, by=f"{c.author} <{c.email}>",
                 commit=c.commit)  # fmt: skip
        try:
            work = (top / rel).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            work = None
        head = git.show(top, "HEAD", rel)
        if work is not None and work != head:
            stamp = self.ctx.clock().isoformat()
            diff(head, work, at=stamp, by=self.ctx.who(top), commit=None)
        return rows

    def _audit_rows(self, pid: str | None, proposals: dict[str, Proposal]) -> list[HistoryRow]:
        rows: list[HistoryRow] = []
        for rec in self.ctx.audit.records():
            action = rec.get("action")
            if action not in AUDITED or rec.get("project") != pid:
                continue
            if action == "proposal.dismiss" and rec.get("id") in proposals:
                continue  # listed from its proposal file, with its text
            p = proposals.get(str(rec.get("id"))) if rec.get("id") else None
            rows.append(
                HistoryRow(
                    at=str(rec.get("at")),
                    change=str(action).split(".")[1],
                    item=p.text if p else None,
                    section=rec.get("section"),
                    by=rec.get("by") or rec.get("actor"),
                    proposal=rec.get("id"),
                    evidence=p.evidence_quote if p else None,
                    source="audit",
                )
            )
        return rows

    def _queue_rows(self, pid: str | None, proposals: dict[str, Proposal]) -> list[HistoryRow]:
        """Dismissed proposals of this project (a shared queue's come from every clone)."""
        return [
            HistoryRow(
                at=(p.decided_at or p.created).isoformat(),
                change="dismissed",
                item=p.text,
                section="rules" if p.kind == "rule" else "info",
                by=getattr(p, "decided_by", None),
                proposal=p.id,
                evidence=p.evidence_quote,
                source="queue",
            )
            for p in proposals.values()
            if p.status == "dismissed" and p.project == pid
        ]


__all__ = ["HistoryRow", "KnowledgeHistory"]
