"""``jupyter-memory install TARGET``: our MCP server in another tool's own configuration.

Which file each target reads (user scope, or a project's with ``--project``)
and in which format lives here; the format edits are ``core/agent_install.py``
(pure), the file's reading, writing and backup ``store/agent_config_file.py``.
docs/agents.md, "Installing the MCP server", has the table and how to check.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .._i18n import M_
from ..core import agent_install as fmt
from ..core.agent_install import SERVER_NAME, Format, ServerEntry
from ..exceptions import ValidationError
from ..store import agent_config_file as files

Action = Literal["installed", "updated", "unchanged", "removed", "restored", "absent"]


@dataclass(frozen=True)
class Target:
    name: str
    format: Format
    # How the person sees that it worked (docs/agents.md repeats it).
    check: str
    project_file: str | None  # relative to the project folder, None: no project scope
    stdio_only: bool = False


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("claude-code", "mcpServers", "claude mcp list  (or /mcp in a session)", ".mcp.json"),
        Target("codex", "codex", "codex mcp list  (or /mcp in a session)", ".codex/config.toml"),
        Target(
            "cursor", "mcpServers", "Cursor Settings → MCP lists jupyter-memory", ".cursor/mcp.json"
        ),
        Target(
            "vscode",
            "servers",
            "Command Palette → MCP: List Servers → jupyter-memory → Start",
            ".vscode/mcp.json",
        ),
        Target(
            "claude-desktop",
            "mcpServers",
            "restart Claude Desktop; Settings → Developer lists jupyter-memory",
            None,
            stdio_only=True,
        ),
        Target(
            "jupyter-ai",
            "jupyter-ai",
            "a new chat message to an ACP agent (Claude, Codex …) can call memory_context",
            ".jupyter/mcp_settings.json",
        ),
    )
}


def _app_config_dir(home: Path, env: Mapping[str, str], platform: str) -> Path:
    """Where desktop apps keep their settings: Application Support, %APPDATA%, XDG."""
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform.startswith("win"):
        return Path(env.get("APPDATA") or home / "AppData" / "Roaming")
    return Path(env.get("XDG_CONFIG_HOME") or home / ".config")


def config_file(
    target: Target,
    *,
    project: Path | None,
    home: Path,
    env: Mapping[str, str],
    platform: str,
    cwd: Path,
) -> Path:
    """The file this target reads our server from."""
    if target.name == "jupyter-ai":  # found from the chat's folder up to the server root
        return (project or cwd) / ".jupyter" / "mcp_settings.json"
    if project is not None and target.project_file is not None:
        return project / target.project_file
    if target.name == "claude-code":
        return home / ".claude.json"
    if target.name == "codex":
        return Path(env.get("CODEX_HOME") or home / ".codex") / "config.toml"
    if target.name == "cursor":
        return home / ".cursor" / "mcp.json"
    if target.name == "vscode":
        return _app_config_dir(home, env, platform) / "Code" / "User" / "mcp.json"
    return _app_config_dir(home, env, platform) / "Claude" / "claude_desktop_config.json"


def server_command() -> list[str]:
    """How a tool starts our CLI: this installation's ``jupyter-memory`` script."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name == "jupyter-memory" and script.is_file():
        return [str(script.resolve())]
    found = _which("jupyter-memory")
    if found:
        return [found]
    return [sys.executable, "-m", "jupyter_memory.cli.main"]


def _which(name: str) -> str | None:
    import shutil

    return shutil.which(name)


def entry_for(
    target: Target,
    *,
    project: Path | None,
    memory_home: str | None,
    url: str | None,
    token: str | None,
    command: list[str],
) -> ServerEntry:
    """stdio by default (``mcp --project auto``: the focus of the folder the tool starts it
    in); a tool without project files gets ``--project DIR`` pinned when one is given."""
    if url:
        if target.stdio_only:
            raise ValidationError(
                M_(
                    "{target} starts MCP servers itself (stdio only): drop --url",
                    target=target.name,
                ),
                field="--url",
            )
        return ServerEntry(url=url, token=token or "")
    args = ["mcp"]
    if memory_home:
        args += ["--home", str(Path(memory_home).expanduser().resolve())]
    pinned = project is not None and target.project_file is None
    args += ["--project", str(project) if pinned else "auto"]
    cwd = "${workspaceFolder}" if target.name == "vscode" and project is not None else ""
    return ServerEntry(command=command[0], args=(*command[1:], *args), cwd=cwd)


