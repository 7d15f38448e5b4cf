"""The normalised key of a proposal's text and its hash (spec 002 §4.2).

Normalisation (:func:`dedup_key`): NFKC, casefold, punctuation and symbols
removed, whitespace collapsed, and spaces next to CJK characters dropped. Two
texts with the same key are the same proposal; the dismissed-hash list stores
the sha256 of this key, so a dismissed proposal is never suggested again
however it is punctuated or spaced.

Kept apart from :mod:`.dedup` (which asks the identity module whether two
entries are one): Apply, Dismiss, revert and the reorganizer need only the key,
and loading the identity analysis for them cost every ``%load_ext`` its import.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

# Not core.text's wider class (it adds kana and hangul): the dismissed hashes stored in
# every queue were made with this one, and a wider class would change their keys.
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_SPACE = re.compile(rf"(?<=[{CJK}]) | (?=[{CJK}])")


def dedup_key(text: str) -> str:
    norm = unicodedata.normalize("NFKC", text).casefold()
    kept = "".join(
        ch if not unicodedata.category(ch).startswith(("P", "S")) else " " for ch in norm
    )
    kept = " ".join(kept.split())
    return _CJK_SPACE.sub("", kept)


def dedup_hash(text: str) -> str:
    return hashlib.sha256(dedup_key(text).encode("utf-8")).hexdigest()
