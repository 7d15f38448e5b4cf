"""The team lines of ``%memory status`` for a project shared through git (issue 17)."""

from __future__ import annotations

from typing import Any


def team_lines(status: Any) -> list[str]:
    """What a person in a team project needs to know: clone, drivers, conflicts, storage."""
    s = status.to_dict()
    where = f"git clone {s['git']}" if s["git"] else "not a git clone"
    storage = s["storage"]
    lines = [
        f"team:         {where}; decisions recorded as {s['person']}; "
        f"shared queue {'on' if s['shared_queue'] else 'off'}",
        f"storage:      {storage['kind']} ({storage['reason']}), lock {storage['lock']}",
    ]
    if s["git"] and s["team"] and s["drivers_missing"]:
        lines.append(f"merge driver: MISSING in this clone: run `{s['fix']}`")
    if s["knowledge_conflict"]:
        lines.append(
            f"CONFLICT:     project knowledge has an unresolved git merge conflict "
            f"(line {s['conflict_line']}); agents get the last clean version until you "
            "resolve it in the Library or with `jupyter-memory knowledge resolve`"
        )
    if s["contested"]:
        lines.append(
            f"contested:    {len(s['contested'])} shared proposal(s) decided differently in "
            "two clones (see `jupyter-memory doctor`)"
        )
    return lines
