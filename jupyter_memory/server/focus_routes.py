"""``/jupyter-memory/focus?path=…``: the project a notebook works in (GET) and the person's choice (PUT).

``path`` is the notebook's path as JupyterLab names it (relative to the
server's root). GET answers what every surface resolves for that notebook
(``Memory.hooks.focus_of``: the person's choice for it, else the registered project
its folder is in, else none) and never registers anything. PUT is the
person's act from the panel: it records a registered project (or ``null``,
"no project") for the notebook, which the notebook's kernel, the chats beside
it and ``mcp --project auto`` then follow. A new folder is registered through
``POST /jupyter-memory/projects`` first. The choice follows the notebook
through a rename, a move or its folder's rename in Jupyter
(server/contents_follow.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field
from tornado import web

from ..exceptions import UnsafeNameError, ValidationError
from ..service.memory import Memory
from .base import APPROVE, READ, MemoryHandler, authorized, off_loop
from .bodies import _Body


class FocusBody(_Body):
    _nullable: ClassVar[frozenset[str]] = frozenset({"project"})

    path: str = Field(min_length=1, description="notebook path relative to the server's root")
    project: str | None = Field(description="a registered project id, or null for no project")


def server_root(handler: MemoryHandler) -> Path:
    return Path(os.path.realpath(handler.settings.get("server_root_dir") or os.getcwd()))


def notebook_at(handler: MemoryHandler, path: str) -> Path:
    """The notebook's absolute path, inside the server's root (links resolved)."""
    if handler.backend.contents is not None:
        # A rename answered a moment ago: its focus move lands first.
        handler.backend.contents.settled()
    if not path.endswith(".ipynb"):
        raise ValidationError(f"{path!r} is not a notebook (.ipynb)", field="path")
    root = server_root(handler)
    full = Path(os.path.realpath(root / path.lstrip("/")))
    if root != full and root not in full.parents:
        raise UnsafeNameError(f"{path!r} is outside the server's root folder", field="path")
    return full


class FocusHandler(MemoryHandler):
    def _root(self) -> Path:
        return server_root(self)

    def _notebook(self, path: str) -> Path:
        return notebook_at(self, path)

    def _answer(self, memory: Memory, path: str, notebook: Path) -> dict[str, Any]:
        found = memory.hooks.focus_of(notebook=notebook).to_dict()
        root = self._root()
        unregistered = found.get("unregistered")
        # The panel offers to register it with POST /projects (a root-relative path).
        found["unregistered_path"] = (
            Path(unregistered).relative_to(root).as_posix()
            if unregistered and Path(unregistered).is_relative_to(root)
            else None
        )
        return {"path": path} | found

    @web.authenticated
    @authorized(action="read", resource=READ)
    @off_loop
    def get(self) -> None:
        path = self.get_query_argument("path", "")
        if not path:
            raise ValidationError("give the notebook's path: ?path=folder/name.ipynb", field="path")
        self.reply(self._answer(self.backend.memory, path, self._notebook(path)))

    @web.authenticated
    @authorized(action="write", resource=APPROVE)
    @off_loop
    def put(self) -> None:
        body = self.body(FocusBody)
        notebook = self._notebook(body.path)
        memory = self.backend.memory
        # Only a registered project: registering a folder is POST /projects.
        project = (
            memory.hooks.registered_project(body.project) if body.project is not None else None
        )
        # A memory of its own: the server's shared one keeps no focus of a notebook.
        with Memory(home=memory.home) as person:
            person.focus(project, notebook=notebook)
        self.backend.changed("focus", "focus", project=project)
        self.reply(self._answer(memory, body.path, notebook))
