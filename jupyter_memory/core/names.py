"""Safe names: slugs, ids, project ids and file names.

Everything that becomes part of a path goes through here, so path traversal
(``../``, absolute paths, ``~``, drive letters, separators, control characters)
is refused in one place with the offending field named.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from .._i18n import M_
from ..exceptions import UnsafeNameError, ValidationError

MAX_SLUG = 60
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$")
_PROJECT_RE = re.compile(r"^[A-Za-z0-9\u3400-\u9fff][A-Za-z0-9\u3400-\u9fff._-]{0,99}$")
_DRIVE_RE = re.compile(r"^[A-Za-z]:")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
_NON_SLUG = re.compile(r"[^a-z0-9]+")


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


def validate_project_id(value: str, *, field: str = "project") -> str:
    reject_unsafe(value, field=field)
    if not _PROJECT_RE.match(value):
        raise UnsafeNameError(
            M_(
                "{value!r} is not a valid project id (letters, digits, Chinese, '.', '-', '_')",
                value=value,
            ),
            field=field,
        )
    return value


def slugify(title: str, *, max_len: int = MAX_SLUG) -> str:
    """ASCII kebab-case slug; a title with no ASCII words gets a short hash.

    Chinese titles are not transliterated (that would need a dictionary and
    would guess): ``zh-`` plus 10 hex digits of the title's sha1 keeps file
    names stable and safe, while the title itself stays in frontmatter.
    A secret in the title never reaches the name (nor its hash): the slug is
    made from the redacted title (``…-redacted-aws-access-key``).
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


def validate_slug(value: str, *, field: str = "slug") -> str:
    reject_unsafe(value, field=field)
    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", value) or len(value) > 80:
        raise UnsafeNameError(
            M_("{value!r} is not a kebab-case ASCII slug", value=value), field=field
        )
    return value
