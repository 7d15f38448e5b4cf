"""Writing memories: remember, update, forget and the bulk import (:class:`MemoryWriter`).

Every write goes file first, then index, then audit record (docs/design.md),
and wakes the background embedder of the root it touched.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from ..._i18n import M_
from ...core.memories.forgotten import holder, needles
from ...core.memories.inputs import check_text, default_title, parse_enum, parse_iso, split_list
from ...core.memories.models import (
    EvidenceQuote,
    MemoryEntry,
    MemoryMeta,
    MemoryType,
    Source,
    Tier,
    validate_scope,
)
from ...core.memories.recall_query import MAX_QUERY_CHARS
from ...core.memories.supersede import CANDIDATES as SUPERSEDE_CANDIDATES
from ...core.names import validate_id
from ...core.progress import BAR_THRESHOLD, NoProgress, Progress
from ...core.validation import validation_error
from ...exceptions import (
    JupyterMemoryError,
    NotFoundError,
    ParseError,
    StoreError,
    ValidationError,
)
from ...store.audit import audit_record
from ...store.jsonl import read_jsonl
from ...store.knowledge.person_text import PersonTextLog
from ...store.learning.digest_store import DigestStore
from ...store.memories.cold_archive import delete_archived
from ...store.memories.search_index import SearchQuery
from ...store.root import StoreRoot
from ..context import ServiceContext
from ..secret_guard import PROJECT_REFUSED, REMEMBER_REFUSED, kinds_in, refuse_secrets
from .locate import Located, locate
from .results import ForgetResult

IMPORT_BATCH = 2000


class MemoryWriter:
    """Creates, changes and deletes memories in the user or a project root."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def build_entry(
        self,
        text: str,
        *,
        title: str | None,
        type: Any,
        tier: Any,
        tags: Iterable[str],
        scope: str,
        project_id: str | None,
        source: Any,
        confidence: float,
        evidence: Iterable[Any],
        reviewed: bool,
        created: datetime | None,
        related: Iterable[str],
        extra: dict[str, Any] | None = None,
    ) -> MemoryEntry:
        """A checked new entry with a fresh id (nothing written)."""
        check_text(text)
        if title is not None:
            check_text(title, "title")
        now = self.ctx.clock()
        quotes = [
            e
            if isinstance(e, EvidenceQuote)
            else EvidenceQuote.model_validate(e if isinstance(e, dict) else {"quote": str(e)})
            for e in evidence
        ]
        try:
            meta = MemoryMeta(
                id=self.ctx.new_id(),
                title=title if title is not None else default_title(text),
                type=parse_enum(MemoryType, type, "type"),
                tier=parse_enum(Tier, tier, "tier"),
                scope=validate_scope(scope),
                project=project_id,
                tags=list(tags),
                source=parse_enum(Source, source, "source"),
                confidence=confidence,
                created=created or now,
                updated=created or now,
                related=[validate_id(r, field="related") for r in related],
                evidence=quotes,
                reviewed=reviewed,
                **(extra or {}),
            )
        except PydanticValidationError as exc:
            raise validation_error(exc, default="memory") from exc
        return MemoryEntry(meta=meta, text=text)

    def target(
        self, scope: str | None, agent: str | None, project: str | os.PathLike[str] | None
    ) -> tuple[str, StoreRoot, str | None]:
        """(scope, root, project id) a new memory goes to."""
        if agent is not None:
            scope = f"agent:{agent}"
        projects = self.ctx.projects
        root_pid: tuple[str, StoreRoot] | None = None
        if project is not None:
            root_pid = projects.resolve(project)
        elif projects.project_root is not None and projects.project_id is not None:
            root_pid = (projects.project_id, projects.project_root)
        if scope is None:
            scope = "project" if root_pid is not None else "user"
        validate_scope(scope)
        if scope == "project":
            if root_pid is None:
                raise ValidationError(
                    M_("project scope needs a project: focus one or pass project="), field="scope"
                )
            return scope, root_pid[1], root_pid[0]
        return scope, self.ctx.user, root_pid[0] if (root_pid and project is not None) else None

    def remember(
        self,
        text: str,
        title: str | None = None,
        type: str | MemoryType = MemoryType.procedural,
        tier: str | Tier = Tier.durable,
        tags: Iterable[str] = (),
        scope: str | None = None,
        source: str | Source = Source.manual,
        *,
        project: str | os.PathLike[str] | None = None,
        agent: str | None = None,
        confidence: float = 1.0,
        evidence: Iterable[Any] = (),
        reviewed: bool = True,
        related: Iterable[str] = (),
        created: datetime | None = None,
        extra: dict[str, Any] | None = None,
        allow_secret: bool = False,
        supersedes: Iterable[str] | None = None,
    ) -> MemoryEntry:
        """Store a memory durably and return it (with its absolute ``path``).

        ``supersedes``: the older memories this one restates with a new value;
        ``None`` (the default) finds them: the few best lexical matches of the same
        layer and scope that identity calls an update of the same subject
        (docs/recall.md, "Updated facts first"). ``()`` links nothing.

        Text holding a secret is refused (:class:`SecretError`) unless the person
        passes ``allow_secret=True``; even then it goes to the user layer only (the
        default scope becomes ``user``; a project layer is refused), and agents'
        context shows it redacted.
        """
        evidence = list(evidence)
        quotes = [
            e.quote
            if isinstance(e, EvidenceQuote)
            else str(e.get("quote", "") if isinstance(e, dict) else e)
            for e in evidence
        ]
        texts = {
            "text": text,
            "title": title,
            **{f"evidence[{i}]": q for i, q in enumerate(quotes)},
        }
        if not allow_secret:
            refuse_secrets(REMEMBER_REFUSED, **texts)
        secret = allow_secret and any(kinds_in(t or "") for t in texts.values())
        if secret and scope is None and agent is None and project is None:
            scope = "user"
        scope, root, pid = self.target(scope, agent, project)
        if secret and root is not self.ctx.user:
            # Project files are shared with the team and committed: never a secret there.
            refuse_secrets(PROJECT_REFUSED, scope="\n".join(t or "" for t in texts.values()))
        entry = self.build_entry(
            text,
            title=title,
            type=type,
            tier=tier,
            tags=split_list(tags) if isinstance(tags, str) else tags,
            scope=scope,
            project_id=pid,
            source=source,
            confidence=confidence,
            evidence=evidence,
            reviewed=reviewed,
            created=created,
            related=related,
            extra=extra,
        )
        older = (
            self.restated(root, entry)
            if supersedes is None
            else [validate_id(i, field="supersedes") for i in supersedes]
        )
        entry.meta.supersedes = older
        with self.ctx.semantic.foreground():  # the background embedder waits meanwhile
            name, digest = root.write_new(entry)
            try:
                # no file name in the log: its slug holds the title's words (issue 29)
                self._audit("create", entry.id, root, sha256=digest)
            except StoreError:
                with root.locked():
                    root.unwrite(name)  # whole or nothing: no memory without its audit line
                raise
        self.ctx.semantic.notify([root])
        entry.layer = root.layer
        entry.path = str(root.files.path_of(name))
        return entry

    def restated(self, root: StoreRoot, entry: MemoryEntry) -> list[str]:
        """Ids of the memories of ``root`` (same scope) that ``entry`` updates."""
        m = entry.meta
        rows = root.search(
            SearchQuery(
                text=f"{m.title} {entry.text}"[:MAX_QUERY_CHARS],
                scopes=[m.scope],
                limit=SUPERSEDE_CANDIDATES,
                now=self.ctx.clock(),
            )
        )
        known = [
            (row.id, root.index.body_of(row.name) or "") for row in rows if row.project == m.project
        ]
        # A new *value* of the same subject (a time, a number, a colour…: identity
        # names the slot). "The same rule, wider" keeps the older statement true
        # ("volunteers at a shelter" / "… and is driven to make a difference"): on
        # the LoCoMo dev half those were all 6 of 1,210 links without this check.
        if not known:
            return []
        # Imported here: the writer is built with every kernel's first cell, and only
        # a memory with older ones to compare needs the identity analysis loaded.
        from ...core.knowledge.identity import Relation, relate

        out = []
        for memory_id, old in known:
            found = relate(entry.text, old)
            if found.kind is Relation.UPDATE and found.slot is not None:
                out.append(memory_id)
        return out

    # ``self`` is positional-only so that **changes can never bind it: the
    # facade's typed Delegate (service/delegation.py) relies on that.
    def update(self, /, memory_id: str, **changes: Any) -> MemoryEntry:
        """Change a memory's text or metadata (``reviewed=True`` after review, tags, …)."""
        return self.update_at(locate(self.ctx, memory_id), **changes)

    def update_at(self, where: Located, /, **changes: Any) -> MemoryEntry:
        """:meth:`update` of the memory already located (the review's own lookup)."""
        memory_id, root, name = where.id, where.root, where.name
        # A new text or title passes the same secret check as remember (issue 29).
        allow_secret = bool(changes.pop("allow_secret", False))
        texts = {k: changes[k] for k in ("text", "title") if isinstance(changes.get(k), str)}
        if not allow_secret:
            refuse_secrets(REMEMBER_REFUSED, **texts)
        elif root is not self.ctx.user:
            refuse_secrets(PROJECT_REFUSED, **texts)
        entry = root.read(name)
        if "text" in changes:
            entry.text = check_text(changes.pop("text"))
        data = entry.meta.model_dump()
        data.update(changes)
        data["updated"] = self.ctx.clock()
        try:
            entry.meta = MemoryMeta.model_validate(data)
        except PydanticValidationError as exc:
            raise validation_error(exc, default="memory") from exc
        with self.ctx.semantic.foreground():
            digest = root.write_existing(name, entry)
            self._audit("update", memory_id, root, sha256=digest)
        self.ctx.semantic.notify([root])
        entry.layer = root.layer
        entry.path = str(root.files.path_of(name))
        return entry

    def forget(self, memory_id: str) -> ForgetResult:
        """Delete a memory and every derived trace; the audit keeps id, hash and time only.

        A memory in the cold archive (``memories/.old/``) is forgotten there.
        """
        try:
            where = locate(self.ctx, memory_id)
        except NotFoundError:
            for root in self.ctx.projects.roots():
                gone = delete_archived(root, memory_id)
                if gone is not None:
                    entry, digest = gone
                    self._audit("delete", memory_id, root, sha256=digest)
                    self._forget_words(memory_id, entry)
                    return ForgetResult(id=memory_id, layer=root.layer)
            raise
        return self.forget_at(where)

    def forget_at(self, where: Located) -> ForgetResult:
        """:meth:`forget` of the memory already located (the review's own lookup)."""
        memory_id, root = where.id, where.root
        try:
            entry: MemoryEntry | None = root.read(where.name)
        except (JupyterMemoryError, OSError):
            entry = None  # a damaged file is still forgotten; its words cannot be known
        with self.ctx.semantic.foreground():
            _, digest = root.delete(memory_id)
            self._audit("delete", memory_id, root, sha256=digest)
            self._forget_words(memory_id, entry)
        return ForgetResult(id=memory_id, layer=root.layer)

    def _forget_words(self, memory_id: str, entry: MemoryEntry | None) -> None:
        """Take the memory's words out of what was recorded on the way to it, and the log."""
        if entry is not None:
            holds = holder(
                needles(entry.text, entry.meta.title, (q.quote for q in entry.meta.evidence))
            )
            PersonTextLog(self.ctx.home).drop_holding(holds)
            DigestStore(self.ctx.home).drop_holding(holds)
        self.ctx.audit.scrub(memory_id)

    def _audit(self, action: str, memory_id: str, root: StoreRoot, **fields: Any) -> None:
        self.ctx.audit.append(
            action,
            actor=self.ctx.actor,
            at=self.ctx.clock(),
            id=memory_id,
            **fields,
            layer=root.layer,
        )

    def import_jsonl(self, path: str | os.PathLike[str], *, source: str = "import") -> list[str]:
        """Bulk import: validate every line first (nothing written on error), then batch writes."""
        src = Path(path)
        by_root: dict[int, tuple[StoreRoot, list[MemoryEntry]]] = {}
        for number, obj in read_jsonl(src):
            try:
                root, entry = self._import_entry(obj, source)
            except (ValidationError, ValueError, TypeError) as exc:
                why = exc.as_message() if isinstance(exc, ValidationError) else str(exc)
                raise ParseError(why, path=src, line=number) from exc
            by_root.setdefault(id(root), (root, []))[1].append(entry)
        ids: list[str] = []
        total = sum(len(entries) for _, entries in by_root.values())
        bar = self.ctx.progress() if self.ctx.progress and total >= BAR_THRESHOLD else NoProgress()
        bar.stage(M_("importing memories"), total)
        try:
            with self.ctx.semantic.foreground():
                self._write_batches(by_root, source, ids, bar)
        finally:
            bar.close()
        return ids

    def _write_batches(
        self,
        by_root: dict[int, tuple[StoreRoot, list[MemoryEntry]]],
        source: str,
        ids: list[str],
        bar: Progress,
    ) -> None:
        for root, entries in by_root.values():
            for start in range(0, len(entries), IMPORT_BATCH):
                chunk = entries[start : start + IMPORT_BATCH]
                written = root.write_batch(chunk)
                at = self.ctx.clock()
                # one audit write for the chunk: a per-line fsync made 10k imports take minutes
                self.ctx.audit.append_many(
                    [
                        audit_record(
                            "create",
                            actor=self.ctx.actor,
                            at=at,
                            id=entry.id,
                            sha256=digest,
                            layer=root.layer,
                            via="import",
                        )
                        for entry, (_name, digest) in zip(chunk, written, strict=True)
                    ]
                )
                ids.extend(entry.id for entry in chunk)
                bar.advance(len(chunk))
            self.ctx.semantic.notify([root])

    def _import_entry(self, obj: dict[str, Any], source: str) -> tuple[StoreRoot, MemoryEntry]:
        """One line of an import file as (root, entry); raises on anything wrong."""
        if "text" not in obj:
            raise ValidationError(M_("missing"), field="text")
        scope, root, pid = self.target(obj.get("scope"), obj.get("agent"), None)
        created = obj.get("created")
        extra = obj.get("extra")
        entry = self.build_entry(
            obj["text"],
            title=obj.get("title"),
            type=obj.get("type", MemoryType.semantic.value),
            tier=obj.get("tier", Tier.durable.value),
            tags=split_list(obj.get("tags")),
            scope=scope,
            project_id=pid,
            source=obj.get("source", source),
            confidence=float(obj.get("confidence", 1.0)),
            evidence=obj.get("evidence", ()),
            reviewed=bool(obj.get("reviewed", True)),
            created=parse_iso(created) if isinstance(created, str) else None,
            related=(),
            extra=dict(extra) if isinstance(extra, dict) else None,
        )
        return root, entry
