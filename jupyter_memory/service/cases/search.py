"""Cross-case search (spec 000 scene 3: "grep across every case_memory/").

A plain substring search over every entry file after NFKC + casefold, so
Chinese and English queries both work; every whitespace-separated term must
appear. The normalized text of each file is kept in memory keyed by its path,
mtime and size, so a repeated search costs one ``stat`` per unchanged file;
a changed file is read again (the files stay the authority).
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
from pathlib import Path

from ..._i18n import M_
from ...core.cases.entry_format import ENTRY_TYPES, peek_entry
from ...core.text import normalize, squash_whitespace
from ...exceptions import ParseError, ValidationError
from ...store.cases.files import read_text_file, stat_entries
from .results import CaseSearchHit

SNIPPET_CHARS = 60
MAX_CACHED = 50_000

# path -> (mtime_ns, size, raw text, normalized text, (title, status, legacy))
_Cached = tuple[int, int, str, str, tuple[str, str, bool]]
_cache: dict[str, _Cached] = {}
_cache_lock = threading.Lock()


# Full-width ASCII (U+FF01-U+FF5E) and the ideographic space: what NFKC changes
# in almost every Chinese text (，：（）). Mapping them first lets most files
# skip the much slower full NFKC pass.
_FULLWIDTH = {cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


_FULLWIDTH_RE = re.compile("[\uff01-\uff5e\u3000]")


def _narrow(match: re.Match[str]) -> str:
    return chr(_FULLWIDTH[ord(match.group(0))])


def _normalize_fast(text: str) -> str:
    """Same result as :func:`~jupyter_memory.core.text.normalize` (NFKC + casefold)."""
    # A regex substitution touches only the full-width characters; str.translate
    # with a dict visits every character and cost ~7x more on the cold search.
    narrowed = _FULLWIDTH_RE.sub(_narrow, text)
    if unicodedata.is_normalized("NFKC", narrowed):
        return narrowed.casefold()
    return normalize(text)


def _load(path: str, mtime: int, size: int) -> _Cached | None:
    hit = _cache.get(path)
    if hit is not None and hit[0] == mtime and hit[1] == size:
        return hit
    try:
        raw = read_text_file(path)
    except ParseError:  # not UTF-8: nothing to search; doctor reports the file
        return None
    if raw is None:
        return None
    item = (mtime, size, raw, _normalize_fast(raw), peek_entry(raw))
    with _cache_lock:
        if len(_cache) >= MAX_CACHED:
            _cache.clear()
        _cache[path] = item
    return item


def _snippet(raw: str, norm: str, term: str) -> str:
    at = norm.find(term)
    source = raw if len(norm) == len(raw) else norm  # lengths differ: show normalized text
    body_at = source.find("## 记录")
    if body_at >= 0 and norm.find(term, body_at) >= 0:
        at = norm.find(term, body_at)
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
    if not isinstance(text, str):
        raise ValidationError(M_("must be a string"), field="text")
    terms = normalize(text).split()
    if not terms:
        raise ValidationError(M_("give some text to search for"), field="text")
    if type is not None and type not in ENTRY_TYPES:
        raise ValidationError(
            M_(
                "{type!r} is not one of {types}",
                type=type,
                types=", ".join(ENTRY_TYPES),
            ),
            field="type",
        )
    hits: list[CaseSearchHit] = []
    for case_id, name, date, etype, path, mtime, size in stat_entries(workspace):
        if type is not None and etype != type:
            continue
        item = _load(path, mtime, size)
        if item is None or not all(t in item[3] for t in terms):
            continue
        raw, norm, (title, status, legacy) = item[2], item[3], item[4]
        hits.append(
            CaseSearchHit(
                case_id,
                name,
                Path(path),
                title or name,
                etype,
                date,
                status,
                legacy,
                _snippet(raw, norm, terms[0]),
            )
        )
        if limit is not None and len(hits) >= limit:
            break
    return hits
