"""How agents reach the governed memory: MCP server, Jupyter AI, AGENTS.md, ``%%ask``.

Every surface here is a thin shell over :class:`jupyter_memory.service.agent_access.AgentAccess`,
the one place that decides what an agent may see and do (docs/design.md invariants 3 and 5).
Nothing in this package is imported by ``import jupyter_memory``: the MCP SDK and
Jupyter AI are optional extras.
"""
