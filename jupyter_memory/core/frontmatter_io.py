"""Parse and render memory files: YAML frontmatter + Markdown body.

Parsing is defensive because files are edited by hand and merged by git:
size caps before YAML sees anything, YAML aliases refused (alias bombs),
frontmatter must be a mapping with string keys, reserved keys refused, and
every error names the file and the field.
"""

from __future__ import annotations

import functools
import os
import re
from datetime import datetime
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from .._i18n import M_, Message, joined
from ..exceptions import OversizeError, ParseError
from .memories.models import MemoryEntry, MemoryMeta
from .validation import field_path, problem_message
from .yaml_lines import NotFlat, dump_flat, load_flat

MAX_FILE_BYTES = 1_000_000
MAX_FRONTMATTER_BYTES = 64_000
_CLOSE_RE = re.compile(r"\n---\r?(?:\n|$)")
RESERVED_KEYS = frozenset({"text", "path", "layer", "body", "content"})

# PyYAML is imported where it is used: most files are flat frontmatter (yaml_lines.py),
# and a CLI call or an MCP server's start should not pay for the import.


@functools.cache
def _loaders() -> tuple[Any, Any]:
    """(libyaml's fast loader, the checking loader that refuses anchors and aliases)."""
    import yaml

    class _NoAliasLoader(yaml.SafeLoader):
        """SafeLoader that refuses anchors/aliases outright (no alias bombs)."""

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()  # type: ignore[no-untyped-call]
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise yaml.YAMLError(
                    f"YAML anchors and aliases are not allowed (line {event.start_mark.line + 1})"
                )
            return super().compose_node(parent, index)

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader), _NoAliasLoader


def load_yaml(text: str) -> Any:
    """Safe YAML without anchors or aliases.

    libyaml's C loader is ~10× faster but cannot be hooked, so it only sees
    text without '&' or '*'; anything else goes through the checking loader.
    """
    import yaml

    fast, checking = _loaders()
    if "&" not in text and "*" not in text:
        return yaml.load(text, Loader=fast)  # noqa: S506 - a SafeLoader
    return yaml.load(text, Loader=checking)  # noqa: S506 - a SafeLoader


def decode_file(data: bytes, *, path: os.PathLike[str] | str | None = None) -> str:
    """Bytes of a stored file to text, with size, NUL and UTF-8 checks."""
    if len(data) > MAX_FILE_BYTES:
        raise ParseError(
            M_("file is {size} bytes, over the {limit} cap", size=len(data), limit=MAX_FILE_BYTES),
            path=path,
        )
    if b"\x00" in data:
        raise ParseError(M_("file contains NUL bytes"), path=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(M_("invalid UTF-8 at byte {start}", start=exc.start), path=path) from exc


def split_frontmatter(
    text: str, *, path: os.PathLike[str] | str | None = None
) -> tuple[dict[str, Any], str]:
    """Return (metadata mapping, body); raise :class:`ParseError` naming the problem."""
    # Our own split (not the library's regex, whose greedy boundary eats blank
    # lines) so that parse and render are exact inverses.
    if text.startswith("---\n"):
        start = 4
    elif text.startswith("---\r\n"):
        start = 5
    else:
        raise ParseError(M_("no YAML frontmatter (file must start with a '---' line)"), path=path)
    match = _CLOSE_RE.search(text, start - 1)
    if match is None:
        raise ParseError(M_("frontmatter is not closed by a '---' line"), path=path)
    fm = text[start : match.start() + 1]
    body = text[match.end() :]
    if body.startswith("\n"):
        body = body[1:]
    if len(fm.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        raise ParseError(
            M_("frontmatter over {limit} bytes", limit=MAX_FRONTMATTER_BYTES), path=path
        )
    meta = load_flat(fm)
    if meta is not None and RESERVED_KEYS.isdisjoint(meta):
        return meta, body  # our own lines: a mapping with string keys, none reserved
    if meta is None:
        import yaml

        try:
            meta = load_yaml(fm)
        except yaml.YAMLError as exc:
            raise ParseError(M_("malformed YAML frontmatter: {exc}", exc=exc), path=path) from exc
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise ParseError(
            M_("frontmatter must be a mapping, not a {kind}", kind=type(meta).__name__), path=path
        )
    for key in meta:
        if not isinstance(key, str):
            raise ParseError(M_("frontmatter key {key!r} is not a string", key=key), path=path)
        if key in RESERVED_KEYS:
            raise ParseError(M_("frontmatter key {key!r} is reserved", key=key), path=path)
    return meta, body


def _describe(exc: PydanticValidationError) -> Message:
    parts: list[str] = []
    for err in exc.errors():
        loc = field_path(err["loc"]) or "frontmatter"
        parts.append(M_("field {field!r}: {msg}", field=loc, msg=problem_message(err)))
    return joined("; ", parts)


def parse_memory(data: bytes | str, *, path: os.PathLike[str] | str | None = None) -> MemoryEntry:
    text = data if isinstance(data, str) else decode_file(data, path=path)
    if isinstance(data, str) and len(data.encode("utf-8")) > MAX_FILE_BYTES:
        raise ParseError(M_("file over the {limit}-byte cap", limit=MAX_FILE_BYTES), path=path)
    meta_dict, body = split_frontmatter(text, path=path)
    try:
        meta = MemoryMeta.model_validate(meta_dict)
        return MemoryEntry(
            meta=meta, text=body, path=None if path is None else os.path.basename(os.fspath(path))
        )
    except PydanticValidationError as exc:
        raise ParseError(_describe(exc), path=path) from exc
    except ValueError as exc:  # our own validators' errors (unsafe names)
        raise ParseError(str(exc), path=path) from exc


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def render_memory(entry: MemoryEntry) -> str:
    """Frontmatter + body; ``parse_memory(render_memory(e))`` gives ``e`` back."""
    meta = entry.meta.model_dump(exclude_none=False)
    for key, value in meta.items():
        if hasattr(value, "value") and not isinstance(value, (str, int, float)):
            meta[key] = value.value
    if meta.get("project") is None:
        meta.pop("project", None)
    if not meta.get("supersedes"):  # only a memory that restates another says so
        meta.pop("supersedes", None)
    text = entry.text
    size = len(text.encode("utf-8"))
    if size > MAX_FILE_BYTES - MAX_FRONTMATTER_BYTES:
        raise OversizeError(M_("text is {size} bytes, over the cap", size=size), field="text")
    try:
        fm = dump_flat(meta)
    except NotFlat:  # exotic extra keys: PyYAML writes them correctly, only slower
        import yaml

        fm = yaml.safe_dump(
            {k: _plain(v) for k, v in meta.items()},
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=False,
            width=10_000,
        )
    return f"---\n{fm}---\n\n{text}"
