"""Write loops for the SIGKILL suite (tests/store/test_crash_every_path.py).

Each path has an optional ``setup`` (run once, before any kill) and a
``loop`` that repeats the write forever in a forked child. ``ack(text)`` is
called only after a write returned: an acknowledged write must survive the
kill. :func:`zygote` is the process the test talks to: it imports everything
once, runs the setup, then forks one writer per ``go`` line, so a kill round
costs a fork rather than an interpreter start.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import random
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from jupyter_memory import Memory
from jupyter_memory.exceptions import NotFoundError
from jupyter_memory.service.cases.memory import CaseMemory
from tests.support.padding import padding

CASE = "CASE-2026-001"
# The case entry whose status the case-status loop turns round (not a legacy entry).
STATUS_ENTRY = "2026-06-03_hesitate_overseas-payment.md"
STATES = ("已纳入", "存档待查", "已排除")
FUTURE = datetime(2031, 6, 1, 9, 0, tzinfo=timezone.utc)
SYLLABLES = [a + b for a in "bdfgklmnprstvz" for b in ("a", "e", "i", "o", "u", "ar", "en", "ox")]


def unique_text(rng: random.Random) -> str:
    """A sentence of made-up words: no two are near-duplicates in the queue's dedup."""
    words = ["".join(rng.choices(SYLLABLES, k=3)) for _ in range(7)]
    return "Always " + " ".join(words)


@dataclass
class Ctx:
    home: Path
    ws: Path
    round: int
    ack: Callable[[str], None]
    begin: Callable[[], None] = lambda: None  # the writer is set up; the kill clock starts

    @property
    def seeds(self) -> Path:
        return self.home.parent / "seeds.json"

    def memory(self, **kw: object) -> Memory:
        return Memory(home=self.home, **kw)  # type: ignore[arg-type]


def _seed(ctx: Ctx, ids: list[str]) -> None:
    ctx.seeds.write_text(json.dumps(ids), "utf-8")


def seeds(ctx: Ctx) -> list[str]:
    return list(json.loads(ctx.seeds.read_text("utf-8")))


def _propose(mem: Memory, rng: random.Random) -> str:
    text = unique_text(rng)
    result = mem.propose(text, "rule", text, source="manual")
    assert result["status"] == "queued", result
    return str(result["proposal"]["id"])


def process_all(mem: Memory) -> object:
    """Process all, whatever its parameters are today (another change reshapes them)."""
    params = inspect.signature(mem.process_all).parameters
    return mem.process_all(to="user") if "to" in params else mem.process_all()


# -- setups ----------------------------------------------------------------------------------


def setup_update(ctx: Ctx) -> None:
    _seed(ctx, [ctx.memory().remember("version -1", title="moving target").id])


def _imported(mem: Memory, ctx: Ctx, rows: list[dict[str, str]]) -> list[str]:
    """Seed memories by one bulk import: the write paths under test are the loops'; a
    seed's ``remember`` would check each against every earlier one (seconds for 150)."""
    lines = ctx.home.parent / "seed.jsonl"
    lines.write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")
    return mem.hooks.import_jsonl(lines)


def setup_forget(ctx: Ctx) -> None:
    rows = [{"text": f"forget me {i} " + padding(400, "y")} for i in range(150)]
    _seed(ctx, _imported(ctx.memory(), ctx, rows))


def setup_proposals(ctx: Ctx) -> None:
    mem, rng = ctx.memory(), random.Random(7)
    _seed(ctx, [_propose(mem, rng) for _ in range(120)])


def setup_reorganize(ctx: Ctx) -> None:
    rng = random.Random(11)
    bullets = [unique_text(rng) for _ in range(40)]
    text = "## Rules\n\n" + "".join(f"- {b}\n" for b in bullets) + "\n## Info\n"
    ctx.memory().save_knowledge("user", text)
    _seed(ctx, bullets)


