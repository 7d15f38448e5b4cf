"""Safe names: slugs, ids, project ids and file names.

Everything that becomes part of a path goes through here, so path traversal
(``../``, absolute paths, ``~``, drive letters, separators, control characters)
is refused in one place with the offending field named.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Iterator

from .._i18n import M_
from ..exceptions import UnsafeNameError, ValidationError

MAX_SLUG = 60
# Bytes a made slug may take (UTF-8, and UTF-16 units once decomposed): a file
# name stays well under the 255 bytes of ext4, APFS, NTFS and HFS+.
MAX_SLUG_BYTES = 2 * MAX_SLUG
MAX_GIVEN_SLUG = 80
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$")
_DRIVE_RE = re.compile(r"^[A-Za-z]:")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
_NON_SLUG = re.compile(r"[^a-z0-9]+")
_DASHES = re.compile(r"-{2,}")
# Letters and marks that show nothing (Hangul fillers, Khmer inherent vowels,
# the combining grapheme joiner, variation selectors): never kept in a name.
# Format characters (bidi controls, zero-width joiners, BOM) are category Cf
# and never kept anyway.
_HIDDEN = (
    "\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef"
)
_HIDDEN_RE = re.compile(f"[{_HIDDEN}]")
# Words of letters and digits of any script (str.isalnum: categories L and N).
_WORDS = re.compile(f"[^\\W_{_HIDDEN}]+(?:-[^\\W_{_HIDDEN}]+)*")


def reject_unsafe(value: str, *, field: str) -> str:
    """Raise :class:`UnsafeNameError` for anything that could act as a path."""
    if not isinstance(value, str):
        raise ValidationError(M_("must be a string"), field=field)
    if not value:
        raise ValidationError(M_("must not be empty"), field=field)
    if _CONTROL_RE.search(value):
        raise UnsafeNameError(M_("contains control characters"), field=field)
    if "/" in value or "\\" in value:
        raise UnsafeNameError(M_("contains a path separator: {value!r}", value=value), field=field)
    if value in {".", ".."} or value.startswith(".."):
        raise UnsafeNameError(
            M_("is a relative path component: {value!r}", value=value), field=field
        )
    if value.startswith("~"):
        raise UnsafeNameError(M_("starts with '~': {value!r}", value=value), field=field)
    if _DRIVE_RE.match(value):
        raise UnsafeNameError(M_("looks like a drive letter: {value!r}", value=value), field=field)
    return value


def validate_id(value: str, *, field: str = "id") -> str:
    reject_unsafe(value, field=field)
    if not _ID_RE.match(value):
        raise UnsafeNameError(
            M_(
                "{value!r} is not a valid id (letters, digits, '-' and '_', at most 80)",
                value=value,
            ),
            field=field,
        )
    return value


@functools.cache
def _project_re() -> re.Pattern[str]:
    # Compiled when a project id is first checked, not at every start: re walks the
    # 27,000 code points of \u3400-\u9fff twice in Python to compile it (~4 ms).
    return re.compile(r"^[A-Za-z0-9\u3400-\u9fff][A-Za-z0-9\u3400-\u9fff._-]{0,99}$")


def validate_project_id(value: str, *, field: str = "project") -> str:
    reject_unsafe(value, field=field)
    if not _project_re().match(value):
        raise UnsafeNameError(
            M_(
                "{value!r} is not a valid project id (letters, digits, Chinese, '.', '-', '_')",
                value=value,
            ),
            field=field,
        )
    return value


def ascii_slug(title: str, *, max_len: int = MAX_SLUG) -> str:
    """The former ASCII-only slug (``zh-`` plus a hash for a title with no ASCII words).

    Not a file name any more (see :func:`slugify`): kept, unchanged, where a
    slug is a stable key that earlier imports stored (a re-import must match).
    """
    from .secrets.detector import redact  # lazy: a slug is rarer than an import

    title = redact(title)
    norm = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii").lower()
    slug = _NON_SLUG.sub("-", norm).strip("-")
    if len(slug) > max_len:
        slug = slug[:max_len].rsplit("-", 1)[0] or slug[:max_len]
    has_non_ascii_words = any(ord(ch) > 127 and ch.isalnum() for ch in title)
    if not slug or (has_non_ascii_words and len(slug) < 3):
        digest = hashlib.sha1(title.encode("utf-8")).hexdigest()[:10]
        slug = f"{slug}-zh-{digest}" if slug else f"zh-{digest}"
    return slug


def _kept(ch: str) -> bool:
    """A character a slug keeps as it is: a non-ASCII letter, digit or combining mark.

    Everything else (punctuation, spaces, symbols, emoji, control, bidi and
    other invisible format characters, private use) separates words, so a
    slug can never carry a path separator, a reserved character, a dot or a
    space, nor reorder or hide part of a name on screen.
    """
    return unicodedata.category(ch)[0] in "LNM" and not _HIDDEN_RE.match(ch)


def _word_chars(title: str) -> Iterator[str]:
    """Lower-case word characters of ``title``, ``-`` between words (unmerged)."""
    last = "-"
    for ch in unicodedata.normalize("NFKC", title):
        if ch.isascii():
            last = ch.lower() if ch.isalnum() else "-"
        else:
            # Latin letters with accents fold to ASCII as they always did (é → e)
            folded = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
            if folded.isalnum():
                last = folded.lower()
            elif _kept(ch) and not (_is_mark(ch) and last == "-"):  # a mark needs its letter
                last = ch.lower()
            else:
                last = "-"
        yield last


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "M"


def _fits(value: str, max_len: int, max_bytes: int) -> bool:
    return (
        len(value) <= max_len
        and len(value.encode("utf-8")) <= max_bytes
        and len(unicodedata.normalize("NFD", value).encode("utf-16-le")) // 2 <= max_bytes
    )


def slugify(title: str, *, max_len: int = MAX_SLUG, max_bytes: int | None = None) -> str:
    """The readable slug of a file name: the title's words, lower case, joined by ``-``.

    Chinese, Japanese, Korean (any script's letters and digits) are kept as
    they are, so ``退款不计入收入`` names ``…_退款不计入收入.md``; Latin accents
    fold to ASCII (``café`` → ``cafe``) and full-width forms to their plain
    ones (NFKC). The result is NFC and at most ``max_len`` characters and
    ``max_bytes`` (default ``2 * max_len``) bytes in UTF-8 and UTF-16 units in
    NFD (ext4/APFS count UTF-8 bytes of a 255-byte name, NTFS UTF-16 units,
    HFS+ those of the decomposed name), cut at a word, else a character,
    boundary. A title with nothing readable gets ``x-`` and 10 hex digits of
    its SHA-1 (stable). Names made before (``zh-<hash>``) stay valid.
    """
    from .secrets.detector import redact  # lazy: a slug is rarer than an import

    # A secret in the title never reaches the name (nor its hash): the slug is
    # made from the redacted title (``…-redacted-aws-access-key``).
    title = redact(title)
    limit = 2 * max_len if max_bytes is None else max_bytes
    slug = _DASHES.sub("-", "".join(_word_chars(title))).strip("-")
    slug = unicodedata.normalize("NFC", slug)
    if not _fits(slug, max_len, limit):
        cut = slug
        while not _fits(cut, max_len, limit):
            cut = cut[:-1]
        if slug[len(cut)] != "-" and "-" in cut:  # cut inside a word: end at the last whole one
            cut = cut.rsplit("-", 1)[0]
        slug = cut.rstrip("-")
    if not slug:
        slug = f"x-{hashlib.sha1(title.encode('utf-8')).hexdigest()[:10]}"
    return slug


def is_slug(value: str) -> bool:
    """Words of ASCII ``[a-z0-9]`` or kept non-ASCII characters, joined by single ``-``.

    Both forms we ever wrote pass (``supplier-overlap``, ``zh-94ba0cadf2``,
    ``退款不计入收入``), in NFC or, as HFS+ lists them, NFD.
    """
    # Fast path (every entry name is checked on each listing): words of
    # letters and digits of any script, lower case. Only names with combining
    # marks (NFD, Indic scripts) need the character walk below.
    if _WORDS.fullmatch(value):
        return value == value.lower()
    if not value or value[0] == "-" or value[-1] == "-" or "--" in value:
        return False
    last = "-"
    for ch in value:
        if ch.isascii():
            if not (ch == "-" or ch.isdigit() or ("a" <= ch <= "z")):
                return False
        elif not _kept(ch) or ch.lower() != ch or (last == "-" and _is_mark(ch)):
            return False
        last = ch
    return True


def validate_slug(value: str, *, field: str = "slug") -> str:
    """A slug a person gave (``--slug``), in NFC: what :func:`slugify` could have made,
    at most :data:`MAX_GIVEN_SLUG` characters and twice that many bytes."""
    reject_unsafe(value, field=field)
    value = unicodedata.normalize("NFC", value)
    if not is_slug(value) or not _fits(value, MAX_GIVEN_SLUG, 2 * MAX_GIVEN_SLUG):
        raise UnsafeNameError(
            M_(
                "{value!r} is not a slug: lower-case words of letters and digits (Chinese "
                "included) joined by single '-', at most {limit} characters",
                value=value,
                limit=MAX_GIVEN_SLUG,
            ),
            field=field,
        )
    return value
