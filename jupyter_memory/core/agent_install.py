"""Our MCP server as an entry of another tool's configuration file: pure text in, text out.

``jupyter-memory install TARGET`` (docs/agents.md, "Installing the MCP server")
merges one entry named ``jupyter-memory`` into a tool's own file and takes out
exactly that entry again. Each format is edited so that everything else in the
file stays: JSON is parsed, changed and written back with the file's own
indentation (key order kept); TOML, for which only a reader ships with Python,
gets our table appended or cut out as text, and the result is parsed again and
compared with what was meant, so an edit that would change anything else is
refused rather than written.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Literal

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from .._i18n import M_
from ..exceptions import ParseError, ValidationError
from . import json_text_edit as jt

SERVER_NAME = "jupyter-memory"

Format = Literal["mcpServers", "servers", "codex", "jupyter-ai"]


@dataclass(frozen=True)
class ServerEntry:
    """How the tool reaches our server: a command (stdio) or a URL with the token (HTTP)."""

    command: str = ""
    args: tuple[str, ...] = ()
    url: str = ""
    token: str = ""
    cwd: str = ""  # VS Code only: the folder the server starts in

    @property
    def http(self) -> bool:
        return bool(self.url)

    def to_dict(self) -> dict[str, Any]:
        return {"command": self.command, "args": list(self.args), "url": self.url}


@dataclass(frozen=True)
class Edit:
    """One file's change: the text before (``None``: no file) and after (``None``: remove it)."""

    before: str | None
    after: str | None
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _bearer(entry: ServerEntry) -> str:
    return f"Bearer {entry.token}"


def json_value(fmt: Format, entry: ServerEntry) -> Any:
    """Our entry as the tool documents it (docs/agents.md, the targets' table)."""
    if fmt == "jupyter-ai":  # jupyter_ai_persona_manager.mcp_server_models (ACP's schema)
        if entry.http:
            return {
                "type": "http",
                "name": SERVER_NAME,
                "url": entry.url,
                "headers": [{"name": "Authorization", "value": _bearer(entry)}],
            }
        return {"name": SERVER_NAME, "command": entry.command, "args": list(entry.args), "env": []}
    if entry.http:
        return {"type": "http", "url": entry.url, "headers": {"Authorization": _bearer(entry)}}
    value: dict[str, Any] = {"type": "stdio", "command": entry.command, "args": list(entry.args)}
    if fmt == "servers" and entry.cwd:
        value["cwd"] = entry.cwd
    return value


# --- JSON ---------------------------------------------------------------------------------


def _indent_of(text: str) -> int | str:
    """The indentation the file uses (its first indented line), else 2 spaces."""
    match = re.search(r"\n([ \t]+)\S", text)
    if match is None:
        return 2
    lead = match.group(1)
    return lead if "\t" in lead else len(lead)


def _dump(data: Any, before: str | None) -> str:
    text = json.dumps(data, indent=_indent_of(before or ""), ensure_ascii=False)
    ending = "\n" if before is None or before.endswith("\n") or not before.strip() else ""
    return text + ending


def parse_json(text: str | None, path: str) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(
            M_(
                "not valid JSON ({reason}); nothing was written (comments and trailing "
                "commas are not JSON: edit the file by hand)",
                reason=exc.msg,
            ),
            path=path,
            line=exc.lineno,
        ) from exc
    if not isinstance(data, dict):
        raise ParseError(M_("must be a JSON object"), path=path)
    return data


def _container_key(fmt: Format) -> str:
    return {"mcpServers": "mcpServers", "servers": "servers", "jupyter-ai": "mcp_servers"}[fmt]


def _container(data: dict[str, Any], fmt: Format, path: str) -> Any:
    key = _container_key(fmt)
    value = data.get(key)
    wanted = list if fmt == "jupyter-ai" else dict
    if value is not None and not isinstance(value, wanted):
        raise ParseError(
            M_("field '{field}' must be a JSON {kind}", field=key, kind=wanted.__name__),
            path=path,
        )
    return value


def _ours(item: Any) -> bool:
    return isinstance(item, dict) and item.get("name") == SERVER_NAME


def _kept_layout(before: str | None, meant: dict[str, Any], edit: Any) -> str:
    """``edit(before)``, our member changed in place, when it says exactly ``meant``;
    else the whole document re-dumped with the file's indentation."""
    if before is not None and before.strip():
        try:
            after: str = edit(before)
            if json.loads(after) == meant:
                return after
        except (ValueError, IndexError, KeyError):
            pass
    return _dump(meant, before)


def _find(found: list[jt.Member], key: str) -> jt.Member | None:
    return next((m for m in found if m.key == key), None)


def _ours_at(text: str, found: list[jt.Member]) -> list[int]:
    return [i for i, m in enumerate(found) if _ours(json.loads(text[m.value_start : m.end]))]


