"""What an import did (or, with ``dry_run``, would do): counts and every item named."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


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
        verb = "would import" if self.dry_run else "imported"
        queued = "would queue" if self.dry_run else "queued"
        lines = [
            f"{verb} {len(self.memories)} memories and {queued} {len(self.proposals)} proposals "
            f"from {self.files} files ({self.source}: {self.path})",
        ]
        if self.skipped:
            reasons = Counter(s["reason"] for s in self.skipped)
            lines.append(f"skipped {len(self.skipped)} items:")
            lines += [f"  {n} × {reason}" for reason, n in reasons.most_common()]
        if self.problems:
            lines.append(f"left out {len(self.problems)} files:")
            lines += [f"  {p['file']}: {p['reason']}" for p in self.problems]
        if self.proposals and not self.dry_run:
            lines.append("proposals wait in the queue: apply them one by one or with Process all")
        return "\n".join(lines)

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
