"""Every REST route refuses a body it does not expect, and nothing stored changes (issue 19 F).

Strict bodies: a boolean is a JSON boolean (``"yes"`` is not true), ``null``
is refused where a value is required, unknown fields are refused, a body that
is not a JSON object is refused; each answer is a 422 naming the field. Read
routes take no body at all. Each bad request runs against the real server and
the memory home is compared byte for byte before and after.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_server_queue import propose


def stored(home: Path) -> dict[str, str]:
    """sha256 of every stored file (the derived index and lock files aside)."""
    out = {}
    for path in sorted(home.rglob("*")):
        rel = path.relative_to(home)
        if path.is_dir() or rel.parts[0] == ".index" or path.name.endswith(".lock"):
            continue
        out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


async def refused(api, home: Path, method: str, parts: tuple[str, ...], body: Any, field: str):
    before = stored(home)
    kwargs: dict[str, Any] = {}
    if method == "GET":
        kwargs["allow_nonstandard_methods"] = True
    code, data = await api(method, *parts, body=body, **kwargs)
    assert code == 422, (method, parts, body, code, data)
    assert data["field"] == field, (body, data)
    assert field in data["message"], data
    assert stored(home) == before, (method, parts, body)


# (route, a valid body, {field: a wrong-typed value}, fields that must not be null)
WRITE_ROUTES = {
    "settings": (("PUT", ("settings",)), {"enabled": True}, {"enabled": "yes"}, ["enabled"]),
    "settings-auto": (
        ("PUT", ("settings",)),
        {"auto_suggestions": False},
        {"auto_suggestions": 1},
        ["auto_suggestions", "agents_md_autosync"],
    ),
    "knowledge": (
        ("PUT", ("knowledge", "user")),
        {"text": "## Rules\n"},
        {"text": 5},
        ["text"],
    ),
    "apply": (("POST", ("queue", "PID", "apply")), {"to": "user"}, {"to": 1}, ["to"]),
    "process-all": (("POST", ("queue", "process-all")), {}, {"expect": "3"}, ["expect"]),
    "projects": (("POST", ("projects",)), {"path": "p"}, {"path": ["p"]}, ["path"]),
    "dismiss": (("POST", ("queue", "PID", "dismiss")), {}, {}, []),
    "reorganize": (("POST", ("knowledge", "user", "reorganize")), {}, {}, []),
    "revert": (("POST", ("queue", "PID", "revert")), {}, {"then": 1}, ["then"]),
    "reorganize-text": (
        ("POST", ("knowledge", "user", "reorganize-text")),
        {"text": "## Rules\n"},
        {"text": 5},
        ["text"],
    ),
    "merge": (
        ("POST", ("knowledge", "user", "merge")),
        {"base": "", "ours": "## Rules\n", "theirs": "## Info\n"},
        {"ours": 5, "theirs": ["x"], "base": True},
        ["base", "ours", "theirs"],
    ),
}


@pytest.fixture
def pid(server_memory) -> str:
    return propose(server_memory, "Dates are stored in UTC")


def _parts(parts: tuple[str, ...], pid: str) -> tuple[str, ...]:
    return tuple(pid if p == "PID" else p for p in parts)


@pytest.mark.parametrize("name", list(WRITE_ROUTES))
async def test_write_route_refuses_unknown_wrong_typed_null_and_non_objects(
    api, memory_home, pid, name
):
    (method, parts), valid, wrong, non_null = WRITE_ROUTES[name]
    parts = _parts(parts, pid)
    await refused(api, memory_home, method, parts, {**valid, "x": 1}, "x")
    for field, value in wrong.items():
        await refused(api, memory_home, method, parts, {**valid, field: value}, field)
    for field in non_null:
        await refused(api, memory_home, method, parts, {**valid, field: None}, field)
    for not_an_object in ("null", "[1]", '"yes"', "3"):
        await refused(api, memory_home, method, parts, not_an_object, "body")


async def test_reorganize_with_a_bad_body_does_not_start(api, memory_home):
    await refused(api, memory_home, "POST", ("knowledge", "user", "reorganize"), {"x": 1}, "x")
    code, data = await api("GET", "knowledge", "user", "reorganize")
    assert code == 404, data


async def test_settings_keep_their_values_after_refused_puts(api, server_memory):
    for body in ({"enabled": "yes"}, {"enabled": None}, {"enabled": 0}, {"enabled": "false"}):
        code, data = await api("PUT", "settings", body=body)
        assert code == 422 and data["field"] == "enabled", (body, data)
    assert server_memory.settings["enabled"] is True
    code, data = await api("PUT", "settings", body={"enabled": False})
    assert code == 200 and data["enabled"] is False


async def test_apply_still_takes_a_null_project_for_the_user_layer(api, server_memory, pid):
    # The panel sends {"to": "user", "project": null}: null means "no project" here.
    code, data = await api("POST", "queue", pid, "apply", body={"to": "user", "project": None})
    assert code == 200, data


READ_ROUTES = [
    ("queue",),
    ("knowledge", "user"),
    ("knowledge", "user", "status"),
    ("settings",),
    ("projects",),
    ("memories",),
    ("cases",),
    ("cases", "CASE-2026-001"),
    ("cases", "CASE-2026-001", "entries", "x.md"),
    ("knowledge", "user", "reorganize"),
    ("queue", "applied"),
    ("queue", "process-all", "plan"),
]


@pytest.mark.parametrize("parts", READ_ROUTES, ids="/".join)
async def test_read_route_refuses_any_body(api, memory_home, parts):
    for body in ({"x": 1}, {"enabled": "yes"}, "null"):
        await refused(api, memory_home, "GET", parts, body, "body")
