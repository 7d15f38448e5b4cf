"""``focus/notebooks.json``: the person's focus per notebook, shared by every process."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from jupyter_memory.exceptions import LinkedPathError, ParseError
from jupyter_memory.store import focus_file
from jupyter_memory.store.focus_file import NotebookFocusFile


def test_a_choice_is_kept_and_the_newest_comes_first(tmp_path: Path) -> None:
    store = NotebookFocusFile(tmp_path)
    store.set(Path("/w/a.ipynb"), "sales-q3", "2026-11-30T09:00:00+00:00")
    store.set(Path("/w/b.ipynb"), None, "2026-11-30T09:00:00+00:00")  # same clock reading
    assert store.get(Path("/w/a.ipynb")).project == "sales-q3"
    assert store.get(Path("/w/b.ipynb")).project is None
    assert store.get(Path("/w/c.ipynb")) is None
    assert [r.notebook for r in store.in_folder(Path("/w"))] == ["/w/b.ipynb", "/w/a.ipynb"]
    store.set(Path("/w/a.ipynb"), "ops", "2026-11-30T09:00:00+00:00")
    assert [r.project for r in store.in_folder(Path("/w"))] == ["ops", None]
    assert store.in_folder(Path("/elsewhere")) == []


def test_a_reader_follows_another_processs_choice_per_folder(tmp_path: Path) -> None:
    """The per-folder grouping is rebuilt when the file changed, never served stale."""
    reader, writer = NotebookFocusFile(tmp_path), NotebookFocusFile(tmp_path)
    writer.set(Path("/w/a.ipynb"), "sales-q3", "2026-11-30T09:00:00+00:00")
    assert [r.project for r in reader.in_folder(Path("/w"))] == ["sales-q3"]
    writer.set(Path("/w/b.ipynb"), "ops", "2026-11-30T09:00:01+00:00")
    writer.set(Path("/其他/c.ipynb"), None, "2026-11-30T09:00:02+00:00")
    assert [r.notebook for r in reader.in_folder(Path("/w"))] == ["/w/b.ipynb", "/w/a.ipynb"]
    assert [r.project for r in reader.in_folder(Path("/其他"))] == [None]
    found = reader.in_folder(Path("/w"))
    found.clear()  # a caller's list is its own
    assert len(reader.in_folder(Path("/w"))) == 2


def test_the_file_stays_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(focus_file, "KEEP_NOTEBOOKS", 3)
    store = NotebookFocusFile(tmp_path)
    for i in range(5):
        store.set(Path(f"/w/{i}.ipynb"), "p", f"2026-11-30T09:00:0{i}+00:00")
    assert [r.notebook for r in store.records()] == ["/w/4.ipynb", "/w/3.ipynb", "/w/2.ipynb"]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("[1, 2]", "must be a JSON object"),
        ('{"notebooks": {"/a.ipynb": 3}}', "must be an object"),
        ('{"notebooks": {"/a.ipynb": {"project": 3, "at": "x", "seq": 1}}}', "project must be"),
        ('{"notebooks": {"/a.ipynb": {"project": "p", "seq": 1}}}', "at must be"),
        ('{"notebooks": {"/a.ipynb": {"project": "p", "at": "x", "seq": -1}}}', "seq must be"),
        ("{not json", "invalid JSON"),
    ],
)
def test_a_damaged_file_is_named_and_left_as_it_was(
    tmp_path: Path, content: str, words: str
) -> None:
    store = NotebookFocusFile(tmp_path)
    store.folder.mkdir()
    store.path.write_text(content, encoding="utf-8")
    with pytest.raises(ParseError, match=words) as info:
        store.set(Path("/w/a.ipynb"), "p", "2026-11-30T09:00:00+00:00")
    assert "notebooks.json" in str(info.value)
    assert store.path.read_text(encoding="utf-8") == content


def test_a_link_is_never_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notebooks.json").write_text(
        json.dumps({"notebooks": {"/a.ipynb": {"project": "p", "at": "x", "seq": 1}}})
    )
    home = tmp_path / "home"
    home.mkdir()
    (home / "focus").symlink_to(elsewhere, target_is_directory=True)
    store = NotebookFocusFile(home)
    assert store.records() == []  # read through a link: absent
    with pytest.raises(LinkedPathError):
        store.set(Path("/w/a.ipynb"), "p", "2026-11-30T09:00:00+00:00")


def _set_many(home: str, start: int) -> None:
    store = NotebookFocusFile(Path(home))
    for i in range(start, start + 20):
        store.set(Path(f"/w/{i}.ipynb"), "p", "2026-11-30T09:00:00+00:00")


def test_two_processes_writing_at_once_both_land(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_set_many, args=(str(tmp_path), n)) for n in (0, 100)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    records = NotebookFocusFile(tmp_path).records()
    assert len(records) == 40
    assert len({r.seq for r in records}) == 40


AT = "2026-12-01T09:00:00+00:00"


def test_a_rename_then_a_folder_move_carry_the_choice_and_say_where_it_went(
    tmp_path: Path,
) -> None:
    store, reader = NotebookFocusFile(tmp_path), NotebookFocusFile(tmp_path)
    store.set(Path("/w/Untitled.ipynb"), "sales-q3", AT)
    store.set(Path("/w-old/keep.ipynb"), "ops", AT)  # a sibling whose name starts alike
    assert store.move(Path("/w/Untitled.ipynb"), Path("/w/orders.ipynb"), AT) == 1
    assert store.get(Path("/w/Untitled.ipynb")) is None
    assert store.get(Path("/w/orders.ipynb")).project == "sales-q3"
    assert store.move(Path("/w"), Path("/archive/w"), AT) == 1
    assert reader.get(Path("/archive/w/orders.ipynb")).project == "sales-q3"
    assert reader.get(Path("/w-old/keep.ipynb")).project == "ops"
    # A kernel started under either old name finds the notebook with one look-up.
    for old in ("/w/Untitled.ipynb", "/w/orders.ipynb"):
        assert reader.moved_to(Path(old)) == Path("/archive/w/orders.ipynb")
    assert reader.moved_to(Path("/w-old/keep.ipynb")) is None
    # The old folder is in use again: nothing there moved away any more.
    store.move(Path("/tmp/new"), Path("/w"), AT)
    assert reader.moved_to(Path("/w/orders.ipynb")) is None
    assert reader.moved_to(Path("/w/Untitled.ipynb")) is None
    assert store.forget(Path("/archive")) == 1
    assert reader.get(Path("/archive/w/orders.ipynb")) is None


def test_a_damaged_moved_table_is_an_error_naming_the_file(tmp_path: Path) -> None:
    store = NotebookFocusFile(tmp_path)
    store.folder.mkdir()
    store.path.write_text(json.dumps({"notebooks": {}, "moved": {"/a.ipynb": "/b"}}))
    with pytest.raises(ParseError) as err:
        store.moved_to(Path("/a.ipynb"))
    assert "moved" in str(err.value) and str(store.path) in str(err.value)
