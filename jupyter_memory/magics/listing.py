"""``%memories``: recent memories (HOT and WARM first), ``--stats``, ``--frame``,
``--review`` (cards for unreviewed memories), ``--learning`` (the self-learner's
candidate rules) and ``--archive [--dry-run]``."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from .._i18n import tr
from . import digest_cmd
from .args import argument, magic_arguments, parse
from .host import MagicsHost
from .render import MemoriesResult, StatsView


@magic_arguments()
@argument(
    "--stats", action="store_true", help=tr("counts by type, tier, scope, project; index health")
)
@argument("--frame", action="store_true", help=tr("return every memory as a pandas DataFrame"))
@argument("--all", action="store_true", help=tr("include COLD memories too"))
@argument("--limit", type=int, help=tr("how many rows (default: MemoryMagics.limit)"))
@argument(
    "--review", action="store_true", help=tr("cards for unreviewed memories: Keep/Discard/Promote")
)
@argument(
    "--learning", action="store_true", help=tr("self-learning candidates: evidence, confidence")
)
@argument(
    "--archive", action="store_true", help=tr("move cold memories stale for 90+ days to .old/")
)
@argument("--dry-run", action="store_true", help=tr("with --archive: only show what would move"))
def memories(self: MagicsHost, line: str) -> Any:
    """List memories: HOT and WARM first, newest first within each heat."""
    args = parse(memories, line)
    modes = [m for m in ("stats", "frame", "review", "learning", "archive") if getattr(args, m)]
    if len(modes) > 1:
        raise UsageError(f"%memories: choose --{' or --'.join(modes)}, not both")
    if args.dry_run and not args.archive:
        raise UsageError("%memories: --dry-run goes with --archive")
    if args.review:
        return digest_cmd.review(self, args.limit)
    if args.archive:
        return digest_cmd.archive(self, args.dry_run)
    with self.session.lock:
        if args.learning:
            from .learning_view import LearningView

            return LearningView(self.service.hooks.learning_report().to_dict())
        if args.stats:
            return StatsView(self.service.stats().to_dict())
        if args.frame:
            from ..frames import memories_frame

            return memories_frame(self.service)
        limit = args.limit if args.limit is not None else self.limit
        if limit < 1:
            raise UsageError("%memories: --limit must be at least 1")
        # One page, ordered by the index: 100,000 memories list as fast as 100 (issue 16).
        page = self.service.hooks.list_page(limit=limit, include_cold=args.all)
        rows = [digest_cmd.mark_review(r) for r in page.rows]
    hint = _more_hint(len(rows), page.total, args.all) if page.more else ""
    notes = [digest_cmd.review_caption(rows), hint]
    return MemoriesResult(rows, caption="\n".join(n for n in notes if n))


def _more_hint(shown: int, total: int, everything: bool) -> str:
    """Where the rest is, when the page is not all of it."""
    cold = "" if everything else " (COLD ones only with --all)"
    return (
        f"first {shown} shown of {total:,} memories{cold}: %memories --limit N shows more; "
        "%recall TEXT finds one"
    )
