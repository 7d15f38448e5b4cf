"""jupyter-memory: governed memory for AI agents in Jupyter.

Only what a person approved (or wrote with ``%remember``) ever reaches an
agent's context. See ``docs/`` and DESIGN for the architecture.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .exceptions import (
    ConflictError,
    JupyterMemoryError,
    NotFoundError,
    ParseError,
    PolicyError,
    StoreError,
    ValidationError,
)

if TYPE_CHECKING:
    from .core.agent_tools import tool_schemas
    from .core.hits import RecallHit
    from .core.llm import LLMClient
    from .core.models import MemoryEntry, MemoryMeta, MemoryType, Source, Tier
    from .core.proposals import Proposal
    from .core.work_memory import validate_work_memories
    from .service.case_memory import CaseMemory, search_cases
    from .service.memory import Memory

# Imported on first use (PEP 562) so that ``import jupyter_memory`` and
# ``%load_ext jupyter_memory`` stay light: pydantic models load only when needed.
_LAZY = {
    "CaseMemory": ".service.case_memory",
    "Memory": ".service.memory",
    "MemoryEntry": ".core.models",
    "MemoryMeta": ".core.models",
    "MemoryType": ".core.models",
    "RecallHit": ".core.hits",
    "Source": ".core.models",
    "Tier": ".core.models",
    "validate_work_memories": ".core.work_memory",
    "Proposal": ".core.proposals",
    "LLMClient": ".core.llm",
    "tool_schemas": ".core.agent_tools",
    "search_cases": ".service.case_memory",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jupyter_memory' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


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
