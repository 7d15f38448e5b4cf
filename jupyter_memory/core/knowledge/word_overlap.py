"""Word-overlap similarity of two entry texts, kept for Reorganize's own pass.

:func:`similarity` is the Dice coefficient of token sets: English words
(lower-cased, a plural ``s`` dropped, a few function words ignored; the
negations stay, they carry meaning) and, for Chinese, every character *and*
every character bigram, since Chinese has no spaces and single characters
alone over-match. Measured on pairs such as

* "Revenue excludes refunds." / "revenue excludes refunds" → 1.0 (duplicate)
* "Revenue excludes refunds" / "Revenue should exclude refunds" → 0.86 (rewording)
* "Revenue excludes refunds" / "Revenue excludes taxes" → 0.67 (different)
* "收入不含退款" / "收入口径不含退款" → 0.77 (rewording)
* "收入不含退款" / "收入不含税费" → 0.64 (different)

the thresholds are :data:`DUPLICATE_AT` = 0.9 and :data:`REWORDING_AT` = 0.72.
Texts whose numbers differ ("before 2020" / "before 2021") are never
duplicates: their score is capped just below :data:`DUPLICATE_AT`. The queue's
verdict is the identity module's (:mod:`.identity`, through :mod:`.dedup`).
"""

from __future__ import annotations

import re
import unicodedata

from .keys import CJK, dedup_key

DUPLICATE_AT = 0.9
REWORDING_AT = 0.72
NUMBERS_DIFFER_CAP = 0.89

_TOKEN_RE = re.compile(rf"[{CJK}]+|[^\W_{CJK}]+", re.UNICODE)
_STOP = frozenset(
    ("a", "an", "the", "is", "are", "be", "been", "to", "of", "in", "on", "at", "for")
    + ("and", "or", "that", "this", "it", "its", "we", "our", "you", "your", "by", "with")
    + ("as", "from")
)


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tokens(text: str) -> frozenset[str]:
    out: set[str] = set()
    for match in _TOKEN_RE.finditer(unicodedata.normalize("NFKC", text).casefold()):
        tok = match.group(0)
        if "\u3400" <= tok[0] <= "\ufaff":
            out.update(tok)
            out.update(tok[i : i + 2] for i in range(len(tok) - 1))
        elif tok not in _STOP:
            out.add(_stem(tok))
    return frozenset(out)


def similarity(a: str, b: str) -> float:
    if dedup_key(a) == dedup_key(b):
        return 1.0
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb:
        return 0.0
    score = 2 * len(ta & tb) / (len(ta) + len(tb))
    if {t for t in ta if t.isdigit()} != {t for t in tb if t.isdigit()}:
        # "before 2020" vs "before 2021" is a different fact, never a duplicate
        # (it may still be a rewording that supersedes a pending item).
        score = min(score, NUMBERS_DIFFER_CAP)
    return score
