"""Which notebook sessions are running: ``<memory home>/sessions/registry.json``.

Session-tier memories are "cleared at the next start" (spec 003). Two kernels
may run at once on one memory home, so a new session must not clear what a
session that is still running wrote. Each session registers here with its
host, process id and start time; a session counts as live while its process
runs (checked on this host) — an entry of another host is trusted for
``FOREIGN_TTL`` and then dropped.
"""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError
from ..atomic import root_lock
from ..json_file import read_json, write_json

FOREIGN_TTL = timedelta(days=7)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


class SessionRegistry:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.folder = home / "sessions"
        self.path = self.folder / "registry.json"

    def _read(self) -> dict[str, dict[str, Any]]:
        data = read_json(self.path, {}, root=self.home)
        ok = isinstance(data, dict) and all(
            isinstance(v, dict)
            and isinstance(v.get("pid"), int)
            and isinstance(v.get("host"), str)
            and isinstance(v.get("started"), str)
            for v in data.values()
        )
        if not ok:
            raise ParseError(M_("must map session key → {{pid, host, started}}"), path=self.path)
        return {str(k): dict(v) for k, v in data.items()}

    def _live(self, entry: dict[str, Any], now: datetime) -> bool:
        if entry["host"] == socket.gethostname():
            return _alive(int(entry["pid"]))
        return now - datetime.fromisoformat(entry["started"]) < FOREIGN_TTL

    def register(
        self, session_key: str, started: datetime, pid: int | None = None
    ) -> tuple[list[datetime], datetime | None]:
        """Add this session and drop dead ones.

        Returns the start times of the *other* live sessions, and this session's
        own start when it was registered already (the extension was loaded
        again in the same kernel: not a new session).
        """
        with root_lock(self.folder, within=self.home):
            entries = self._read()
            mine = entries.get(session_key)
            live = {k: v for k, v in entries.items() if k != session_key and self._live(v, started)}
            others = [datetime.fromisoformat(v["started"]) for v in live.values()]
            before = datetime.fromisoformat(mine["started"]) if mine else None
            live[session_key] = mine or {
                "pid": os.getpid() if pid is None else pid,
                "host": socket.gethostname(),
                "started": started.isoformat(),
            }
            write_json(self.path, live, root=self.home)
        return others, before

    def unregister(self, session_key: str) -> None:
        with root_lock(self.folder, within=self.home):
            entries = self._read()
            if entries.pop(session_key, None) is not None:
                write_json(self.path, entries, root=self.home)
