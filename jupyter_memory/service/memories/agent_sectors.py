"""Which sectors an agent prefers (spec 003): the spec's defaults and the person's
``agent_sectors`` in ``settings.json`` (:mod:`jupyter_memory.core.memories.agent_sectors`)."""

from __future__ import annotations

from ...core.memories.agent_sectors import parse_agent_sectors, preferred_sectors
from ...store.knowledge.files import SettingsFile
from ..context import ServiceContext


def agent_sector_table(ctx: ServiceContext) -> dict[str, tuple[str, ...]]:
    """Every agent's preferred sectors: the defaults, overridden by settings.json."""
    layout = ctx.user.layout
    return parse_agent_sectors(
        SettingsFile(layout).read().get("agent_sectors"), path=layout.settings
    )


def agent_preferred_sectors(ctx: ServiceContext, agent: str | None) -> frozenset[str]:
    """The sectors ``agent`` prefers; empty without an agent or a preference."""
    if not agent:
        return frozenset()
    return preferred_sectors(agent, agent_sector_table(ctx))
