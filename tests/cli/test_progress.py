"""Progress bars for long work: on a terminal only, never with --json or into a pipe."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.progress import BAR_THRESHOLD

# The fewest notes that draw a bar: each stage (import, rebuild, embed) works through all of
# them, and the embed stage runs the real model.
N = BAR_THRESHOLD


def _cli(*argv: str, tty: bool) -> tuple[int, str, str]:
    """Run ``jupyter-memory ARGV`` with stderr on a pseudo-terminal (or a pipe)."""
    cmd = [
        sys.executable,
        "-c",
        "from jupyter_memory.cli.main import main; raise SystemExit(main())",
        *argv,
    ]
    if not tty:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        return done.returncode, done.stdout, done.stderr
    master, slave = pty.openpty()
    # A terminal has a size; tqdm draws nothing into a 0-column one.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    out = proc.stdout.read().decode() if proc.stdout else ""
    return proc.wait(timeout=120), out, b"".join(chunks).decode(errors="replace")


@pytest.fixture
def jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "notes.jsonl"
    lines = [json.dumps({"text": f"note {i}: 退款 refunds per order {i}"}) for i in range(N)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_import_and_rebuild_show_a_bar_on_a_terminal(memory_home: Path, jsonl: Path) -> None:
    code, out, err = _cli("import", str(jsonl), tty=True)
    assert code == 0, err
    assert "importing memories" in err and f"/{N} " in err
    code, out, err = _cli("rebuild-index", tty=True)
    assert code == 0, err
    assert "rebuilding the index" in err and f"/{N} " in err


def test_no_bar_with_json_or_into_a_pipe(memory_home: Path, jsonl: Path) -> None:
    code, out, err = _cli("import", str(jsonl), "--json", tty=True)
    assert code == 0 and "importing memories" not in err and "it/s" not in err
    assert (
        len(json.loads(out)["ids"] if isinstance(json.loads(out), dict) else json.loads(out)) == N
    )
    code, out, err = _cli("rebuild-index", tty=False)
    assert code == 0 and err == ""


def test_a_first_open_with_many_files_shows_indexing(memory_home: Path, jsonl: Path) -> None:
    with Memory(memory_home) as mem:
        mem.hooks.import_jsonl(jsonl)
    shutil.rmtree(memory_home / ".index")  # as after a copy or a git clone of the files
    code, out, err = _cli("recall", "退款", tty=True)
    assert code == 0, err
    assert "indexing memories" in err and f"/{N} " in err
    code, out, err = _cli("recall", "退款", tty=True)  # already indexed: no bar
    assert "indexing memories" not in err


def test_the_bars_name_their_stage_in_the_persons_language(
    memory_home: Path, jsonl: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    code, out, err = _cli("import", str(jsonl), tty=True)
    assert code == 0, err
    assert "正在导入记忆" in err and f"/{N} " in err and "importing memories" not in err
    code, out, err = _cli("rebuild-index", tty=True)
    assert code == 0, err
    assert "正在重建索引" in err and "rebuilding the index" not in err
    monkeypatch.setenv("JUPYTER_MEMORY_SEMANTIC", "1")  # the bundled embedder (dev extra)
    code, out, err = _cli("embed", tty=True)
    assert code == 0, err
    assert "正在生成记忆向量" in err and f"/{N} " in err and "embedding memories" not in err
