"""Printing helpers shared by every CLI command."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any

from .._i18n import localized, tr
from ..exceptions import JupyterMemoryError, UpstreamError


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "value"):
        return value.value
    return str(value)


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2, default=_default) + "\n")


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
        sys.stderr.write(
            tr("jupyter-memory: error: {message}").format(message=localized(exc)) + "\n"
        )
    return 1


def shows_progress(args: argparse.Namespace) -> bool:
    """Bars only for a person at a terminal: never with --json, never into a pipe or a file."""
    return not getattr(args, "json", False) and sys.stderr.isatty()


def open_memory(args: argparse.Namespace) -> Any:
    from ..service.memory import Memory

    mem = Memory(home=args.home, project=args.project)
    if shows_progress(args):
        from ..widgets.progress import TqdmProgress

        mem.show_progress(TqdmProgress)
    return mem
