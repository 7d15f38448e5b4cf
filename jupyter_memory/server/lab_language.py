"""Kernels started by this server speak JupyterLab's language (issue 31).

The lab's language is a user setting (``@jupyterlab/translation-extension:plugin``
``locale``) kept in a file of the lab's user settings folder. We put that
file's path in the server's environment, which every kernel, terminal and
subprocess the server starts inherits (``jupyter_server`` builds a kernel's env
from ``os.environ``); ``jupyter_memory._i18n.lab`` reads it whenever a message
is shown, so a kernel follows a language switch without a restart and
needs no message from the browser (nothing to miss at page load, nothing to
race with a restored notebook's kernel). A path set by whoever started the
server is kept.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from jupyter_core.paths import jupyter_config_dir

from .._i18n.lab import SETTINGS_FILE, SETTINGS_VAR


def user_settings_dir(serverapp: Any) -> Path:
    """The lab's (or Notebook 7's) user settings folder, as it resolves it:
    its ``user_settings_dir`` trait when configured, else
    ``$JUPYTERLAB_SETTINGS_DIR``, else ``<jupyter config dir>/lab/user-settings``."""
    points = getattr(getattr(serverapp, "extension_manager", None), "extension_points", {})
    for name in ("jupyterlab", "notebook"):
        app = getattr(points.get(name), "app", None)
        folder = getattr(app, "user_settings_dir", None)
        if folder:
            return Path(folder)
    folder = os.environ.get("JUPYTERLAB_SETTINGS_DIR") or os.path.join(
        jupyter_config_dir(), "lab", "user-settings"
    )
    return Path(folder)


def share_lab_language(serverapp: Any) -> str:
    """Name the lab's language setting file to the kernels this server starts."""
    path = str(user_settings_dir(serverapp).joinpath(*SETTINGS_FILE).resolve())
    return os.environ.setdefault(SETTINGS_VAR, path)
