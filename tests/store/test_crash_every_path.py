"""Every write path survives SIGKILL (issue 16): old or new, never torn, nothing acknowledged lost.

For each write path a writer process repeats the write (tests/store/crash_ops.py)
and is SIGKILLed at a random moment, several times over. Afterwards every
stored file parses (memories, cold archive, queue, knowledge and its backup,
every JSON file, case entries and INDEX.md), every line of the audit log is
JSON, the search index matches the files (doctor, a full rebuild), a case's
INDEX.md is repaired to match its entries, and every write the writer
acknowledged (its call had returned) is still there.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.cases.entry_format import parse_entry, peek_entry
from jupyter_memory.core.cases.index_format import parse_index
from jupyter_memory.core.frontmatter_io import parse_memory
from jupyter_memory.core.knowledge.format import parse_knowledge
from jupyter_memory.core.knowledge.proposals import parse_proposal
from jupyter_memory.exceptions import NotFoundError
from jupyter_memory.service.cases.memory import CaseMemory
from jupyter_memory.store.audit import AuditLog
from tests.service.case_helpers import copy_sample
from tests.store import crash_ops

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
KILLS = 6  # per path; the delays are random, the seed is printed on failure
DELAY_S = 0.2  # the longest first wait after the writer is set up and starts its loop


class Zygotes:
    """The fork server of the suite's zygotes (``crash_ops.serve``): one interpreter imports
    the package once, and each path's zygote is a fork of it rather than a new interpreter."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None

    def _server(self) -> subprocess.Popen[str]:
        # Started by the first test, in its isolated environment (tests/conftest.py), as a
        # zygote started per path was; each zygote then takes its own test's environment.
        if self.proc is None:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tests.store.crash_ops", "serve"],
                cwd=REPO,
                env=dict(os.environ, PYTHONPATH=str(REPO)),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        return self.proc

    def start(self, path_name: str, home: Path, ws: Path, folder: Path) -> Zygote:
        server = self._server()
        assert server.stdin is not None and server.stdout is not None
        folder.mkdir(parents=True, exist_ok=True)
        fifo_in, fifo_out, err = folder / "zygote.in", folder / "zygote.out", folder / "zygote.err"
        for fifo in (fifo_in, fifo_out):
            os.mkfifo(fifo)
        env = dict(os.environ, JUPYTER_MEMORY_HOME=str(home), PYTHONPATH=str(REPO))
        args = [path_name, str(home), str(ws), str(fifo_in), str(fifo_out), str(err), env]
        server.stdin.write(json.dumps(args) + "\n")
        server.stdin.flush()
        line = server.stdout.readline()
        assert line.startswith("zygote "), line
        pid = int(line.split()[1])
        pidfd = os.pidfd_open(pid)  # its end, waited for without polling (it is not our child)
        # Opened in the order the zygote opens them: each open waits for the other end.
        stdin = fifo_in.open("w", encoding="utf-8")
        stdout = fifo_out.open(encoding="utf-8")
        return Zygote(pid, pidfd, stdin, stdout, err)

    def close(self) -> None:
        if self.proc is None:
            return
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@dataclass
class Zygote:
    pid: int
    pidfd: int
    stdin: TextIO
    stdout: TextIO
    err: Path

    def stderr(self) -> str:
        return self.err.read_text("utf-8", errors="replace") if self.err.exists() else ""

    def wait(self, timeout: float) -> bool:
        """Whether it ended within ``timeout`` seconds."""
        return bool(select.select([self.pidfd], [], [], timeout)[0])


