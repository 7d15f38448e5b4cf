"""Per-agent preferred sectors (spec 003, 认知领域 "4 个领域 + 代理偏好").

Each agent role leans on two sectors: a developer on procedural and semantic
memories ("how to do it, which conventions"), QA on reflective and episodic,
and so on. When a named agent recalls or gets its context, memories of its
preferred sectors rank ahead of equally relevant others (a factor of
``SECTOR_BOOST`` on the score); nothing is hidden, and nothing changes for an
agent without a preference.

The defaults are the spec's table; the person can set or override them in
``settings.json`` under ``agent_sectors`` (``{"jupyternaut": ["semantic",
"procedural"], "qa": []}``; an empty list switches a default off).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._i18n import M_
from ...exceptions import ParseError
from .models import MemoryType

SECTOR_BOOST = 1.25
DEFAULT_AGENT_SECTORS: dict[str, tuple[str, ...]] = {
    "dev": ("procedural", "semantic"),
    "qa": ("reflective", "episodic"),
    "architect": ("semantic", "reflective"),
    "pm": ("episodic", "semantic"),
    "devops": ("procedural", "episodic"),
}
_SECTORS = frozenset(t.value for t in MemoryType)


def parse_agent_sectors(configured: Any, *, path: Any = None) -> dict[str, tuple[str, ...]]:
    """The defaults with ``settings.json``'s ``agent_sectors`` laid over them.

    A value that is not ``{agent: [sector, …]}`` raises :class:`ParseError` naming
    the field; the file is not touched.
    """
    merged = dict(DEFAULT_AGENT_SECTORS)
    if configured is None:
        return merged
    if not isinstance(configured, Mapping):
        raise ParseError(
            M_("field 'agent_sectors' must be an object {{agent: [sectors]}}"), path=path
        )
    for agent, sectors in configured.items():
        where = f"agent_sectors.{agent}"
        if not isinstance(sectors, list) or not all(isinstance(s, str) for s in sectors):
            raise ParseError(
                M_("field {where!r} must be a list of sector names", where=where), path=path
            )
        unknown = [s for s in sectors if s not in _SECTORS]
        if unknown:
            raise ParseError(
                M_(
                    "field {where!r}: {sector!r} is not one of {sectors}",
                    where=where,
                    sector=unknown[0],
                    sectors=", ".join(sorted(_SECTORS)),
                ),
                path=path,
            )
        merged[str(agent)] = tuple(sectors)
    return merged


def preferred_sectors(agent: str | None, table: Mapping[str, tuple[str, ...]]) -> frozenset[str]:
    """The sectors ``agent`` prefers (empty for no agent or no preference).

    An agent named ``@dev`` or ``Dev`` finds the ``dev`` row.
    """
    if not agent:
        return frozenset()
    name = agent.strip().lstrip("@")
    found = table.get(name)
    if found is None:
        found = table.get(name.lower(), ())
    return frozenset(found)


def sector_factor(memory_type: str, preferred: frozenset[str]) -> float:
    """``SECTOR_BOOST`` for a memory in a preferred sector, else 1."""
    return SECTOR_BOOST if memory_type in preferred else 1.0
