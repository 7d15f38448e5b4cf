"""Cross-case search (spec 000 scene 3: "grep across every case_memory/").

A plain substring search over every entry file, after NFKC + casefold, so
Chinese and English queries both work; every whitespace-separated term must
appear. Only matching files are parsed.
"""

from __future__ import annotations

import os

from ..core.case_format import ENTRY_TYPES, parse_entry, parse_entry_name
from ..core.text import normalize, squash_whitespace
from ..exceptions import ParseError, ValidationError
from ..store.case_store import iter_entry_texts
from .case_results import CaseSearchHit

SNIPPET_CHARS = 60


def _snippet(text: str, term: str) -> str:
    norm = normalize(text)
    at = norm.find(term)
    if at < 0 or len(norm) != len(text):  # NFKC changed lengths: show the normalized text
        source, at = norm, max(norm.find(term), 0)
    else:
        source = text
    start = max(0, at - SNIPPET_CHARS // 2)
    return squash_whitespace(source[start : start + SNIPPET_CHARS + len(term)])


def search_cases(
    workspace: str | os.PathLike[str],
    text: str,
    *,
    type: str | None = None,
    limit: int | None = None,
) -> list[CaseSearchHit]:
    """Entries of every case in ``workspace`` containing all terms of ``text``."""
    terms = normalize(text).split()
    if not terms:
        raise ValidationError("give some text to search for", field="text")
    if type is not None and type not in ENTRY_TYPES:
        raise ValidationError(f"{type!r} is not one of {', '.join(ENTRY_TYPES)}", field="type")
    hits: list[CaseSearchHit] = []
    for case_id, name, path, raw in iter_entry_texts(workspace):
        date, etype, _ = parse_entry_name(name) or ("", "", "")
        if type is not None and etype != type:
            continue
        norm = normalize(raw)
        if not all(t in norm for t in terms):
            continue
        shown = raw
        try:
            entry = parse_entry(raw, path=str(path))
            title, status, legacy = entry.title, entry.status, entry.legacy
            etype, date = entry.type or etype, entry.date or date
            if terms[0] in normalize(f"{entry.title}\n{entry.body}"):
                shown = f"{entry.title}\n{entry.body}"
        except ParseError:  # a broken file is still found, as grep would find it
            title, status, legacy = name, "", False
        hits.append(
            CaseSearchHit(
                case_id, name, path, title, etype, date, status, legacy, _snippet(shown, terms[0])
            )
        )
        if limit is not None and len(hits) >= limit:
            break
    return hits
