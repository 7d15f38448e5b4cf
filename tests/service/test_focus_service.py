"""One focus, everywhere: a notebook's project, and the same project for a chat or MCP beside it."""

from __future__ import annotations

import shutil
from pathlib import Path

from jupyter_memory import Memory


def _project(base: Path, name: str) -> Path:
    folder = base / name
    (folder / ".jupyter-memory").mkdir(parents=True)
    return folder


def test_a_focus_chosen_in_a_notebook_is_what_its_folder_resolves_to_elsewhere(
    mem: Memory, memory_home: Path, tmp_path: Path
) -> None:
    sales = _project(tmp_path, "sales-q3")
    work = tmp_path / "analysis"
    work.mkdir()
    nb = work / "report.ipynb"
    assert mem.focus(sales, notebook=nb) == "sales-q3"
    mine = mem.hooks.focus_of(notebook=nb)
    assert (mine.project, mine.source, mine.folder) == ("sales-q3", "explicit", sales)
    # Another process (the server's Jupyter AI, an MCP server): the chat beside it.
    with Memory(home=memory_home) as other:
        beside = other.hooks.focus_of(folder=work)
        assert (beside.project, beside.source, beside.notebook) == ("sales-q3", "beside", str(nb))
        assert other.project_id is None  # reading a focus changes none


def test_the_last_notebook_focused_in_a_folder_decides_for_its_chats(
    mem: Memory, tmp_path: Path
) -> None:
    a, b = _project(tmp_path, "a"), _project(tmp_path, "b")
    work = tmp_path / "w"
    work.mkdir()
    mem.focus(a, notebook=work / "one.ipynb")
    mem.focus(b, notebook=work / "two.ipynb")
    assert mem.hooks.focus_of(folder=work).project == "b"
    mem.focus("a", notebook=work / "two.ipynb")
    assert mem.hooks.focus_of(folder=work).project == "a"
    # "No project" is a choice too, and the chat beside follows it.
    mem.focus(None, notebook=work / "one.ipynb")
    none = mem.hooks.focus_of(folder=work)
    assert (none.project, none.source) == (None, "beside")
    assert mem.hooks.focus_of(notebook=work / "one.ipynb").source == "explicit"
    # A notebook in a sub-folder is not beside the chat.
    assert mem.hooks.focus_of(folder=tmp_path).source == "none"


def test_without_a_choice_the_nearest_registered_project_is_inferred(
    mem: Memory, tmp_path: Path
) -> None:
    outer = _project(tmp_path, "outer")
    inner = _project(outer / "sub", "inner")
    mem.register_project(outer)
    deep = inner / "notebooks" / "x"
    deep.mkdir(parents=True)
    # inner is not registered: the registered outer one is used, inner is only reported.
    found = mem.hooks.focus_of(notebook=deep / "n.ipynb")
    assert (found.project, found.source, found.folder) == ("outer", "folder", outer)
    mem.register_project(inner)
    assert mem.hooks.focus_of(folder=deep).project == "inner"  # the nearest wins, as git's .git


def test_inference_never_registers_a_folder_it_finds(
    mem: Memory, memory_home: Path, tmp_path: Path
) -> None:
    planted = _project(tmp_path, "planted")  # cloned, or written by an agent
    found = mem.hooks.focus_of(folder=planted)
    assert (found.project, found.source, found.unregistered) == (None, "none", planted)
    assert mem.hooks.known_projects() == {}
    assert not (memory_home / "projects.json").exists()


def test_a_choice_whose_project_is_gone_falls_back_to_the_folder(
    mem: Memory, tmp_path: Path
) -> None:
    gone = _project(tmp_path, "gone")
    home_proj = _project(tmp_path, "here")
    mem.register_project(home_proj)
    nb = home_proj / "n.ipynb"
    mem.focus(gone, notebook=nb)
    shutil.rmtree(gone)
    found = mem.hooks.focus_of(notebook=nb)
    assert (found.project, found.source) == ("here", "folder")
    assert mem.hooks.focus_of(folder=home_proj).project == "here"


def test_adopting_a_resolved_focus_registers_nothing(
    mem: Memory, memory_home: Path, tmp_path: Path
) -> None:
    sales = _project(tmp_path, "sales-q3")
    mem.register_project(sales)
    before = (memory_home / "projects.json").read_bytes()
    assert mem.hooks.adopt_focus(mem.hooks.focus_of(folder=sales)) == "sales-q3"
    assert (mem.project_id, mem.hooks.focus_source) == ("sales-q3", "folder")
    assert mem.hooks.adopt_focus(mem.hooks.focus_of(folder=tmp_path)) is None
    assert (memory_home / "projects.json").read_bytes() == before
