"""jupyter-memory: governed memory for AI agents in Jupyter.

Only what a person approved (or wrote with ``%remember``) ever reaches an
agent's context. See ``docs/`` and docs/design.md for the architecture.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .exceptions import (
    ConflictError,
    JupyterMemoryError,
    NotFoundError,
    ParseError,
    PolicyError,
    StoreError,
    UpstreamError,
    ValidationError,
)

if TYPE_CHECKING:
    from ._version import __version__
    from .core.knowledge.agent_tools import tool_schemas
    from .core.knowledge.proposals import Proposal
    from .core.learning.work_memory import validate_work_memories
    from .core.llm import LLMClient
    from .core.memories.hits import RecallHit
    from .core.memories.models import MemoryEntry, MemoryMeta, MemoryType, Source, Tier
    from .service.cases.memory import CaseMemory
    from .service.cases.search import search_cases
    from .service.memory import Memory

# Imported on first use (PEP 562) so that ``import jupyter_memory`` and
# ``%load_ext jupyter_memory`` stay light: pydantic models load only when needed.
_LAZY = {
    # importlib.metadata costs more than the rest of ``import jupyter_memory``
    "__version__": "._version",
    "CaseMemory": ".service.cases.memory",
    "Memory": ".service.memory",
    "MemoryEntry": ".core.memories.models",
    "MemoryMeta": ".core.memories.models",
    "MemoryType": ".core.memories.models",
    "RecallHit": ".core.memories.hits",
    "Source": ".core.memories.models",
    "Tier": ".core.memories.models",
    "validate_work_memories": ".core.learning.work_memory",
    "Proposal": ".core.knowledge.proposals",
    "LLMClient": ".core.llm",
    "tool_schemas": ".core.knowledge.agent_tools",
    "search_cases": ".service.cases.search",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jupyter_memory' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # What a person sees (tab completion, ``dir``): the public names, the lazy ones included.
    return sorted(__all__)


__all__ = [
    "CaseMemory",
    "ConflictError",
    "JupyterMemoryError",
    "LLMClient",
    "Memory",
    "MemoryEntry",
    "MemoryMeta",
    "MemoryType",
    "NotFoundError",
    "ParseError",
    "PolicyError",
    "Proposal",
    "RecallHit",
    "Source",
    "StoreError",
    "Tier",
    "UpstreamError",
    "ValidationError",
    "__version__",
    "validate_work_memories",
    "search_cases",
    "tool_schemas",
]


# IPython extension entry points: ``%load_ext jupyter_memory`` / ``%unload_ext``.
def load_ipython_extension(ipython: Any) -> None:
    from .magics import load_extension

    load_extension(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from .magics import unload_extension

    unload_extension(ipython)


# Jupyter discovery hooks (private). The server extension lives in
# ``jupyter_memory.server`` so that importing this package never imports tornado.
def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "jupyter-memory"}]


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "jupyter_memory.server"}]
