"""No text a person or an agent reads cites an internal spec or issue number.

A user has the product, its help and its guides, not our specs or our tracker: a help
text says what a command does ("the session digest's rules"), never "(spec 001)".
docs/design.md (the contributors' map from spec to modules) and docs/contributing.md
may cite them; code comments and module docstrings may too (test_design_refs.py checks
that those resolve to design.md).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_design_refs import CODE_SPAN_RE, FENCE_RE, SPEC_RE

REPO = Path(__file__).resolve().parents[1]
CONTRIBUTOR_PAGES = {"design.md", "contributing.md"}
CATALOGUE = REPO / "jupyter_memory/locale/zh_CN/LC_MESSAGES/jupyter_memory.po"
# "spec 001", "specs 000 and 003", "spec-001", "规格 001"; "issue 12", "issues 3", "#14".
INTERNAL_RE = re.compile(
    rf"{SPEC_RE.pattern}|\b(?:spec|规格|规范)\s*\d{{3}}\b|\bissues?\s+#?\d+|(?<![\w&#])#\d+\b",
    re.IGNORECASE,
)


def internal_citations(name: str, text: str) -> list[str]:
    return [
        f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
        for m in INTERNAL_RE.finditer(text)
    ]


def test_citation_forms_are_recognised():
    text = "a (spec 001)\nb specs 000 and 003, Spec-002\nc issue 12, #4\nd 规格 001\ne &#12; spec-ish\n"
    assert [c.split(": ", 1)[1] for c in internal_citations("x", text)] == [
        "'spec 001'",
        "'specs 000 and 003'",
        "'Spec-002'",
        "'issue 12'",
        "'#4'",
        "'规格 001'",
    ]


def _user_pages() -> dict[str, Path]:
    pages = {
        p.relative_to(REPO).as_posix(): p
        for p in sorted((REPO / "docs").glob("*.md"))
        if p.name not in CONTRIBUTOR_PAGES
    }
    pages["README.md"] = REPO / "README.md"
    return pages


def test_no_user_doc_cites_a_spec_or_an_issue():
    pages = _user_pages()
    assert len(pages) >= 8  # the guides exist; far fewer means the glob broke
    cited = []
    for name, path in pages.items():
        # fenced blocks are commands and outputs, which the help checks below cover
        text = FENCE_RE.sub(lambda m: "\n" * m.group(0).count("\n"), path.read_text("utf-8"))
        # a code span is literal data ("`kernel-<id>#3`"), yet never a path into the specs
        cited += [
            f"{name}: {m.group(0)}"
            for m in CODE_SPAN_RE.finditer(text)
            if re.search(r"\bspecs?(?:\b|/)", m[0])
        ]
        text = CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), text)
        cited += internal_citations(name, text)
    assert not cited, "say what the spec asks, in product terms:\n" + "\n".join(cited)


def _parsers(parser: argparse.ArgumentParser, name: str) -> Iterator[tuple[str, str]]:
    yield name, parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from _parsers(child, f"{name} {sub}")


def cli_help() -> dict[str, str]:
    from jupyter_memory.cli.main import build_parser

    return dict(_parsers(build_parser(), "jupyter-memory"))


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_no_cli_help_cites_a_spec_or_an_issue(lang: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", lang)
    helps = cli_help()
    assert "jupyter-memory digest" in helps and "jupyter-memory case note" in helps
    # the help really is in that language (the catalogue's msgstr are checked too)
    assert ("会话摘要" in helps["jupyter-memory"]) == (lang == "zh_CN")
    cited = [c for name, text in helps.items() for c in internal_citations(name, text)]
    assert not cited, "help text cites internal documents:\n" + "\n".join(cited)


def magic_help() -> dict[str, str]:
    """What ``%name?`` shows: each magic's docstring (magic_arguments adds its options)."""
    from jupyter_memory.agents.ask_magic import AskMagics
    from jupyter_memory.magics.memory_magics import MemoryMagics

    found: dict[str, str] = {}
    for cls in (MemoryMagics, AskMagics):
        for kind, table in cls.magics.items():
            for magic, attr in table.items():
                found[f"%{magic} ({kind})"] = getattr(cls, attr).__doc__ or ""
    return found


def test_no_magic_help_cites_a_spec_or_an_issue():
    helps = magic_help()
    assert {"%memory (line)", "%recall (line)", "%case (line)", "%ask (cell)"} <= set(helps)
    assert all(helps.values()), [name for name, doc in helps.items() if not doc]
    cited = [c for name, text in helps.items() for c in internal_citations(name, text)]
    assert not cited, "magic help cites internal documents:\n" + "\n".join(cited)


@pytest.mark.anyio
async def test_no_mcp_tool_description_cites_a_spec_or_an_issue(memory_home: Path):
    from jupyter_memory import Memory
    from jupyter_memory.agents import mcp_compat
    from jupyter_memory.agents.mcp_server import INSTRUCTIONS, build_server
    from jupyter_memory.service.agent_access import AgentAccess

    with Memory(memory_home) as mem:
        server = build_server(AgentAccess(mem, agent="mcp", agent_writes=True))
        async with mcp_compat.open_memory_client(server) as s:
            tools = (await s.list_tools()).tools
    assert "remember" in {t.name for t in tools}
    texts = {"instructions": INSTRUCTIONS}
    for tool in tools:
        # the description and every argument's description, as the agent receives them
        texts[tool.name] = f"{tool.description}\n{tool.model_dump_json()}"
    cited = [c for name, text in texts.items() for c in internal_citations(name, text)]
    assert not cited, "an agent reads these; they cite internal documents:\n" + "\n".join(cited)


def test_no_catalogue_message_cites_a_spec_or_an_issue():
    """Every message a person reads, in both languages (the catalogue's comments may)."""
    lines = CATALOGUE.read_text("utf-8").splitlines()
    text = "\n".join("" if line.startswith("#") else line for line in lines)
    cited = internal_citations(CATALOGUE.name, text)
    assert not cited, "messages cite internal documents:\n" + "\n".join(cited)
