"""The 关联文件 link of the notebook or chat a case note came from (pure path arithmetic).

Spec 000's ``## 关联文件`` names "the interaction file this memory came from";
a note written in a notebook or a Jupyter AI chat knows that file, so a new
entry links it unless the writer gave files of its own. The link is relative
to the entry file (``case_memory/``), so it opens from the entry in
JupyterLab or any Markdown viewer; characters a link path cannot hold here
(spaces, parentheses, ``%``, ``#``, ``?``, ``<``, ``>``) are percent-encoded, Chinese is kept.
"""

from __future__ import annotations

import os
import posixpath
import re

from ...exceptions import ValidationError
from .entry_format import FileLink

NOTES = {".ipynb": "记录时所在的笔记本", ".chat": "记录时所在的对话"}
OTHER_NOTE = "记录时所在的文件"
# what would end the link, or read as its query or fragment
_ESCAPE = re.compile(r"[%()\s#?<>]")


def _escape(path: str) -> str:
    return _ESCAPE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8")), path)


def source_link(
    source: str | os.PathLike[str], memory_dir: str | os.PathLike[str]
) -> FileLink | None:
    """The link to ``source`` (an absolute path) from an entry in ``memory_dir``;
    ``None`` when it cannot be written as one (too long, control characters)."""
    target = os.path.abspath(os.fspath(source))
    try:
        rel = os.path.relpath(target, os.path.abspath(os.fspath(memory_dir)))
    except ValueError:  # another drive (Windows): the absolute path
        rel = target
    rel = rel.replace(os.sep, "/")
    name = posixpath.basename(rel).replace("[", "(").replace("]", ")")
    note = NOTES.get(os.path.splitext(name)[1].lower(), OTHER_NOTE)
    try:
        return FileLink(name, _escape(rel), note)
    except ValidationError:
        return None


__all__ = ["NOTES", "OTHER_NOTE", "source_link"]
