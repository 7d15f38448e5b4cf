"""A large home gets a watcher process of its own; short-lived processes then stat nothing.

store/memories/watch_daemon.py: the first open that finds no watcher to ask
starts one (``JUPYTER_MEMORY_WATCHER=1`` here: from one file on, not from the
default 5,000), detached from it; later opens ask it instead of statting every
file. Every hand edit between two CLI calls must still be seen, and a watcher
process that is killed, frozen or whose home went away must leave every open
correct. Each open runs in a process of its own, as a CLI call does.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.store.layout import RootLayout
from jupyter_memory.store.memories import watch_daemon
from jupyter_memory.store.memories.folder_watch import Answer, ask
from tests.support.proc_state import state, stopped

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the folder is watched only with inotify"
)

# A new process opens the home and says whether its open left the look to its own
# check of every file (``checking``) and what a recall of ``word`` finds.
_OPEN = textwrap.dedent(
    """
    import json, sys
    from jupyter_memory import Memory
    mem = Memory(home=sys.argv[1], semantic=False)
    mem.hooks.user.ensure_synced()
    checking = mem.hooks.user.index._check.pending is not None
    texts = sorted(h.text for h in mem.recall(sys.argv[2], limit=50, level="full"))
    mem.close()
    print(json.dumps({"checking": checking, "texts": texts}))
    """
)


def _open_elsewhere(home: Path, word: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _OPEN, str(home), word],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def _vouched_open(home: Path, word: str, tries: int = 20) -> list[str]:
    """What a new process's open finds, once an open was vouched for by the watcher
    (each try must find the same; a busy machine may keep an answer past ASK_TIMEOUT_S,
    and then the open checks for itself, correctly but not what is tested here)."""
    found: list[str] = []
    for _ in range(tries):
        seen = _open_elsewhere(home, word)
        found = list(seen["texts"])  # type: ignore[call-overload]
        if seen["checking"] is False:
            return found
    raise AssertionError(f"no open was vouched for in {tries} tries (found {found})")


def _cli_recall(home: Path, word: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "jupyter_memory.cli.main", "recall", word, "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _edit_in_place(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8").replace(old, new)
    with open(path, "r+", encoding="utf-8") as fh:  # VS Code, nano: truncate and write
        fh.truncate(0)
        fh.write(text)


def _until(what: str, done: object, polls: int = 600) -> None:
    """Poll ``done()`` a bounded number of times (a process starting on a busy machine)."""
    for _ in range(polls):
        if done():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"never: {what}")


def _answered(layout: RootLayout, polls: int = 100) -> Answer:
    """The watcher's answer, asked again while a busy machine keeps it from answering in time."""
    for _ in range(polls):
        said = ask(layout)
        if said is not Answer.NO_ANSWER:
            return said
    return Answer.NO_ANSWER


def _daemon_clean(layout: RootLayout) -> bool:
    return watch_daemon.running_pid(layout) is not None and ask(layout) is Answer.CLEAN


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # Not our child (sh started it): a zombie waits for init; its state says it ended.
    return state(f"/proc/{pid}/stat") == "Z"


def _stop_daemon(layout: RootLayout) -> None:
    pid = watch_daemon.running_pid(layout)
    if pid is not None:
        os.kill(pid, signal.SIGKILL)
        _until("the watcher process ended", lambda: _gone(pid))


@pytest.fixture(autouse=True)
def _from_one_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(watch_daemon.ENV, "1")  # the processes below inherit it


@pytest.fixture
def homes(tmp_path: Path) -> Iterator[list[tuple[Path, RootLayout]]]:
    made: list[tuple[Path, RootLayout]] = []
    for name in ("home", "other"):
        home = tmp_path / name
        made.append((home, RootLayout(home)))
    yield made
    for home, layout in made:
        _stop_daemon(layout)
        # One still starting (no lock taken yet) finds no home, or ends with it.
        shutil.rmtree(home, ignore_errors=True)


def _home_with(home: Path, texts: list[str]) -> dict[str, Path]:
    with Memory(home=home, semantic=False) as mem:
        ids = {text: mem.remember(text).id for text in texts}
        folder = mem.hooks.user.layout.memories
        return {t: folder / str(mem.hooks.user.index.name_of(i)) for t, i in ids.items()}


def _watched(home: Path, layout: RootLayout) -> int:
    """A new process's open finds nobody to ask and starts the watcher process."""
    _open_elsewhere(home, "anything")
    _until("the watcher process vouches", lambda: _daemon_clean(layout))
    pid = watch_daemon.running_pid(layout)
    assert pid is not None
    return pid


