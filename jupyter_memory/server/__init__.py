"""The jupyter_server extension: REST routes under ``/jupyter-memory/`` for the lab panel.

Loaded by Jupyter Server through ``jupyter_memory._jupyter_server_extension_points``
(enabled by ``etc/jupyter/jupyter_server_config.d/jupyter_memory.json`` in the wheel).
Configure with ``c.JupyterMemoryServer.<trait>`` in a Jupyter Server config file.
"""

from __future__ import annotations

import importlib.util
import weakref
from pathlib import Path
from typing import Any

from tornado.ioloop import IOLoop, PeriodicCallback
from traitlets import Float, Int, Unicode
from traitlets.config import Configurable

from ..agents.chat_boundary import CHAT_IDLE_MINUTES
from ..agents.chat_focus import CHAT_IDLE_SETTING
from .backend import MemoryBackend
from .changes import SCHEMA_ID, SCHEMA_PATH
from .contents_follow import CONTENTS_SCHEMA_ID, ContentsFollower
from .lab_language import share_lab_language
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
    request_deadline = Float(
        5.0,
        config=True,
        help="Seconds a /jupyter-memory/ request may wait (locks, git, other requests) "
        "before it answers 503 busy.",
    )
    workers = Int(4, config=True, help="Worker threads the /jupyter-memory/ routes run in.")
    chat_idle_minutes = Float(
        CHAT_IDLE_MINUTES,
        config=True,
        help="A Jupyter AI chat with the Memory persona quiet this long after its reply: "
        "the turn's end (LLM suggestions within the daily budget, then its digest).",
    )
    idle_check_interval = Float(
        60.0, config=True, help="Seconds between looks for agent sessions that went idle."
    )


def _load_jupyter_server_extension(serverapp: Any) -> None:
    config = JupyterMemoryServer(parent=serverapp)
    share_lab_language(serverapp)  # kernels speak the lab's language (lab_language.py)
    serverapp.event_logger.register_event_schema(SCHEMA_PATH)
    backend = MemoryBackend(
        home=config.home,
        workspace=Path(config.workspace or serverapp.root_dir).expanduser().resolve(),
        event_logger=serverapp.event_logger,
        log=serverapp.log,
        reorganize_timeout=config.reorganize_timeout,
        workers=config.workers,
        request_deadline=config.request_deadline,
    )
    # A module extension has no stop hook (only ExtensionApps do): the pool is shut
    # down with the server's web application (at exit, the interpreter joins its
    # threads, whose work ends by its deadline).
    weakref.finalize(web_app := serverapp.web_app, backend.close)
    web_app.settings["jupyter_memory"] = backend
    # Read by the Memory persona's end-of-turn timer (agents/chat_focus.py).
    web_app.settings[CHAT_IDLE_SETTING] = config.chat_idle_minutes
    # A notebook renamed, moved or deleted in Jupyter: the person's focus goes with it.
    root = Path(web_app.settings.get("server_root_dir") or serverapp.root_dir)
    backend.contents = ContentsFollower(backend.memory.home, root, serverapp.log)
    weakref.finalize(web_app, backend.contents.close)
    serverapp.event_logger.add_listener(
        schema_id=CONTENTS_SCHEMA_ID, listener=backend.contents.listener
    )
    web_app.add_handlers(".*$", route_table(web_app.settings["base_url"]))
    _follow_jupyter_ai_chats(serverapp)

    def poll() -> None:
        # Skipped while a write runs (it announces its own change; the next poll
        # sees anyone else's). The changed areas poll() returns are for tests.
        backend.off_loop.unless_writing(backend.watcher.poll)

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


def _follow_jupyter_ai_chats(serverapp: Any) -> None:
    """With Jupyter AI in this server: proposal cards in its chats (agents/chat_cards.py)."""
    if importlib.util.find_spec("jupyter_ai_router") is None:
        return
    from ..agents.chat_cards import ChatCards

    cards = ChatCards(serverapp.web_app.settings, serverapp.log)
    serverapp.web_app.settings["jupyter_memory_chat_cards"] = cards
    serverapp.event_logger.add_listener(schema_id=SCHEMA_ID, listener=cards.on_changed)
    IOLoop.current().add_callback(cards.attach)
