"""Which project this ``Memory`` works in, with the clock of its context (:class:`ProjectFocus`).

``Projects`` (service/projects.py) holds the focus and the registered projects;
this service adds what the facade used to write out by hand: the time a
notebook's choice is recorded, and the one door for "which project does this
notebook, or this chat folder, work in".
"""

from __future__ import annotations

import os
from pathlib import Path

from .._i18n import M_
from ..exceptions import ValidationError
from .context import ServiceContext
from .focus import FocusResolution


class ProjectFocus:
    """Focus a project, read a notebook's or a folder's focus, follow renames."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def focus(
        self,
        project: str | os.PathLike[str] | None,
        *,
        notebook: str | os.PathLike[str] | None = None,
    ) -> str | None:
        """Focus a project folder (or a known project id); ``None`` unfocuses.

        With ``notebook`` (a person's act for that notebook), the choice is kept
        in the memory home so every surface beside it resolves the same project.
        """
        at = self.ctx.clock().isoformat()
        return self.ctx.projects.focus(project, notebook=notebook, at=at)

    def focus_of(
        self,
        *,
        notebook: str | os.PathLike[str] | None = None,
        folder: str | os.PathLike[str] | None = None,
    ) -> FocusResolution:
        """Which project a notebook, or a chat / MCP session in ``folder``, works in.

        Reads only: it never registers a project nor changes any focus.
        """
        if notebook is not None:
            return self.ctx.projects.notebooks.for_notebook(notebook)
        if folder is None:
            raise ValidationError(M_("name a notebook or a folder"), field="notebook")
        return self.ctx.projects.notebooks.for_folder(folder)

    def notebook_moved(self, old: str | os.PathLike[str], new: str | os.PathLike[str]) -> int:
        """``old`` (a notebook or a folder) was renamed or moved to ``new``: the choices follow.

        Answers how many notebooks' choices moved. The kernel of a moved
        notebook finds it through :meth:`notebook_now`.
        """
        return self.ctx.projects.notebooks.moved(old, new, self.ctx.clock().isoformat())

    def notebook_deleted(self, path: str | os.PathLike[str]) -> int:
        """``path`` (a notebook or a folder) was deleted: the choices made for it go."""
        return self.ctx.projects.notebooks.deleted(path)

    def notebook_now(self, notebook: str | os.PathLike[str]) -> Path | None:
        """Where a rename or move took ``notebook`` (``None``: never moved, as far as we know)."""
        return self.ctx.projects.notebooks.where_now(notebook)


__all__ = ["ProjectFocus"]
