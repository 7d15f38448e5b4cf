"""``jupyter-memory install TARGET``: each tool's own config file, merged, idempotent, undone.

Every target runs against the test's own HOME (tests/conftest.py) whose config
already holds another server and other settings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

from jupyter_memory.cli.main import main
from jupyter_memory.core import agent_install as core
from jupyter_memory.exceptions import ParseError, ValidationError
from jupyter_memory.service import agent_install as svc

# What each target's file already holds before we come: another server, other settings,
# in the file's own formatting (4-space indent here, a comment and odd spacing in TOML).
EXISTING: dict[str, str] = {
    "claude-code": json.dumps(
        {
            "numStartups": 12,
            "theme": "dark",
            "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp", "args": []}},
            "projects": {"/x": {"allowedTools": ["Bash"]}},
        },
        indent=2,
    )
    + "\n",
    "cursor": json.dumps(
        {"mcpServers": {"sqlite": {"command": "uvx", "args": ["mcp-server-sqlite"]}}}, indent=4
    )
    + "\n",
    "vscode": json.dumps(
        {
            "inputs": [{"id": "key", "type": "promptString", "password": True}],
            "servers": {"fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-fetch"]}},
        },
        indent="\t",
    )
    + "\n",
    "claude-desktop": json.dumps(
        {
            "globalShortcut": "Ctrl+Space",
            "mcpServers": {"files": {"command": "npx", "args": ["fs"]}},
        },
        indent=2,
    ),  # no final newline: it must stay without one
    "jupyter-ai": json.dumps(
        {"mcp_servers": [{"name": "other", "command": "o", "args": [], "env": []}]}, indent=2
    )
    + "\n",
    "codex": (
        '# my codex settings\nmodel = "gpt-5"\napproval_policy = "on-request"\n\n'
        '[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]  # pinned\n\n'
        '[mcp_servers.docs.env]\nTOKEN_FILE = "~/.docs"\n\n[profiles.fast]\nmodel = "o4-mini"\n'
    ),
}


def _paths(home: Path) -> dict[str, Any]:
    return {"home": home, "env": {}, "platform": "linux", "cwd": home / "work"}


def _file(target: str, home: Path, project: Path | None = None) -> Path:
    return svc.config_file(svc.TARGETS[target], project=project, **_paths(home))


def _entry(target: str, project: Path | None = None) -> core.ServerEntry:
    return svc.entry_for(
        svc.TARGETS[target],
        project=project,
        memory_home=None,
        url=None,
        token=None,
        command=["/opt/venv/bin/jupyter-memory"],
    )


def _parsed(target: str, text: str) -> dict[str, Any]:
    return tomllib.loads(text) if target == "codex" else json.loads(text)


def _ours(target: str, data: dict[str, Any]) -> Any:
    if target == "jupyter-ai":
        return [s for s in data["mcp_servers"] if s["name"] == "jupyter-memory"]
    key = {"vscode": "servers", "codex": "mcp_servers"}.get(target, "mcpServers")
    return data[key].get("jupyter-memory")


EXPECTED_FILES = {
    "claude-code": ".claude.json",
    "codex": ".codex/config.toml",
    "cursor": ".cursor/mcp.json",
    "vscode": ".config/Code/User/mcp.json",
    "claude-desktop": ".config/Claude/claude_desktop_config.json",
    "jupyter-ai": "work/.jupyter/mcp_settings.json",
}


@pytest.mark.parametrize("target", sorted(EXISTING))
def test_install_keeps_everything_is_idempotent_and_uninstall_restores_the_bytes(
    target: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    path = _file(target, home)
    assert path == home / EXPECTED_FILES[target]
    path.parent.mkdir(parents=True)
    original = EXISTING[target].encode()
    path.write_bytes(original)
    os.chmod(path, 0o644)
    before = _parsed(target, EXISTING[target])

    first = svc.install(svc.TARGETS[target], path, _entry(target), dry_run=False)
    assert first.action == "installed" and "+" in first.diff
    after = _parsed(target, path.read_text())
    ours = _ours(target, after)
    assert ours, after
    # Everything that was there is still there, unchanged.
    for key, value in before.items():
        if key in ("mcpServers", "servers", "mcp_servers"):
            continue
        assert after[key] == value
    if target == "jupyter-ai":
        assert after["mcp_servers"][0] == before["mcp_servers"][0]
        assert ours[0]["command"] == "/opt/venv/bin/jupyter-memory"
        assert ours[0]["args"] == ["mcp", "--project", "auto"]
    else:
        key = {"vscode": "servers", "codex": "mcp_servers"}.get(target, "mcpServers")
        for name, value in before[key].items():
            assert after[key][name] == value
        assert ours["command"] == "/opt/venv/bin/jupyter-memory"
        assert ours["args"] == ["mcp", "--project", "auto"]
    assert path.with_name(path.name + ".jupyter-memory.bak").read_bytes() == original
    assert (path.stat().st_mode & 0o777) == 0o644

    written = path.read_bytes()
    again = svc.install(svc.TARGETS[target], path, _entry(target), dry_run=False)
    assert again.action == "unchanged" and again.diff == ""
    assert path.read_bytes() == written

    gone = svc.uninstall(svc.TARGETS[target], path, dry_run=False)
    assert gone.action == "restored"
    assert path.read_bytes() == original
    assert not path.with_name(path.name + ".jupyter-memory.bak").exists()
    assert svc.uninstall(svc.TARGETS[target], path, dry_run=False).action == "absent"


@pytest.mark.parametrize("target", sorted(EXISTING))
def test_uninstall_after_another_change_takes_out_only_ours(target: str, tmp_path: Path) -> None:
    path = _file(target, tmp_path / "home")
    path.parent.mkdir(parents=True)
    path.write_text(EXISTING[target])
    svc.install(svc.TARGETS[target], path, _entry(target), dry_run=False)
    text = path.read_text()
    # The tool (or the person) changes a setting after our install.
    if target == "codex":
        text = text.replace('model = "gpt-5"', 'model = "gpt-5.1"')
    else:
        data = json.loads(text)
        data["addedLater"] = True
        text = json.dumps(data, indent=2)
    path.write_text(text)
    assert svc.uninstall(svc.TARGETS[target], path, dry_run=False).action == "removed"
    result = _parsed(target, path.read_text())
    expected = _parsed(target, EXISTING[target])
    if target == "codex":
        expected["model"] = "gpt-5.1"
    else:
        expected["addedLater"] = True
    assert result == expected


@pytest.mark.parametrize("target", sorted(EXISTING))
def test_a_new_file_is_made_and_uninstall_removes_it(target: str, tmp_path: Path) -> None:
    path = _file(target, tmp_path / "home")
    svc.install(svc.TARGETS[target], path, _entry(target), dry_run=False)
    assert _ours(target, _parsed(target, path.read_text()))
    assert not path.with_name(path.name + ".jupyter-memory.bak").exists()
    assert svc.uninstall(svc.TARGETS[target], path, dry_run=False).action == "restored"
    assert not path.exists()


@pytest.mark.parametrize("target", sorted(EXISTING))
def test_dry_run_prints_the_diff_and_writes_nothing(target: str, tmp_path: Path) -> None:
    path = _file(target, tmp_path / "home")
    path.parent.mkdir(parents=True)
    path.write_text(EXISTING[target])
    result = svc.install(svc.TARGETS[target], path, _entry(target), dry_run=True)
    assert result.action == "installed"
    assert "+" in result.diff and "jupyter-memory" in result.diff
    assert path.read_text() == EXISTING[target]
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


BROKEN = {
    "claude-code": '{"mcpServers": {"a": 1},}',  # trailing comma
    "vscode": '{\n  // a comment\n  "servers": {}\n}',
    "cursor": '["not", "an", "object"]',
    "claude-desktop": '{"mcpServers": ["a list"]}',
    "jupyter-ai": '{"mcp_servers": {"x": 1}}',
    "codex": "[mcp_servers.docs\ncommand = 1\n",
}


@pytest.mark.parametrize("target", sorted(BROKEN))
def test_a_broken_config_is_refused_naming_the_file(target: str, tmp_path: Path) -> None:
    path = _file(target, tmp_path / "home")
    path.parent.mkdir(parents=True)
    path.write_text(BROKEN[target])
    with pytest.raises(ParseError) as err:
        svc.install(svc.TARGETS[target], path, _entry(target), dry_run=False)
    assert str(path) in str(err.value)
    assert path.read_text() == BROKEN[target]
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_codex_inline_servers_table_is_refused_not_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    text = 'mcp_servers = { docs = { command = "npx" } }\n'
    path.write_text(text)
    with pytest.raises(ValidationError, match="edit it by hand"):
        svc.install(svc.TARGETS["codex"], path, _entry("codex"), dry_run=False)
    assert path.read_text() == text


def test_codex_reinstall_with_another_entry_replaces_only_our_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(EXISTING["codex"])
    svc.install(svc.TARGETS["codex"], path, _entry("codex"), dry_run=False)
    http = core.ServerEntry(url="http://127.0.0.1:8765/mcp", token="tok")
    assert svc.install(svc.TARGETS["codex"], path, http, dry_run=False).action == "updated"
    data = tomllib.loads(path.read_text())
    assert data["mcp_servers"]["jupyter-memory"] == {
        "url": "http://127.0.0.1:8765/mcp",
        "http_headers": {"Authorization": "Bearer tok"},
    }
    assert data["mcp_servers"]["docs"]["env"] == {"TOKEN_FILE": "~/.docs"}
    # The backup is still the file from before our first install.
    assert path.with_name("config.toml.jupyter-memory.bak").read_text() == EXISTING["codex"]
    assert svc.uninstall(svc.TARGETS["codex"], path, dry_run=False).action == "restored"
    assert path.read_text() == EXISTING["codex"]


def test_project_files_and_pinned_project(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "sales-q3"
    assert _file("claude-code", home, project) == project / ".mcp.json"
    assert _file("codex", home, project) == project / ".codex/config.toml"
    assert _file("cursor", home, project) == project / ".cursor/mcp.json"
    assert _file("vscode", home, project) == project / ".vscode/mcp.json"
    assert _file("jupyter-ai", home, project) == project / ".jupyter/mcp_settings.json"
    # Claude Desktop has no project file: the project is pinned on the command line.
    assert _file("claude-desktop", home, project) == _file("claude-desktop", home)
    assert _entry("claude-desktop", project).args == ("mcp", "--project", str(project))
    assert core.json_value("servers", _entry("vscode", project))["cwd"] == "${workspaceFolder}"
    mac = svc.config_file(
        svc.TARGETS["claude-desktop"], project=None, home=home, env={}, platform="darwin", cwd=home
    )
    assert mac == home / "Library/Application Support/Claude/claude_desktop_config.json"
    win = svc.config_file(
        svc.TARGETS["vscode"],
        project=None,
        home=home,
        env={"APPDATA": str(tmp_path / "Roaming")},
        platform="win32",
        cwd=home,
    )
    assert win == tmp_path / "Roaming/Code/User/mcp.json"
    with pytest.raises(ValidationError, match="stdio only"):
        svc.entry_for(
            svc.TARGETS["claude-desktop"],
            project=None,
            memory_home=None,
            url="http://127.0.0.1:1/mcp",
            token="t",
            command=["x"],
        )


def test_http_entry_carries_the_token_in_each_format() -> None:
    entry = core.ServerEntry(url="http://127.0.0.1:8765/mcp", token="tok")
    assert core.json_value("mcpServers", entry) == {
        "type": "http",
        "url": "http://127.0.0.1:8765/mcp",
        "headers": {"Authorization": "Bearer tok"},
    }
    assert core.json_value("jupyter-ai", entry)["headers"] == [
        {"name": "Authorization", "value": "Bearer tok"}
    ]


def test_cli_url_writes_the_memory_homes_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install", "cursor", "--url", "http://127.0.0.1:8765/mcp"]) == 0
    out = capsys.readouterr().out
    assert "check:" in out and "<token>" not in out
    assert main(["mcp", "--print-token"]) == 0
    token = capsys.readouterr().out.strip()
    data = json.loads((Path.home() / ".cursor/mcp.json").read_text())
    assert data["mcpServers"]["jupyter-memory"]["headers"] == {"Authorization": f"Bearer {token}"}
    assert main(["--json", "install", "cursor", "--uninstall"]) == 0
    assert json.loads(capsys.readouterr().out)["action"] == "restored"
    assert not (Path.home() / ".cursor/mcp.json").exists()


def test_cli_in_a_subprocess_installs_and_uninstalls_codex(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(EXISTING["codex"])
    run = [sys.executable, "-m", "jupyter_memory.cli.main", "install", "codex"]
    dry = subprocess.run([*run, "--dry-run"], capture_output=True, text=True, check=True)
    assert "+[mcp_servers.jupyter-memory]" in dry.stdout and "dry run" in dry.stdout
    assert config.read_text() == EXISTING["codex"]
    done = subprocess.run(run, capture_output=True, text=True, check=True)
    assert "codex mcp list" in done.stdout
    server = tomllib.loads(config.read_text())["mcp_servers"]["jupyter-memory"]
    assert server["args"][-3:] == ["mcp", "--project", "auto"]
    # The command it wrote starts our server: --help answers from the same installation.
    helped = subprocess.run(
        [server["command"], *server["args"][:-3], "mcp", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "--project" in helped.stdout
    subprocess.run([*run, "--uninstall"], capture_output=True, text=True, check=True)
    assert config.read_text() == EXISTING["codex"]
    broken = home / ".cursor" / "mcp.json"
    broken.parent.mkdir()
    broken.write_text("{oops")
    refused = subprocess.run(
        [sys.executable, "-m", "jupyter_memory.cli.main", "install", "cursor"],
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0
    assert str(broken) in refused.stderr and "not valid JSON" in refused.stderr
    assert broken.read_text() == "{oops"


def test_the_installed_entry_starts_a_server_an_mcp_client_reaches(tmp_path: Path) -> None:
    """The entry written for Claude Code's project file, run as that client would run it."""
    import asyncio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from jupyter_memory import Memory

    project = tmp_path / "sales-q3"
    project.mkdir()
    with Memory(project=str(project)) as person:  # registered by the person
        person.save_knowledge("project", "## Rules\n- Refunds net against the order month.\n")
    target = svc.TARGETS["claude-code"]
    path = _file("claude-code", Path.home(), project)
    entry = svc.entry_for(
        target,
        project=project,
        memory_home=None,
        url=None,
        token=None,
        command=[sys.executable, "-m", "jupyter_memory.cli.main"],
    )
    svc.install(target, path, entry, dry_run=False)
    server = json.loads(path.read_text())["mcpServers"]["jupyter-memory"]

    async def context() -> str:
        params = StdioServerParameters(
            command=server["command"], args=server["args"], env=dict(os.environ), cwd=project
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            result = await s.call_tool("memory_context", {})
            return "".join(getattr(c, "text", "") for c in result.content)

    # --project auto, started in the project folder: the project's knowledge.
    assert "Refunds net against the order month." in asyncio.run(context())


def test_project_must_be_a_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["install", "cursor", "--project", "no-such-folder"]) != 0
    err = capsys.readouterr().err
    assert "no-such-folder is not a folder" in err and "--project" in err
    assert not (Path.cwd() / "no-such-folder").exists()
