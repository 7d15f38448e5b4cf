"""What an import did (or, with ``dry_run``, would do): counts and every item named."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..._i18n import M_, Message, localized


@dataclass
class ImportReport:
    source: str
    path: str
    dry_run: bool
    files: int = 0
    memories: list[dict[str, Any]] = field(default_factory=list)  # file, title, id
    proposals: list[dict[str, Any]] = field(default_factory=list)  # file, line, text, kind, layer
    skipped: list[dict[str, str]] = field(default_factory=list)  # file, item, reason
    problems: list[dict[str, str]] = field(default_factory=list)  # file, reason

    def summary(self) -> str:
        """The report in English (logs, tests); :meth:`localized_summary` for a person."""
        return self._summary(str)

    def localized_summary(self) -> str:
        return self._summary(localized)

    def _summary(self, show: Callable[[object], str]) -> str:
        where = {
            "memories": len(self.memories),
            "proposals": len(self.proposals),
            "files": self.files,
            "source": self.source,
            "path": self.path,
        }
        head = (
            M_(
                "would import {memories} memories and would queue {proposals} proposals "
                "from {files} files ({source}: {path})",
                **where,
            )
            if self.dry_run
            else M_(
                "imported {memories} memories and queued {proposals} proposals "
                "from {files} files ({source}: {path})",
                **where,
            )
        )
        lines: list[Message | str] = [head]
        if self.memories:
            reviewed = sum(1 for m in self.memories if m.get("reviewed", True))
            lines.append(
                M_(
                    "{reviewed} marked reviewed (your own notes), {unreviewed} left unreviewed "
                    "(written by an agent: agents get them once you review them)",
                    reviewed=reviewed,
                    unreviewed=len(self.memories) - reviewed,
                )
            )
        if self.skipped:
            reasons = Counter(s["reason"] for s in self.skipped)
            lines.append(M_("skipped {n} items:", n=len(self.skipped)))
            lines += [M_("  {n} × {reason}", n=n, reason=why) for why, n in reasons.most_common()]
        if self.problems:
            lines.append(M_("left out {n} files:", n=len(self.problems)))
            lines += [f"  {p['file']}: {show(p['reason'])}" for p in self.problems]
        if self.proposals and not self.dry_run:
            lines.append(
                M_("proposals wait in the queue: apply them one by one or with Process all")
            )
        return "\n".join(show(line) for line in lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "path": self.path,
            "dry_run": self.dry_run,
            "files": self.files,
            "counts": {
                "memories": len(self.memories),
                "proposals": len(self.proposals),
                "skipped": len(self.skipped),
                "problems": len(self.problems),
            },
            "memories": self.memories,
            "proposals": self.proposals,
            "skipped": self.skipped,
            "problems": self.problems,
        }