def test_a_hand_edit_between_two_cli_calls_is_seen(homes: list[tuple[Path, RootLayout]]) -> None:
    (home, layout), _ = homes
    paths = _home_with(home, ["refunds are excluded", "churn is monthly"])
    assert watch_daemon.running_pid(layout) is None  # the writes' process started none
    assert "refunds are excluded" in _cli_recall(home, "refunds")  # starts the watcher
    _until("the watcher process vouches", lambda: _daemon_clean(layout))
    assert _vouched_open(home, "churn") == ["churn is monthly"]

    _edit_in_place(paths["refunds are excluded"], "refunds", "rebates")
    out = _cli_recall(home, "rebates")
    assert "rebates are excluded" in out, out
    assert "refunds are excluded" not in _cli_recall(home, "refunds")
    # (Whether these opens checked for themselves depends on whether the watcher has
    # re-checked since the first one re-indexed the edit: either way, they are right.)
    assert _open_elsewhere(home, "rebates")["texts"] == ["rebates are excluded"]


def test_a_killed_watcher_process_leaves_every_open_correct(
    homes: list[tuple[Path, RootLayout]],
) -> None:
    (home, layout), _ = homes
    paths = _home_with(home, ["killed watcher note"])
    first = _watched(home, layout)
    _stop_daemon(layout)
    # Its lock went with it; a watcher another open started meanwhile may hold
    # the lock already, still checking the folder: either way nobody vouches.
    assert ask(layout) in (Answer.NO_WATCHER, Answer.NO_ANSWER)
    _edit_in_place(paths["killed watcher note"], "killed", "revived")
    assert "revived watcher note" in _cli_recall(home, "revived")
    # That call found nobody to ask and started a new one, which sees the edit as indexed.
    _until("a new watcher process vouches", lambda: _daemon_clean(layout))
    assert watch_daemon.running_pid(layout) != first
    assert _vouched_open(home, "revived") == ["revived watcher note"]


def test_a_frozen_watcher_process_is_not_waited_for(
    homes: list[tuple[Path, RootLayout]],
) -> None:
    (home, layout), _ = homes
    paths = _home_with(home, ["frozen watcher note"])
    pid = _watched(home, layout)
    os.kill(pid, signal.SIGSTOP)  # it holds its locks and answers nothing
    try:
        _until("every thread of the watcher process stopped", lambda: stopped(pid))
        _edit_in_place(paths["frozen watcher note"], "frozen", "thawed")
        assert ask(layout) is Answer.NO_ANSWER
        assert _open_elsewhere(home, "thawed") == {
            "checking": True,
            "texts": ["thawed watcher note"],
        }
    finally:
        os.kill(pid, signal.SIGCONT)
    # Once running again it reads the edit's event before the next question.
    assert _answered(layout) is Answer.DIRTY


def test_two_homes_have_a_watcher_process_each(homes: list[tuple[Path, RootLayout]]) -> None:
    (home, layout), (other, other_layout) = homes
    paths = _home_with(home, ["first home note"])
    _home_with(other, ["second home note"])
    assert _watched(home, layout) != _watched(other, other_layout)
    _edit_in_place(paths["first home note"], "first", "edited")
    assert _open_elsewhere(home, "edited") == {"checking": True, "texts": ["edited home note"]}
    assert _vouched_open(other, "second") == ["second home note"]


def test_one_watcher_process_per_home_and_it_ends_with_the_home(
    homes: list[tuple[Path, RootLayout]],
) -> None:
    (home, layout), _ = homes
    _home_with(home, ["a note"])
    pid = _watched(home, layout)
    second = subprocess.run(  # a second one started at once leaves at once
        [sys.executable, "-c", watch_daemon._MAIN, "", str(home)], timeout=60, check=False
    )
    assert second.returncode == 0 and watch_daemon.running_pid(layout) == pid
    shutil.rmtree(home)
    _until("the watcher process ended with its home", lambda: _gone(pid))


def test_an_idle_watcher_process_ends(homes: list[tuple[Path, RootLayout]]) -> None:
    (home, layout), _ = homes
    _home_with(home, ["a note"])
    code = "import sys; from jupyter_memory.store.memories.watch_daemon import main;"
    code += " sys.exit(main(sys.argv[1], idle_s=0.5))"
    done = subprocess.run([sys.executable, "-c", code, str(home)], timeout=60, check=False)
    assert done.returncode == 0 and watch_daemon.running_pid(layout) is None