def setup_restore(ctx: Ctx) -> None:
    mem = ctx.memory(clock=lambda: FUTURE)
    old = (FUTURE - timedelta(days=400)).isoformat()
    rows = [
        {"text": f"cold {i}", "type": "episodic", "tier": "daily", "created": old}
        for i in range(150)
    ]
    _imported(mem, ctx, rows)
    archived = mem.archive()["archived"]
    assert len(archived) == 150, archived
    _seed(ctx, [a["id"] for a in archived])


# -- loops -----------------------------------------------------------------------------------


def loop_remember(ctx: Ctx) -> None:
    mem = ctx.memory()
    ctx.begin()
    for i in range(100_000):
        entry = mem.remember(f"note {ctx.round} {i} " + padding(2000), title=f"r{ctx.round} {i}")
        ctx.ack(entry.id)


def loop_update(ctx: Ctx) -> None:
    mem, (target,) = ctx.memory(), seeds(ctx)
    ctx.begin()
    for i in range(100_000):
        version = f"{ctx.round:03d} {i:06d}"
        mem.update(target, text=f"version {version} " + padding(1500, "z"))
        ctx.ack(version)


def loop_forget(ctx: Ctx) -> None:
    mem = ctx.memory()
    ctx.begin()
    for mid in seeds(ctx):
        try:
            mem.forget(mid)
        except NotFoundError:
            continue  # forgotten in an earlier round
        ctx.ack(mid)
    for i in range(100_000):  # the seeds are gone: keep forgetting until killed
        mid = mem.remember(f"forget me later {ctx.round} {i}").id
        mem.forget(mid)
        ctx.ack(mid)


def loop_enqueue(ctx: Ctx) -> None:
    mem, rng = ctx.memory(), random.Random(1000 + ctx.round)
    ctx.begin()
    for _ in range(100_000):
        ctx.ack(_propose(mem, rng))


def loop_apply(ctx: Ctx) -> None:
    mem = ctx.memory()
    ctx.begin()
    for pid in seeds(ctx):
        mem.apply(pid, to="user")
        ctx.ack(pid)


def loop_dismiss(ctx: Ctx) -> None:
    mem, rng = ctx.memory(), random.Random(3000 + ctx.round)
    ctx.begin()
    for pid in seeds(ctx):
        mem.dismiss(pid)
        ctx.ack(pid)
    # Every seed is dismissed after a round or two, and dismissing one again writes
    # nothing: go on with new proposals, so each kill still lands among writes.
    for _ in range(100_000):
        pid = _propose(mem, rng)
        mem.dismiss(pid)
        ctx.ack(pid)


def loop_purge(ctx: Ctx) -> None:
    mem = ctx.memory()
    ctx.begin()
    for pid in seeds(ctx):
        # A seed purged in an earlier round is gone; one whose purge was killed
        # after the delete has no purge line either: both are purged already.
        with contextlib.suppress(NotFoundError):
            mem.dismiss(pid)
            mem.hooks.purge(pid)
        ctx.ack(pid)


# Process all adds two bullets per pass to one knowledge file, which has a save
# limit (core/knowledge/format.SAVE_CAP_CHARS, 8,000 characters): a round writes
# at most PASSES_PER_ROUND passes (about 3,600 characters), and a file past
# ROTATE_AT is moved aside before the next round's kill clock starts.
PASSES_PER_ROUND = 30
ROTATE_AT = 3_000


def rotated(home: Path) -> Path:
    """Where the process-all writer keeps the knowledge it moved aside."""
    return home.parent / "rotated-knowledge.md"


