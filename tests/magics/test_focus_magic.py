"""%memory focus in a notebook: kept for the notebook, followed across processes, shown in status."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory import Memory


@pytest.fixture
def notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The kernel runs ``analysis/report.ipynb`` (as jupyter_server tells it)."""
    nb = tmp_path / "analysis" / "report.ipynb"
    nb.parent.mkdir()
    nb.write_text("{}", encoding="utf-8")
    monkeypatch.setenv("JPY_SESSION_NAME", str(nb))
    monkeypatch.chdir(nb.parent)
    return nb


def test_focus_in_a_notebook_is_kept_for_it_and_found_beside_it(
    ip, magics, notebook: Path, project_dir: Path, memory_home: Path
) -> None:
    (project_dir / ".jupyter-memory").mkdir()
    out = str(ip.run_line_magic("memory", f"focus {project_dir}"))
    assert out == (
        f"Focused project: sales-q3 ({project_dir}) · chosen for this notebook"
        " (kept for this notebook)"
    )
    assert "project:      sales-q3" in str(ip.run_line_magic("memory", "status"))
    with Memory(home=memory_home) as server:  # the Jupyter server, an MCP server
        assert server.hooks.focus_of(folder=notebook.parent).project == "sales-q3"
        assert server.hooks.focus_of(notebook=notebook).source == "explicit"


def test_the_kernel_follows_a_choice_made_in_the_panel(
    ip, magics, notebook: Path, project_dir: Path, memory_home: Path, tmp_path: Path
) -> None:
    other = tmp_path / "ops"
    (other / ".jupyter-memory").mkdir(parents=True)
    ip.run_line_magic("memory", f"focus {project_dir}")
    with Memory(home=memory_home) as panel:
        panel.focus(other, notebook=notebook)  # PUT /jupyter-memory/focus
    assert magics.service.project_id == "ops"
    assert "ops" in str(ip.run_line_magic("memory", "focus"))


def test_an_unfocused_notebook_uses_the_registered_project_it_sits_in(
    ip, magics, tmp_path: Path, memory_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proj = tmp_path / "proj"
    (proj / ".jupyter-memory").mkdir(parents=True)
    nb = proj / "nb" / "a.ipynb"
    nb.parent.mkdir()
    nb.write_text("{}", encoding="utf-8")
    monkeypatch.setenv("JPY_SESSION_NAME", str(nb))
    with Memory(home=memory_home) as person:
        person.register_project(proj)
    status = str(ip.run_line_magic("memory", "status"))
    assert "project:      proj" in status and "this notebook's folder is in it" in status


def test_an_unregistered_project_folder_is_named_not_used(
    ip, magics, tmp_path: Path, memory_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = tmp_path / "cloned"
    (planted / ".jupyter-memory").mkdir(parents=True)
    nb = planted / "a.ipynb"
    nb.write_text("{}", encoding="utf-8")
    monkeypatch.setenv("JPY_SESSION_NAME", str(nb))
    status = str(ip.run_line_magic("memory", "status"))
    assert f"project:      none · {planted} holds a .jupyter-memory/ folder" in status
    assert magics.service.hooks.known_projects() == {}


def test_the_kernel_follows_its_notebook_renamed_then_moved(
    ip, magics, notebook: Path, project_dir: Path, memory_home: Path, tmp_path: Path
) -> None:
    (project_dir / ".jupyter-memory").mkdir()
    ip.run_line_magic("memory", f"focus {project_dir}")
    renamed = notebook.with_name("orders.ipynb")
    moved = tmp_path / "reports" / "orders.ipynb"
    moved.parent.mkdir()
    for old, new in ((notebook, renamed), (renamed, moved)):
        old.rename(new)
        with Memory(home=memory_home) as server:  # the Jupyter server saw the contents event
            server.hooks.notebook_moved(old, new)
        status = str(ip.run_line_magic("memory", "status"))
        assert f"notebook:     {new}" in status, status
        assert "project:      sales-q3" in status and "chosen for this notebook" in status
    # A choice made now in the kernel is kept under the notebook's new path.
    ops = tmp_path / "ops"
    (ops / ".jupyter-memory").mkdir(parents=True)
    assert "kept for this notebook" in str(ip.run_line_magic("memory", f"focus {ops}"))
    with Memory(home=memory_home) as server:
        assert server.hooks.focus_of(notebook=moved).project == "ops"


def test_a_notebook_renamed_before_its_first_magic_is_found_where_it_is(
    ip, magics, notebook: Path, project_dir: Path, memory_home: Path
) -> None:
    # Launcher → Untitled.ipynb → rename: the kernel was started under the old name.
    renamed = notebook.with_name("orders.ipynb")
    notebook.rename(renamed)
    with Memory(home=memory_home) as server:
        server.hooks.notebook_moved(notebook, renamed)
    (project_dir / ".jupyter-memory").mkdir()
    out = str(ip.run_line_magic("memory", f"focus {project_dir}"))
    assert "kept for this notebook" in out, out
    with Memory(home=memory_home) as panel:
        assert panel.hooks.focus_of(notebook=renamed).project == "sales-q3"
