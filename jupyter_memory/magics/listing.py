"""``%memories``: recent memories (HOT and WARM first), ``--stats`` and ``--frame``."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic_arguments import argument, magic_arguments

from .args import parse
from .render import MemoriesResult, StatsView


@magic_arguments()
@argument("--stats", action="store_true", help="counts by type, tier, scope, project; index health")
@argument("--frame", action="store_true", help="return every memory as a pandas DataFrame")
@argument("--all", action="store_true", help="include COLD memories too")
@argument("--limit", type=int, help="how many rows (default: MemoryMagics.limit)")
def memories(self: Any, line: str) -> Any:
    """List memories: HOT and WARM first, newest first within each heat (spec 003)."""
    args = parse(memories, line)
    if args.stats and args.frame:
        raise UsageError("%memories: choose --stats or --frame, not both")
    with self.session.lock:
        if args.stats:
            return StatsView(self.service.stats())
        if args.frame:
            from ..frames import memories_frame

            return memories_frame(self.service)
        limit = args.limit if args.limit is not None else self.limit
        if limit < 1:
            raise UsageError("%memories: --limit must be at least 1")
        rows = self.service.list(limit=limit, include_cold=args.all)
    return MemoriesResult(rows)
