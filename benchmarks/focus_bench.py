"""Focus resolution speed (issue 13 figure); prints one JSON object.

With 50 registered projects and the focus file at its cap (2,000 notebooks,
as after a long time of use), in a folder 8 levels deep:

* a Jupyter AI chat: ``access_for_chat`` (the chat folder's focus, then the
  cached access of that project), what the persona and every tool call do;
* an MCP session with ``--project auto``: the ``follow`` callable run before
  each tool call (the working folder's focus, adopted by the session);
* a notebook kernel: ``Memory.hooks.follow_focus`` when nothing changed (one stat).

Target for the chat and the MCP session: <= 10 ms (p50 and p95).

Usage: ``python benchmarks/focus_bench.py [--projects 50] [--notebooks 2000] [--repeat 200]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.agents.chat_focus import access_for_chat, forget_chat_accesses
from jupyter_memory.cli.agents_cmd import follow_folder_focus
from jupyter_memory.service.agent_access import AgentAccess
from jupyter_memory.store.focus_file import NotebookFocusFile


def timed(fn, repeat: int) -> dict[str, float]:
    fn()  # warm: caches, first open of a project root
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    out.sort()
    return {
        "p50_ms": round(statistics.median(out), 3),
        "p95_ms": round(out[int(len(out) * 0.95) - 1], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--projects", type=int, default=50)
    parser.add_argument("--notebooks", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=200)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        home = base / "home"
        with Memory(home) as person:
            for i in range(opts.projects):
                folder = base / "projects" / f"p{i:03d}"
                (folder / ".jupyter-memory").mkdir(parents=True)
                person.register_project(folder)
            work = base.joinpath(*[f"d{i}" for i in range(8)])
            work.mkdir(parents=True)
            store = NotebookFocusFile(home)
            for i in range(opts.notebooks - 1):  # other folders' notebooks fill the file
                store.set(base / f"elsewhere{i % 40}" / f"n{i}.ipynb", f"p{i % 50:03d}", "t")
            person.focus("p007", notebook=work / "report.ipynb")
        size = (home / "focus" / "notebooks.json").stat().st_size

        mem = Memory(home)
        base_access = AgentAccess(mem, agent="jupyter-ai", conversation="bench")
        chat = timed(lambda: access_for_chat(base_access, work), opts.repeat)
        assert access_for_chat(base_access, work).project == "p007"
        forget_chat_accesses()

        mcp_mem = Memory(home)
        follow = follow_folder_focus(mcp_mem, work)
        mcp = timed(follow, opts.repeat)
        assert follow() == "p007"

        kernel_mem = Memory(home)
        kernel = timed(lambda: kernel_mem.hooks.follow_focus(work / "report.ipynb"), opts.repeat)
        for m in (mem, mcp_mem, kernel_mem):
            m.close()
    print(
        json.dumps(
            {
                "projects": opts.projects,
                "notebooks_in_focus_file": opts.notebooks,
                "focus_file_bytes": size,
                "chat_access_for_chat": chat,
                "mcp_project_auto_per_call": mcp,
                "kernel_follow_unchanged": kernel,
                "target_ms": 10,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
