"""Claude Code memory files → proposals (instructions) and memories (notes).

Claude Code keeps instructions in ``CLAUDE.md`` (``~/.claude/CLAUDE.md`` for
the user, ``./CLAUDE.md`` or ``./.claude/CLAUDE.md`` for a project,
``CLAUDE.local.md``) and ``.claude/rules/*.md``; those are read like
AGENTS.md, one proposal per item. Its auto memory
(``~/.claude/projects/<project>/memory/``) is notes Claude wrote for the
person: topic files with frontmatter ``name``, ``description`` and ``type``
(user, feedback, project, reference) become memories, and ``MEMORY.md`` is
their index: a line linking to a topic file is skipped (the file itself is
imported), any other line is a memory of its own.
"""

from __future__ import annotations

import re

from ..._i18n import M_
from ...exceptions import ParseError
from ..names import ascii_slug
from .agents_md import parse_instructions
from .drafts import MemoryDraft, ParsedFile
from .markdown import blocks, split_optional_frontmatter

INSTRUCTION_NAMES = frozenset({"CLAUDE.md", "CLAUDE.local.md"})
INDEX_NAME = "MEMORY.md"
# feedback is a correction of how to work: procedural; project state is episodic.
_TYPES = {
    "user": "semantic",
    "feedback": "procedural",
    "project": "episodic",
    "reference": "semantic",
}
_LINK_RE = re.compile(r"\[[^\]]*\]\(([^)\s]+\.md)\)")


def kind_of_file(path: str, *, memory_folder: bool = False) -> str | None:
    """``instructions``, ``index``, ``note`` or ``None`` (not a Claude Code memory file).

    ``memory_folder``: the imported folder is an auto-memory folder itself
    (it holds MEMORY.md), so its top-level Markdown files are notes.
    """
    parts = path.split("/")
    name = parts[-1]
    if name in INSTRUCTION_NAMES:
        return "instructions"
    if len(parts) >= 2 and parts[-2] == "rules" and name.endswith(".md"):
        return "instructions"
    in_memory = (len(parts) == 1 and memory_folder) or (len(parts) >= 2 and parts[-2] == "memory")
    if in_memory and name == INDEX_NAME:
        return "index"
    if in_memory and name.endswith(".md"):
        return "note"
    return None


def parse_topic(path: str, text: str) -> MemoryDraft:
    meta, body, body_line = split_optional_frontmatter(text, path=path)
    if not body.strip():
        raise ParseError(M_("the memory file has no text"), path=path)
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    title = " ".join(str(meta.get("name") or stem).split())
    kind = str(meta.get("type") or "").lower()
    extra = {"claude_memory_file": path}
    if meta.get("description"):
        extra["description"] = str(meta["description"])
    if kind:
        extra["claude_memory_type"] = kind
    return MemoryDraft(
        text=body,
        title=title,
        key=f"claude-memory:{path}",
        type=_TYPES.get(kind, "semantic"),
        tags=[kind] if kind in _TYPES else [],
        extra=extra,
        line=body_line,
        reviewed=False,  # Claude wrote it (auto memory), not the person
    )


def parse_index(path: str, text: str, topic_files: frozenset[str]) -> ParsedFile:
    """MEMORY.md: link lines point at topic files (imported themselves); others are memories."""
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    parsed = ParsedFile(path)
    for block in blocks(text):
        link = _LINK_RE.search(block.text)
        if link and folder + link.group(1).removeprefix("./") in topic_files:
            parsed.skipped.append((f"line {block.line}", f"index line for {link.group(1)}"))
            continue
        parsed.memories.append(
            MemoryDraft(
                text=block.text,
                title=block.text[:77] + "…" if len(block.text) > 80 else block.text,
                key=f"claude-memory:{path}:{ascii_slug(block.text, max_len=40)}",
                extra={"claude_memory_file": path},
                line=block.line,
                reviewed=False,  # Claude's own index line
            )
        )
    return parsed


def parse_file(
    path: str,
    text: str,
    *,
    layer: str | None,
    topic_files: frozenset[str],
    memory_folder: bool = False,
) -> ParsedFile:
    kind = kind_of_file(path, memory_folder=memory_folder)
    if kind == "instructions":
        # .claude/rules files may carry `paths:` frontmatter: said in words, like NBI scopes
        meta, body, body_line = split_optional_frontmatter(text, path=path)
        parsed = parse_instructions(path, "\n" * (body_line - 1) + body, layer=layer)
        paths = meta.get("paths")
        if isinstance(paths, str):
            paths = [paths]
        if isinstance(paths, list) and paths:
            suffix = " (for files " + ", ".join(str(p) for p in paths) + ")"
            for prop in parsed.proposals:
                prop.text += suffix
        return parsed
    if kind == "index":
        return parse_index(path, text, topic_files)
    if kind == "note":
        parsed = ParsedFile(path)
        parsed.memories.append(parse_topic(path, text))
        return parsed
    raise ParseError(
        M_("not a Claude Code memory file (CLAUDE.md, rules/*.md, memory/*.md)"), path=path
    )
