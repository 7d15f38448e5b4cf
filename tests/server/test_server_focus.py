"""``/jupyter-memory/focus``: the project a notebook works in, as the panel shows and sets it."""

from __future__ import annotations

import json
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.server.changes import SCHEMA_ID
from tests.support.waiting import until


def _notebook(root: Path, rel: str) -> Path:
    nb = root / rel
    nb.parent.mkdir(parents=True, exist_ok=True)
    nb.write_text("{}", encoding="utf-8")
    return nb


async def test_get_answers_what_the_kernel_and_the_chats_beside_it_use(
    api, jp_root_dir: Path, server_memory: Memory
) -> None:
    nb = _notebook(jp_root_dir, "analysis/orders.ipynb")
    code, data = await api("GET", "focus", params={"path": "analysis/orders.ipynb"})
    assert code == 200 and data["project"] is None and data["source"] == "none"
    sales = jp_root_dir / "sales-q3"
    sales.mkdir()
    server_memory.focus(sales, notebook=nb)  # %memory focus in the notebook's kernel
    code, data = await api("GET", "focus", params={"path": "analysis/orders.ipynb"})
    assert code == 200
    assert (data["project"], data["source"], data["folder"]) == ("sales-q3", "explicit", str(sales))
    # A notebook without a choice, inside a registered project: inferred, not registered.
    _notebook(jp_root_dir, "sales-q3/nb/a.ipynb")
    code, data = await api("GET", "focus", params={"path": "sales-q3/nb/a.ipynb"})
    assert (data["project"], data["source"]) == ("sales-q3", "folder")


async def test_put_is_the_persons_choice_and_every_surface_follows_it(
    api, jp_serverapp, jp_root_dir: Path, server_memory: Memory, memory_home: Path
) -> None:
    seen: list[dict] = []

    async def listener(logger, schema_id, data):
        seen.append(dict(data))

    jp_serverapp.event_logger.add_listener(schema_id=SCHEMA_ID, listener=listener)
    nb = _notebook(jp_root_dir, "analysis/orders.ipynb")
    ops = jp_root_dir / "ops"
    ops.mkdir()
    server_memory.register_project(ops)
    body = {"path": "analysis/orders.ipynb", "project": "ops"}
    code, data = await api("PUT", "focus", body=body)
    assert code == 200 and (data["project"], data["source"]) == ("ops", "explicit")
    await until(lambda: {"area": "focus", "reason": "focus", "project": "ops"} in seen)
    with Memory(memory_home) as other:  # the kernel, a chat, an MCP server
        assert other.hooks.focus_of(notebook=nb).project == "ops"
        assert other.hooks.focus_of(folder=nb.parent).project == "ops"
    code, data = await api("PUT", "focus", body={"path": "analysis/orders.ipynb", "project": None})
    assert code == 200 and (data["project"], data["source"]) == (None, "explicit")
    # A choice made in a kernel is announced too (polling), so the panel header follows.
    seen.clear()
    server_memory.focus("ops", notebook=nb)
    await until(lambda: {"area": "focus", "reason": "external"} in seen)


async def test_bad_input_is_refused_and_registers_nothing(
    api, jp_root_dir: Path, tmp_path: Path, memory_home: Path
) -> None:
    _notebook(jp_root_dir, "a.ipynb")
    planted = jp_root_dir / "cloned"
    (planted / ".jupyter-memory").mkdir(parents=True)
    code, data = await api("GET", "focus")
    assert code == 422 and data["field"] == "path"
    code, data = await api("GET", "focus", params={"path": "../outside.ipynb"})
    assert code == 422 and data["field"] == "path", data
    code, data = await api("GET", "focus", params={"path": "notes.txt"})
    assert code == 422 and data["field"] == "path"
    for project in ("cloned", str(planted), "never-seen"):
        code, data = await api("PUT", "focus", body={"path": "a.ipynb", "project": project})
        assert code in (404, 409), (project, code, data)  # unknown id; not registered
    code, data = await api("PUT", "focus", body={"path": "a.ipynb"})
    assert code == 422 and data["field"] == "project"
    code, data = await api("PUT", "focus", body={"path": "a.ipynb", "project": 3})
    assert code == 422 and data["field"] == "project"
    assert not (memory_home / "projects.json").exists()
    assert not (memory_home / "focus").exists()
    # The unregistered folder is named, for the panel to offer registering it.
    _notebook(planted, "n.ipynb")
    code, data = await api("GET", "focus", params={"path": "cloned/n.ipynb"})
    assert data["project"] is None and data["unregistered_path"] == "cloned"