def loop_process_all(ctx: Ctx) -> None:
    mem, rng = ctx.memory(), random.Random(2000 + ctx.round)
    if len(mem.knowledge("user") or "") > ROTATE_AT:
        # Before the clock starts, so never killed: first finish what the last
        # kill left pending (its bullet may be written already), then move aside.
        process_all(mem)
        with rotated(ctx.home).open("a", encoding="utf-8") as f:
            f.write(mem.knowledge("user") or "")
        mem.save_knowledge("user", "")
    ctx.begin()
    for _ in range(PASSES_PER_ROUND):
        pending = [_propose(mem, rng) for _ in range(2)]
        result: Any = process_all(mem)
        # Acknowledged: what Process all says it applied. Anything it skipped is
        # a failure of this test's writer (each item names its User layer).
        skipped = {s.id: s.reason for s in result.skipped if s.id in pending}
        decided = {a.id: a.status for a in result.applied}
        missed = [pid for pid in pending if decided.get(pid) not in ("applied", "already_saved")]
        if skipped or missed:
            raise AssertionError(f"process all skipped {skipped}, left {missed}: {decided}")
        for pid in pending:
            ctx.ack(pid)


def loop_knowledge_save(ctx: Ctx) -> None:
    mem = ctx.memory()
    ctx.begin()
    for i in range(100_000):
        version = f"{ctx.round:03d} {i:06d}"
        mem.save_knowledge("user", f"## Rules\n\n- saved version {version}\n\n## Info\n")
        ctx.ack(version)


def loop_reorganize(ctx: Ctx) -> None:
    mem = ctx.memory()
    bullets = seeds(ctx)
    # A true duplicate each round, so every reorganize writes (one with nothing
    # to change writes nothing, and a crash there would test nothing).
    doubled = "## Rules\n\n" + "".join(f"- {b}\n" for b in [*bullets, bullets[0].upper()])
    ctx.begin()
    for i in range(100_000):
        mem.save_knowledge("user", doubled)
        mem.reorganize("user")
        ctx.ack(str(i))


def loop_case_note(ctx: Ctx) -> None:
    cm, rng = CaseMemory(ctx.ws, CASE), random.Random(3000 + ctx.round)
    ctx.begin()
    for _ in range(100_000):
        body = f"经销商 {unique_text(rng)} 的返利节奏与付款同步，原因不明。"
        result = cm.note("observe", f"观察 {unique_text(rng)[7:30]}", body)
        if result.action == "created":
            ctx.ack(result.path.name)


def loop_case_status(ctx: Ctx) -> None:
    cm = CaseMemory(ctx.ws, CASE)
    ctx.begin()
    for _ in range(100_000):
        now = cm.get(STATUS_ENTRY).entry.status
        nxt = STATES[(STATES.index(now) + 1) % len(STATES)]
        cm.set_status(STATUS_ENTRY, nxt)
        ctx.ack(nxt)


def loop_digest(ctx: Ctx) -> None:
    mem, rng = ctx.memory(), random.Random(4000 + ctx.round)
    ctx.begin()
    for i in range(100_000):
        words = unique_text(rng)[7:]
        cell = {"id": f"c{ctx.round}-{i}", "role": "user", "kind": "markdown"}
        cell["text"] = f"We decided to count {words} on the booking date because finance closes."
        mem.hooks.digest_record(f"kernel-{ctx.round}", [cell])
        for stored in mem.digest()["stored"]:
            ctx.ack(stored["id"])


def loop_archive(ctx: Ctx) -> None:
    mem = ctx.memory(clock=lambda: FUTURE)
    old = FUTURE - timedelta(days=400)
    ctx.begin()
    for i in range(100_000):
        for k in range(2):
            mem.remember(f"old {ctx.round} {i} {k}", type="episodic", tier="daily", created=old)
        for item in mem.archive()["archived"]:
            ctx.ack(item["id"])


ARCHIVE_AGAIN = "archive-again"  # an ack of restore's writer: it archives again from here


def loop_restore(ctx: Ctx) -> None:
    mem, cold = ctx.memory(), ctx.memory(clock=lambda: FUTURE)
    ctx.begin()
    for i in range(100_000):
        items = mem.hooks.archived()
        if not items:  # the seeds are back: archive a few more to restore
            # That archive takes the restored ones too (they are as old): what was restored
            # before it need not be back, and the check reads only the acks after the mark.
            ctx.ack(ARCHIVE_AGAIN)
            for k in range(5):
                old = FUTURE - timedelta(days=400)
                cold.remember(f"cold again {ctx.round} {i} {k}", type="episodic", created=old)
            cold.archive()
        for item in items:
            mem.restore(item.id)
            ctx.ack(item.id)


