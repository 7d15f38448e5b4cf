"""The managed jupyter-memory block inside AGENTS.md / CLAUDE.md (pure text, no I/O).

A block is::

    <!-- BEGIN jupyter-memory v:1 hash:<12 hex> pad:<n> -->
    ...content...
    <!-- END jupyter-memory -->

The content sits *between* the markers, not inside a comment: Claude Code hides
HTML comments from the model, so only the markers cost nothing. ``hash`` is the
sha256 of the content as we wrote it; a block whose content no longer matches
was edited by hand and is not overwritten. ``pad`` counts the newlines we
added in front of an appended block, so removing it gives back the file as it
was, byte for byte.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass

from ..._i18n import M_
from ...exceptions import ParseError
from .context import BLOCK_TAG, LAYER_TAG, PREAMBLE, neutralize

BLOCK_VERSION = 1
END_MARKER = "<!-- END jupyter-memory -->"
# The attributes end where no space precedes (the lookbehind): the lazy ``[^\n]*?``
# tried ``\s*-->`` from every space of a run of them (quadratic in the run); it
# stops at the same place, the start of the spaces before ``-->``.
_BEGIN_RE = re.compile(
    r"^<!-- BEGIN jupyter-memory(?P<attrs>[^\n]*?)(?<!\s)\s*-->[ \t]*\r?$", re.MULTILINE
)
_END_RE = re.compile(r"^<!-- END jupyter-memory -->[ \t]*(?:\r?\n|$)", re.MULTILINE)
# Starts only where a word starts: from inside a word the rest of it was scanned again
# (quadratic in a long word); a match never started inside a word anyway.
_ATTR_RE = re.compile(r"(?<!\w)(\w+):(\S+)")
HASH_CHARS = 12


def content_hash(content: str) -> str:
    """Hash of block content, blind to line endings (a CRLF checkout is not an edit)."""
    normal = content.replace("\r\n", "\n")
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:HASH_CHARS]


@dataclass(frozen=True)
class Block:
    start: int  # offset of the BEGIN marker
    end: int  # offset just past the END marker's line (and its newline)
    content: str  # the text between the marker lines
    stored_hash: str | None
    pad: int

    @property
    def edited(self) -> bool:
        return self.stored_hash != content_hash(self.content)


def newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def find_block(text: str, *, path: str = "AGENTS.md") -> Block | None:
    """The managed block in ``text``; a malformed or repeated block is a clear error."""
    begins = list(_BEGIN_RE.finditer(text))
    if not begins:
        if _END_RE.search(text):
            raise ParseError(M_("END jupyter-memory marker without a BEGIN marker"), path=path)
        return None
    if len(begins) > 1:
        line = text.count("\n", 0, begins[1].start()) + 1
        raise ParseError(M_("more than one BEGIN jupyter-memory marker"), path=path, line=line)
    begin = begins[0]
    end = _END_RE.search(text, begin.end())
    if end is None:
        line = text.count("\n", 0, begin.start()) + 1
        raise ParseError(
            M_("BEGIN jupyter-memory marker without an END marker"), path=path, line=line
        )
    body_start = begin.end() + (1 if text[begin.end() : begin.end() + 1] == "\n" else 0)
    content = text[body_start : end.start()]
    attrs = dict(_ATTR_RE.findall(begin.group("attrs")))
    pad = attrs.get("pad", "0")
    return Block(
        start=begin.start(),
        end=end.end(),
        content=content,
        stored_hash=attrs.get("hash"),
        pad=int(pad) if pad.isdigit() else 0,
    )


def neutralize_markers(content: str) -> str:
    """Stored text cannot open or close our block: look-alike markers are escaped."""
    return re.sub(r"<!--(\s*(?:BEGIN|END)\s+jupyter-memory)", r"&lt;!--\1", content, flags=re.I)


def render_block(content: str, *, newline: str = "\n", pad: int = 0) -> str:
    """The block for ``content`` (always ending in a newline)."""
    # One line-ending style inside the block: the file's (a lone CR would read as one).
    body = neutralize_markers(content.replace("\r\n", "\n").replace("\r", "\n"))
    if not body.endswith("\n"):
        body += "\n"
    begin = f"<!-- BEGIN jupyter-memory v:{BLOCK_VERSION} hash:{content_hash(body)} pad:{pad} -->"
    block = f"{begin}\n{body}{END_MARKER}\n"
    return block.replace("\n", newline) if newline != "\n" else block


def upsert_block(text: str, content: str, *, path: str = "AGENTS.md") -> str:
    """``text`` with its block set to ``content``: replaced in place, or appended."""
    nl = newline_of(text)
    found = find_block(text, path=path)
    if found is not None:
        block = render_block(content, newline=nl, pad=found.pad)
        return text[: found.start] + block + text[found.end :]
    if not text or text.endswith(nl + nl):
        pad_text = ""
    elif text.endswith(nl):
        pad_text = nl
    else:
        pad_text = nl + nl
    pad = pad_text.count("\n")
    return text + pad_text + render_block(content, newline=nl, pad=pad)


def remove_block(text: str, *, path: str = "AGENTS.md") -> str:
    """``text`` without its block (and the newlines we added in front of it)."""
    found = find_block(text, path=path)
    if found is None:
        return text
    start = found.start
    nl = newline_of(text[: found.start] + text[found.end :])  # the style it was inserted with
    pad_text = nl * found.pad
    # Only an appended block (the last thing in the file) carries padding we added.
    if found.end == len(text) and pad_text and text[:start].endswith(pad_text):
        start -= len(pad_text)
    return text[:start] + text[found.end :]


def block_diff(old: str, new: str, *, path: str = "AGENTS.md") -> str:
    """A unified diff of block contents, for the person to see what differs."""
    lines = difflib.unified_diff(
        old.replace("\r\n", "\n").splitlines(keepends=True),
        new.replace("\r\n", "\n").splitlines(keepends=True),
        fromfile=f"{path} (block as edited)",
        tofile=f"{path} (block from approved knowledge)",
    )
    return "".join(lines)


# -- what goes inside the block -------------------------------------------------------------

AGENTS_MD_MAX_BYTES = 32 * 1024  # Codex reads at most 32 KiB of AGENTS.md (project_doc_max_bytes)
HEADING = "## Approved knowledge (jupyter-memory)"
MANAGED_NOTE = (
    "This section is kept by `jupyter-memory agents-md sync` from knowledge the person "
    "reviewed and approved. Edit the knowledge with jupyter-memory, not here: a hand edit "
    "stops the sync. To suggest new knowledge, call the `propose_knowledge` tool of the "
    "jupyter-memory MCP server (or `jupyter-memory propose`); the person decides."
)
CATALOG_NOTE = (
    "Catalog mode (the full text would not fit the agents' size limit): only labels are "
    'listed. Read the entries under a label with `jupyter-memory expand "<label>"` or the '
    "`expand_knowledge_catalog` tool."
)
DISABLED_NOTE = "jupyter-memory is switched off by the person: no knowledge is shared."
EMPTY_NOTE = "No knowledge has been approved yet."


def block_content(context_block: str, *, disabled: bool = False) -> str:
    """Block content around an approved-knowledge block (flat or the service's catalog)."""
    body = DISABLED_NOTE if disabled else context_block.strip() or EMPTY_NOTE
    return f"{HEADING}\n\n{MANAGED_NOTE}\n\n{body}\n"


def catalog_content(labels: list[tuple[str, str]], byte_budget: int) -> str:
    """Labels only (``(layer, label)`` pairs), cut at a label boundary to fit ``byte_budget``.

    Still delimited like the service's context block: stored text stays data.
    """
    head = f"{HEADING}\n\n{MANAGED_NOTE}\n\n{CATALOG_NOTE}\n\n"
    # Frame: open/close tags, preamble, one layer tag pair per layer, notice.
    used = len(head.encode("utf-8")) + len(PREAMBLE.encode("utf-8")) + 400
    groups: dict[str, list[str]] = {}
    for i, (layer, label) in enumerate(labels):
        line = f"- {neutralize(label)}"
        cost = len(line.encode("utf-8")) + 1
        if used + cost > byte_budget:
            groups.setdefault(layer, []).append(
                f"[truncated: {len(labels) - i} more labels are not listed]"
            )
            break
        groups.setdefault(layer, []).append(line)
        used += cost
    parts = [
        f'<{LAYER_TAG} layer="{layer}" mode="catalog">\n' + "\n".join(lines) + f"\n</{LAYER_TAG}>"
        for layer, lines in groups.items()
    ]
    body = PREAMBLE + "\n" + "\n".join(parts)
    nonce = hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]
    block = f'<{BLOCK_TAG} nonce="{nonce}">\n{body}\n</{BLOCK_TAG} nonce="{nonce}">'
    return neutralize_markers(head + block + "\n")
