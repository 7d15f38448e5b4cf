"""Agent surfaces: MCP server start, ``memory_context`` over stdio, ``agents-md sync``.

Targets (issue 7): start ≤ 1.5 s; ``memory_context`` round trip ≤ 50 ms after
start; ``agents-md sync`` ≤ 100 ms. Prints one JSON object.

The stdio client here writes JSON-RPC lines itself, so the figures are the
server's, not an SDK client's start-up.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jupyter_memory import Memory
from jupyter_memory.service.knowledge.agents_md import sync_agents_md

ROUND_TRIPS = 50
SYNCS = 20
RULES = "\n".join(f"- Rule {i}: revenue line {i} excludes refunds (口径 {i})." for i in range(40))


def _send(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def _reply(proc: subprocess.Popen[bytes]) -> dict[str, object]:
    assert proc.stdout is not None
    return dict(json.loads(proc.stdout.readline()))


def mcp_figures(home: Path, project: Path) -> dict[str, float]:
    argv = [sys.executable, "-m", "jupyter_memory.cli.main", "mcp", "--home", str(home)]
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*argv, "--project", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    }
    _send(proc, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
    _reply(proc)
    started = time.perf_counter() - start
    _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    times = []
    for i in range(1, ROUND_TRIPS + 1):
        call = {"name": "memory_context", "arguments": {}}
        t0 = time.perf_counter()
        _send(proc, {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": call})
        reply = _reply(proc)
        times.append(time.perf_counter() - t0)
        assert "error" not in reply, reply
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    proc.wait(timeout=10)
    proc.stdout.close()
    return {
        "mcp_server_start_s": round(started, 3),
        "mcp_memory_context_median_ms": round(statistics.median(times) * 1000, 2),
        "mcp_memory_context_p95_ms": round(sorted(times)[int(len(times) * 0.95) - 1] * 1000, 2),
    }


def sync_figures(mem: Memory, project: Path) -> dict[str, float]:
    sync_agents_md(mem.hooks.knowledge_services.files, project, create=True)
    unchanged = []
    for _ in range(SYNCS):
        t0 = time.perf_counter()
        sync_agents_md(mem.hooks.knowledge_services.files, project)
        unchanged.append(time.perf_counter() - t0)
    changed = []
    for i in range(SYNCS):
        mem.save_knowledge(
            "project", f"## Rules\n{RULES}\n- Extra {i}.\n\n## Info\n", project=project
        )
        t0 = time.perf_counter()
        sync_agents_md(mem.hooks.knowledge_services.files, project)
        changed.append(time.perf_counter() - t0)
    return {
        "agents_md_sync_unchanged_median_ms": round(statistics.median(unchanged) * 1000, 2),
        "agents_md_sync_written_median_ms": round(statistics.median(changed) * 1000, 2),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "sales-q3"
        project.mkdir()
        os.environ["JUPYTER_MEMORY_HOME"] = str(home)
        with Memory(home, project=project) as mem:
            mem.save_knowledge("user", "## Rules\n- Always state the currency.\n\n## Info\n")
            mem.save_knowledge("project", f"## Rules\n{RULES}\n\n## Info\n", project=project)
            figures = sync_figures(mem, project)
        figures |= mcp_figures(home, project)
    figures["targets"] = {  # type: ignore[assignment]
        "mcp_server_start_s": 1.5,
        "mcp_memory_context_median_ms": 50,
        "agents_md_sync_written_median_ms": 100,
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
