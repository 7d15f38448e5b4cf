"""Start a real Jupyter server process, wait until it answers, stop it by its pid.

One way for every suite (the browser suite's lab and Notebook 7, the agents'
``jupyter server`` with jupyter-server-mcp, the Jupyter AI server test, the
wheel's lab): ``python -m <app>`` (or a venv's ``jupyter-lab``) on a loopback port
with a token, ``port_retries=0`` so it never drifts to a port the tests would not
be talking to, its output in a log file that a failure quotes.
"""

from __future__ import annotations

import json
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def stop_process(process: subprocess.Popen[bytes], timeout: float = 10) -> None:
    """SIGTERM to exactly the process we started (by its pid), SIGKILL if it lingers."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        # A SIGKILLed server goes at once on a machine with a core to spare; one starved by
        # a CPU burner beside the suite took past 10 s to reap Notebook 7's (a burner run
        # of stop 41). A minute, as every other wait of the suite.
        process.wait(timeout=60)


@dataclass
class JupyterProcess:
    """A running ``jupyter server``/``lab``/``notebook``: its URL, token, root and log."""

    url: str
    token: str
    root: Path
    log: Path
    process: subprocess.Popen[bytes]
    ports: tuple[int, ...]  # the server's, then any extra one (jupyter-server-mcp's)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def proc(self) -> subprocess.Popen[bytes]:  # the name tests/agents used
        return self.process

    @property
    def mcp_url(self) -> str:
        """jupyter-server-mcp's streamable HTTP endpoint (its port is the first extra one)."""
        assert len(self.ports) > 1, "started without an MCP port"
        return f"http://127.0.0.1:{self.ports[1]}/mcp"

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def ready(self, timeout: float = 90) -> JupyterProcess:
        """Wait until ``/api/status`` answers and every extra port listens."""
        deadline = time.monotonic() + timeout
        status = f"{self.url}/api/status?token={self.token}"
        while True:
            if self.process.poll() is not None:
                pytest.fail(
                    f"the jupyter server exited early ({self.log}):\n{self.log_tail()}",
                    pytrace=False,
                )
            try:
                with urllib.request.urlopen(status, timeout=2):
                    if all(listening(p) for p in self.ports[1:]):
                        return self
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"the jupyter server did not answer within {timeout:.0f} s "
                    f"({self.log}):\n{self.log_tail()}",
                    pytrace=False,
                )
            time.sleep(0.1)

    def request(
        self, method: str, path: str, body: Any = None, *, timeout: float = 40
    ) -> tuple[int, Any]:
        """(status, JSON body) over real HTTP with the token; an error's body as text."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace")

    def stop(self) -> None:
        stop_process(self.process)


@contextmanager
def jupyter_process(
    root: Path,
    log: Path,
    *,
    env: Mapping[str, str],
    app: str = "jupyter_server",
    command: Sequence[str] | None = None,
    args: Sequence[str] = (),
    port: int | None = None,
    extra_ports: Sequence[int] = (),
    cwd: Path | None = None,
) -> Iterator[JupyterProcess]:
    """``python -m <app>`` (or ``command``, e.g. a venv's ``jupyter-lab``) serving ``root``.

    Yields at once, before the server answers: call :meth:`JupyterProcess.ready`
    (meanwhile a kernel can start too). Stopped by its pid on exit.
    """
    port = free_port() if port is None else port
    token = secrets.token_hex(16)
    argv = [
        *(command or [sys.executable, "-m", app]),
        "--no-browser",
        "--allow-root",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        *args,
    ]
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv,
            env=dict(env),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
        )
    server = JupyterProcess(
        f"http://127.0.0.1:{port}", token, root, log, process, (port, *extra_ports)
    )
    try:
        yield server
    finally:
        stop_process(process)
