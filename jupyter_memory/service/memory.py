"""The ``Memory`` facade: the one place where memory policy lives.

Adapters (magics, CLI, REST, MCP) call these methods and render the results;
they never touch files. Clock and id generator are injected for tests.
"""

from __future__ import annotations

import builtins
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from ..core.durations import parse_duration
from ..core.knowledge.evidence import SourceText
from ..core.knowledge.format import KnowledgeDoc
from ..core.knowledge.proposals import Proposal
from ..core.llm import LLMClient
from ..core.memories.attention import heat
from ..core.memories.disclosure import Level, snippet
from ..core.memories.hits import RecallHit
from ..core.memories.models import (
    MAX_TEXT_CHARS,
    EvidenceQuote,
    MemoryEntry,
    MemoryMeta,
    MemoryType,
    Source,
    Tier,
    utcnow,
    validate_scope,
)
from ..core.memories.sectors import TierDecision
from ..core.names import validate_id
from ..core.text import estimate_tokens
from ..core.validation import validation_error
from ..exceptions import (
    LinkedPathError,
    NotFoundError,
    OversizeError,
    ParseError,
    ValidationError,
)
from ..store.audit import AuditLog, audit_record
from ..store.jsonl import read_jsonl
from ..store.memories.search_index import IndexRow, SearchQuery
from ..store.root import StoreRoot
from .context import ServiceContext
from .focus import FocusResolution
from .knowledge.events import QueueListener
from .knowledge.results import (
    CatalogExpansion,
    DecisionResult,
    KnowledgeFileStatus,
    KnowledgeRead,
    ProcessAllResult,
    ProposeResult,
    ReorganizeResult,
)
from .knowledge.wiring import knowledge_services
from .learning.results import (
    CandidateRule,
    DigestReport,
    ReviewDecision,
    UnreviewedMemory,
)
from .learning.wiring import learning_services
from .memories.semantic import SemanticRecall, default_embedder_factory
from .memories.tier_results import (
    ColdArchivedMemory,
    ColdArchiveReport,
    ColdRestore,
    DailyMerge,
    SessionStart,
)
from .memories.tiers import sector_expired
from .paths import RegisteredProject, resolve_home

# Project memories outrank user ones of equal relevance when a project is focused.
PROJECT_BOOST = 1.25
IMPORT_BATCH = 2000
PROJECTS_FILE = "projects.json"


def _enum(enum: type[Any], value: Any, field: str) -> Any:
    try:
        return enum(value.value if hasattr(value, "value") else value)
    except ValueError:
        allowed = ", ".join(e.value for e in enum)
        raise ValidationError(f"{value!r} is not one of: {allowed}", field=field) from None


