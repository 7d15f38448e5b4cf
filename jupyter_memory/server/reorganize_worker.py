"""Run one ``Memory.reorganize`` in its own process and report on stdout.

The server starts this so a long reorganize (an LLM call, a big file) never
blocks its event loop and can be stopped at the timeout: the store writes
through temp file + rename under a lock, so killing this process leaves the
old file or the new one, never half of one.

Output: one JSON object per line, ``{"stage": ...}`` while working, then
``{"stage": "done", "result": ...}`` or ``{"stage": "failed", "status": ..., "error": ...}``.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..exceptions import JupyterMemoryError
from .errors import status_and_payload
from .jsonable import to_jsonable


def _say(**data: object) -> None:
    print(json.dumps(to_jsonable(data), ensure_ascii=False), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jupyter_memory.server.reorganize_worker")
    parser.add_argument("--home", required=True)
    parser.add_argument("--layer", choices=["user", "project"], required=True)
    parser.add_argument("--project", default=None)
    args = parser.parse_args(argv)
    _say(stage="loading")
    from ..service.memory import Memory

    try:
        with Memory(home=args.home) as memory:
            _say(stage="reorganizing")
            result = memory.reorganize(args.layer, project=args.project).to_dict()
    except JupyterMemoryError as exc:
        status, payload = status_and_payload(exc)
        _say(stage="failed", status=status, error=payload)
        return 1
    _say(stage="done", result=result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
