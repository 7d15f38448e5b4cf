"""Pre-inject reorganize that a person can see (spec 002 §6.3, issue 13).

A knowledge file past its catalog threshold but still all top-level is
reorganized before a conversation first injects it, so the agent gets a usable
catalog. The rules:

- it runs only when an agent request is about to inject the block
  (:meth:`PreinjectReorganize.prepare_injection`, called by the agent
  surfaces), never from reading the block (``Memory.context``) and never for
  a notebook cell that does not inject it;
- the person is told while it runs: the spec's notice "Reorganizing Agent
  Memory before injection…" goes to the surface's ``notify`` (the cell's output
  for ``%%ask`` and ``{memory_context}``, the chat for the persona, a line
  before the block over MCP and the Jupyter AI tools);
- it is bounded: the caller waits at most ``wait`` seconds; past that the
  agent gets the file as it is and the reorganize finishes in the background
  (replacing the file whole, or not at all);
- a failure is said, also one that comes after the bound (at the next request
  of that conversation), and the agent gets the file as it is;
- at most once per conversation and file, counted in the memory home
  (``recent/agent-preinject.json``), so a restarted server does not try again;
- the reorganize writes ``knowledge.md.bak`` first and refuses to replace a
  file that changed meanwhile (:meth:`.files.KnowledgeFiles.reorganize`);
- it follows the same rules as a person's Reorganize (never loses a rule,
  never grows the file) and the person is told what changed: how many
  duplicates were merged, entries condensed, groups made, characters before
  and after (:func:`changes_notice`; the audit line, ``trigger: preinject``,
  has the same counts), or that there was nothing to change.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..._i18n import M_, localized
from ...core.knowledge.reorganize import needs_preinject_reorganize
from ...store.knowledge.proposal_allowance import ProposalAllowance
from ..context import ServiceContext
from .files import KnowledgeFiles, ProjectArg
from .results import ReorganizeResult

if TYPE_CHECKING:  # concurrent.futures on first use: most processes never reorganize
    from concurrent.futures import Future

NOTICE = M_("Reorganizing Agent Memory before injection…")
WAIT_S = 20.0
TRIES_FILE = "agent-preinject.json"

Notify = Callable[[str], None]

# Process-wide: the Memory objects of one server (a chat's, a project's) share
# the running reorganize of a file and the failures that came after the bound.
_lock = threading.Lock()
_running: dict[str, Future[Any]] = {}
_late: dict[str, list[str]] = {}


@dataclass(frozen=True)
class PreinjectReport:
    """What one prepare did: files reorganized, failed (with why), still running."""

    reorganized: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, list[str]]:
        return {"reorganized": self.reorganized, "failed": self.failed, "pending": self.pending}


def _say(notify: Notify | None, text: str) -> None:
    # ``notify`` hands the text to an agent's conversation: English (str) there;
    # on stderr a person reads it, in their language.
    if notify is None:
        print(f"jupyter-memory: {localized(text)}", file=sys.stderr)
        return
    notify(text)


class PreinjectReorganize:
    def __init__(self, ctx: ServiceContext, files: KnowledgeFiles) -> None:
        self.ctx = ctx
        self.files = files
        self._tried: set[str] = set()  # an unnamed conversation's tries (this object)

    def _first_try(self, conversation: str | None, path: str) -> bool:
        key = hashlib.sha256(path.encode()).hexdigest()[:16]
        if conversation is None:
            if key in self._tried:
                return False
            self._tried.add(key)
            return True
        tries = ProposalAllowance(self.ctx.home, TRIES_FILE)
        return tries.take(f"{conversation[:150]}|{key}", 1, self.ctx.clock())

    def prepare_injection(
        self,
        project: ProjectArg | None = None,
        *,
        conversation: str | None = None,
        notify: Notify | None = None,
        wait: float = WAIT_S,
    ) -> PreinjectReport:
        """Reorganize, once per conversation, a file the agent is about to get that needs it.

        ``notify`` gets the notice and the outcome (stderr without one). The
        agent's block is built afterwards with ``Memory.context``.
        """
        report = PreinjectReport()
        if not self.ctx.settings.enabled:
            return report
        with _lock:
            late = _late.pop(conversation or "", [])
        for message in late:
            _say(notify, message)
        layers: list[tuple[str, ProjectArg | None]] = [("user", None)]
        if project is not None or self.ctx.projects.project_root is not None:
            layers.append(("project", project))
        for layer, proj in layers:
            layer, root, pid = self.files.layer_root(layer, proj)
            loaded = self.files.file_of(root).load()
            path = str(loaded.path)
            if not needs_preinject_reorganize(loaded.doc, layer):
                continue
            if loaded.conflict is not None:
                continue  # a file git left conflicted waits for the person
            if not self._first_try(conversation, path):
                continue
            _say(
                notify,
                M_("{notice} ({layer} knowledge, {path})", notice=NOTICE, layer=layer, path=path),
            )
            from concurrent.futures import TimeoutError as FutureTimeout

            future = self._start(layer, pid, path)
            try:
                future.result(timeout=max(0.0, wait))
            except FutureTimeout:
                report.pending.append(path)
                _say(
                    notify,
                    M_(
                        "Reorganize of {path} is still running after {wait:g} s: the agent gets "
                        "the knowledge as it is; the file is replaced when it is done",
                        path=path,
                        wait=wait,
                    ),
                )
                future.add_done_callback(_LateFailure(conversation, path))
            except Exception as exc:  # noqa: BLE001 - said to the person, never blocks the agent
                report.failed.append(f"{path}: {exc}")
                _say(notify, _failure(path, exc))
            else:
                report.reorganized.append(path)
                _say(notify, changes_notice(future.result()))
        return report

    def _start(self, layer: str, pid: str | None, path: str) -> Future[Any]:
        """The running reorganize of ``path``, started if none is."""
        with _lock:
            running = _running.get(path)
            if running is not None and not running.done():
                return running
            from concurrent.futures import Future

            future: Future[Any] = Future()
            _running[path] = future
        project = self.ctx.projects.registered(pid) if pid is not None else None

        def work() -> None:
            try:
                # Its own parse cache: the caller's service may be used meanwhile.
                files = KnowledgeFiles(self.ctx)
                files.same_entry = self.files.same_entry
                future.set_result(files.reorganize(layer, project=project, trigger="preinject"))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever waits
                future.set_exception(exc)

        threading.Thread(target=work, name="jupyter-memory-preinject", daemon=True).start()
        return future


def changes_notice(result: ReorganizeResult) -> str:
    """What the pre-inject reorganize changed, for the person (the audit has the same counts)."""
    return result.summary()


def _failure(path: str, exc: BaseException) -> str:
    return M_(
        "Reorganize before injection failed for {path}: {kind}: {error}. "
        "The agent gets the knowledge as it is; a new conversation may try again, "
        "or reorganize it in the Library",
        path=path,
        kind=type(exc).__name__,
        error=exc,
    )


@dataclass(frozen=True)
class _LateFailure:
    """Keeps a failure that came after the bound, for the conversation's next request."""

    conversation: str | None
    path: str

    def __call__(self, future: Future[Any]) -> None:
        exc = future.exception()
        if exc is None:
            return
        message = _failure(self.path, exc)
        print(f"jupyter-memory: {localized(message)}", file=sys.stderr)
        with _lock:
            _late.setdefault(self.conversation or "", []).append(message)


__all__ = ["NOTICE", "TRIES_FILE", "WAIT_S", "PreinjectReorganize", "PreinjectReport"]
