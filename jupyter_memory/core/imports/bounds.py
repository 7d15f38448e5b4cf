"""Bounds every imported file is parsed within: how deep its data may nest (issue 29).

The byte caps are the reader's (store/imports/source_files.py). Depth is
ours: a mem0 file nested 200,000 levels deep made ``json.loads`` raise
RecursionError and stopped the whole import, and ``categories`` nested 900
deep got through the parser and failed later with a ValueError. No export of
the tools we read nests more than a few levels; 32 leaves room.
"""

from __future__ import annotations

from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError, ValidationError

MAX_DEPTH = 32
# Items (memories and proposals) one import run may plan: a 199 MB mem0 export of
# 1.57 million items took 2.9 GB planning them all. Import a larger source in parts.
MAX_IMPORT_ITEMS = 100_000


def over_item_cap(file: str, limit: int) -> ValidationError:
    """The run stops before anything is written: one source over the cap."""
    return ValidationError(
        M_(
            "more items than one import run takes (reached in {file}): over the "
            "{limit}-item cap of one import; import the source in parts (a folder or a "
            "file at a time); nothing was imported",
            file=file,
            limit=f"{limit:,}",
        ),
        field="path",
    )


def too_deep(path: str, where: str | None = None) -> ParseError:
    if where:
        return ParseError(
            M_("{where}: nested deeper than {limit} levels", where=where, limit=MAX_DEPTH),
            path=path,
        )
    return ParseError(M_("nested deeper than {limit} levels", limit=MAX_DEPTH), path=path)


def check_depth(value: Any, *, path: str, where: str | None = None) -> None:
    """:class:`ParseError` when lists or mappings in ``value`` nest deeper than MAX_DEPTH.

    Iterative, so the check itself cannot exhaust Python's stack.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth > MAX_DEPTH:
            raise too_deep(path, where)
        stack.extend((child, depth + 1) for child in children)


__all__ = ["MAX_DEPTH", "MAX_IMPORT_ITEMS", "check_depth", "over_item_cap", "too_deep"]
