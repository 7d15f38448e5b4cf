"""What the LLM cost today, kept in the memory home (``recent/llm-spend.json``).

One budget covers every background LLM use (issue 32), and a kernel, the
Jupyter server and an MCP server may all spend from it, so the count lives in
the home and is read and rewritten atomically under the folder's
inter-process lock: ``{"day": "YYYY-MM-DD", "calls": n, "tokens": n,
"uses": {use: {"calls": n, "tokens": n}}}``. A new day starts from zero.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .._i18n import M_
from ..exceptions import ParseError
from .atomic import root_lock
from .json_file import read_json, write_json

FILE_NAME = "llm-spend.json"


def _count(value: Any, field: str, path: Path) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ParseError(M_("field {field!r} must be a whole number", field=field), path=path)
    return value


class LLMSpendFile:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.folder = home / "recent"
        self.path = self.folder / FILE_NAME

    def read(self, day: str) -> dict[str, Any]:
        """Today's spend (zero on another day's file); a damaged file is an error naming it."""
        data = read_json(self.path, {}, root=self.home)
        if not isinstance(data, dict):
            raise ParseError(M_("must be a JSON object"), path=self.path)
        if data.get("day") != day:
            return {"day": day, "calls": 0, "tokens": 0, "uses": {}}
        uses = data.get("uses", {})
        if not isinstance(uses, dict):
            raise ParseError(M_("field {field!r} must be an object", field="uses"), path=self.path)
        return {
            "day": day,
            "calls": _count(data.get("calls"), "calls", self.path),
            "tokens": _count(data.get("tokens"), "tokens", self.path),
            "uses": {
                str(use): {
                    "calls": _count(
                        v.get("calls") if isinstance(v, dict) else None, use, self.path
                    ),
                    "tokens": _count(
                        v.get("tokens") if isinstance(v, dict) else None, use, self.path
                    ),
                }
                for use, v in uses.items()
            },
        }

    def add(self, day: str, use: str, tokens: int) -> dict[str, Any]:
        """Count one call of ``tokens`` for ``use`` today; returns the new totals."""
        with root_lock(self.folder, within=self.home):
            data = self.read(day)
            data["calls"] += 1
            data["tokens"] += tokens
            entry = data["uses"].setdefault(use, {"calls": 0, "tokens": 0})
            entry["calls"] += 1
            entry["tokens"] += tokens
            write_json(self.path, data, root=self.home)
        return data
