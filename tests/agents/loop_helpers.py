"""Real processes for the end-to-end loop (tests/agents/test_loop_end_to_end.py).

- :class:`Kernel`: a real IPython kernel (nbclient) that runs the person's
  notebook cell by cell and stays up between the steps of the story, started
  the way jupyter_server starts a notebook's kernel (``JPY_SESSION_NAME`` names
  the notebook, the working folder is the notebook's folder).
- :func:`jupyter_server`: ``python -m jupyter_server`` on free loopback ports
  with the extensions the venv enables (ours always; Jupyter AI and
  jupyter-server-mcp in ``.venv-integrations``), and :class:`Server` for REST.
- :func:`chat_turn`: a chat file opened over jupyterlab-chat's WebSocket (what
  JupyterLab does without real-time collaboration), one message to a persona,
  waiting for that persona's answer.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import nbformat
from jupyter_core.utils import run_sync
from nbclient import NotebookClient

from tests.support.kernels import kept_kernel, kernel_env
from tests.support.servers import JupyterProcess, free_port, jupyter_process

T = TypeVar("T")
PROPOSAL_MIME = "application/vnd.jupyter-memory.proposal+json"


@dataclass
class Kernel:
    """The person's notebook and the kernel running it; ``run`` adds a cell and executes it."""

    path: Path
    nb: Any
    client: NotebookClient

    def run(self, source: str, *, markdown: bool = False) -> Any:
        if markdown:
            cell = nbformat.v4.new_markdown_cell(source)
            self.nb.cells.append(cell)
            return cell
        cell = nbformat.v4.new_code_cell(source)
        self.nb.cells.append(cell)
        self.client.execute_cell(cell, len(self.nb.cells) - 1)
        return _ran(cell)

    async def arun(self, source: str) -> Any:
        """``run`` for a coroutine on the client's own loop (:func:`run_on_kernel_loop`).

        ``run`` inside another running loop would use the kernel's sockets on a second
        loop, and leave them watched by the first after they close
        (tests/support/event_loops.py).
        """
        cell = nbformat.v4.new_code_cell(source)
        self.nb.cells.append(cell)
        await self.client.async_execute_cell(cell, len(self.nb.cells) - 1)
        return _ran(cell)

    def save(self) -> None:
        """What the person's Save (or JupyterLab's autosave) writes: cells and outputs."""
        nbformat.write(self.nb, str(self.path))


def _ran(cell: Any) -> Any:
    errors = [o for o in cell.outputs if o.get("output_type") == "error"]
    assert not errors, f"cell {cell.source!r} failed in the kernel: {errors}"
    return cell


def run_on_kernel_loop(coro: Callable[..., Awaitable[T]], *args: Any) -> T:
    """Run ``coro(*args)`` to its end on the loop the kernel's client runs on, as
    ``asyncio.run`` would on a new one; the coroutine runs cells with ``Kernel.arun``."""
    return run_sync(coro)(*args)


@contextmanager
def kernel_for(notebook: Path, memory_home: Path) -> Iterator[Kernel]:
    """A kernel for ``notebook``, as jupyter_server starts one for a notebook opened in the lab.

    JupyterLab writes a new notebook's file before its kernel starts, so an
    absent one is created empty first (the kernel finds its notebook on disk).
    """
    if not notebook.exists():
        nbformat.write(nbformat.v4.new_notebook(), str(notebook))
    nb = nbformat.read(str(notebook), as_version=4)
    env = kernel_env(JUPYTER_MEMORY_HOME=str(memory_home), JPY_SESSION_NAME=str(notebook))
    with kept_kernel(nb, notebook.parent, env) as client:
        yield Kernel(notebook, nb, client)


def saved_cards(notebook: Path) -> list[dict[str, Any]]:
    """The proposal cards (our MIME output) in the saved notebook: what the lab renders."""
    nb = nbformat.read(str(notebook), as_version=4)
    return [
        card
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if PROPOSAL_MIME in out.get("data", {})
        for card in out["data"][PROPOSAL_MIME]["cards"]
    ]


# The server of these helpers is tests/support/servers.py's (one way to start one in
# every suite); the old name stays for the tests that import it.
Server = JupyterProcess


@contextmanager
def jupyter_server(root: Path, log: Path, *, with_mcp: bool = False) -> Iterator[Server]:
    """``jupyter server`` serving ``root``, starting (call ``ready()``; meanwhile the
    kernel can start too); ``with_mcp`` also serves jupyter-server-mcp on a free port."""
    mcp_port = free_port() if with_mcp else None
    env = dict(os.environ)
    env |= {
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # litellm would fetch it from the network
        "FASTMCP_SHOW_SERVER_BANNER": "false",
        "OPENAI_API_KEY": "sk-test-not-a-real-key",
        "PYTHONUNBUFFERED": "1",
    }
    args = [] if mcp_port is None else [f"--MCPExtensionApp.mcp_port={mcp_port}"]
    extra = () if mcp_port is None else (mcp_port,)
    with jupyter_process(root, log, env=env, args=args, extra_ports=extra) as server:
        yield server


@dataclass
class ChatAnswer:
    """A persona's messages in the chat after the person's message (streamed, then final)."""

    messages: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return "\n".join(self.messages.values())


async def _chat_turn(
    server: Server, chat: str, body: str, persona_id: str, until: str, timeout: float
) -> ChatAnswer:
    from tornado.websocket import websocket_connect

    url = server.url.replace("http://", "ws://") + "/api/chat/ws/" + urllib.parse.quote(chat)
    conn = await websocket_connect(f"{url}?token={server.token}")
    try:
        first = json.loads(await conn.read_message())
        assert first.get("action") == "connection", first
        frame = {
            "type": "client",
            "action": "send",
            "id": str(uuid.uuid4()),
            "body": body,
            "mentions": [persona_id],
            "metadata": {"to_persona": persona_id},
        }
        await conn.write_message(json.dumps(frame))
        answer = ChatAnswer()
        deadline = time.monotonic() + timeout
        while until not in answer.text:
            try:
                raw = await asyncio.wait_for(conn.read_message(), deadline - time.monotonic())
            except (TimeoutError, asyncio.TimeoutError):
                raise AssertionError(
                    f"the persona did not answer {until!r} in {timeout:.0f} s; "
                    f"it said {answer.text!r}\n{server.log_tail()}"
                ) from None
            if raw is None:
                raise AssertionError(f"the chat connection closed\n{server.log_tail()}")
            data = json.loads(raw)
            message = data.get("message") or {}
            if data.get("action") == "message" and message.get("sender") == persona_id:
                answer.messages[message["id"]] = str(message.get("body", ""))
        return answer
    finally:
        conn.close()


def chat_turn(
    server: Server, chat: str, body: str, persona_id: str, *, until: str, timeout: float = 60
) -> ChatAnswer:
    """Open ``chat`` (relative to the server root), send ``body`` to the persona, await ``until``."""
    return asyncio.run(_chat_turn(server, chat, body, persona_id, until, timeout))


def system_text(request: dict[str, Any]) -> str:
    """The system messages of a chat-completions request, as one string."""
    return "\n".join(
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in request.get("messages", [])
        if m.get("role") == "system"
    )


def configure_jupyter_ai_model(model: str, api_base: str) -> None:
    """Jupyternaut's own settings file, in this test's isolated JUPYTER_DATA_DIR."""
    path = Path(os.environ["JUPYTER_DATA_DIR"]) / "jupyter_ai" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    config = {"model_provider_id": model, "fields": {model: {"api_base": api_base}}}
    path.write_text(json.dumps(config), encoding="utf-8")