def _add_in_place(fmt: Format, value: Any, indent: int | str) -> Any:
    key = _container_key(fmt)

    def edit(text: str) -> str:
        top_at = jt.top(text)
        holder = _find(jt.members(text, top_at)[1], key)
        if holder is None:
            wrapped = [value] if fmt == "jupyter-ai" else {SERVER_NAME: value}
            return jt.insert(text, top_at, key, wrapped, indent)
        found = jt.members(text, holder.value_start)[1]
        if fmt == "jupyter-ai":
            at = _ours_at(text, found)
            if len(at) == 1:
                return jt.replace(text, found[at[0]], value, indent)
            return jt.insert(text, holder.value_start, None, value, indent)
        mine = _find(found, SERVER_NAME)
        if mine is not None:
            return jt.replace(text, mine, value, indent)
        return jt.insert(text, holder.value_start, SERVER_NAME, value, indent)

    return edit


def _remove_in_place(fmt: Format, drop_container: bool) -> Any:
    key = _container_key(fmt)

    def edit(text: str) -> str:
        top_at = jt.top(text)
        holder = _find(jt.members(text, top_at)[1], key)
        assert holder is not None
        found = jt.members(text, holder.value_start)[1]
        if fmt == "jupyter-ai":
            at = _ours_at(text, found)
        else:
            at = [i for i, m in enumerate(found) if m.key == SERVER_NAME]
        for index in reversed(at):
            text = jt.delete(text, holder.value_start, index)
        if drop_container and not jt.members(text, holder.value_start)[1]:
            tops = jt.members(text, top_at)[1]
            text = jt.delete(text, top_at, tops.index(_find(tops, key) or holder))
        return text

    return edit


def json_add(before: str | None, fmt: Format, entry: ServerEntry, path: str) -> Edit:
    data = parse_json(before, path)
    container = _container(data, fmt, path)
    value = json_value(fmt, entry)
    key = _container_key(fmt)
    if fmt == "jupyter-ai":
        items = list(container or [])
        if [i for i in items if _ours(i)] == [value]:
            return Edit(before, before)
        kept = [i for i in items if not _ours(i)]
        data[key] = [*kept, value]
    else:
        servers = dict(container or {})
        if servers.get(SERVER_NAME) == value:
            return Edit(before, before)
        servers[SERVER_NAME] = value
        data[key] = servers
    edit = _add_in_place(fmt, value, _indent_of(before or ""))
    return Edit(before, _kept_layout(before, data, edit))


def json_entry(text: str | None, fmt: Format, path: str) -> Any:
    """Our entry as the file holds it now, ``None`` when it has none."""
    container = _container(parse_json(text, path), fmt, path)
    if fmt == "jupyter-ai":
        found = [i for i in container or [] if _ours(i)]
        return found[0] if found else None
    return (container or {}).get(SERVER_NAME)


def json_remove(before: str | None, fmt: Format, path: str, *, drop_container: bool) -> Edit:
    """Our entry out; its container too when it is left empty and was not there before us."""
    data = parse_json(before, path)
    container = _container(data, fmt, path)
    key = _container_key(fmt)
    if fmt == "jupyter-ai":
        if not any(_ours(i) for i in container or []):
            return Edit(before, before)
        rest: Any = [i for i in container if not _ours(i)]
    else:
        if SERVER_NAME not in (container or {}):
            return Edit(before, before)
        rest = {k: v for k, v in container.items() if k != SERVER_NAME}
    if rest or not drop_container:
        data[key] = rest
    else:
        del data[key]
    return Edit(before, _kept_layout(before, data, _remove_in_place(fmt, drop_container)))


# --- TOML (Codex's config.toml) -----------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")
_OUR_TABLES = {
    f"mcp_servers.{SERVER_NAME}",
    f'mcp_servers."{SERVER_NAME}"',
    f"mcp_servers.'{SERVER_NAME}'",
}


def parse_toml(text: str | None, path: str) -> dict[str, Any]:
    try:
        data: dict[str, Any] = tomllib.loads(text or "")
        return data
    except tomllib.TOMLDecodeError as exc:
        raise ParseError(
            M_("not valid TOML ({reason}); nothing was written", reason=str(exc)), path=path
        ) from exc


def _toml_string(value: str) -> str:
    # JSON's escapes (\" \\ \n and \u with four hex digits) are TOML basic-string escapes too.
    return json.dumps(value, ensure_ascii=False)


def toml_table(entry: ServerEntry) -> str:
    lines = [f"[mcp_servers.{SERVER_NAME}]"]
    if entry.http:
        lines.append(f"url = {_toml_string(entry.url)}")
        lines.append(f"http_headers = {{ Authorization = {_toml_string(_bearer(entry))} }}")
    else:
        lines.append(f"command = {_toml_string(entry.command)}")
        lines.append("args = [" + ", ".join(_toml_string(a) for a in entry.args) + "]")
    return "\n".join(lines) + "\n"


def _toml_value(entry: ServerEntry) -> dict[str, Any]:
    value: dict[str, Any] = tomllib.loads(toml_table(entry))["mcp_servers"][SERVER_NAME]
    return value


