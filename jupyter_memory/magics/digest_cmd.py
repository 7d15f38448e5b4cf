"""Session-digest commands of the magics (issue 8).

    %memory digest                   digest the recorded cells and chats now
    %memory agent-unreviewed on|off  may agents recall unreviewed memories? (off)
    %memories --review               cards: Keep / Discard / Promote to knowledge
    %memories --archive [--dry-run]  move cold, stale memories into .old/

``%recall`` and ``%memories`` mark unreviewed rows (:func:`mark_review`).
Parsing lives in ``memory_cmd`` and ``listing``; these functions call the
service and render.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from .._i18n import N_
from .render import TableResult, TextBlock

UNREVIEWED = "unreviewed"


def mark_review(row: dict[str, Any]) -> dict[str, Any]:
    """Add the ``review`` column: "unreviewed" for memories the person has not reviewed."""
    row["review"] = "" if row.get("reviewed", True) else UNREVIEWED
    return row


def review_caption(rows: list[dict[str, Any]]) -> str:
    n = sum(1 for r in rows if r.get("review") == UNREVIEWED)
    if not n:
        return ""
    return f"{n} unreviewed (agents do not see these): review with %memories --review"


class ColdArchiveTable(TableResult):
    """What ``%memories --archive`` moved (or would move) into ``.old/``."""

    columns = ("id", "title", "layer", "attention", "path")
    empty_message = N_(
        "Nothing to archive: no memory is cold, stale for 90+ days and past its TTL."
    )


def digest(self: Any, args: Any) -> TextBlock:
    """``%memory digest``: record the buffered cells, then digest every pending batch."""
    enabled, _ = self.session.flags(fresh=True)
    if not enabled:
        raise UsageError("%memory digest: memory is off (turn it on with %memory on)")
    feed = getattr(self, "digest_feed", None)
    if feed is not None:
        report = feed.digest_now()
    else:
        with self.session.lock:
            report = self.service.digest().to_dict()
    return TextBlock(describe_digest(report))


def describe_digest(report: dict[str, Any]) -> str:
    batches = report.get("batches", [])
    stored = report.get("stored", [])
    if not batches:
        return "Nothing new to digest."
    lines = [
        f"Digested {len(batches)} batch(es) with the {report.get('extractor')} extractor: "
        f"stored {len(stored)} memor{'y' if len(stored) == 1 else 'ies'} (unreviewed)."
    ]
    lines += [f"  + {s['id']}  [{s['type']}]  {s['title']}" for s in stored]
    rejected = report.get("rejected", [])
    if rejected:
        lines.append(f"Rejected {len(rejected)} record(s) by the validator.")
    for p in report.get("proposed", []):
        lines.append(
            f"Proposed a {p.get('rule')!r} rule from repeated evidence ({p.get('status')})."
        )
    if stored:
        lines.append("Review them with %memories --review (Keep / Discard / Promote).")
    return "\n".join(lines)


def agent_unreviewed(self: Any, args: Any) -> TextBlock:
    """``%memory agent-unreviewed on|off``: the person's switch for agent recall."""
    if args.value not in ("on", "off"):
        raise UsageError("%memory agent-unreviewed on|off")
    with self.session.lock:
        self.service.update_settings(agent_unreviewed=args.value == "on")
    if args.value == "on":
        return TextBlock("Agents may now recall memories you have not reviewed yet.")
    return TextBlock("Agents recall only memories you wrote or reviewed.")


def review(self: Any, limit: int | None) -> Any:
    """``%memories --review``: one card per unreviewed memory."""
    with self.session.lock:
        rows = [row.to_dict() for row in self.service.unreviewed(limit=limit)]
    if not rows:
        return TextBlock("Nothing to review: every memory was written or reviewed by you.")
    from ..widgets.review_cards import ReviewCards

    return ReviewCards(self.session, rows)


def archive(self: Any, dry_run: bool) -> ColdArchiveTable:
    """``%memories --archive [--dry-run]``: through ``Memory.archive`` (reversible)."""
    with self.session.lock:
        result = self.service.archive(dry_run=dry_run).to_dict()
    verb = "Would archive" if dry_run else "Archived"
    caption = f"{verb} {result['count']} memor{'y' if result['count'] == 1 else 'ies'}"
    if not dry_run and result["count"]:
        caption += " into .old/ (restore with jupyter-memory archive --restore ID)"
    return ColdArchiveTable(result["archived"], caption=caption)
