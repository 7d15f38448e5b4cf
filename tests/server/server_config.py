"""The jupyter_server configuration the folder's tests start (pytest-jupyter's ``jp_server_config``)."""

from __future__ import annotations

from typing import Any


def memory_server_config(**memory: Any) -> dict[str, Any]:
    """Our extension on, every route behind a token (a request without one must be
    refused), and these ``JupyterMemoryServer`` settings: the change poll five times a
    second unless given."""
    return {
        "ServerApp": {
            "jpserver_extensions": {"jupyter_memory": True},
            "allow_unauthenticated_access": False,
        },
        "JupyterMemoryServer": {"poll_interval": 0.2, **memory},
    }
