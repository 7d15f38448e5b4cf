"""Knowledge saves are compare-and-swap (issue 19 B): a stale save never erases an Apply."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.exceptions import ConflictError, KnowledgeConflictError, ValidationError
from jupyter_memory.store.atomic import root_lock
from jupyter_memory.store.knowledge.files import KnowledgeFile, knowledge_version
from jupyter_memory.store.layout import RootLayout

BASE = "## Rules\n\n- Revenue excludes refunds\n\n## Info\n"
MINE = "## Rules\n\n- Revenue excludes refunds\n- Person's own edit: amounts in EUR\n\n## Info\n"
CLI = [sys.executable, "-m", "jupyter_memory.cli.main"]


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def apply_rule(mem: Memory, text: str) -> None:
    pid = mem.propose(text, "rule", text, source="manual")["proposal"]["id"]
    assert mem.apply(pid, to="user")["status"] == "applied"


def test_every_read_carries_the_version_of_the_file_bytes(mem: Memory, memory_home: Path) -> None:
    absent = mem.read_knowledge("user")
    assert absent["exists"] is False and absent["version"] == sha(b"") == knowledge_version(b"")
    assert "## Rules" in absent["text"]  # the empty template the editor starts from
    saved = mem.save_knowledge("user", BASE, base=absent["version"])
    on_disk = (memory_home / "knowledge.md").read_bytes()
    assert saved["version"] == sha(on_disk)
    read = mem.read_knowledge("user")
    assert read["version"] == sha(on_disk) and read["text"] == on_disk.decode("utf-8")
    assert read["status"]["version"] == mem.hooks.library_status("user")["version"] == sha(on_disk)
    assert mem.hooks.knowledge_version("user") == sha(on_disk)


def test_a_stale_save_is_refused_and_the_applied_entry_stays(
    mem: Memory, memory_home: Path
) -> None:
    mem.save_knowledge("user", BASE)
    opened = mem.read_knowledge("user")  # the editor opens here
    apply_rule(mem, "Always label chart axes")  # an Apply lands meanwhile
    after_apply = (memory_home / "knowledge.md").read_bytes()
    with pytest.raises(KnowledgeConflictError) as info:
        mem.save_knowledge("user", MINE, base=opened["version"])
    err = info.value
    assert isinstance(err, ConflictError) and err.state == "stale_version"
    assert str(memory_home / "knowledge.md") in str(err)
    assert err.base == opened["version"] and err.current_version == sha(after_apply)
    assert err.current_text == after_apply.decode("utf-8") and err.text == MINE
    assert err.path == memory_home / "knowledge.md"
    assert (memory_home / "knowledge.md").read_bytes() == after_apply
    # The person merges against the version the refusal named: both entries are kept.
    merged = err.current_text.replace(
        "- Revenue excludes refunds\n",
        "- Revenue excludes refunds\n- Person's own edit: amounts in EUR\n",
    )
    out = mem.save_knowledge("user", merged, base=err.current_version)
    text = (memory_home / "knowledge.md").read_text(encoding="utf-8")
    assert "Always label chart axes" in text and "Person's own edit" in text
    assert out["version"] == sha(text.encode("utf-8"))


def test_a_stale_base_with_the_same_text_loses_nothing_and_is_accepted(mem: Memory) -> None:
    mem.save_knowledge("user", BASE)
    old = mem.hooks.knowledge_version("user")
    apply_rule(mem, "Always label chart axes")
    current = mem.read_knowledge("user")
    out = mem.save_knowledge("user", current["text"], base=old)
    assert out["version"] == current["version"]


@pytest.mark.parametrize("bad", ["", "abc", "z" * 64, "A" * 64 + "0", 42])
def test_a_malformed_base_is_refused_naming_the_field(mem: Memory, memory_home: Path, bad) -> None:
    mem.save_knowledge("user", BASE)
    before = (memory_home / "knowledge.md").read_bytes()
    with pytest.raises(ValidationError) as info:
        mem.save_knowledge("user", MINE, base=bad)
    assert info.value.field == "base"
    assert (memory_home / "knowledge.md").read_bytes() == before


def test_apply_and_reorganize_report_the_version_they_wrote(mem: Memory, memory_home: Path) -> None:
    mem.save_knowledge("user", "## Rules\n\n- Use UTC\n- use utc\n\n## Info\n")
    pid = mem.propose("Always label axes", "rule", "Always label axes", source="manual")
    applied = mem.apply(pid["proposal"]["id"], to="user")
    assert applied["version"] == sha((memory_home / "knowledge.md").read_bytes())
    done = mem.reorganize("user")
    assert done["version"] == sha((memory_home / "knowledge.md").read_bytes())


def test_project_layer_is_compare_and_swap_too(mem: Memory, project_dir: Path) -> None:
    opened = mem.read_knowledge("project", project=project_dir)
    assert opened["project"] == "sales-q3" and opened["version"] == sha(b"")
    mem.save_knowledge("project", BASE, project=project_dir, base=opened["version"])
    with pytest.raises(KnowledgeConflictError) as info:
        mem.save_knowledge("project", MINE, project=project_dir, base=opened["version"])
    assert str(project_dir / ".jupyter-memory" / "knowledge.md") in str(info.value)


# -- real processes --------------------------------------------------------------------


def _sleeping(pid: int) -> bool:
    """Is process ``pid`` in a timed sleep (the store lock's poll between tries)?

    Nothing on the save path sleeps before the lock, so a save process found
    asleep is waiting for the lock: past any check made before taking it.
    """
    try:
        return "nanosleep" in Path(f"/proc/{pid}/wchan").read_text()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs Linux /proc")
def test_check_and_write_share_the_apply_lock_across_processes(memory_home: Path) -> None:
    """A save process waiting on the store lock re-checks the base after a concurrent write.

    The test holds the lock while a real CLI save process starts and waits on it,
    writes the file as a concurrent Apply would (under the same lock), then lets
    go: the save must be refused, whatever it checked before it reached the lock.
    """
    with Memory(home=memory_home) as m:
        m.save_knowledge("user", BASE)
        base = m.hooks.knowledge_version("user")
    layout = RootLayout(memory_home)
    applied = BASE.replace("## Info", "- Always label chart axes\n\n## Info")
    mine = memory_home.parent / "mine.md"
    mine.write_text(MINE, encoding="utf-8")
    with root_lock(memory_home), mine.open("rb") as stdin:
        proc = subprocess.Popen(
            [*CLI, "knowledge", "save", "--base", base],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 30
        while not _sleeping(proc.pid):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the save process never reached the lock"
            time.sleep(0.02)
        KnowledgeFile(layout).write(applied)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, (out, err)
    assert str(memory_home / "knowledge.md") in err and "changed" in err
    assert (memory_home / "knowledge.md").read_text(encoding="utf-8") == applied


_SAVER = """
import sys
from jupyter_memory import Memory
from jupyter_memory.exceptions import KnowledgeConflictError
home, rounds = sys.argv[1], int(sys.argv[2])
with Memory(home=home) as mem:
    for i in range(rounds):
        while True:
            read = mem.read_knowledge("user")
            text = read["text"].replace("## Info", f"- Person edit {i}\\n\\n## Info")
            try:
                mem.save_knowledge("user", text, base=read["version"])
                break
            except KnowledgeConflictError:
                pass  # read again, merge again
"""

_APPLIER = """
import sys
from jupyter_memory import Memory
home, ids = sys.argv[1], sys.argv[2:]
with Memory(home=home) as mem:
    for pid in ids:
        assert mem.apply(pid, to="user")["status"] == "applied"
"""


@pytest.mark.slow  # processes racing: make test, not make test-fast
def test_racing_save_and_apply_processes_lose_no_entry(memory_home: Path) -> None:
    rounds = 12
    with Memory(home=memory_home) as m:
        m.save_knowledge("user", BASE)
        texts = [
            "Orders are counted once they ship",
            "Dates are stored in UTC",
            "Amounts carry their currency code",
            "Fiscal weeks start on Monday",
            "Region codes follow ISO 3166",
            "Churn counts accounts, not users",
            "GMV includes tax",
            "Discount lines are negative amounts",
            "Shipping zones come from the carrier table",
            "Returns are booked in the month they arrive",
            "Margins are computed before overhead",
            "Cohorts are keyed by first order month",
        ][:rounds]
        ids = [m.propose(t, "rule", t, source="manual")["proposal"]["id"] for t in texts]
    env = {**os.environ}
    saver = subprocess.Popen(
        [sys.executable, "-c", _SAVER, str(memory_home), str(rounds)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    applier = subprocess.Popen(
        [sys.executable, "-c", _APPLIER, str(memory_home), *ids],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    _, s_err = saver.communicate(timeout=120)
    _, a_err = applier.communicate(timeout=120)
    assert saver.returncode == 0, s_err
    assert applier.returncode == 0, a_err
    final = (memory_home / "knowledge.md").read_text(encoding="utf-8")
    missing = [t for t in texts if t not in final]
    assert not missing, f"applied entries lost: {missing}"
    assert all(f"Person edit {i}" in final for i in range(rounds))
    with Memory(home=memory_home) as m:
        assert all(m.proposal(pid).status == "applied" for pid in ids)


def test_a_magic_reports_a_stale_save_in_one_line_naming_the_file(mem: Memory) -> None:
    from jupyter_memory.magics.errors import usage_error

    mem.save_knowledge("user", BASE)
    opened = mem.hooks.knowledge_version("user")
    apply_rule(mem, "Always label chart axes")
    with pytest.raises(KnowledgeConflictError) as info:
        mem.save_knowledge("user", MINE, base=opened)
    message = str(usage_error(info.value, "memory"))
    assert message.startswith("%memory: the knowledge file changed since it was read: ")
    assert str(info.value.path) in message