def _is_ours(header: str) -> bool:
    name = re.sub(r"\s*\.\s*", ".", header)
    return any(name == t or name.startswith(t + ".") for t in _OUR_TABLES)


def _cut_ours(text: str) -> str:
    """The text without our table (and its sub-tables) and the blank line before it."""
    out: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        header = _HEADER.match(line.rstrip("\r\n"))
        if header is not None and not line.lstrip().startswith("[["):
            inside = _is_ours(header.group(1))
            if inside:
                while out and not out[-1].strip():
                    out.pop()
                continue
        if not inside:
            out.append(line)
    return "".join(out)


def _servers(data: dict[str, Any]) -> dict[str, Any]:
    value = data.get("mcp_servers")
    return value if isinstance(value, dict) else {}


def _check(after: str, meant: dict[str, Any], path: str) -> None:
    # The self-check that makes a text edit safe: the result says exactly what was meant.
    try:
        got = tomllib.loads(after)
    except tomllib.TOMLDecodeError:
        got = None
    if got != meant:
        raise ValidationError(
            M_(
                "{path}: our table [mcp_servers.{name}] cannot be edited in this file without "
                "changing something else (is it written inline or as dotted keys?); nothing "
                "was written: edit it by hand",
                path=path,
                name=SERVER_NAME,
            ),
            field="mcp_servers",
        )


def toml_add(before: str | None, entry: ServerEntry, path: str) -> Edit:
    data = parse_toml(before, path)
    if "mcp_servers" in data and not isinstance(data["mcp_servers"], dict):
        raise ParseError(M_("field '{field}' must be a table", field="mcp_servers"), path=path)
    value = _toml_value(entry)
    if _servers(data).get(SERVER_NAME) == value:
        return Edit(before, before)
    base = _cut_ours(before or "") if SERVER_NAME in _servers(data) else (before or "")
    if base and not base.endswith("\n"):
        base += "\n"
    after = base + ("\n" if base.strip() else "") + toml_table(entry)
    meant = dict(data)
    meant["mcp_servers"] = {**_servers(data), SERVER_NAME: value}
    _check(after, meant, path)
    return Edit(before, after)


def toml_entry(text: str | None, path: str) -> Any:
    return _servers(parse_toml(text, path)).get(SERVER_NAME)


def toml_remove(before: str | None, path: str, *, drop_container: bool) -> Edit:
    data = parse_toml(before, path)
    if SERVER_NAME not in _servers(data):
        return Edit(before, before)
    after = _cut_ours(before or "")
    meant = dict(data)
    rest = {k: v for k, v in _servers(data).items() if k != SERVER_NAME}
    meant["mcp_servers"] = rest
    if not rest and "mcp_servers" not in parse_toml(after, path):
        # TOML makes [mcp_servers] implicitly from our table's name: it goes with it,
        # while a [mcp_servers] the person wrote stays (drop_container has no say here).
        del meant["mcp_servers"]
    _check(after, meant, path)
    return Edit(before, after)


# --- one entry point per operation ----------------------------------------------------------


def add(before: str | None, fmt: Format, entry: ServerEntry, path: str) -> Edit:
    if fmt == "codex":
        return toml_add(before, entry, path)
    return json_add(before, fmt, entry, path)


def remove(before: str | None, fmt: Format, path: str, *, drop_container: bool) -> Edit:
    if fmt == "codex":
        return toml_remove(before, path, drop_container=drop_container)
    return json_remove(before, fmt, path, drop_container=drop_container)


def current(text: str | None, fmt: Format, path: str) -> Any:
    """Our entry in ``text`` (parsed), ``None`` when there is none."""
    if fmt == "codex":
        return toml_entry(text, path)
    return json_entry(text, fmt, path)


def has_container(text: str | None, fmt: Format, path: str) -> bool:
    if fmt == "codex":
        return "mcp_servers" in parse_toml(text, path)
    return _container_key(fmt) in parse_json(text, path)


def entry_from(value: Any, fmt: Format) -> ServerEntry | None:
    """The :class:`ServerEntry` a file's entry of ours describes (to recompute an install)."""
    if not isinstance(value, dict):
        return None
    if fmt == "jupyter-ai":
        headers = {
            h.get("name"): h.get("value") for h in value.get("headers") or [] if isinstance(h, dict)
        }
    elif fmt == "codex":
        headers = value.get("http_headers") or {}
    else:
        headers = value.get("headers") or {}
    auth = str(headers.get("Authorization") or "") if isinstance(headers, dict) else ""
    return ServerEntry(
        command=str(value.get("command") or ""),
        args=tuple(str(a) for a in value.get("args") or []),
        url=str(value.get("url") or ""),
        token=auth.removeprefix("Bearer "),
        cwd=str(value.get("cwd") or ""),
    )


__all__ = [
    "SERVER_NAME",
    "Edit",
    "Format",
    "ServerEntry",
    "add",
    "current",
    "entry_from",
    "has_container",
    "json_value",
    "remove",
    "toml_table",
]
