"""``%memory focus``: the project this notebook works in, and how it was decided.

Focusing in a notebook is the person's act: the folder is registered if it is
new, and the choice is kept for this notebook in the memory home, so the
panel, a Jupyter AI chat beside the notebook and ``jupyter-memory mcp
--project auto`` started in its folder all use the same project
(docs/notebooks.md, "Which project").
"""

from __future__ import annotations

from typing import Any

from .._i18n import N_, tr
from .host import MagicsHost
from .render import TextBlock

HOW = {
    "explicit": N_("chosen for this notebook"),
    "beside": N_("chosen for a notebook in this folder"),
    "folder": N_("this notebook's folder is in it"),
    "none": "",
}


def project_line(self: MagicsHost) -> str:
    """``sales-q3 (/path) · chosen for this notebook``, or why there is none."""
    mem = self.service  # follows a choice made in the panel since
    if mem.project_id is not None:
        how = HOW.get(mem.hooks.focus_source, "")
        how = tr(how) if how else ""
        if self.session.notebook is None and mem.hooks.focus_source == "explicit":
            how = ""  # a console or plain IPython: focused in this kernel, kept nowhere
        return f"{mem.project_id} ({mem.hooks.project_dir})" + (f" · {how}" if how else "")
    hint = ""
    notebook = self.session.notebook
    if mem.hooks.focus_source != "explicit":
        found = mem.hooks.focus_of(notebook=notebook) if notebook else None
        if found is not None and found.unregistered is not None:
            hint = " · " + tr(
                "{folder} holds a .jupyter-memory/ folder you never focused:"
                " %memory focus {folder} to use it"
            ).format(folder=found.unregistered)
    return tr("none") + hint


def focus(self: MagicsHost, args: Any) -> TextBlock:
    with self.session.lock:
        if args.value in (None, ""):
            line = project_line(self)
            if self.service.project_id is None:
                return TextBlock(
                    tr("No project focused ({why}). Use %memory focus ./path/to/project").format(
                        why=line
                    )
                )
            return TextBlock(tr("Focused project: {project}").format(project=line))
        mem = self.service
        target = None if args.value == "--none" else args.value
        pid = mem.focus(target, notebook=self.session.notebook)
        line = project_line(self)
    if pid is None:
        return TextBlock(tr("No project focused."))
    if self.session.notebook is None:
        return TextBlock(tr("Focused project: {project}").format(project=line))
    return TextBlock(tr("Focused project: {project} (kept for this notebook)").format(project=line))
