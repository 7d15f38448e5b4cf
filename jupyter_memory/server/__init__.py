"""The jupyter_server extension: REST routes under ``/jupyter-memory/`` for the lab panel.

Loaded by Jupyter Server through ``jupyter_memory._jupyter_server_extension_points``
(enabled by ``etc/jupyter/jupyter_server_config.d/jupyter_memory.json`` in the wheel).
Configure with ``c.JupyterMemoryServer.<trait>`` in a Jupyter Server config file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tornado.ioloop import PeriodicCallback
from traitlets import Float, Unicode
from traitlets.config import Configurable

from .backend import MemoryBackend
from .changes import SCHEMA_PATH
from .routes import route_table


class JupyterMemoryServer(Configurable):
    """Settings of the jupyter-memory server extension."""

    home = Unicode(
        None,
        allow_none=True,
        config=True,
        help="Memory home; default $JUPYTER_MEMORY_HOME or <jupyter data dir>/memory.",
    )
    workspace = Unicode(
        None,
        allow_none=True,
        config=True,
        help="Folder that holds cases/ (investigation case memory); default the server root.",
    )
    reorganize_timeout = Float(300.0, config=True, help="Seconds before a reorganize is stopped.")
    poll_interval = Float(
        1.0, config=True, help="Seconds between checks for changes made by other processes."
    )
    digest_idle_minutes = Float(
        15.0,
        config=True,
        help="A Jupyter AI chat or MCP session quiet this long is digested (its end); 0: never.",
    )
    idle_check_interval = Float(
        60.0, config=True, help="Seconds between looks for agent sessions that went idle."
    )


def _load_jupyter_server_extension(serverapp: Any) -> None:
    config = JupyterMemoryServer(parent=serverapp)
    serverapp.event_logger.register_event_schema(SCHEMA_PATH)
    backend = MemoryBackend(
        home=config.home,
        workspace=Path(config.workspace or serverapp.root_dir).expanduser().resolve(),
        event_logger=serverapp.event_logger,
        log=serverapp.log,
        reorganize_timeout=config.reorganize_timeout,
    )
    web_app = serverapp.web_app
    web_app.settings["jupyter_memory"] = backend
    web_app.add_handlers(".*$", route_table(web_app.settings["base_url"]))

    def poll() -> None:
        backend.watcher.poll()  # the changed areas it returns are for tests

    poller = PeriodicCallback(poll, config.poll_interval * 1000)
    poller.start()
    if config.digest_idle_minutes > 0:
        # Agent conversations have no exit: one that went quiet is digested like an
        # ended kernel session, in a thread (nothing waits on it, an LLM may be used).
        def look_for_idle() -> None:
            backend.digest_idle_sessions(config.digest_idle_minutes)

        idle = PeriodicCallback(look_for_idle, config.idle_check_interval * 1000)
        idle.start()
    serverapp.log.info(
        "jupyter-memory: REST API at /jupyter-memory/ (home %s)", backend.memory.home
    )
