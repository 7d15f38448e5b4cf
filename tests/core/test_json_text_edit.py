"""Our entry in a hand-formatted JSON config: only our lines change (core/json_text_edit.py)."""

from __future__ import annotations

import json

import pytest

from jupyter_memory.core import agent_install as core
from jupyter_memory.core import json_text_edit as jt

ENTRY = core.ServerEntry(command="/bin/jm", args=("mcp", "--project", "auto"))

LAID_OUT = """{
  "editor.fontSize": 13,
  "mcpServers": {
    "sqlite": { "command": "uvx", "args": ["mcp-server-sqlite", "--db", "a.db"] },
    "git":    {"command": "uvx", "args": ["mcp-server-git"]}
  },
  "tail":   [1,2,   3]
}
"""


def _removed_lines(before: str, after: str) -> set[str]:
    return set(before.splitlines()) - set(after.splitlines())


def test_adding_to_a_hand_laid_out_file_changes_only_our_lines() -> None:
    edit = core.add(LAID_OUT, "mcpServers", ENTRY, "mcp.json")
    assert edit.after is not None
    data = json.loads(edit.after)
    assert data["mcpServers"]["jupyter-memory"]["command"] == "/bin/jm"
    # Only the line that gains a comma is touched; every other line is as it was.
    assert _removed_lines(LAID_OUT, edit.after) == {
        '    "git":    {"command": "uvx", "args": ["mcp-server-git"]}'
    }
    assert '    "git":    {"command": "uvx", "args": ["mcp-server-git"]},' in edit.after
    assert '  "tail":   [1,2,   3]' in edit.after
    back = core.remove(edit.after, "mcpServers", "mcp.json", drop_container=False)
    assert back.after == LAID_OUT


@pytest.mark.parametrize(
    ("before", "fmt"),
    [
        ('{"theme": "dark"}\n', "mcpServers"),  # no container yet
        ('{\n  "servers": {},\n  "inputs": []\n}\n', "servers"),  # an empty one
        (
            '{\n  "mcp_servers": [\n    {"name": "o", "command": "o", "args": [], "env": []}\n  ]\n}\n',
            "jupyter-ai",
        ),
        ("{}", "mcpServers"),
    ],
)
def test_add_then_remove_gives_the_same_text_back(before: str, fmt: core.Format) -> None:
    edit = core.add(before, fmt, ENTRY, "f.json")
    assert edit.after is not None and core.current(edit.after, fmt, "f.json") is not None
    drop = not core.has_container(before, fmt, "f.json")
    back = core.remove(edit.after, fmt, "f.json", drop_container=drop)
    assert back.after == before


def test_replacing_our_entry_keeps_its_layout_and_the_rest() -> None:
    edit = core.add(LAID_OUT, "mcpServers", ENTRY, "mcp.json")
    assert edit.after is not None
    http = core.ServerEntry(url="http://127.0.0.1:8765/mcp", token="t")
    again = core.add(edit.after, "mcpServers", http, "mcp.json")
    assert again.after is not None
    assert json.loads(again.after)["mcpServers"]["jupyter-memory"]["url"].endswith("/mcp")
    assert '    "sqlite": { "command": "uvx", "args": ["mcp-server-sqlite", "--db", "a.db"] },' in (
        again.after
    )


def test_members_spans_and_a_duplicate_key_falls_back_to_a_full_dump() -> None:
    text = '{"a": 1, "b": [2, 3]}'
    close, found = jt.members(text, 0)
    assert close == len(text) - 1
    assert [(m.key, text[m.value_start : m.end]) for m in found] == [("a", "1"), ("b", "[2, 3]")]
    dup = '{"mcpServers": {}, "mcpServers": {"x": {}}}'
    edit = core.add(dup, "mcpServers", ENTRY, "f.json")
    assert edit.after is not None
    assert set(json.loads(edit.after)["mcpServers"]) == {"x", "jupyter-memory"}
