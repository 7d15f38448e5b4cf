"""A fast, exact subset of YAML for the frontmatter we write ourselves.

PyYAML spends ~1.5 ms emitting and ~0.2 ms constructing one small mapping,
which made rebuilding 10k files take seconds. We write each top-level key on
one line as ``key: <JSON value>`` — JSON scalars, arrays and objects are valid
YAML flow nodes meaning the same thing — and read such lines back with
``json.loads``. Anything outside this subset (hand-edited block lists, plain
strings, anchors, exponents that YAML 1.1 would read as strings) returns
``None`` from :func:`load_flat`, and the caller falls back to the full,
alias-refusing YAML loader, so both paths agree on every file.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date, datetime
from decimal import Decimal
from typing import Any

_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
# Plain scalars YAML 1.1 resolves to booleans or null: never bare keys here.
_YAML_WORDS = frozenset(
    w
    for base in ("y", "yes", "n", "no", "true", "false", "on", "off", "null")
    for w in (base, base.capitalize(), base.upper())
)
_LINE_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*): (.+)$")
_ISO_RE = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt ]\d{1,2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:[Zz]|[+-]\d{2}:\d{2})$"
)
# Characters JSON leaves raw but YAML does not accept unescaped in a quoted scalar.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


class NotFlat(Exception):
    """The value cannot be written in the one-line subset."""


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def _json(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotFlat("non-finite float")
        text = repr(value)
        if "e" in text or "E" in text:
            # YAML 1.1 reads exponent forms as strings: write the exact decimal.
            text = format(Decimal(text), "f")
            text = text if "." in text else text + ".0"
        return text
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _YAML_UNSAFE.sub(_escape, json.dumps(value, ensure_ascii=False))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_json(v) for v in value) + "]"
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            if not isinstance(k, str):
                raise NotFlat("non-string key")
            parts.append(f"{_json(k)}: {_json(v)}")
        return "{" + ", ".join(parts) + "}"
    raise NotFlat(type(value).__name__)


def dump_flat(mapping: dict[str, Any]) -> str:
    """One ``key: value`` line per key; raises :class:`NotFlat` when impossible."""
    lines = []
    for key, value in mapping.items():
        if not _KEY_RE.match(key) or key in _YAML_WORDS:
            raise NotFlat(f"key {key!r}")
        if isinstance(value, datetime):
            if value.tzinfo is None:
                raise NotFlat("naive datetime")
            text = value.isoformat()
        elif isinstance(value, date):
            raise NotFlat("date")
        else:
            text = _json(value)
        lines.append(f"{key}: {text}\n")
    return "".join(lines)


_EXPONENT_RE = re.compile(r"\d[eE][+-]?\d")
_STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"')


# The lines our writer produces for a memory (strings, UTC times, plain
# decimals, booleans, lists of strings); a line holds no newline. The values
# are then read per line knowing each one's form (a rebuild reads 10k of these).
_STR = r'"[^"\\\x00-\x1f]*(?:\\.[^"\\\x00-\x1f]*)*"'
_SIMPLE_LINE = re.compile(
    rf"[A-Za-z_][A-Za-z0-9_-]*: (?:{_STR}"
    r"|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:[+-]\d{2}:\d{2}|Z)"
    r"|-?(?:0|[1-9]\d*)(?:\.\d+)?|true|false"
    rf"|\[(?:{_STR}(?:, {_STR})*)?\])",
    re.ASCII,
)


# Keys whose lines repeat from file to file (``type: "semantic"``, ``tags:
# ["sales"]``, ``reviewed: true``): such a line's reading is kept, so most of
# a file's lines are one dictionary look-up. Lists are kept as tuples and
# copied out (every reading gets its own list).
_REPEATING_KEYS = frozenset(
    {"type", "tier", "scope", "project", "tags", "source", "confidence", "related", "evidence"}
    | {"reviewed"}
)
_LINE_CACHE: dict[str, tuple[str, Any]] = {}
_LINE_CACHE_MAX = 4096


def _read_value(raw: str) -> Any:
    first = raw[0]
    if first == '"':
        return json.loads(raw) if "\\" in raw else raw[1:-1]
    if first == "[":
        # Without a backslash no string holds a quote: '", "' splits exactly.
        if "\\" in raw:
            return json.loads(raw)
        return raw[2:-2].split('", "') if len(raw) > 2 else []
    if first == "t" or first == "f":
        return first == "t"
    if "T" in raw:
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    return float(raw) if "." in raw else int(raw)


def _load_simple(text: str) -> dict[str, Any] | None:
    """The common case of :func:`load_flat`, same result; ``None``: not this subset."""
    if not text.endswith("\n"):
        return None
    out: dict[str, Any] = {}
    lines = text[:-1].split("\n")
    cache, simple = _LINE_CACHE, _SIMPLE_LINE.fullmatch
    try:
        for line in lines:
            known = cache.get(line)  # a line kept here passed the pattern
            if known is not None:
                key, value = known
                out[key] = list(value) if type(value) is tuple else value
                continue
            if not simple(line):
                return None
            key, _, raw = line.partition(": ")  # a key holds no ':'
            value = out[key] = _read_value(raw)
            if key in _REPEATING_KEYS:
                if len(cache) >= _LINE_CACHE_MAX:
                    cache.clear()
                cache[line] = (key, tuple(value) if type(value) is list else value)
    except ValueError:
        return None
    # A key twice, or a YAML 1.1 boolean word as a key: the general way decides.
    if len(out) != len(lines) or not _YAML_WORDS.isdisjoint(out):
        return None
    return out


def load_flat(text: str) -> dict[str, Any] | None:
    """Parse the subset; ``None`` means "use the full YAML loader".

    The lines are joined into one JSON object and decoded in a single call;
    the key count check catches a value that smuggles in extra keys (which
    YAML would reject), so such text also goes to the real loader.
    """
    # In ASCII text the only such character is DEL: one scan in C.
    if "\x7f" in text if text.isascii() else _YAML_UNSAFE.search(text):
        return None
    simple = _load_simple(text)
    if simple is not None:
        return simple
    parts: list[str] = []
    keys: list[str] = []
    dates: list[str] = []
    for line in text.split("\n"):
        if not line:
            continue
        key, sep, raw = line.partition(": ")
        if not sep or not raw or not _KEY_RE.match(key) or key in _YAML_WORDS:
            return None
        first = raw[0]
        if first.isdigit() and _ISO_RE.match(raw):
            dates.append(key)
            raw = f'"{raw}"'
        elif first not in '"[{-0123456789tfn':
            return None
        elif first != '"' and _EXPONENT_RE.search(_STRING_RE.sub('""', raw)):
            return None  # a number in exponent form: YAML 1.1 reads it as a string
        keys.append(key)
        parts.append(f'"{key}": {raw}')
    try:
        out = json.loads("{" + ",".join(parts) + "}")
    except ValueError:
        return None
    if not isinstance(out, dict) or len(out) != len(keys):
        return None
    for key in dates:
        try:
            out[key] = datetime.fromisoformat(
                out[key].replace("Z", "+00:00").replace("z", "+00:00")
            )
        except ValueError:
            return None
    return out
