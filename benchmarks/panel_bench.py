"""Queue list call of the lab panel's REST API with 200 pending proposals.

Starts a real ``jupyter server`` with the jupyter-memory extension on a fresh
memory home, fills the queue through the service, then times
``GET /jupyter-memory/queue`` (what the panel calls on first paint and on
every change event). Prints one JSON object. Target: ≤ 50 ms with 200 items.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

N_PROPOSALS = 200
N_CALLS = 40


def distinct_texts(n: int, seed: int = 0) -> list[str]:
    """Proposal texts far enough apart that dedup keeps every one."""
    rng = random.Random(seed)
    vocab = [f"{rng.choice('bcdfgklmnprst')}{rng.choice('aeiou')}{i:03d}x" for i in range(400)]
    return [f"Rule {i}: column " + " ".join(rng.sample(vocab, 8)) for i in range(n)]


def seed_queue(home: Path, n: int) -> None:
    from jupyter_memory import Memory

    with Memory(home=home) as mem:
        for text in distinct_texts(n):
            result = mem.propose(text, "rule", text, source="manual")
            assert result["status"] == "queued", result
        assert len(mem.queue()) == n


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        home = base / "memory-home"
        t0 = time.perf_counter()
        seed_queue(home, N_PROPOSALS)
        seed_s = time.perf_counter() - t0
        port, token = free_port(), secrets.token_hex(16)
        env = {**os.environ, "JUPYTER_MEMORY_HOME": str(home), "JUPYTER_RUNTIME_DIR": str(base)}
        cmd = [
            sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1",
            f"--port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
            "--allow-root", f"--ServerApp.root_dir={base}",
            "--ServerApp.jpserver_extensions={'jupyter_memory': True}",
        ]  # fmt: skip
        server = subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            headers = {"Authorization": f"token {token}"}
            deadline = time.monotonic() + 60
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}")
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise SystemExit("jupyter server did not start") from None
                    time.sleep(0.2)
            times, size, count = [], 0, 0
            # One kept-alive connection, as a browser has: the figure is the call, not TCP set-up.
            conn = http.client.HTTPConnection("127.0.0.1", port)
            for _ in range(N_CALLS):
                start = time.perf_counter()
                conn.request("GET", "/jupyter-memory/queue", headers=headers)
                resp = conn.getresponse()
                body = resp.read()
                times.append((time.perf_counter() - start) * 1000)
                assert resp.status == 200, body
                size, count = len(body), json.loads(body)["count"]
            # The same connection's cost for the server's own smallest API call, for scale.
            baseline = []
            for _ in range(N_CALLS):
                start = time.perf_counter()
                conn.request("GET", "/api/status", headers=headers)
                conn.getresponse().read()
                baseline.append((time.perf_counter() - start) * 1000)
            conn.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    assert count == N_PROPOSALS, count
    times.sort()
    print(
        json.dumps(
            {
                "benchmark": "panel_queue_list",
                "items": count,
                "calls": N_CALLS,
                "median_ms": round(statistics.median(times), 2),
                "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
                "response_bytes": size,
                "api_status_median_ms": round(statistics.median(baseline), 2),
                "seed_200_proposals_s": round(seed_s, 2),
                "target_ms": 50,
            }
        )
    )


if __name__ == "__main__":
    main()
