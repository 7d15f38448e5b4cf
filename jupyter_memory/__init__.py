"""jupyter-memory: governed memory for AI agents in Jupyter.

Only what a person approved (or wrote with ``%remember``) ever reaches an
agent's context. See ``docs/`` and DESIGN for the architecture.
"""

from ._version import __version__
from .core.hits import RecallHit
from .core.models import MemoryEntry, MemoryMeta, MemoryType, Source, Tier
from .exceptions import (
    ConflictError,
    JupyterMemoryError,
    NotFoundError,
    ParseError,
    PolicyError,
    StoreError,
    ValidationError,
)
from .service.memory import Memory

__all__ = [
    "ConflictError",
    "JupyterMemoryError",
    "Memory",
    "MemoryEntry",
    "MemoryMeta",
    "MemoryType",
    "NotFoundError",
    "ParseError",
    "PolicyError",
    "RecallHit",
    "Source",
    "StoreError",
    "Tier",
    "ValidationError",
    "__version__",
]


# Jupyter discovery hooks (private). The server extension lives in
# ``jupyter_memory.server`` so that importing this package never imports tornado.
def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "jupyter-memory"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "jupyter_memory.server"}]
