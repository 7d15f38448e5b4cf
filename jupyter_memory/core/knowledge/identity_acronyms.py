"""One name for a thing an acronym abbreviates, across the two texts of a pair (round seven).

Every domain has its acronyms (NOI, SOH, GPA, LOCF, CNP, ARPDAU …) and no table of them is
ever complete, but how one is written is general: its letters are the initials of the words
it abbreviates ("NOI" / "net operating income", "PP" / "per-protocol", "AEs" / "adverse
events"), and a Chinese text glosses it in brackets (意向性治疗（ITT）). So the pair decides:
words of either text whose initials spell an acronym of either text are written as the
acronym, and a bracketed gloss becomes whichever of its two names the other text uses.
Nothing is looked up; a text without a capitalised run of letters is returned as it is.
"""

from __future__ import annotations

import re
from functools import lru_cache

_ACRONYM = re.compile(r"(?<![\w&-])([A-Z]{2,6}|[A-Z](?:&[A-Z]){1,3})(s?)(?![\w&-])")
# Words of a spelled-out name: letters, joined by spaces or hyphens ("card-not-present").
_WORD = re.compile(r"[A-Za-z]+")
_JOIN = re.compile(r"[ -]")
# Round eight: letters joined by "&" (F&I, P&L, R&D) abbreviate words joined by "and" or "&".
_JOIN_AND = re.compile(r"[ -]|\s+(?:and|&)\s+")
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_GLOSS = re.compile(rf"([{_CJK}]{{2,8}})\s*[（(]\s*([A-Z]{{2,6}})\s*[)）]")


@lru_cache(maxsize=32768)
def _acronyms(text: str) -> tuple[tuple[str, str], ...]:
    """Each acronym of ``text`` (upper-case letters) and how it is written there ("AEs")."""
    return tuple((m.group(1), m.group(0)) for m in _ACRONYM.finditer(text))


def _spelled_out(text: str, acronym: str, written: str) -> str:
    """``text`` with each run of words whose initials spell ``acronym`` written as it."""
    join = _JOIN_AND if "&" in acronym else _JOIN
    acronym = acronym.replace("&", "")
    words = [w for w in _WORD.finditer(text) if not (join is _JOIN_AND and w.group(0) == "and")]
    n = len(acronym)
    out, last, i = [], 0, 0
    while i + n <= len(words):
        run = words[i : i + n]
        if (
            "".join(w.group(0)[0] for w in run).upper() == acronym
            # Words, not other acronyms or letters ("UK store" does not spell "US").
            and all(len(w.group(0)) >= 2 and not w.group(0).isupper() for w in run)
            and all(
                join.fullmatch(text[p.end() : q.start()])
                for p, q in zip(run, run[1:], strict=False)
            )
        ):
            out.append(text[last : run[0].start()] + written)
            last, i = run[-1].end(), i + n
        else:
            i += 1
    return "".join(out) + text[last:] if out else text


def _glossed(text: str, other: str) -> str:
    """A bracketed gloss (意向性治疗（ITT）) as the one name ``other`` uses of the two."""

    def one(m: re.Match[str]) -> str:
        name, acronym = m.group(1), m.group(2)
        if acronym in other:
            return acronym
        return name if name in other else m.group(0)

    return _GLOSS.sub(one, text)


@lru_cache(maxsize=32768)
def one_name(a: str, b: str) -> tuple[str, str]:
    """``a`` and ``b`` with what an acronym of either abbreviates written as that acronym."""
    found = _acronyms(a) + _acronyms(b)
    if not found:
        return a, b
    a, b = _glossed(a, b), _glossed(b, a)
    in_a, in_b = {n for n, _ in _acronyms(a)}, {n for n, _ in _acronyms(b)}
    for acronym, written in dict(found).items():
        # Only where the acronym is not written: beside it, words with its initials define it
        # or are something else ("ROAS equals attributed revenue over ad spend").
        a = _spelled_out(a, acronym, written) if acronym not in in_a else _unglossed(a, acronym)
        b = _spelled_out(b, acronym, written) if acronym not in in_b else _unglossed(b, acronym)
    return a, b


def _unglossed(text: str, acronym: str) -> str:
    """``text`` without the words that spell ``acronym`` right beside it: a gloss ("DPMO,
    defects per million opportunities", "net promoter score (NPS)") names one thing."""
    marked = _spelled_out(text, acronym, "\0")
    if marked == text:
        return text
    found = re.compile(rf"\0[\s,:(（]*{acronym}s?[)）]?|{acronym}s?[\s,:(（]*\0[)）]?")
    collapsed = found.sub(acronym, marked)
    return text if "\0" in collapsed else collapsed


__all__ = ["one_name"]
