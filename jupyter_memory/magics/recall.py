"""``%recall QUERY``: ranked memories as a table; the hits are also in ``_``.

Spec 003's filters: ``--agent``, ``--type``, ``--tier``, ``--recent 7d``; plus
``--project``, ``--tag``, ``--limit`` and ``--level index|snippet|full``.
``--frame`` answers a pandas DataFrame; ``-o VAR`` also keeps one in ``VAR``
(as jupysql's ``%sql -o`` does), for the retrospective notebook's next cell.
"""

from __future__ import annotations

import keyword
from typing import Any

from IPython.core.error import UsageError

from .._i18n import ntr, tr
from ..core.memories.recall_query import RecallQuery
from . import digest_cmd
from .args import argument, joined, magic_arguments, parse_with_text
from .host import MagicsHost
from .render import RecallResult


@magic_arguments()
@argument("query", nargs="*", help=tr("words to search for (English or Chinese); empty lists all"))
@argument("--type", help=tr("episodic, semantic, procedural or reflective (comma-separated ok)"))
@argument("--tier", help=tr("session, daily or durable (comma-separated ok)"))
@argument("--agent", help=tr("only agent NAME's own memories (shared ones: leave it out)"))
@argument("--project", help=tr("only memories of this project (folder or known id)"))
@argument("--tag", action="append", help=tr("only memories with this tag (repeatable)"))
@argument("--recent", help=tr("only memories updated within a window, e.g. 7d, 12h, 2w"))
@argument("--limit", type=int, help=tr("how many hits (default: MemoryMagics.limit)"))
@argument("--level", help=tr("index (titles), snippet, or full text (default: MemoryMagics.level)"))
@argument("--semantic", action="store_true", help=tr("meaning only (needs the semantic extra)"))
@argument("--lexical", action="store_true", help=tr("words only (the default without the extra)"))
@argument("--frame", action="store_true", help=tr("answer a pandas DataFrame instead of the table"))
@argument(
    "-o", "--out", metavar="VAR", help=tr("also keep the hits as a DataFrame in variable VAR")
)
def recall(self: MagicsHost, line: str) -> Any:
    """Search memories. The result is a table; ``pandas.DataFrame(_)`` or ``_.to_frame()``.

    Examples::

        %recall refunds --recent 7d
        %recall 退款 口径 --type semantic
        %recall --agent dev --tier durable
        %recall 退款 --frame
        %recall refunds -o hits_df
    """
    args = parse_with_text(recall, line, "query")
    if args.out is not None and not (args.out.isidentifier() and not keyword.iskeyword(args.out)):
        raise UsageError(
            tr("-o {name}: give a Python variable name, e.g. -o hits").format(name=repr(args.out))
        )
    if args.semantic and args.lexical:
        raise UsageError(
            tr("pick one of --semantic and --lexical (neither: hybrid when available)")
        )
    mode = "semantic" if args.semantic else "lexical" if args.lexical else None
    query = joined(args.query)
    with self.session.lock:
        request = RecallQuery.of(
            query,
            type=args.type,
            tier=args.tier,
            # that agent's own memories (spec 003), ranked by its preferred sectors
            scope=f"agent:{args.agent}" if args.agent else None,
            agent=args.agent,
            project=args.project,
            tags=args.tag or (),
            recent=args.recent,
            limit=args.limit if args.limit is not None else self.limit,
            level=args.level or self.level,
            mode=mode,
        )
        hits = self.service.hooks.recall_query(request)
    # A hit scoring 0 (rounded) would read as a match it is not. The service already
    # leaves out the embedder's score-0 filler and bm25's idf is never 0 (issue 33),
    # so this only guards what rounds to 0 against a much better first hit.
    weak = [h for h in hits if query and h.score <= 0]
    hits = [h for h in hits if not (query and h.score <= 0)]
    # %forget completes these ids (magics/completion.py).
    self.last_recall = [(h.id, h.title) for h in hits]
    rows = [digest_cmd.mark_review(h.to_dict()) for h in hits]
    found = ntr("{n} memory for {query}", "{n} memories for {query}", len(hits))
    caption = found.format(n=len(hits), query=repr(query)) if query else ""
    marks = digest_cmd.review_caption(rows)
    if weak:
        left = ntr("{n} weak match not shown", "{n} weak matches not shown", len(weak))
        marks = " · ".join(m for m in (marks, left.format(n=len(weak))) if m)
    caption = f"{caption} · {marks}" if caption and marks else caption or marks
    result = RecallResult(rows, caption=caption)
    if args.out is not None:
        self.shell.user_ns[args.out] = result.to_frame()
    return result.to_frame() if args.frame else result
