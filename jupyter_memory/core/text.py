"""Text analysis shared by the index and the naive baseline.

FTS5's ``unicode61`` tokenizer treats a run of Han characters as one token and
``trigram`` cannot match 2-character words, so CJK text is indexed as
overlapping character bigrams (a lone character stays a unigram), and queries
are analysed the same way: a 2-character Chinese query then finds every entry
that contains it.
"""

from __future__ import annotations

import re
import unicodedata

# Han, Hiragana/Katakana, Hangul: scripts written without spaces.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)
_CJK_RE = re.compile(rf"[{_CJK}]")
_WS_RE = re.compile(r"\s+")


def is_cjk_run(token: str) -> bool:
    return bool(_CJK_RE.match(token))


def normalize(text: str) -> str:
    """NFKC + casefold: full-width forms and case never decide a match."""
    return unicodedata.normalize("NFKC", text).casefold()


def squash_whitespace(text: str) -> str:
    return _WS_RE.sub(" ", text).strip()


def cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def analyze(text: str) -> list[str]:
    """Tokens for indexing and querying: words, and CJK bigrams."""
    tokens: list[str] = []
    for match in _TOKEN_RE.finditer(normalize(text)):
        tok = match.group(0)
        if is_cjk_run(tok):
            tokens.extend(cjk_bigrams(tok))
        else:
            tokens.append(tok)
    return tokens


def query_terms(text: str) -> list[list[str]]:
    """Query as groups: each word, or each CJK run as its bigram phrase.

    A CJK run of 3+ characters is a phrase of consecutive bigrams, so "收入口径"
    must appear as written rather than as scattered bigrams.
    """
    groups: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()
    for match in _TOKEN_RE.finditer(normalize(text)):
        tok = match.group(0)
        group = cjk_bigrams(tok) if is_cjk_run(tok) else [tok]
        key = tuple(group)
        if key not in seen:
            seen.add(key)
            groups.append(group)
    return groups


def estimate_tokens(text: str) -> int:
    """Rough LLM token estimate: ~4 chars per token for Latin text, 1 per CJK char."""
    cjk = len(_CJK_RE.findall(text))
    return cjk + max(0, len(text) - cjk) // 4 + (1 if text else 0)