SETUPS: dict[str, Callable[[Ctx], None]] = {
    "update": setup_update,
    "forget": setup_forget,
    "apply": setup_proposals,
    "dismiss": setup_proposals,
    "purge": setup_proposals,
    "reorganize": setup_reorganize,
    "restore": setup_restore,
}
LOOPS: dict[str, Callable[[Ctx], None]] = {
    "remember": loop_remember,
    "update": loop_update,
    "forget": loop_forget,
    "enqueue": loop_enqueue,
    "apply": loop_apply,
    "dismiss": loop_dismiss,
    "purge": loop_purge,
    "process-all": loop_process_all,
    "knowledge-save": loop_knowledge_save,
    "reorganize": loop_reorganize,
    "case-note": loop_case_note,
    "case-status": loop_case_status,
    "digest": loop_digest,
    "archive": loop_archive,
    "restore": loop_restore,
}


def zygote(path_name: str, home: str, ws: str) -> None:
    """Serve ``go N`` lines: fork a writer, report ``pid N PID``, ``begin N`` once it is
    set up, ``ack N …`` per write, then ``dead N STATUS``."""

    def say(line: str) -> None:
        os.write(1, (line + "\n").encode("utf-8"))  # one write: lines never interleave

    def ctx_for(round_: int) -> Ctx:
        return Ctx(
            Path(home),
            Path(ws),
            round_,
            lambda text: say(f"ack {round_} {text}"),
            lambda: say(f"begin {round_}"),
        )

    setup = SETUPS.get(path_name)
    # Seeds already there: the test copied a home seeded once for several paths.
    if setup is not None and not ctx_for(-1).seeds.exists():
        setup(ctx_for(-1))
    say("ready")
    for line in sys.stdin:
        if not line.startswith("go "):
            break
        round_ = int(line.split()[1])
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                LOOPS[path_name](ctx_for(round_))
                say(f"finished {round_}")
            except BaseException as exc:  # reported to the test, which fails on it
                say(f"error {round_} {type(exc).__name__}: {exc}")
                code = 1
            os._exit(code)
        say(f"pid {round_} {pid}")
        _, status = os.waitpid(pid, 0)
        say(f"dead {round_} {status}")


def serve() -> None:
    """Serve JSON lines ``[path_name, home, ws, stdin_fifo, stdout_fifo, stderr_file, env]``:
    fork a :func:`zygote` in a session of its own, with that environment, on those files, and
    report ``zygote PID``.

    One interpreter imports the package for every path of the suite: started per path, each
    zygote cost ~0.8 CPU-s of imports before its setup. The server opens no home; each zygote
    starts from the state the imports left, as one started by ``python -m`` would.
    """

    def reap(block: bool) -> None:
        # Waited for, not ignored: a reaped child's CPU time is counted in this process's (and
        # so in whatever measures the suite's), an ignored one's is lost.
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, 0 if block else os.WNOHANG)[0]:
                pass

    while line := sys.stdin.readline():
        reap(block=False)  # the zygotes of the paths done
        path_name, home, ws, fifo_in, fifo_out, err, env = json.loads(line)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.setsid()  # its writers are killed with it if a test fails
                os.environ.clear()  # the test's, as a zygote started for it had
                os.environ.update(env)
                os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
                os.dup2(os.open(fifo_in, os.O_RDONLY), 0)
                os.dup2(os.open(fifo_out, os.O_WRONLY), 1)
                # Not the server's stdin object: its buffer may hold the server's next lines.
                sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
                zygote(path_name, home, ws)
                code = 0
            except BaseException:
                traceback.print_exc()
                sys.stderr.flush()
            finally:
                os._exit(code)
        print(f"zygote {pid}", flush=True)
    reap(block=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        serve()
    else:
        zygote(*sys.argv[1:4])
