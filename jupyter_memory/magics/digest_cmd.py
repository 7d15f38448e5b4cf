"""Session-digest commands of the magics (issue 8).

    %memory digest                   digest the recorded cells and chats now
    %memory agent-unreviewed on|off  may agents recall unreviewed memories? (off)
    %memories --review               cards: Keep / Discard / Promote to knowledge
    %memory keep ID                  review one memory in a cell (what a card's fallback names)
    %memory discard ID
    %memory promote ID [--kind rule|info]
    %memories --archive [--dry-run]  move cold, stale memories into .old/

``%recall`` and ``%memories`` mark unreviewed rows (:func:`mark_review`).
Parsing lives in ``memory_cmd`` and ``listing``; these functions call the
service and render.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from .._i18n import N_, localized, tr
from ..exceptions import ConflictError, JupyterMemoryError
from .host import MagicsHost
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


def digest(self: MagicsHost, args: Any) -> TextBlock:
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
    if report.get("notice"):  # the LLM budget: spent, or this request went over it
        lines.append(localized(report["notice"]))
    return "\n".join(lines)


def agent_unreviewed(self: MagicsHost, args: Any) -> TextBlock:
    """``%memory agent-unreviewed on|off``: the person's switch for agent recall."""
    if args.value not in ("on", "off"):
        raise UsageError("%memory agent-unreviewed on|off")
    with self.session.lock:
        self.service.update_settings(agent_unreviewed=args.value == "on")
    if args.value == "on":
        return TextBlock("Agents may now recall memories you have not reviewed yet.")
    return TextBlock("Agents recall only memories you wrote or reviewed.")


def review(self: MagicsHost, limit: int | None) -> Any:
    """``%memories --review``: one card per unreviewed memory (a document output, no widget)."""
    with self.session.lock:
        ids = [row.id for row in self.service.unreviewed(limit=limit)]
    if not ids:
        return TextBlock(tr("Nothing to review: every memory was written or reviewed by you."))
    from ..widgets.review_cards import ReviewCards

    return ReviewCards(self.session, ids)


def _review(self: MagicsHost, args: Any, decision: str) -> TextBlock:
    """``%memory keep|discard|promote ID``: the person's review decision, in a cell."""
    if not args.value:
        raise UsageError(
            tr("%memory {action} ID: name the memory (see %memories --review)").format(
                action=args.action
            )
        )
    kind = args.kind or "rule"  # --kind: promote's own parser only (memory_cmd.ACTION_PARSERS)
    try:
        with self.session.lock:
            result = self.service.review_memory(args.value, decision, kind=kind).to_dict()
    except ConflictError as exc:
        return TextBlock(
            tr("Already reviewed: memory {id} is {state}; nothing changed.").format(
                id=args.value, state=(exc.state or "").removeprefix("already_")
            )
        )
    except JupyterMemoryError as exc:
        raise UsageError(f"%memory {args.action}: {localized(exc)}") from None
    if result["status"] == "kept":
        return TextBlock(tr("Kept {id}: reviewed, agents may recall it.").format(id=args.value))
    if result["status"] == "discarded":
        return TextBlock(tr("Discarded {id}: forgotten.").format(id=args.value))
    if result["status"] == "skipped":
        return TextBlock(
            tr("Not queued: {reason}").format(
                reason=localized(result.get("reason") or tr("the queue already has it"))
            )
        )
    pid = result["proposal"]["id"]
    return TextBlock(
        tr("Promoted {id}: proposal {proposal} waits in the queue (%memory queue).").format(
            id=args.value, proposal=pid
        )
    )


def keep(self: MagicsHost, args: Any) -> TextBlock:
    return _review(self, args, "keep")


def discard(self: MagicsHost, args: Any) -> TextBlock:
    return _review(self, args, "discard")


def promote(self: MagicsHost, args: Any) -> TextBlock:
    return _review(self, args, "promote")


def archive(self: MagicsHost, dry_run: bool) -> ColdArchiveTable:
    """``%memories --archive [--dry-run]``: through ``Memory.archive`` (reversible)."""
    with self.session.lock:
        result = self.service.archive(dry_run=dry_run).to_dict()
    verb = "Would archive" if dry_run else "Archived"
    caption = f"{verb} {result['count']} memor{'y' if result['count'] == 1 else 'ies'}"
    if not dry_run and result["count"]:
        caption += " into .old/ (restore with jupyter-memory archive --restore ID)"
    return ColdArchiveTable(result["archived"], caption=caption)
