"""Printing helpers shared by every CLI command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO

from .._i18n import localized, tr
from ..core.visible import HIDDEN_KEEPING_LINES, visible
from ..exceptions import JupyterMemoryError, UpstreamError

if TYPE_CHECKING:
    from ..service.memory import Memory


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "value"):
        return value.value
    return str(value)


def json_text(value: Any, *, indent: int | None = None, default: Any = _default) -> str:
    """JSON whose strings keep every character, none of them raw: json escapes C0
    itself; C1 and bidi controls become ``\\u`` escapes too (the same data)."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, default=default)
    return HIDDEN_KEEPING_LINES.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def emit_json(value: Any) -> None:
    sys.stdout.write(json_text(value, indent=2) + "\n")


class _ShownStream:
    """A command's stdout: every text written is shown as ``core/visible.py`` has it, so
    stored text never acts on the terminal (issue 27). ``buffer`` stays the raw
    byte channel a program owns (the MCP stdio server's JSON-RPC)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(visible(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def shown_stdout() -> Iterator[None]:
    """Everything a command prints goes through :func:`visible` while it runs."""
    raw = sys.stdout
    sys.stdout = _ShownStream(raw)
    try:
        yield
    finally:
        sys.stdout = raw


def fail(args: argparse.Namespace, exc: JupyterMemoryError) -> int:
    """Domain errors: a one-line message (or JSON) and exit status 1.

    An :class:`UpstreamError` message starts with the service that failed and
    its URL; ``--json`` names the service in its own key as well."""
    if getattr(args, "json", False):
        payload = {"error": type(exc).__name__, "message": str(exc)}
        if isinstance(exc, UpstreamError):
            payload["service"] = exc.service
        emit_json(payload)
    else:
        message = visible(localized(exc))  # it may quote stored text
        sys.stderr.write(tr("jupyter-memory: error: {message}").format(message=message) + "\n")
    return 1


def shows_progress(args: argparse.Namespace) -> bool:
    """Bars only for a person at a terminal: never with --json, never into a pipe or a file."""
    return not getattr(args, "json", False) and sys.stderr.isatty()


def open_memory(args: argparse.Namespace) -> Memory:
    from ..service.memory import Memory

    mem = Memory(home=args.home, project=args.project)
    # A command ends within moments: embedding is left to kernels, servers and
    # `jupyter-memory embed` (service/memories/semantic.py, ``background``).
    mem.hooks.semantic.background = False
    _OPENED.append(mem)
    if shows_progress(args):
        from ..widgets.progress import TqdmProgress

        mem.hooks.show_progress(TqdmProgress)
    return mem


# The stores this command opened: a read-only one is named once at the end.
_OPENED: list[Memory] = []


def say_read_only() -> None:
    """One line on stderr for each store that answered from its last index (read-only mount)."""
    said: set[str] = set()
    for mem in _OPENED:
        for root in mem.hooks.ctx.projects.roots():
            where = str(root.root)
            if (root.read_only or root.index.read_only) and where not in said:
                said.add(where)
                sys.stderr.write(
                    tr("read-only home: {root} cannot be updated, showing the last index").format(
                        root=where
                    )
                    + "\n"
                )
    _OPENED.clear()
