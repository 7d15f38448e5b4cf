"""Fill a memory home's queue with many pending proposals fast (paging tests, issue 16).

``Memory.propose`` compares each new proposal with the whole queue, so 5,000
of them take minutes; these are written as the files a queue holds (the
format of ``core.knowledge.proposals``), as a clone of a shared queue would
bring them.

``render_proposal`` (YAML front matter, pure-Python PyYAML) took about 1 ms a
proposal, most of the 5,000's seeding: the seeded proposals differ only in
their id, text, time and hash, values of one shape that YAML quotes alike, so
each kind is rendered once and the values are put into that rendering.
Proposals spread over the range are rendered for real and must match.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from jupyter_memory.core.knowledge.keys import dedup_hash
from jupyter_memory.core.knowledge.proposals import (
    Proposal,
    build_proposal,
    proposal_file_name,
    render_proposal,
)

START = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)
CHECKED_EVERY = 250  # the 0th, 250th, … are rendered by render_proposal and compared


def _proposal(i: int) -> Proposal:
    text = f"Rule {i:05d}: 规则 {i} keeps column c{i} in UTC"
    return build_proposal(
        id=f"p-seed{i:05d}",
        text=text,
        kind="rule" if i % 3 else "info",
        evidence_quote=text,
        source="manual",
        created=START + timedelta(seconds=i),
        dedup_hash=dedup_hash(text),
    )


def _values(p: Proposal) -> list[str]:
    """What differs from one seeded proposal to the next, as its rendering writes it."""
    assert p.dedup_hash is not None
    return [p.id, p.text, p.created.strftime("%Y-%m-%dT%H:%M:%SZ"), p.dedup_hash]


def _render_like(template: Proposal, rendered: str, p: Proposal) -> str:
    for old, new in zip(_values(template), _values(p), strict=True):
        assert rendered.count(old) >= 1, (old, rendered)
        rendered = rendered.replace(old, new)
    return rendered


def seed_pending(home: Path, n: int) -> list[str]:
    """Write ``n`` pending proposals (oldest first: ``p-…00000`` …); their ids."""
    folder = home / "queue"
    folder.mkdir(parents=True, exist_ok=True)
    templates: dict[str, tuple[Proposal, str]] = {}
    ids = []
    for i in range(n):
        p = _proposal(i)
        if p.kind not in templates:
            templates[p.kind] = (p, render_proposal(p))
        text = _render_like(*templates[p.kind], p)
        if i % CHECKED_EVERY == 0 or i == n - 1:
            assert text == render_proposal(p), (text, render_proposal(p))
        (folder / proposal_file_name(p)).write_text(text, "utf-8")
        ids.append(p.id)
    return ids