def test_a_hard_linked_file_is_never_vouched_for(
    homes: list[tuple[Path, RootLayout]], tmp_path: Path
) -> None:
    (home, layout), _ = homes
    paths = _home_with(home, ["linked note", "plain note"])
    # A second name outside the folder: writes through it reach no watch on memories/.
    outside = tmp_path / "elsewhere.md"
    os.link(paths["linked note"], outside)
    assert "linked note" in _cli_recall(home, "linked")  # starts the watcher process
    # Its check done, it says dirty (not clean, and not silent), and stays so.
    _until("the watcher process answers", lambda: _answered(layout) is Answer.DIRTY)
    _edit_in_place(outside, "linked", "relinked")
    assert _answered(layout) is Answer.DIRTY
    assert _open_elsewhere(home, "relinked") == {"checking": True, "texts": ["relinked note"]}


def test_no_watcher_process_below_the_file_count(
    homes: list[tuple[Path, RootLayout]], monkeypatch: pytest.MonkeyPatch
) -> None:
    (home, layout), _ = homes
    monkeypatch.setenv(watch_daemon.ENV, "3")
    _home_with(home, ["one note", "two notes"])
    for _ in range(2):  # the first open's full look, then a vouched open's own check
        assert len(_open_elsewhere(home, "note")["texts"]) == 2  # type: ignore[arg-type]
    assert watch_daemon.running_pid(layout) is None
    monkeypatch.setenv(watch_daemon.ENV, "off")
    _home_with(home, ["three notes"])
    for _ in range(2):
        assert _open_elsewhere(home, "note")["checking"] is not None
    assert watch_daemon.running_pid(layout) is None
    monkeypatch.setenv(watch_daemon.ENV, "3")  # the same home, at three files: one starts
    _open_elsewhere(home, "note")
    _until("a watcher process runs", lambda: watch_daemon.running_pid(layout) is not None)


def test_a_dirty_watcher_checks_again_while_questions_keep_coming(
    homes: list[tuple[Path, RootLayout]],
) -> None:
    (home, layout), _ = homes
    paths = _home_with(home, ["steady note"])
    _watched(home, layout)
    _edit_in_place(paths["steady note"], "steady", "busy")
    assert _open_elsewhere(home, "busy") == {"checking": True, "texts": ["busy note"]}
    # Questions many times a second (a loop of CLI calls, an agent's tool calls): the
    # watcher checks again once the folder is quiet and RECHECK_S after its last check,
    # finds the edit indexed by that open, and vouches again.
    _until("the watcher vouches again", lambda: ask(layout) is Answer.CLEAN)
    assert _vouched_open(home, "busy") == ["busy note"]


def test_a_read_only_home_answers_without_a_watcher(tmp_path: Path) -> None:
    from tests.cli.test_failing_disks import tmpfs

    with tmpfs(tmp_path / "disk") as disk:
        home = disk / "home"
        layout = RootLayout(home)
        try:
            paths = _home_with(home, ["read only note"])
            pid = _watched(home, layout)
            _edit_in_place(paths["read only note"], "read only", "frozen disk")
            subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
            # Nobody can ask on a read-only home (no question can be written) and none
            # starts there; its index answers as last written, as without a watcher.
            assert ask(layout) is Answer.NO_WATCHER
            assert "read only note" in _cli_recall(home, "read")
            assert watch_daemon.running_pid(layout) == pid
            assert not watch_daemon.spawn(layout)
        finally:
            _stop_daemon(layout)


def test_doctor_names_the_watcher_process_and_how_to_start_none(
    homes: list[tuple[Path, RootLayout]],
) -> None:
    (home, layout), _ = homes
    _home_with(home, ["doctor sees the watcher"])

    def doctor() -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-m", "jupyter_memory.cli.main", "doctor", "--json"]
            + ["--home", str(home)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    pid = _watched(home, layout)
    notices = [str(n) for n in doctor()["notices"]]  # type: ignore[attr-defined]
    said = [n for n in notices if f"watcher process (pid {pid})" in n]
    assert said and str(home) in said[0] and "JUPYTER_MEMORY_WATCHER=off" in said[0], notices
    _stop_daemon(layout)
    with pytest.MonkeyPatch.context() as env:
        env.setenv(watch_daemon.ENV, "off")  # this doctor starts none, and says none runs
        assert not any("watcher process" in str(n) for n in doctor()["notices"])  # type: ignore[attr-defined]
