"""Who is acting: the name an audit line and a shared decision carry (issue 17).

In a team project the person is named as git would name them in that clone
(``user.name <user.email>``), so the audit, ``jupyter-memory log`` and the
commits agree; otherwise the JupyterHub user (``JUPYTERHUB_USER``, set in each
user's server), else the operating-system user.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

from ..store import git

_cache: dict[str, str | None] = {}


def os_person() -> str:
    hub = os.environ.get("JUPYTERHUB_USER")
    if hub:
        return hub
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"


def person(folder: Path | None = None) -> str:
    """The acting person for a write in ``folder`` (a project folder) or the user home."""
    if folder is not None:
        key = os.path.abspath(folder)
        if key not in _cache:
            _cache[key] = git.identity(folder) if folder.is_dir() else None
        found = _cache[key]
        if found:
            return found
    return os_person()


def forget_identities() -> None:
    """Read git identities again (a clone's ``user.name`` changed)."""
    _cache.clear()


__all__ = ["forget_identities", "os_person", "person"]
