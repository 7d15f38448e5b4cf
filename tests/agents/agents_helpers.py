"""Starting ``jupyter-memory mcp`` as a real subprocess and talking to it with the SDK."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from jupyter_memory.agents import mcp_compat
from tests.support.cli import run_main
from tests.support.servers import free_port  # one definition; the old import keeps working
from tests.support.waiting import DEADLINE_S

# A raw JSON-RPC ``initialize`` request, for tests that speak the protocol by hand.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def server_argv(home: Path, *extra: str) -> list[str]:
    return ["-m", "jupyter_memory.cli.main", "mcp", "--home", str(home), *extra]


@asynccontextmanager
async def stdio_session(
    home: Path, *extra: str, errlog: Any = None, cwd: Path | None = None
) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable, args=server_argv(home, *extra), env=dict(os.environ), cwd=cwd
    )
    kwargs = {"errlog": errlog} if errlog is not None else {}
    async with stdio_client(params, **kwargs) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        yield s


@contextmanager
def http_server(home: Path, *extra: str, log: Path) -> Any:
    """The HTTP server on a free loopback port; yields its /mcp URL, stops it after."""
    port = free_port()
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, *server_argv(home, "--http", "--port", str(port), *extra)],
            stdout=subprocess.DEVNULL,
            stderr=err,
            stdin=subprocess.DEVNULL,
        )
        try:
            # A minute, as every wait of the suite (tests/support/waiting.py): beside a CPU
            # burner the server's imports alone take seconds.
            deadline = time.monotonic() + DEADLINE_S
            while True:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"server did not start: {log.read_text()}")
                time.sleep(0.05)
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def print_token(home: Path, *flags: str, process: bool = False) -> str:
    """The token ``jupyter-memory mcp --print-token`` (or ``--rotate-token``) prints: from
    ``main()`` in this process, or from a real ``jupyter-memory`` process when ``process``
    (an interpreter start and the package import cost a second on a loaded machine)."""
    argv = server_argv(home, *(flags or ("--print-token",)))
    if process:
        done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=60)
    else:
        done = run_main(argv[2:])  # without "-m jupyter_memory.cli.main"
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


def data_of(result: Any) -> Any:
    """A successful tool result's value (structured content, else the JSON text)."""
    assert not mcp_compat.is_error(result), text_of(result)
    value = mcp_compat.structured(result)
    if value is None:
        body = text_of(result)
        try:
            return json.loads(body)
        except ValueError:
            return body
    return value


def resource_text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.contents)
