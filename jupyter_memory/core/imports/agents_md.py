"""Hand-written AGENTS.md / CLAUDE.md → knowledge proposals, and knowledge → AGENTS.md.

Everything outside our managed block (``core/knowledge/agents_block.py``) is
the person's: each top-level bullet or short paragraph under a heading
becomes one proposal, and the block as written is its evidence quote. Code
blocks, ``@path`` imports (Claude Code's include lines) and long paragraphs
are not single pieces of knowledge and are skipped with the reason.
"""

from __future__ import annotations

import re

from ..knowledge.agents_block import find_block
from ..knowledge.evidence import MAX_QUOTE_CHARS
from ..knowledge.extract import classify
from ..knowledge.format import INFO, RULES, SECTION_TITLES, KnowledgeDoc, map_heading
from .drafts import ParsedFile, ProposalDraft
from .markdown import Block, blocks

MAX_ITEM_CHARS = 1_000  # a proposal's cap (core/knowledge/proposals.py)
_IMPORT_LINE = re.compile(r"^@\S+$")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def kind_of(block: Block) -> str:
    """rule or info: the heading's section, else the sentence; instructions default to rule."""
    words = classify(block.text)
    if words is not None:
        return words
    if block.heading:
        section, _ = map_heading(block.heading)
        return "rule" if section == RULES else "info"
    return "rule"


# Headings that only name a section or the file: they add no subject to an item.
_PLAIN_HEADINGS = frozenset(
    {"rules", "info", "notes", "规则", "規則", "信息", "資訊", "知识", "知識", "说明", "說明"}
)


def _text(block: Block) -> str:
    # The heading gives a bare bullet its subject ("Testing: run pytest -q").
    head = block.heading.strip().casefold()
    if not head or head in _PLAIN_HEADINGS or head.startswith(("agents", "claude")):
        return block.text
    return f"{block.heading}: {block.text}" if block.bullet else block.text


INCLUDE_SKIPPED = "an @-import line names another file; import that file"


def _without_includes(block: Block, parsed: ParsedFile) -> Block | None:
    """A paragraph of ``@path`` lines (Claude Code puts one include per line, with no
    blank line between them) is reported line by line, never queued as one rule;
    what else the paragraph says stays a block of its own."""
    if block.bullet:
        if _IMPORT_LINE.match(block.text):
            parsed.skipped.append((f"line {block.line}", INCLUDE_SKIPPED))
            return None
        return block
    lines = block.raw.split("\n")
    kept = []
    for offset, line in enumerate(lines):
        if _IMPORT_LINE.match(line.strip()):
            parsed.skipped.append((f"line {block.line + offset}", INCLUDE_SKIPPED))
        else:
            kept.append((offset, line))
    if len(kept) == len(lines):
        return block
    if not kept or not any(line.strip() for _, line in kept):
        return None
    raw = "\n".join(line for _, line in kept).strip()
    return Block(block.heading, " ".join(raw.split()), raw, block.line + kept[0][0], False)


def parse_instructions(path: str, text: str, *, layer: str | None = None) -> ParsedFile:
    """One instructions file → one proposal per bullet or short paragraph."""
    found = find_block(text, path=path)
    if found is not None:  # our own block is derived from knowledge: never re-imported
        text = (
            text[: found.start]
            + "\n" * text.count("\n", found.start, found.end)
            + text[found.end :]
        )
    text = _HTML_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    parsed = ParsedFile(path)
    for block in blocks(text):
        rest = _without_includes(block, parsed)
        if rest is None:
            continue
        block = rest
        what = f"line {block.line}"
        item = _text(block)
        if len(item) > MAX_ITEM_CHARS or len(block.raw) > MAX_QUOTE_CHARS:
            parsed.skipped.append((what, f"over {MAX_ITEM_CHARS} characters: split it"))
            continue
        parsed.proposals.append(ProposalDraft(item, kind_of(block), block.raw, block.line, layer))
    return parsed


def render_agents_md(docs: list[tuple[str, KnowledgeDoc]]) -> str:
    """A plain AGENTS.md of approved knowledge: one section per layer, Rules then Info."""
    out = [
        "# AGENTS.md",
        "",
        "<!-- Exported by jupyter-memory: the approved knowledge, as plain Markdown. -->",
        "",
    ]
    for label, doc in docs:
        if doc.is_empty:
            continue
        out += [f"## {label}", ""]
        for section in (RULES, INFO):
            title = SECTION_TITLES[section]
            entries = doc.section(section)
            if not entries:
                continue
            out += [f"### {title}", ""]
            for entry in entries:
                out.append(f"- {entry.text}")
                out += [f"  - {child}" for child in entry.children]
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
