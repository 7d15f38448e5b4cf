"""The person's focus follows the notebook: jupyter_server's contents events move it.

A focus choice is kept per notebook path (store/focus_file.py). JupyterLab's
rename, a drag into another folder, a folder rename and a delete all go
through the contents service, which emits
``https://events.jupyter.org/jupyter_server/contents_service/v1`` with
``action`` ``rename`` (``source_path`` → ``path``) or ``delete``. Paths there
are relative to the contents root. Each one is applied here, so the panel,
the kernel (which asks where its notebook went: ``Memory.hooks.notebook_now``),
the chats beside it and ``mcp --project auto`` keep the person's choice.

No file ID service is needed (jupyter_server_fileid is not a dependency): the
events name both paths. A rename made outside Jupyter (a shell ``mv``, git)
is not seen; the choice then stays with the old path until made again.

The work runs in one thread of its own, in the order the events came, never
on the server's loop. The focus routes wait for it (:meth:`settled`), so a
``GET /focus`` sent after the rename's answer sees the moved choice.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..exceptions import JupyterMemoryError
from ..service.memory import Memory

CONTENTS_SCHEMA_ID = "https://events.jupyter.org/jupyter_server/contents_service/v1"
# How long a focus route waits for a rename in progress (a lock held by a kernel).
SETTLE_SECONDS = 5.0


class ContentsFollower:
    def __init__(self, home: Path, root: Path, log: logging.Logger) -> None:
        self.home, self.root, self.log = home, root, log
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jupyter-memory-moves")
        self._last: Future[None] | None = None
        self._guard = threading.Lock()

    def _full(self, path: str) -> Path:
        return Path(os.path.realpath(self.root / path.lstrip("/")))

    async def listener(self, logger: Any, schema_id: str, data: dict[str, Any]) -> None:
        """jupyter_events' listener for the contents service's events."""
        self.follow(dict(data))

    def follow(self, data: dict[str, Any]) -> Future[None] | None:
        action = data.get("action")
        if action not in ("rename", "delete") or not data.get("path"):
            return None  # save, copy, get, upload: no path stops being a notebook's
        with self._guard:
            self._last = self._pool.submit(self._apply, data)
            return self._last

    def _apply(self, data: dict[str, Any]) -> None:
        try:
            # A Memory of its own per event (renames are rare), as PUT /focus does.
            with Memory(home=str(self.home)) as mem:
                if data["action"] == "rename" and data.get("source_path"):
                    old, new = self._full(data["source_path"]), self._full(data["path"])
                    moved = mem.hooks.notebook_moved(old, new)
                    if moved:
                        self.log.info(
                            "jupyter-memory: focus of %d notebook(s) moved: %s", moved, new
                        )
                elif data["action"] == "delete":
                    mem.hooks.notebook_deleted(self._full(data["path"]))
        except JupyterMemoryError as exc:  # a damaged focus file, a lock held too long
            self.log.warning("jupyter-memory: focus not moved for %s: %s", data.get("path"), exc)

    def settled(self, timeout: float = SETTLE_SECONDS) -> None:
        """Wait until the renames and deletes seen so far are applied (at most ``timeout``)."""
        with self._guard:
            last = self._last
        if last is not None:
            # Past the wait: answer with what the file says now; the move lands after.
            with contextlib.suppress(TimeoutError):
                last.result(timeout=timeout)

    def close(self) -> None:
        self._pool.shutdown(wait=False)