async def test_memories_search_uses_the_project_in_use_for_the_notebook(
    api, jp_root_dir: Path, server_memory: Memory
) -> None:
    """Issue 30: the panel's search found 0 hits where %recall in the notebook found them."""
    nb = _notebook(jp_root_dir, "analysis/orders.ipynb")
    sales = jp_root_dir / "sales-q3"
    sales.mkdir()
    server_memory.focus(sales, notebook=nb)  # %memory focus in the notebook's kernel
    with Memory(server_memory.home, project=str(sales)) as kernel:
        kernel.remember("Refunds are netted against the order month.", project="sales-q3")
        kernel.remember("Refunds over 500 need a second approver.", project="sales-q3")
        kernel.remember("退款按订单月份冲抵。", project="sales-q3")
    for q, hits in (("refunds", 2), ("退款", 1)):
        params = {"q": q, "path": "analysis/orders.ipynb"}
        code, data = await api("GET", "memories", params=params)
        assert code == 200 and data["count"] == hits, (q, data)
        assert {h["project"] for h in data["hits"]} == {"sales-q3"}
        code, data = await api("GET", "memories", params={"q": q, "project": "sales-q3"})
        assert code == 200 and data["count"] == hits
    # A notebook without a project: the User layer only.
    _notebook(jp_root_dir, "elsewhere/x.ipynb")
    code, data = await api("GET", "memories", params={"q": "refunds", "path": "elsewhere/x.ipynb"})
    assert code == 200 and data["count"] == 0
    code, data = await api("GET", "memories", params={"q": "refunds", "path": "../out.ipynb"})
    assert code == 422 and data["field"] == "path"


async def _contents_rename(jp_fetch, old: str, new: str) -> None:
    """A rename or a move as JupyterLab's file browser makes it: PATCH /api/contents."""
    resp = await jp_fetch(
        "api", "contents", *old.split("/"), method="PATCH", body=json.dumps({"path": new})
    )
    assert resp.code == 200 and json.loads(resp.body)["path"] == new


async def test_the_persons_choice_follows_a_rename_and_a_move(
    api, jp_fetch, jp_root_dir: Path, server_memory: Memory
) -> None:
    _notebook(jp_root_dir, "analysis/Untitled.ipynb")
    (jp_root_dir / "reports").mkdir()
    sales = jp_root_dir / "sales-q3"
    sales.mkdir()
    server_memory.register_project(sales)
    body = {"path": "analysis/Untitled.ipynb", "project": "sales-q3"}
    code, data = await api("PUT", "focus", body=body)
    assert code == 200 and data["project"] == "sales-q3"

    await _contents_rename(jp_fetch, "analysis/Untitled.ipynb", "analysis/orders.ipynb")
    code, data = await api("GET", "focus", params={"path": "analysis/orders.ipynb"})
    assert (code, data["project"], data["source"]) == (200, "sales-q3", "explicit"), data
    # The old name is free again: a new Untitled.ipynb starts without the choice.
    _notebook(jp_root_dir, "analysis/Untitled.ipynb")
    code, data = await api("GET", "focus", params={"path": "analysis/Untitled.ipynb"})
    assert data["source"] != "explicit", data

    await _contents_rename(jp_fetch, "analysis/orders.ipynb", "reports/orders.ipynb")
    code, data = await api("GET", "focus", params={"path": "reports/orders.ipynb"})
    assert (data["project"], data["source"]) == ("sales-q3", "explicit"), data
    # Another process (the notebook's kernel, an MCP server) reads the same record.
    with Memory(server_memory.home) as other:
        assert (
            other.hooks.focus_of(notebook=jp_root_dir / "reports/orders.ipynb").project
            == "sales-q3"
        )
        assert other.hooks.focus_of(folder=jp_root_dir / "reports").project == "sales-q3"


async def test_a_folder_rename_moves_the_choices_of_the_notebooks_inside_it(
    api, jp_fetch, jp_root_dir: Path, server_memory: Memory
) -> None:
    _notebook(jp_root_dir, "analysis/orders.ipynb")
    _notebook(jp_root_dir, "analysis/deep/refunds.ipynb")
    _notebook(jp_root_dir, "analysis-old/keep.ipynb")  # a sibling whose name starts alike
    (jp_root_dir / "archive").mkdir()
    for name in ("sales-q3", "ops"):
        (jp_root_dir / name).mkdir()
        server_memory.register_project(jp_root_dir / name)
    for path, project in (
        ("analysis/orders.ipynb", "sales-q3"),
        ("analysis/deep/refunds.ipynb", None),
        ("analysis-old/keep.ipynb", "ops"),
    ):
        code, _ = await api("PUT", "focus", body={"path": path, "project": project})
        assert code == 200

    await _contents_rename(jp_fetch, "analysis", "archive/analysis-2026")
    code, data = await api("GET", "focus", params={"path": "archive/analysis-2026/orders.ipynb"})
    assert (data["project"], data["source"]) == ("sales-q3", "explicit"), data
    code, data = await api(
        "GET", "focus", params={"path": "archive/analysis-2026/deep/refunds.ipynb"}
    )
    assert (data["project"], data["source"]) == (None, "explicit"), data
    code, data = await api("GET", "focus", params={"path": "analysis-old/keep.ipynb"})
    assert (data["project"], data["source"]) == ("ops", "explicit"), data


async def test_a_deleted_notebook_takes_its_choice_with_it(
    api, jp_fetch, jp_root_dir: Path, server_memory: Memory
) -> None:
    _notebook(jp_root_dir, "Untitled.ipynb")
    (jp_root_dir / "ops").mkdir()
    server_memory.register_project(jp_root_dir / "ops")
    code, _ = await api("PUT", "focus", body={"path": "Untitled.ipynb", "project": "ops"})
    assert code == 200
    resp = await jp_fetch("api", "contents", "Untitled.ipynb", method="DELETE")
    assert resp.code == 204
    _notebook(jp_root_dir, "Untitled.ipynb")  # the next new notebook gets the same name
    code, data = await api("GET", "focus", params={"path": "Untitled.ipynb"})
    assert data["source"] == "none", data