class Writer:
    """The zygote process of one path and the acknowledgements its writers sent."""

    def __init__(self, zygotes: Zygotes, path_name: str, home: Path, ws: Path) -> None:
        self.proc = zygotes.start(path_name, home, ws, home.parent / f"zygote-{path_name}")
        self.acks: list[str] = []
        self.kills = 0
        assert self._line() == "ready", self.proc.stderr()

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"writer process ended: {self.proc.stderr()}")
        return line.rstrip("\n")

    def round(self, n: int, delay: float) -> int:
        """One writer, killed ``delay`` seconds into its loop; returns its acknowledgements."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"go {n}\n")
        self.proc.stdin.flush()
        pid, began, acked = None, False, len(self.acks)
        # The forked child may say "begin", acknowledge writes and even finish before the
        # zygote is scheduled to say "pid" (seen on a loaded machine): its lines count as
        # they come.
        while pid is None or not began:
            kind, _, rest = self._line().partition(" ")
            if kind == "error":
                raise AssertionError(f"writer failed in round {n}: {rest}")
            if kind == "pid":
                pid = int(rest.split()[1])
            elif kind == "ack":
                self.acks.append(rest.split(" ", 1)[1])
            elif kind != "finished":
                assert kind == "begin", (kind, rest)
                began = True
        time.sleep(delay)
        with contextlib.suppress(ProcessLookupError):  # it finished its loop first
            os.kill(pid, signal.SIGKILL)
        while True:
            kind, _, rest = self._line().partition(" ")
            if kind == "ack":
                self.acks.append(rest.split(" ", 1)[1])
            elif kind == "error":
                raise AssertionError(f"writer failed in round {n}: {rest}")
            elif kind == "dead":
                status = int(rest.split()[1])
                self.kills += os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
                return len(self.acks) - acked

    def close(self) -> None:
        self.proc.stdin.close()
        if not self.proc.wait(timeout=30):  # a writer still running after a failure
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc.stdout.close()
        os.close(self.proc.pidfd)


# -- what must hold after the kills ----------------------------------------------------------


def check_files(home: Path, ws: Path) -> None:
    """Every stored file is whole: it parses as what it is."""
    memories = home / "memories"
    for f in [*memories.glob("*.md"), *(memories / ".old").glob("*.md")]:
        parse_memory(f.read_bytes(), path=f)
    for f in (home / "queue").glob("*.md"):
        parse_proposal(f.read_bytes(), path=f)
    for name in ("knowledge.md", "knowledge.md.bak"):
        if (home / name).exists():
            parse_knowledge((home / name).read_text("utf-8"), path=str(home / name))
    for f in [*home.rglob("*.json"), *ws.rglob("*.json")]:
        json.loads(f.read_bytes())
    for log in [home / "audit.jsonl", *ws.rglob("audit.jsonl")]:
        if log.exists():
            for number, line in enumerate(log.read_bytes().splitlines(), start=1):
                assert json.loads(line), (log, number)
            assert list(AuditLog(log).records()) is not None
    case_dir = ws / "cases" / crash_ops.CASE / "case_memory"
    if case_dir.is_dir():
        for f in case_dir.glob("*.md"):
            text = f.read_text("utf-8")
            if f.name.startswith("INDEX"):
                parse_index(text)
            elif not peek_entry(text)[2]:  # legacy v1 entries are read as they are
                parse_entry(text, path=str(f))


def check_index(home: Path) -> Memory:
    mem = Memory(home=home)
    report = mem.doctor()
    assert report["ok"], report
    files = len(list((home / "memories").glob("*.md")))
    assert mem.stats()["total"] == files
    mem.hooks.rebuild_index()
    assert mem.stats()["total"] == files
    return mem


def knowledge_text(mem: Memory) -> str:
    return mem.knowledge("user") or ""


def check_acks(path_name: str, mem: Memory, acks: list[str], ws: Path) -> None:
    if path_name == "restore" and crash_ops.ARCHIVE_AGAIN in acks:
        # The writer archived everything old again after these: only later restores count.
        last = len(acks) - 1 - acks[::-1].index(crash_ops.ARCHIVE_AGAIN)
        acks = acks[last + 1 :]
    if path_name in ("remember", "digest", "restore"):
        for mid in acks:
            assert mem.get(mid).id == mid
        if path_name == "restore":
            assert not set(acks) & {a.id for a in mem.hooks.archived()}
    elif path_name in ("update", "knowledge-save"):
        if path_name == "update":
            text = mem.get(crash_ops.seeds(_ctx(mem))[0]).text
        else:
            text = knowledge_text(mem).split("saved version ", 1)[1]
        version = text.removeprefix("version ")[:10]
        assert version >= max(acks), (version, max(acks))
    elif path_name in ("forget", "archive"):
        for mid in acks:
            with pytest.raises(NotFoundError):
                mem.get(mid)
        if path_name == "archive":
            assert set(acks) <= {a.id for a in mem.hooks.archived()}
    elif path_name == "enqueue":
        for pid in acks:
            assert mem.proposal(pid).status == "pending"
    elif path_name in ("apply", "process-all"):
        for pid in acks:
            assert mem.proposal(pid).status == "applied"
        # A writer killed between the knowledge write and the status write
        # left a pending proposal whose bullet is already there: applying it
        # again adds nothing, so every text ends up in the file exactly once.
        crash_ops.process_all(mem)
        aside = crash_ops.rotated(mem.home)
        text = knowledge_text(mem) + (aside.read_text("utf-8") if aside.exists() else "")
        for p in mem.queue(include_decided=True):
            if p.status == "applied":
                assert text.count(p.text) == 1, p.text
    elif path_name == "dismiss":
        dismissed = set(json.loads((mem.home / "dismissed.json").read_text("utf-8")))
        for pid in acks:
            p = mem.proposal(pid)
            assert p.status == "dismissed" and p.dedup_hash in dismissed
        text = knowledge_text(mem)
        assert not any(mem.proposal(pid).text in text for pid in crash_ops.seeds(_ctx(mem)))
    elif path_name == "purge":
        # A purge is whole: the file is gone and its hash kept, or it is still
        # there (pending or dismissed) for the person to purge again.
        dismissed = set(json.loads((mem.home / "dismissed.json").read_text("utf-8")))
        assert len(dismissed) >= len(set(acks))
        for pid in acks:
            with pytest.raises(NotFoundError):
                mem.proposal(pid)
        for p in mem.queue(include_decided=True):
            if p.status == "dismissed":
                assert p.dedup_hash in dismissed
    elif path_name == "reorganize":
        text = knowledge_text(mem)
        for bullet in crash_ops.seeds(_ctx(mem)):
            assert bullet in text
    elif path_name == "case-note":
        cm = CaseMemory(ws, crash_ops.CASE)
        names = {e.name for e in cm.entries()}
        assert set(acks) <= names
    elif path_name == "case-status":
        cm = CaseMemory(ws, crash_ops.CASE)
        last = acks[-1]
        nxt = crash_ops.STATES[(crash_ops.STATES.index(last) + 1) % 3]
        assert cm.get(crash_ops.STATUS_ENTRY).entry.status in (last, nxt)
    else:  # pragma: no cover - a path without a check is a mistake in this file
        raise AssertionError(path_name)


def _ctx(mem: Memory) -> crash_ops.Ctx:
    return crash_ops.Ctx(mem.home, mem.home, -1, lambda _: None)


def check_case(ws: Path) -> None:
    cm = CaseMemory(ws, crash_ops.CASE)
    cm.repair()  # INDEX.md is derived: a kill between entry and index is repaired
    assert cm.doctor().ok


# Homes seeded once by a setup several paths share (apply, dismiss and purge start from the
# same 120 proposals, seconds to write): each test gets a copy, as if it had written it.
_TEMPLATES: dict[Callable[[crash_ops.Ctx], None], Path] = {}


def _copy_shared_seeds(
    zygotes: Zygotes, path_name: str, tmp_path: Path, factory: pytest.TempPathFactory
) -> None:
    setup = crash_ops.SETUPS.get(path_name)
    if setup is None or list(crash_ops.SETUPS.values()).count(setup) < 2:
        return  # the writer's zygote runs its own setup
    if setup not in _TEMPLATES:
        base = factory.mktemp("seeds")
        # In a zygote of its own, as before: it runs the setup, says ready and exits, so
        # nothing of this process (an open index, a watcher) holds the home being copied.
        Writer(zygotes, path_name, base / "home", base / "ws").close()
        _TEMPLATES[setup] = base
    base = _TEMPLATES[setup]
    shutil.copytree(base / "home", tmp_path / "home")  # copy2: contents and mtimes
    shutil.copy2(base / "seeds.json", tmp_path / "seeds.json")


@pytest.fixture(scope="module")
def zygotes() -> Iterator[Zygotes]:
    server = Zygotes()
    try:
        yield server
    finally:
        server.close()


@pytest.mark.parametrize("path_name", list(crash_ops.LOOPS))
def test_sigkill_mid_write(
    zygotes: Zygotes, path_name: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
):
    home, seed = tmp_path / "home", random.randrange(1 << 30)
    ws = copy_sample(tmp_path) if path_name.startswith("case") else tmp_path / "ws"
    _copy_shared_seeds(zygotes, path_name, tmp_path, tmp_path_factory)
    rng = random.Random(seed)
    writer = Writer(zygotes, path_name, home, ws)
    try:
        span, n = DELAY_S, 0
        # Until KILLS kills and one acknowledged write (a loaded machine may kill every early
        # round before its first write returns; the span widens until one does).
        while (writer.kills < KILLS or not writer.acks) and n < 3 * KILLS:
            kills = writer.kills
            acked = writer.round(n, rng.uniform(0.0, span))
            n += 1
            if writer.kills == kills:
                # Its loop ended before the kill (a later round may find little left to
                # write, and a fast machine finishes it): kill sooner in the next round.
                span = max(span / 2, 0.01)
            elif acked == 0:
                # A loaded machine may not finish one write in the span: widen it
                # until writes get acknowledged, so kills land before, in and after them.
                span = min(span * 2, 3.0)
    finally:
        writer.close()
    print(f"{path_name}: {writer.kills} kills, {len(writer.acks)} acknowledged writes")
    assert writer.kills >= KILLS - 1, (seed, writer.kills)
    assert writer.acks, f"no write was acknowledged before the kills (seed {seed})"
    check_files(home, ws)
    mem = check_index(home)
    check_acks(path_name, mem, writer.acks, ws)
    if path_name.startswith("case"):
        check_case(ws)
        check_files(home, ws)


def test_an_append_after_a_torn_audit_line_keeps_the_log_readable(tmp_path: Path):
    """A writer killed inside a large append (bulk import) leaves half a line;
    the next append must start a new line, and the half line is left out."""
    home = tmp_path / "home"
    mem = Memory(home=home)
    mem.remember("first")
    log = home / "audit.jsonl"
    with log.open("ab") as fh:
        fh.write(b'{"action": "create", "actor": "person", "at": "2026-11-30T09:0')
    assert [r["action"] for r in mem.hooks.audit_records()] == ["create"]
    mem.remember("second")
    assert [r["action"] for r in mem.hooks.audit_records()] == ["create", "create"]
    assert mem.doctor()["ok"]
    # A damaged line that is not a torn tail is still reported, with its line.
    with log.open("ab") as fh:
        fh.write(b'{"action": "create" oops}\n')
    mem.remember("third")
    report = mem.doctor()
    assert not report["ok"] and "audit.jsonl:4: bad audit line" in str(report)
