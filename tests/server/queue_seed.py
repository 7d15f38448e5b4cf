"""Fill a memory home's queue with many pending proposals fast (paging tests, issue 16).

``Memory.propose`` compares each new proposal with the whole queue, so 5,000
of them take minutes; these are written as the files a queue holds (the
format of ``core.knowledge.proposals``), as a clone of a shared queue would
bring them.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from jupyter_memory.core.knowledge.dedup import dedup_hash
from jupyter_memory.core.knowledge.proposals import (
    build_proposal,
    proposal_file_name,
    render_proposal,
)


def seed_pending(home: Path, n: int) -> list[str]:
    """Write ``n`` pending proposals (oldest first: ``p-…00000`` …); their ids."""
    folder = home / "queue"
    folder.mkdir(parents=True, exist_ok=True)
    start = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)
    ids = []
    for i in range(n):
        text = f"Rule {i:05d}: 规则 {i} keeps column c{i} in UTC"
        p = build_proposal(
            id=f"p-seed{i:05d}",
            text=text,
            kind="rule" if i % 3 else "info",
            evidence_quote=text,
            source="manual",
            created=start + timedelta(seconds=i),
            dedup_hash=dedup_hash(text),
        )
        (folder / proposal_file_name(p)).write_text(render_proposal(p), "utf-8")
        ids.append(p.id)
    return ids
