"""Text analysis shared by the index, the query planner and the naive baseline.

Two layers:

* :func:`analyze` / :func:`query_terms` give *surface* tokens (NFKC + casefold
  words, CJK bigrams). Snippets, topic similarity and highlighting use them.
* :func:`index_tokens` / :func:`search_groups` give *search* tokens: the same
  split, then English stopwords dropped and every other Latin word reduced to
  its Snowball (Porter 2) stem, so "refunds", "refunded" and "refund" meet.
  The index stores ``index_tokens`` and the query is analysed with
  ``search_groups``; both go through :func:`search_word`, so index and query
  can never disagree.

FTS5's ``unicode61`` tokenizer treats a run of Han characters as one token and
``trigram`` cannot match 2-character words, so CJK text is indexed as
overlapping character bigrams, and queries are analysed the same way: a
2-character Chinese query then finds every entry that contains it. Each CJK run
also indexes its last character alone, so every character starts some token and
a 1-character query (a prefix match on those tokens) finds every entry
containing that character. Mixed text splits at script changes: "Q3收入" is
``q3`` + ``收入``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import Stemmer

from .stopwords import ENGLISH_STOPWORDS, IRREGULAR_FORMS

# Han, Hiragana/Katakana, Hangul: scripts written without spaces.
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
# A token is a CJK run (group 1) or a word of other letters and digits (group 2), in
# one pass that says which. The one pattern with this class: compiling it walks its
# ~40,000 code points in Python (re's charset optimiser, ~3.5 ms each time), and three
# patterns had compiled it five times at every start (~17 ms of a CLI recall's 0.3 s).
_TOKEN_RE = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")
_WS_RE = re.compile(r"\s+")


def is_cjk_run(token: str) -> bool:
    """Whether ``token`` starts with a CJK character (a token is wholly one or the other)."""
    match = _TOKEN_RE.match(token)
    return match is not None and match.lastindex == 1


# Full-width ASCII forms (Chinese punctuation: ，！？：；) and the ideographic
# space, each replaced by what NFKC makes of it before NFKC runs: NFKC's slow
# path then has nothing left to do in most Chinese notes (same result: each
# is a starter decomposing to one ASCII character).
_FULL_WIDTH = {0x3000: " ", **{0xFF01 + i: chr(0x21 + i) for i in range(94)}}


def normalize(text: str) -> str:
    """NFKC + casefold: full-width forms and case never decide a match."""
    if not text.isascii() and not unicodedata.is_normalized("NFKC", text):
        text = text.translate(_FULL_WIDTH)
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
        if match.lastindex == 1:
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
        group = cjk_bigrams(tok) if match.lastindex == 1 else [tok]
        key = tuple(group)
        if key not in seen:
            seen.add(key)
            groups.append(group)
    return groups


def title_repeats_text(title: str, text: str) -> bool:
    """True when ``title`` is just the start of ``text`` (a default title).

    Such a title adds no information: weighting it as a title would only
    count the first line of the note several times over.
    """
    head = title.strip().rstrip("…").strip()
    if not head:
        return True
    first = text.lstrip().lstrip("#").lstrip()
    return first.startswith(head)


def estimate_tokens(text: str) -> int:
    """Rough LLM token estimate: ~4 chars per token for Latin text, 1 per CJK char."""
    if text.isascii():  # no CJK to count (recall estimates every hit)
        return len(text) // 4 + (1 if text else 0)
    cjk = sum(len(run) for run, _ in _TOKEN_RE.findall(text))  # every CJK character
    return cjk + max(0, len(text) - cjk) // 4 + (1 if text else 0)


_STEMMER = Stemmer.Stemmer("english")
# Bump when index_tokens changes what it emits for the same text.
ANALYZER_VERSION = 2  # 2: fillers and question words are no longer stopwords


def analyzer_identity() -> str:
    """What the stored tokens depend on: our analyser and the stemmer's version.

    An index built under another identity holds tokens today's queries may not
    produce (a PyStemmer upgrade can stem differently), so it is rebuilt.
    """
    return f"analyzer {ANALYZER_VERSION}; PyStemmer {Stemmer.version()}"


# Words with a digit ("q3", "2023") or a non-Latin letter are kept as written:
# the English stemmer would only mangle them.
_STEMMABLE_RE = re.compile(r"[a-z]+")
# A CJK run this long is a sentence, not a word: requiring it as one phrase
# would make natural-language Chinese questions match nothing.
MAX_CJK_PHRASE = 4


_WORD_CACHE: dict[str, str | None] = {}
_WORD_CACHE_MAX = 200_000


def search_word(word: str) -> str | None:
    """The search token of one normalised Latin word; ``None`` for a stopword."""
    try:
        return _WORD_CACHE[word]
    except KeyError:
        pass
    if word in ENGLISH_STOPWORDS:
        out: str | None = None
    elif _STEMMABLE_RE.fullmatch(word):
        out = str(_STEMMER.stemWord(IRREGULAR_FORMS.get(word, word)))
    else:
        out = word
    if len(_WORD_CACHE) >= _WORD_CACHE_MAX:
        _WORD_CACHE.clear()
    _WORD_CACHE[word] = out
    return out


# A casefolded ASCII text's words ([^\W_]+) are its [a-z0-9]+ runs: what
# splitting leaves once every other byte is a space, A-Z lowered on the way
# (NFKC leaves ASCII as it is, casefolding lowers A-Z). One table look-up per
# byte in C, several times faster than a regex over the text.
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256)
)


def _ascii_tokens(norm: str) -> list[str]:
    # ASCII text has no CJK run: its words' stems, looked up in C (a rebuild
    # analyses every note); a word not yet cached is analysed once.
    words = norm.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()
    try:
        stems = list(map(_WORD_CACHE.__getitem__, words))
    except KeyError:
        stems = list(map(search_word, words))
    return list(filter(None, stems))  # a stopword's stem is None


def index_tokens(text: str) -> list[str]:
    """Tokens stored in the search index (see the module docstring)."""
    if text.isascii():  # already NFKC; _ascii_tokens casefolds it
        return _ascii_tokens(text)
    norm = normalize(text)
    return _ascii_tokens(norm) if norm.isascii() else _mixed_tokens(norm)


def _mixed_tokens(norm: str) -> list[str]:
    tokens: list[str] = []
    cache = _WORD_CACHE
    for cjk, word in _TOKEN_RE.findall(norm):
        if cjk:
            if len(cjk) == 1:
                tokens.append(cjk)
            else:
                tokens.extend([cjk[i : i + 2] for i in range(len(cjk) - 1)])
                tokens.append(cjk[-1])
        else:
            stem = cache[word] if word in cache else search_word(word)
            if stem is not None:
                tokens.append(stem)
    return tokens


@dataclass(frozen=True)
class SearchGroup:
    """One query unit: a word, a CJK phrase of bigrams, or a 1-character prefix."""

    tokens: tuple[str, ...]
    prefix: bool = False

    @property
    def cjk(self) -> bool:
        return is_cjk_run(self.tokens[0])


def search_groups(text: str, *, max_cjk_phrase: int = MAX_CJK_PHRASE) -> list[SearchGroup]:
    """The query as groups for the all-words pass, in order, without repeats.

    A CJK run of up to ``max_cjk_phrase`` characters must appear as written
    (a phrase of consecutive bigrams); a longer run is a sentence and becomes
    its separate bigrams. A lone CJK character is a prefix group.
    """
    groups: list[SearchGroup] = []
    seen: set[SearchGroup] = set()

    def add(group: SearchGroup) -> None:
        if group not in seen:
            seen.add(group)
            groups.append(group)

    for match in _TOKEN_RE.finditer(normalize(text)):
        tok = match.group(0)
        if match.lastindex != 1:
            word = search_word(tok)
            if word is not None:
                add(SearchGroup((word,)))
        elif len(tok) == 1:
            add(SearchGroup((tok,), prefix=True))
        elif len(tok) <= max_cjk_phrase:
            add(SearchGroup(tuple(cjk_bigrams(tok))))
        else:
            for bigram in cjk_bigrams(tok):
                add(SearchGroup((bigram,)))
    return groups


def relaxed_groups(groups: list[SearchGroup]) -> list[SearchGroup]:
    """Groups for the any-word pass: CJK phrases split into their bigrams.

    bm25 sums over every group, so an entry that has the whole phrase still
    ranks above one that has a single bigram of it.
    """
    out: list[SearchGroup] = []
    seen: set[SearchGroup] = set()
    for group in groups:
        parts = (
            [SearchGroup((t,)) for t in group.tokens]
            if group.cjk and len(group.tokens) > 1
            else [group]
        )
        for part in parts:
            if part not in seen:
                seen.add(part)
                out.append(part)
    return out
