"""How the Jupyter server answers while memory waits (issue 27, finding 1).

Starts a real ``jupyter server`` with the jupyter-memory extension (the code on
PYTHONPATH: run it once with this tree and once with main's for before/after),
then, while this process holds the memory home's lock for HOLD_S seconds,
sends an Apply (which waits for that lock) and times ``GET /api/status`` over
and over until the lock is released; then the same while the ``git`` on the
server's PATH sleeps 5 s per call and a ``GET /jupyter-memory/team`` runs.
Prints one JSON object: the status latencies (median and worst) and what the
blocked memory route answered, with how long it took.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/server_busy_bench.py
    PYTHONPATH=/work/main .venv/bin/python benchmarks/server_busy_bench.py  # before
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from filelock import FileLock

HOLD_S = 8.0
GIT_SLEEP_S = 5
N_IDLE = 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, base: Path, home: Path, slow_bin: Path) -> None:
        self.port, self.token = free_port(), secrets.token_hex(16)
        env = {
            **os.environ,
            "JUPYTER_MEMORY_HOME": str(home),
            "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
            "PATH": f"{slow_bin}{os.pathsep}{os.environ['PATH']}",
        }
        cmd = [
            sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1",
            f"--port={self.port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}", "--allow-root",
            f"--ServerApp.root_dir={base}",
            "--ServerApp.jpserver_extensions={'jupyter_memory': True}",
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(
                    f"http://127.0.0.1:{self.port}/api/status?token={self.token}"
                )
                return
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise SystemExit("jupyter server did not start") from None
                time.sleep(0.2)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, float]:
        """(status, seconds) of one request on a connection of its own."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        headers = {"Authorization": f"token {self.token}"}
        start = time.perf_counter()
        conn.request(
            method, path, body=json.dumps(body) if body is not None else None, headers=headers
        )
        resp = conn.getresponse()
        resp.read()
        conn.close()
        return resp.status, time.perf_counter() - start

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


def during(
    server: Server, method: str, path: str, body: Any, hold: Any, until: float
) -> dict[str, Any]:
    """Start the memory request, time /api/status until ``until``, then ``hold()`` ends."""
    answer: dict[str, Any] = {}

    def blocked() -> None:
        answer["status"], answer["s"] = server.call(method, path, body)

    worker = threading.Thread(target=blocked)
    worker.start()
    time.sleep(0.3)  # the memory request is in flight
    times = []
    while time.monotonic() < until or not times:
        times.append(server.call("GET", "/api/status")[1] * 1000)
    hold()
    worker.join()
    return {
        "status_calls": len(times),
        "status_median_ms": round(statistics.median(times), 1),
        "status_max_ms": round(max(times), 1),
        "memory_route": f"{method} {path.split('?')[0]}",
        "memory_route_status": answer["status"],
        "memory_route_s": round(answer["s"], 2),
    }


def main() -> None:
    from jupyter_memory import Memory

    git = shutil.which("git")
    assert git, "the benchmark needs git"
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        home, team = base / "memory-home", base / "team-sales"
        team.mkdir()
        subprocess.run([git, "init", "-q", "-b", "main", str(team)], check=True)
        with Memory(home=home) as mem:
            mem.project_init(team)
            text = "Revenue always excludes refunds"
            pid = mem.propose(text, "rule", text, source="manual")["proposal"]["id"]
        # The server's git sleeps only while the flag file is there.
        flag, slow_bin = base / "slow-git", base / "bin"
        slow_bin.mkdir()
        (slow_bin / "git").write_text(
            f'#!/bin/sh\n[ -e {flag} ] && sleep {GIT_SLEEP_S}\nexec {git} "$@"\n'
        )
        (slow_bin / "git").chmod(0o755)
        server = Server(base, home, slow_bin)
        try:
            idle = sorted(server.call("GET", "/api/status")[1] * 1000 for _ in range(N_IDLE))
            lock = FileLock(str(home / ".jupyter-memory.lock"))
            lock.acquire()
            home_lock = during(
                server, "POST", f"/jupyter-memory/queue/{pid}/apply", {"to": "user"},
                lock.release, time.monotonic() + HOLD_S,
            )  # fmt: skip
            flag.touch()
            slow_git = during(
                server, "GET", "/jupyter-memory/team?project=team-sales", None,
                flag.unlink, time.monotonic() + HOLD_S,
            )  # fmt: skip
        finally:
            server.stop()
    print(
        json.dumps(
            {
                "benchmark": "server_busy",
                "code": str(Path(str(sys.modules["jupyter_memory"].__file__)).parent),
                "hold_s": HOLD_S,
                "git_sleep_s": GIT_SLEEP_S,
                "api_status_idle_median_ms": round(statistics.median(idle), 1),
                "home_lock_held": home_lock,
                "git_slow": slow_git,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
