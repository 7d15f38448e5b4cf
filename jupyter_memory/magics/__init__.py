"""IPython magics, the cell-capture hook and the suggestion worker of jupyter-memory.

``%load_ext jupyter_memory`` calls :func:`load_extension`; ``%unload_ext``
calls :func:`unload_extension`, which removes the magics, the hook, the
configurable and the worker thread again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from .. import frames
from ..agents.ask_magic import register_ask, unregister_ask
from . import boundary_feed, completion, digest_feed, evidence_feed
from .memory_magics import MemoryMagics

_LOADED: dict[int, MemoryMagics] = {}


def load_extension(shell: Any) -> MemoryMagics:
    """Register magics and the ``post_run_cell`` hook on ``shell`` (idempotent)."""
    existing = _LOADED.get(id(shell))
    if existing is not None:
        return existing
    magics = MemoryMagics(shell=shell, parent=shell)
    # Magics.__init__ already put it in shell.configurables, so %config reaches it.
    shell.register_magics(magics)
    shell.events.register("post_run_cell", magics.capture.post_run_cell)
    register_ask(shell, magics)  # %%ask and {memory_context} (jupyter_memory.agents, issue 7)
    digest_feed.install(shell, magics)  # session digest: cells → inbox, start, exit (issue 8)
    evidence_feed.install(shell, magics)  # cells → the person's text agents may quote (issue 13)
    # LLM extraction at conversation ends, not per cell; its atexit runs before the digest's
    boundary_feed.install(shell, magics)
    completion.install(shell, magics)  # tab completion of actions, options and values
    frames.use_kernel_memory(_kernel_memory(magics))  # frames read this notebook's project
    _LOADED[id(shell)] = magics
    return magics


def _kernel_memory(magics: MemoryMagics) -> frames.KernelMemory:
    @contextlib.contextmanager
    def held() -> Iterator[Any]:
        # The worker thread shares this Memory: frames take the session's lock as magics do.
        with magics.session.lock:
            yield magics.session.memory

    return held


def unload_extension(shell: Any) -> None:
    magics = _LOADED.pop(id(shell), None)
    if magics is None:
        return
    with contextlib.suppress(ValueError):  # already removed by hand
        shell.events.unregister("post_run_cell", magics.capture.post_run_cell)
    unregister_ask(shell, magics)
    digest_feed.uninstall(shell, magics)
    evidence_feed.uninstall(shell, magics)
    boundary_feed.uninstall(shell, magics)
    completion.uninstall(shell, magics)
    frames.use_kernel_memory(None)
    while magics in shell.configurables:
        shell.configurables.remove(magics)
    for kind, table in magics.magics.items():
        for name in table:
            shell.magics_manager.magics[kind].pop(name, None)
    shell.magics_manager.registry.pop(type(magics).__name__, None)
    magics.close()


def loaded_magics(shell: Any) -> MemoryMagics | None:
    """The ``MemoryMagics`` loaded into ``shell``, if any (for widgets and tests)."""
    return _LOADED.get(id(shell))


__all__ = ["MemoryMagics", "load_extension", "loaded_magics", "unload_extension"]
