"""Upkeep of the derived data: rebuild, doctor, embed, close (:class:`MemoryMaintenance`).

None of these rewrites a stored memory file: the index and the embeddings
are derived and can always be rebuilt from the files.
"""

from __future__ import annotations

import time

from ..._i18n import M_
from ...core.progress import BAR_THRESHOLD, NoProgress
from ...exceptions import LinkedPathError, ParseError, ValidationError
from ...store.private import tighten
from ...store.root import StoreRoot
from ..context import ServiceContext
from .results import (
    DoctorReport,
    EmbedReport,
    LayerRebuild,
    ModeFixed,
    RebuildReport,
    StoreProblem,
)

LINK_ADVICE = (
    "symlink below the memory store is never followed; "
    "replace it with the real file or folder, or remove it"
)


EMBED_POLL_S = 0.5  # how often the embedding bar moves


class MemoryMaintenance:
    """Index rebuilds, health checks and embedding runs over every root in view."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def rebuild_index(self) -> RebuildReport:
        """Rebuild every layer's derived index from the memory files (nothing else changes)."""
        layers = {}
        for root in self.ctx.projects.roots():
            rep = root.rebuild()
            layers[root.layer] = LayerRebuild(
                indexed=rep.added, problems=list(rep.problems), notices=rep.notices
            )
        return RebuildReport(layers)

    def doctor(self, *, fix: bool = False) -> DoctorReport:
        """Check every root; never rewrites a stored file. ``ok`` is False on any problem.

        ``fix`` makes private (0600 / 0700) what group or others could open; nothing
        else is changed.
        """
        report = DoctorReport()
        # Modes first, before the checks below open the index: SQLite gives the side
        # files it creates a database's own mode, so a fix comes before it does.
        modes = DoctorReport()
        for root in self.ctx.projects.roots():
            self._modes(root, modes, fix=fix)
        report.fixed.extend(modes.fixed)
        for root in self.ctx.projects.roots():
            for link in root.files.symlinks():
                report.problems.append(StoreProblem(str(link), "symlink", LINK_ADVICE))
            try:
                rep = root.ensure_synced(force=True)
                index_problems = root.index.problems()
            except LinkedPathError:
                continue  # the index sits behind a link listed above
            if rep is not None:
                report.notices.extend(rep.notices)
            # A process nobody started by hand: doctor says it runs, why, and how to stop it.
            pid = root.watcher_pid()
            if pid is not None:
                report.notices.append(
                    M_(
                        "{root}: a watcher process (pid {pid}) keeps opening this large "
                        "folder fast; JUPYTER_MEMORY_WATCHER=off starts none",
                        root=str(root.root),
                        pid=pid,
                    )
                )
            for name, reason in index_problems:
                path = str(root.files.path_of(name))
                report.problems.append(StoreProblem(path, "unreadable", reason))
        for check in self.ctx.doctor_checks:  # registered by service/hooks.py (team, secrets)
            problems, notices = check()
            report.problems.extend(StoreProblem(path, kind, msg) for path, kind, msg in problems)
            report.notices.extend(notices)
        audit = self.ctx.audit
        try:
            sum(1 for _ in audit.records())
        except ParseError as exc:
            report.problems.append(StoreProblem(str(audit.path), "audit", str(exc)))
        report.problems.extend(modes.problems)  # listed after the problems of the content
        return report

    @staticmethod
    def _modes(root: StoreRoot, report: DoctorReport, *, fix: bool) -> None:
        for item in root.loose_modes():
            if fix:
                try:
                    tighten(item)
                except OSError as exc:
                    reason = exc.strerror or str(exc)
                    message = M_("cannot make it private: {reason}", reason=reason)
                    report.problems.append(StoreProblem(str(item.path), "mode", message))
                    continue
                report.fixed.append(ModeFixed(str(item.path), item.mode, item.wanted))
                continue
            message = M_(
                "group or others can open it (mode {mode}); private is {wanted}",
                mode=f"{item.mode:04o}",
                wanted=f"{item.wanted:04o}",
            )
            report.problems.append(StoreProblem(str(item.path), "mode", message))

    def embed(self, *, rebuild: bool = False, timeout: float | None = None) -> EmbedReport:
        """Embed what is pending now (or everything with ``rebuild``) and wait for it.

        Kernels and servers embed in the background after writes; a short CLI
        process exits first, so ``jupyter-memory embed`` calls this.
        """
        semantic = self.ctx.semantic
        if not semantic.available:
            raise ValidationError(
                M_("needs the semantic extra: pip install 'jupyter-memory[semantic]'"), field="mode"
            )
        roots = self.ctx.projects.roots()
        if rebuild:
            semantic.rebuild(roots)
        else:
            semantic.notify(roots, asked=True)
        if self.ctx.progress is None:
            done = semantic.wait(timeout=timeout)
        else:
            done = self._wait_showing(roots, timeout)
        return EmbedReport(done=done, status=semantic.status(roots))

    def _wait_showing(self, roots: list[StoreRoot], timeout: float | None) -> bool:
        """Wait for the embedder, moving a bar by the notes embedded (about an hour at 100k)."""
        semantic = self.ctx.semantic
        assert self.ctx.progress is not None
        deadline = None if timeout is None else time.monotonic() + timeout

        def embedded() -> tuple[int, int]:
            rows = semantic.status(roots).get("roots", [])
            done = sum(int(r.get("embedded", 0)) for r in rows)
            return done, done + sum(int(r.get("pending", 0)) for r in rows)

        start, total = embedded()
        bar = self.ctx.progress() if total - start >= BAR_THRESHOLD else NoProgress()
        bar.stage(M_("embedding memories"), total - start)
        shown = start
        try:
            while True:
                left = None if deadline is None else deadline - time.monotonic()
                finished = semantic.wait(
                    timeout=EMBED_POLL_S if left is None else min(left, EMBED_POLL_S)
                )
                now, _ = embedded()
                bar.advance(max(0, now - shown))
                shown = max(shown, now)
                if finished:
                    return True
                if left is not None and left <= EMBED_POLL_S:
                    return False
        finally:
            bar.close()

    def close(self) -> None:
        """Stop the embedder and close every index this process opened."""
        self.ctx.semantic.close()
        for root in [self.ctx.user, *self.ctx.projects.cached_roots()]:
            root.close()