@dataclass(frozen=True)
class InstallResult:
    target: str
    path: Path
    action: Action
    diff: str
    dry_run: bool
    backup: Path | None
    check: str
    entry: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "path": str(self.path),
            "action": self.action,
            "diff": self.diff,
            "dry_run": self.dry_run,
            "backup": str(self.backup) if self.backup else None,
            "check": self.check,
            "server": SERVER_NAME,
            "entry": self.entry,
        }


def _diff(path: Path, before: str | None, after: str | None) -> str:
    lines = difflib.unified_diff(
        (before or "").splitlines(keepends=True),
        (after or "").splitlines(keepends=True),
        fromfile=str(path) if before is not None else "/dev/null",
        tofile=str(path) if after is not None else "/dev/null",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _redacted(entry: ServerEntry) -> dict[str, Any]:
    out = entry.to_dict()
    if entry.token:
        out["headers"] = {"Authorization": "Bearer <token>"}
    return out


def install(target: Target, path: Path, entry: ServerEntry, *, dry_run: bool) -> InstallResult:
    """Merge our entry into ``path``; the bytes before our first change are kept beside it."""
    before = files.read_config(path)
    where = str(path)
    edit = fmt.add(before, target.format, entry, where)
    had_ours = fmt.current(before, target.format, where) is not None
    action: Action = "unchanged" if not edit.changed else ("updated" if had_ours else "installed")
    backup = None
    if edit.changed and not dry_run:
        if before is not None and not had_ours:
            # Only a file without our entry is the one --uninstall gives back.
            backup = files.write_backup(path, before.encode("utf-8"))
        assert edit.after is not None
        files.write_config(path, edit.after.encode("utf-8"))
    return InstallResult(
        target.name,
        path,
        action,
        _diff(path, before, edit.after),
        dry_run,
        backup,
        target.check,
        _redacted(entry),
    )


def uninstall(target: Target, path: Path, *, dry_run: bool) -> InstallResult:
    """Take out exactly our entry: the original bytes back when nothing else changed since."""
    before = files.read_config(path)
    where = str(path)
    ours = fmt.current(before, target.format, where)
    if ours is None:
        return InstallResult(target.name, path, "absent", "", dry_run, None, target.check, {})
    entry = fmt.entry_from(ours, target.format) or ServerEntry()
    raw_backup = files.read_backup(path)
    backup_text = raw_backup.decode("utf-8", "replace") if raw_backup is not None else None
    usable = backup_text is not None and fmt.current(backup_text, target.format, where) is None
    original: bytes | None
    if usable and fmt.add(backup_text, target.format, entry, where).after == before:
        action: Action = "restored"
        original = raw_backup
        after_text = backup_text
    elif raw_backup is None and fmt.add(None, target.format, entry, where).after == before:
        action, original, after_text = "restored", None, None  # we made the file: it goes
    else:
        action = "removed"
        drop = not usable or not fmt.has_container(backup_text, target.format, where)
        after_text = fmt.remove(before, target.format, where, drop_container=drop).after
        original = after_text.encode("utf-8") if after_text is not None else None
    if not dry_run:
        files.write_config(path, original)
        if action == "restored" and raw_backup is not None:
            files.drop_backup(path)
    return InstallResult(
        target.name,
        path,
        action,
        _diff(path, before, after_text),
        dry_run,
        None,
        target.check,
        _redacted(entry),
    )


def target_named(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise ValidationError(
            M_("unknown target '{name}'; one of: {names}", name=name, names=", ".join(TARGETS)),
            field="TARGET",
        ) from None


def default_paths() -> dict[str, Any]:
    """The process's HOME, environment, platform and folder (what ``config_file`` needs)."""
    return {
        "home": Path.home(),
        "env": dict(os.environ),
        "platform": sys.platform,
        "cwd": Path.cwd(),
    }


__all__ = [
    "TARGETS",
    "InstallResult",
    "Target",
    "config_file",
    "default_paths",
    "entry_for",
    "install",
    "server_command",
    "target_named",
    "uninstall",
]
