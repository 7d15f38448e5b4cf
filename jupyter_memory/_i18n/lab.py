"""The language JupyterLab is set to (Settings → Language), for a kernel it started.

JupyterLab keeps that choice in its user settings, the ``locale`` of
``@jupyterlab/translation-extension:plugin``, a JSON5 file the lab writes when
the person picks a language (then reloads its page; the kernels keep running).
Our server extension gives every kernel the file's path in
``JUPYTER_MEMORY_LAB_SETTINGS`` (jupyter_memory/server/lab_language.py), and
the kernel reads it whenever it speaks, so a running kernel follows the switch
without a restart. ``default`` (the lab follows the system) or no file: no
choice here, the usual ``JUPYTER_MEMORY_LANG`` or locale decides.
"""

from __future__ import annotations

import json
import os
import re

SETTINGS_VAR = "JUPYTER_MEMORY_LAB_SETTINGS"
SETTINGS_FILE = ("@jupyterlab", "translation-extension", "plugin.jupyterlab-settings")

_COMMENTS = re.compile(r'("(?:\\.|[^"\\])*")|//[^\n]*|/\*.*?\*/', re.S)
_LOCALE = re.compile(r'"locale"\s*:\s*"([^"]*)"')
_seen: tuple[str, int, int, str | None] | None = None  # path, mtime_ns, size → locale


def locale_in(text: str) -> str | None:
    """The ``locale`` of the lab's settings text (JSON5 as the lab writes it:
    comments allowed), or None when there is none or it is ``default``."""
    bare = _COMMENTS.sub(lambda m: m.group(1) or "", text)
    try:
        value = json.loads(bare).get("locale")
    except (ValueError, AttributeError):
        found = _LOCALE.search(bare)  # a trailing comma or another JSON5 liberty
        value = found.group(1) if found else None
    if not isinstance(value, str) or value.strip() in ("", "default"):
        return None
    return value.strip()


def lab_language() -> str | None:
    """JupyterLab's chosen language when this process was started by a server
    with our extension, else None. Read again when the file changes."""
    global _seen
    path = os.environ.get(SETTINGS_VAR, "").strip()
    if not path:
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None  # no choice made in the lab yet
    if _seen is not None and _seen[:3] == (path, stat.st_mtime_ns, stat.st_size):
        return _seen[3]
    try:
        with open(path, encoding="utf-8") as handle:
            value = locale_in(handle.read())
    except (OSError, UnicodeDecodeError):
        value = None
    _seen = (path, stat.st_mtime_ns, stat.st_size, value)
    return value