def _many(value: str | Sequence[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in (p.strip() for p in value.split(",")) if v]
    return [str(v) for v in value]


def check_text(text: Any, field: str = "text") -> str:
    if not isinstance(text, str):
        raise ValidationError("must be a string", field=field)
    if "\x00" in text:
        raise ValidationError("contains NUL bytes", field=field)
    if len(text) > MAX_TEXT_CHARS:
        raise OversizeError(
            f"is {len(text)} characters, over the {MAX_TEXT_CHARS}-character cap", field=field
        )
    if not text.strip():
        raise ValidationError("must not be empty", field=field)
    return text


def _iso(value: str) -> datetime:
    # Python 3.10's fromisoformat does not accept a trailing "Z" (JSON exports do).
    return datetime.fromisoformat(value[:-1] + "+00:00" if value[-1:] in "Zz" and value else value)


def default_title(text: str) -> str:
    first = next((ln.strip().lstrip("#").strip() for ln in text.splitlines() if ln.strip()), "")
    return (first[:77] + "…") if len(first) > 80 else first


class Memory:
    """Governed memory for one person: a user home and, optionally, a focused project."""

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        project: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        id_factory: Callable[[], str] | None = None,
        actor: str = "person",
        semantic: bool | Callable[[], Any] | None = None,
    ) -> None:
        # Optional embeddings (docs/recall.md): None = on when the extra is installed.
        self.ctx = ServiceContext.open(
            resolve_home(home),
            clock=clock or utcnow,
            actor=actor,
            semantic=SemanticRecall(default_embedder_factory(semantic)),
            id_factory=id_factory,
        )
        # knowledge services
        self.knowledge_services = knowledge_services(self.ctx)
        # end knowledge services
        # learning services (tiers and the cold archive included); until the memory
        # and knowledge services exist, the facade itself writes and proposes.
        self.learning_services = learning_services(self.ctx, writer=self, reader=self, queue=self)
        # end learning services
        if project is not None:
            self.focus(project)

    # -- the shared context ------------------------------------------------------------

    @property
    def home(self) -> Path:
        return self.ctx.home

    @property
    def user(self) -> StoreRoot:
        return self.ctx.user

    @property
    def audit(self) -> AuditLog:
        return self.ctx.audit

    @property
    def clock(self) -> Callable[[], datetime]:
        return self.ctx.clock

    @property
    def actor(self) -> str:
        return self.ctx.actor

    @property
    def semantic(self) -> SemanticRecall:
        return self.ctx.semantic

    @property
    def project_id(self) -> str | None:
        return self.ctx.projects.project_id

    @property
    def project_dir(self) -> Path | None:
        return self.ctx.projects.project_dir

    @property
    def project_root(self) -> StoreRoot | None:
        return self.ctx.projects.project_root

    # -- projects ---------------------------------------------------------------------

    def known_projects(self) -> dict[str, str]:
        return self.ctx.projects.known()

    def _project(self, project: str | os.PathLike[str]) -> tuple[str, StoreRoot]:
        return self.ctx.projects.resolve(project)

    def register_project(self, project: str | os.PathLike[str]) -> str:
        """A person's act: the id of a project folder (registering it) or of a known id."""
        return self.ctx.projects.register(project)

    def registered_project(self, project: str) -> RegisteredProject:
        """What an agent's ``project`` names: a registered id, or a registered folder's path.

        Anything else is refused (``PolicyError`` for a folder, ``NotFoundError``
        for an id); nothing is registered or created. The result, passed to any
        method here, resolves among registered projects only.
        """
        return self.ctx.projects.registered(project)

    def focus(
        self,
        project: str | os.PathLike[str] | None,
        *,
        notebook: str | os.PathLike[str] | None = None,
    ) -> str | None:
        """Focus a project folder (or a known project id); ``None`` unfocuses.

        With ``notebook`` (a person's act for that notebook), the choice is kept
        in the memory home so every surface beside it resolves the same project.
        """
        at = self.clock().isoformat()
        return self.ctx.projects.focus(project, notebook=notebook, at=at)

    def focus_of(
        self,
        *,
        notebook: str | os.PathLike[str] | None = None,
        folder: str | os.PathLike[str] | None = None,
    ) -> FocusResolution:
        """Which project a notebook, or a chat / MCP session in ``folder``, works in.

        Reads only: it never registers a project nor changes any focus.
        """
        if notebook is not None:
            return self.ctx.projects.notebooks.for_notebook(notebook)
        if folder is None:
            raise ValidationError("name a notebook or a folder", field="notebook")
        return self.ctx.projects.notebooks.for_folder(folder)

    def follow_focus(self, notebook: str | os.PathLike[str]) -> str | None:
        """Work in the person's focus for ``notebook`` (chosen here or in the panel); never registers."""
        return self.ctx.projects.follow(notebook)

    def adopt_focus(self, resolution: FocusResolution) -> str | None:
        """Work in a focus resolved by :meth:`focus_of` (registered, or none); never registers."""
        return self.ctx.projects.adopt(resolution)

    @property
    def focus_source(self) -> str:
        """How this process's focus was decided: explicit, beside, folder or none."""
        return self.ctx.projects.source

    def _roots(self, project: str | os.PathLike[str] | None = None) -> list[StoreRoot]:
        return self.ctx.projects.roots(project)

    def _new_id(self) -> str:
        return self.ctx.new_id()

    # -- settings ---------------------------------------------------------------------

    @property
    def settings(self) -> dict[str, Any]:
        """The switches: ``enabled`` (master), ``auto_suggestions``, ``extract_max_messages``, ``llm``."""
        return self.ctx.settings.read()

    def update_settings(
        self,
        *,
        enabled: bool | None = None,
        auto_suggestions: bool | None = None,
        extract_max_messages: int | None = None,
        llm: dict[str, str] | None = None,
        agent_unreviewed: bool | None = None,
        agents_md_autosync: bool | None = None,
    ) -> dict[str, Any]:
        """Persist switches (a person's act); returns the new settings."""
        return self.ctx.settings.update(
            enabled=enabled,
            auto_suggestions=auto_suggestions,
            extract_max_messages=extract_max_messages,
            llm=llm,
            agent_unreviewed=agent_unreviewed,
            agents_md_autosync=agents_md_autosync,
        )

    @property
    def enabled(self) -> bool:
        return self.ctx.settings.enabled

    @property
    def llm(self) -> LLMClient | None:
        """The configured LLM client, or ``None`` (the deterministic default)."""
        return self.ctx.settings.llm

    @llm.setter
    def llm(self, client: LLMClient | None) -> None:
        self.ctx.settings.llm = client

    # -- writing ----------------------------------------------------------------------

    def _build_entry(
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
        check_text(text)
        if title is not None:
            check_text(title, "title")
        now = self.clock()
        quotes = [
            e
            if isinstance(e, EvidenceQuote)
            else EvidenceQuote.model_validate(e if isinstance(e, dict) else {"quote": str(e)})
            for e in evidence
        ]
        try:
            meta = MemoryMeta(
                id=self._new_id(),
                title=title if title is not None else default_title(text),
                type=_enum(MemoryType, type, "type"),
                tier=_enum(Tier, tier, "tier"),
                scope=validate_scope(scope),
                project=project_id,
                tags=list(tags),
                source=_enum(Source, source, "source"),
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

    def _target(
        self, scope: str | None, agent: str | None, project: str | os.PathLike[str] | None
    ) -> tuple[str, StoreRoot, str | None]:
        if agent is not None:
            scope = f"agent:{agent}"
        root_pid: tuple[str, StoreRoot] | None = None
        if project is not None:
            root_pid = self._project(project)
        elif self.project_root is not None and self.project_id is not None:
            root_pid = (self.project_id, self.project_root)
        if scope is None:
            scope = "project" if root_pid is not None else "user"
        validate_scope(scope)
        if scope == "project":
            if root_pid is None:
                raise ValidationError(
                    "project scope needs a project: focus one or pass project=", field="scope"
                )
            return scope, root_pid[1], root_pid[0]
        return scope, self.user, root_pid[0] if (root_pid and project is not None) else None

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
    ) -> MemoryEntry:
        """Store a memory durably and return it (with its absolute ``path``)."""
        scope, root, pid = self._target(scope, agent, project)
        entry = self._build_entry(
            text,
            title=title,
            type=type,
            tier=tier,
            tags=_many(tags) if isinstance(tags, str) else tags,
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
        name, digest = root.write_new(entry)
        self.audit.append(
            "create",
            actor=self.actor,
            at=self.clock(),
            id=entry.id,
            path=name,
            sha256=digest,
            layer=root.layer,
        )
        self.semantic.notify([root])
        entry.layer = root.layer
        entry.path = str(root.files.path_of(name))
        return entry

    def update(self, memory_id: str, **changes: Any) -> MemoryEntry:
        """Change a memory's text or metadata (``reviewed=True`` after review, tags, …)."""
        root, name = self._locate(memory_id)
        entry = root.read(name)
        if "text" in changes:
            entry.text = check_text(changes.pop("text"))
        data = entry.meta.model_dump()
        data.update(changes)
        data["updated"] = self.clock()
        try:
            entry.meta = MemoryMeta.model_validate(data)
        except PydanticValidationError as exc:
            raise validation_error(exc, default="memory") from exc
        digest = root.write_existing(name, entry)
        self.audit.append(
            "update",
            actor=self.actor,
            at=self.clock(),
            id=memory_id,
            path=name,
            sha256=digest,
            layer=root.layer,
        )
        self.semantic.notify([root])
        entry.layer = root.layer
        entry.path = str(root.files.path_of(name))
        return entry

    def forget(self, memory_id: str) -> dict[str, Any]:
        """Delete a memory and every derived trace; the audit keeps id, hash and time only."""
        validate_id(memory_id)
        root, _ = self._locate(memory_id)
        _, digest = root.delete(memory_id)
        self.audit.append(
            "delete",
            actor=self.actor,
            at=self.clock(),
            id=memory_id,
            sha256=digest,
            layer=root.layer,
        )
        return {"id": memory_id, "deleted": True, "layer": root.layer}

    def import_jsonl(self, path: str | os.PathLike[str], *, source: str = "import") -> list[str]:
        """Bulk import: validate every line first (nothing written on error), then batch writes."""
        src = Path(path)
        by_root: dict[int, tuple[StoreRoot, list[MemoryEntry]]] = {}
        for number, obj in read_jsonl(src):
            try:
                if "text" not in obj:
                    raise ValidationError("missing", field="text")
                scope, root, pid = self._target(obj.get("scope"), obj.get("agent"), None)
                created = obj.get("created")
                entry = self._build_entry(
                    obj["text"],
                    title=obj.get("title"),
                    type=obj.get("type", MemoryType.semantic.value),
                    tier=obj.get("tier", Tier.durable.value),
                    tags=_many(obj.get("tags")),
                    scope=scope,
                    project_id=pid,
                    source=obj.get("source", source),
                    confidence=float(obj.get("confidence", 1.0)),
                    evidence=obj.get("evidence", ()),
                    reviewed=bool(obj.get("reviewed", True)),
                    created=_iso(created) if isinstance(created, str) else None,
                    related=(),
                    extra={k: v for k, v in obj.get("extra", {}).items()}
                    if isinstance(obj.get("extra"), dict)
                    else None,
                )
            except (ValidationError, ValueError, TypeError) as exc:
                raise ParseError(str(exc), path=src, line=number) from exc
            by_root.setdefault(id(root), (root, []))[1].append(entry)
        ids: list[str] = []
        for root, entries in by_root.values():
            for start in range(0, len(entries), IMPORT_BATCH):
                chunk = entries[start : start + IMPORT_BATCH]
                written = root.write_batch(chunk)
                at = self.clock()
                # one audit write for the chunk: a per-line fsync made 10k imports take minutes
                self.audit.append_many(
                    [
                        audit_record(
                            "create",
                            actor=self.actor,
                            at=at,
                            id=entry.id,
                            path=name,
                            sha256=digest,
                            layer=root.layer,
                            via="import",
                        )
                        for entry, (name, digest) in zip(chunk, written, strict=True)
                    ]
                )
                ids.extend(entry.id for entry in chunk)
            self.semantic.notify([root])
        return ids

    # -- reading ----------------------------------------------------------------------

    def _locate(self, memory_id: str) -> tuple[StoreRoot, str]:
        validate_id(memory_id)
        roots = self.ctx.projects.cached_roots() + [self.user]
        for root in roots:
            name = root.name_of(memory_id)
            if name is not None:
                return root, name
        raise NotFoundError(f"no memory with id {memory_id!r}")

    def get(self, memory_id: str) -> MemoryEntry:
        root, name = self._locate(memory_id)
        entry = root.read(name)
        entry.path = str(root.files.path_of(name))
        return entry

    def _query(
        self,
        query: str,
        *,
        type: str | Sequence[str] | None,
        tier: str | Sequence[str] | None,
        scope: str | None,
        agent: str | None,
        project_filter: str | None,
        tags: str | Sequence[str],
        since: datetime | None,
        recent: str | timedelta | None,
        limit: int,
        reviewed_only: bool,
    ) -> SearchQuery:
        now = self.clock()
        if recent is not None:
            window = recent if isinstance(recent, timedelta) else parse_duration(recent)
            since = max(since, now - window) if since else now - window
        types = [_enum(MemoryType, t, "type").value for t in _many(type)]
        tiers = [_enum(Tier, t, "tier").value for t in _many(tier)]
        if scope is not None:
            scopes = [validate_scope(scope)]
        elif agent is not None:
            validate_id(agent, field="agent")
            scopes = ["user", "project", f"agent:{agent}"]
        else:
            scopes = []
        if not isinstance(limit, int) or limit < 1 or limit > 1000:
            raise ValidationError("must be an integer from 1 to 1000", field="limit")
        if not isinstance(query, str):
            raise ValidationError("must be a string", field="query")
        if len(query) > 10_000:
            raise OversizeError("is over 10,000 characters", field="query")
        return SearchQuery(
            text=query,
            types=types,
            tiers=tiers,
            scopes=scopes,
            project=project_filter,
            tags=_many(tags),
            since=since,
            reviewed_only=reviewed_only,
            limit=limit,
            now=now,
        )

    def recall(
        self,
        query: str = "",
        *,
        type: str | Sequence[str] | None = None,
        tier: str | Sequence[str] | None = None,
        scope: str | None = None,
        agent: str | None = None,
        project: str | os.PathLike[str] | None = None,
        tags: str | Sequence[str] = (),
        since: datetime | None = None,
        recent: str | timedelta | None = None,
        limit: int = 10,
        level: str | Level = Level.snippet,
        budget: int | None = None,
        reviewed_only: bool = False,
        record_access: bool = True,
        mode: str | None = None,
    ) -> list[RecallHit]:
        """Ranked hits from the focused project (first) and the user layer.

        ``mode``: "lexical", "semantic" or "hybrid" (default when the semantic
        extra is installed, else lexical); see docs/recall.md.
        """
        lvl = _enum(Level, level, "level")
        mode = self.semantic.resolve_mode(mode)
        project_filter = self._project(project)[0] if project is not None else None
        q = self._query(
            query,
            type=type,
            tier=tier,
            scope=scope,
            agent=agent,
            project_filter=project_filter,
            tags=tags,
            since=since,
            recent=recent,
            limit=limit,
            reviewed_only=reviewed_only,
        )
        ranked: list[tuple[float, StoreRoot, IndexRow]] = []
        for root in self._roots(project):
            boost = PROJECT_BOOST if root.layer == "project" else 1.0
            rows = root.search(q) if mode == "lexical" else self.semantic.search(root, q, mode)
            ranked.extend((row.score * boost, root, row) for row in rows)
        ranked.sort(key=lambda t: t[0], reverse=True)
        hits: list[RecallHit] = []
        used = 0
        top = max((s for s, _, _ in ranked), default=1.0) or 1.0
        for score, root, row in ranked[:limit]:
            hit = self._hit(root, row, score / top, lvl, query)
            if budget is not None:
                if used + hit.tokens > budget:
                    if lvl is Level.index:
                        break
                    hit = self._hit(root, row, score / top, Level.index, query)
                    if used + hit.tokens > budget:
                        break
                used += hit.tokens
            hits.append(hit)
        if record_access and hits:
            at = self.clock()
            for root in {id(r): r for _, r, _ in ranked}.values():
                ids = [h.id for h in hits if h.layer == root.layer]
                root.record_access(ids, at)
        return hits

    def _hit(
        self, root: StoreRoot, row: IndexRow, score: float, level: Level, query: str
    ) -> RecallHit:
        if level is Level.index:
            text = ""
        else:
            body = root.index.body_of(row.name) or ""
            text = body if level is Level.full else snippet(body, query)
        tokens = estimate_tokens(f"{row.id} {row.title} {text}")
        # model_construct: every field comes from our own index, already validated.
        return RecallHit.model_construct(
            id=row.id,
            title=row.title,
            text=text,
            type=row.type,
            tier=row.tier,
            scope=row.scope,
            project=row.project,
            tags=row.tags,
            source=row.source,
            score=round(score, 4),
            attention=round(row.attention, 4),
            # a memory past its sector TTL is COLD whatever its score (core/memories/sectors.py)
            heat="COLD" if sector_expired(row, self.clock()) else heat(row.attention),
            reviewed=row.reviewed,
            created=row.created,
            updated=row.updated,
            layer=root.layer,
            path=os.path.join(root.files.folder, row.name),
            level=level.value,
            tokens=tokens,
        )

    def list(self, *, limit: int | None = None, include_cold: bool = True) -> list[dict[str, Any]]:
        """All memories with attention and heat, HOT then WARM then COLD, newest first.

        Heat is the tier decision of :mod:`jupyter_memory.core.memories.sectors`: the
        attention score, except that a memory past its sector TTL is COLD.
        """
        out: list[dict[str, Any]] = []
        for root, row, verdict in self.tier_rows():
            att = verdict.attention
            d = {
                "id": row.id,
                "title": row.title,
                "type": row.type,
                "tier": row.tier,
                "scope": row.scope,
                "project": row.project,
                "tags": row.tags,
                "source": row.source,
                "confidence": row.confidence,
                "reviewed": row.reviewed,
                "created": row.created,
                "updated": row.updated,
                "access_count": row.access_count,
                "last_accessed": row.last_accessed,
                "attention": round(att, 4),
                "heat": verdict.heat,
                "expired": verdict.expired,
                "layer": root.layer,
                "path": os.path.join(root.files.folder, row.name),
            }
            if include_cold or d["heat"] != "COLD":
                out.append(d)
        order = {"HOT": 0, "WARM": 1, "COLD": 2}
        out.sort(key=lambda d: (order[d["heat"]], -d["updated"].timestamp()))
        return out[:limit] if limit else out

    def stats(self) -> dict[str, Any]:
        rows = self.list()

        def count(key: str) -> dict[str, int]:
            return dict(Counter(str(r[key]) for r in rows))

        return {
            "total": len(rows),
            "by_type": count("type"),
            "by_tier": count("tier"),
            "by_scope": count("scope"),
            "by_project": dict(Counter(str(r["project"] or "-") for r in rows)),
            "by_heat": count("heat"),
            "by_layer": count("layer"),
            "unreviewed": sum(1 for r in rows if not r["reviewed"]),
            "home": str(self.home),
            "project": self.project_id,
            "project_dir": str(self.project_dir) if self.project_dir else None,
            "index": [
                {
                    "layer": root.layer,
                    "root": str(root.root),
                    "entries": root.index.count(),
                    "unreadable_files": len(root.index.problems()),
                }
                for root in self._roots()
            ],
            "semantic": self.semantic.status(self._roots()),
        }

    # -- maintenance ------------------------------------------------------------------

    def rebuild_index(self) -> dict[str, Any]:
        out = {}
        for root in self._roots():
            rep = root.rebuild()
            out[root.layer] = {
                "indexed": rep.added,
                "problems": [{"path": n, "message": m} for n, m in rep.problems],
                "notices": rep.notices,
            }
        return out

    def doctor(self) -> dict[str, Any]:
        """Check every root; never rewrites a stored file. ``ok`` is False on any problem."""
        problems: list[dict[str, str]] = []
        notices: list[str] = []
        for root in self._roots():
            for link in root.files.symlinks():
                problems.append(
                    {
                        "path": str(link),
                        "kind": "symlink",
                        "message": "symlink below the memory store is never followed; "
                        "replace it with the real file or folder, or remove it",
                    }
                )
            try:
                rep = root.ensure_synced(force=True)
                index_problems = root.index.problems()
            except LinkedPathError:
                continue  # the index sits behind a link listed above
            if rep is not None:
                notices.extend(rep.notices)
            for name, reason in index_problems:
                problems.append(
                    {"path": str(root.files.path_of(name)), "kind": "unreadable", "message": reason}
                )
        try:
            sum(1 for _ in self.audit.records())
        except ParseError as exc:
            problems.append({"path": str(self.audit.path), "kind": "audit", "message": str(exc)})
        return {"ok": not problems, "problems": problems, "notices": notices}

    def audit_records(self) -> list[dict[str, Any]]:
        """Audit records, oldest first (read by ``frames.audit_frame``).

        A forgotten memory must not come back through audit views: for an id
        that was later deleted only the deletion (id, hash, time) is shown.
        """
        records = list(self.audit.records())
        deleted = {r.get("id") for r in records if r.get("action") == "delete"}
        return [
            r
            for r in records
            if r.get("action") == "delete" or r.get("id") not in deleted or "id" not in r
        ]

    def embed(self, *, rebuild: bool = False, timeout: float | None = None) -> dict[str, Any]:
        """Embed what is pending now (or everything with ``rebuild``) and wait for it.

        Kernels and servers embed in the background after writes; a short CLI
        process exits first, so ``jupyter-memory embed`` calls this.
        """
        if not self.semantic.available:
            raise ValidationError(
                "needs the semantic extra: pip install 'jupyter-memory[semantic]'", field="mode"
            )
        roots = self._roots()
        if rebuild:
            self.semantic.rebuild(roots)
        else:
            self.semantic.notify(roots)
        done = self.semantic.wait(timeout=timeout)
        return {"done": done, **self.semantic.status(roots)}

    def export(self) -> list[dict[str, Any]]:
        out = []
        for row in self.list():
            entry = self.get(row["id"])
            d = entry.to_dict()
            d.update({"layer": row["layer"], "attention": row["attention"], "heat": row["heat"]})
            out.append(d)
        return out

    def close(self) -> None:
        self.semantic.close()
        for root in [self.user, *self.ctx.projects.cached_roots()]:
            root.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- imports (delegation) --

    def import_from(
        self,
        source: str,
        path: str | os.PathLike[str],
        project: str | os.PathLike[str] | None = None,
        dry_run: bool = False,
        *,
        progress: Any = None,
    ) -> Any:
        """Import another tool's notes, rules or memories (docs/import.md); an ``ImportReport``."""
        from .imports.importer import import_from

        return import_from(self, source, path, project, dry_run=dry_run, progress=progress)

    # -- knowledge (delegation) --

    def on_queue_change(self, callback: QueueListener) -> Callable[[], None]:
        """Call ``callback(event)`` after every queue change; returns an unsubscribe function."""
        return self.knowledge_services.events.on_queue_change(callback)

    def knowledge(self, layer: str = "user", project: str | os.PathLike[str] | None = None) -> str:
        return self.knowledge_services.files.knowledge(layer, project)

    def knowledge_version(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> str:
        return self.knowledge_services.files.knowledge_version(layer, project)

    def read_knowledge(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> KnowledgeRead:
        return self.knowledge_services.files.read_knowledge(layer, project)

    def knowledge_doc(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> KnowledgeDoc:
        return self.knowledge_services.files.knowledge_doc(layer, project)

    def save_knowledge(
        self,
        layer: str,
        text: str,
        project: str | os.PathLike[str] | None = None,
        *,
        base: str | None = None,
    ) -> KnowledgeFileStatus:
        return self.knowledge_services.files.save_knowledge(layer, text, project, base=base)

    def library_status(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> KnowledgeFileStatus:
        return self.knowledge_services.files.library_status(layer, project)

    def reorganize(
        self, layer: str = "user", project: str | os.PathLike[str] | None = None
    ) -> ReorganizeResult:
        return self.knowledge_services.files.reorganize(layer, project)

    def context(
        self, project: str | os.PathLike[str] | None = None, *, conversation: str | None = None
    ) -> str:
        return self.knowledge_services.context.context(project, conversation=conversation)

    def expand_knowledge_catalog(
        self, labels: str | Sequence[str], project: str | os.PathLike[str] | None = None
    ) -> CatalogExpansion:
        return self.knowledge_services.context.expand_knowledge_catalog(labels, project)

    def record_round(
        self,
        messages: Iterable[Any],
        *,
        conversation: str | None = None,
        notebook: str | None = None,
    ) -> builtins.list[SourceText]:
        return self.knowledge_services.queue.record_round(
            messages, conversation=conversation, notebook=notebook
        )

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
    ) -> ProposeResult:
        return self.knowledge_services.queue.propose(
            text,
            kind,
            evidence_quote,
            layer,
            project,
            source,
            messages=messages,
            conversation=conversation,
            quote_origin=quote_origin,
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
        return self.knowledge_services.queue.propose_knowledge(
            text, kind, evidence_quote, layer, project, conversation=conversation, messages=messages
        )

    def extract(
        self,
        messages: Iterable[Any],
        project: str | os.PathLike[str] | None = None,
        *,
        conversation: str | None = None,
        notebook: str | None = None,
        max_messages: int | None = None,
        background: bool = True,
    ) -> builtins.list[Proposal]:
        return self.knowledge_services.queue.extract(
            messages,
            project,
            conversation=conversation,
            notebook=notebook,
            max_messages=max_messages,
            background=background,
        )

    @property
    def last_extraction_skipped(self) -> builtins.list[dict[str, str]]:
        return self.knowledge_services.queue.last_extraction_skipped

    def queue(self, *, include_decided: bool = False) -> builtins.list[Proposal]:
        return self.knowledge_services.queue.queue(include_decided=include_decided)

    def queue_problems(self) -> builtins.list[dict[str, str]]:
        return self.knowledge_services.queue.queue_problems()

    def proposal(self, proposal_id: str) -> Proposal:
        return self.knowledge_services.queue.proposal(proposal_id)

    def apply(
        self, proposal_id: str, to: str, project: str | os.PathLike[str] | None = None
    ) -> DecisionResult:
        return self.knowledge_services.decisions.apply(proposal_id, to, project)

    def dismiss(self, proposal_id: str) -> DecisionResult:
        return self.knowledge_services.decisions.dismiss(proposal_id)

    def process_all(
        self, to: str, project: str | os.PathLike[str] | None = None
    ) -> ProcessAllResult:
        return self.knowledge_services.decisions.process_all(to, project)

    def call_agent_tool(
        self, name: str, arguments: dict[str, Any], *, conversation: str | None = None
    ) -> ProposeResult | CatalogExpansion:
        return self.knowledge_services.tools.call_agent_tool(
            name, arguments, conversation=conversation
        )

    # -- learning and tiers (delegation) --

    def tier_rows(self) -> builtins.list[tuple[StoreRoot, IndexRow, TierDecision]]:
        return self.learning_services.tiers.tier_rows()

    def start_session(self, session_key: str, *, pid: int | None = None) -> SessionStart:
        return self.learning_services.tiers.start_session(session_key, pid=pid)

    def end_session(self, session_key: str) -> None:
        self.learning_services.tiers.end_session(session_key)

    def clear_session_tier(self, *, before: datetime) -> builtins.list[str]:
        return self.learning_services.tiers.clear_session_tier(before=before)

    def merge_daily(self) -> builtins.list[DailyMerge]:
        return self.learning_services.tiers.merge_daily()

    def archive(self, *, dry_run: bool = False) -> ColdArchiveReport:
        return self.learning_services.cold_archive.archive(dry_run=dry_run)

    def archived(self) -> builtins.list[ColdArchivedMemory]:
        return self.learning_services.cold_archive.archived()

    def restore(self, memory_id: str) -> ColdRestore:
        return self.learning_services.cold_archive.restore(memory_id)

    def digest_record(self, session_key: str, messages: builtins.list[dict[str, Any]]) -> int:
        return self.learning_services.digest.digest_record(session_key, messages)

    def digest_pending(self, session: str | None = None) -> int:
        return self.learning_services.digest.digest_pending(session)

    def digest(self, session: str | None = None) -> DigestReport:
        return self.learning_services.digest.digest(session)

    def learning_candidates(self) -> builtins.list[CandidateRule]:
        return self.learning_services.learner.candidates()

    def dismiss_candidate(self, key: str, reason: str) -> None:
        self.learning_services.learner.dismiss_candidate(key, reason)

    def unreviewed(self, *, limit: int | None = None) -> builtins.list[UnreviewedMemory]:
        return self.learning_services.review.unreviewed(limit=limit)

    def keep_memory(self, memory_id: str) -> ReviewDecision:
        return self.learning_services.review.keep_memory(memory_id)

    def discard_memory(self, memory_id: str) -> ReviewDecision:
        return self.learning_services.review.discard_memory(memory_id)

    def promote_memory(
        self,
        memory_id: str,
        *,
        kind: str = "rule",
        layer: str | None = None,
        project: str | None = None,
    ) -> ReviewDecision:
        return self.learning_services.review.promote_memory(
            memory_id, kind=kind, layer=layer, project=project
        )

    @property
    def agent_sees_unreviewed(self) -> bool:
        return self.learning_services.review.agent_sees_unreviewed
