"""The team lines of ``%memory status`` for a project shared through git (issue 17)."""

from __future__ import annotations

from typing import Any

from .._i18n import tr


def team_lines(status: Any) -> list[str]:
    """What a person in a team project needs to know: clone, drivers, conflicts, storage."""
    s = status.to_dict()
    where = tr("git clone {url}") if s["git"] else tr("not a git clone")
    storage = s["storage"]
    team = (
        tr("team:         {where}; decisions recorded as {person}; shared queue on")
        if s["shared_queue"]
        else tr("team:         {where}; decisions recorded as {person}; shared queue off")
    )
    lines = [
        team.format(where=where.format(url=s["git"]), person=s["person"]),
        tr("storage:      {kind} ({reason}), lock {lock}").format(
            kind=storage["kind"], reason=storage["reason"], lock=storage["lock"]
        ),
    ]
    if s["git"] and s["team"] and s["drivers_missing"]:
        lines.append(tr("merge driver: MISSING in this clone: run `{fix}`").format(fix=s["fix"]))
    if s["knowledge_conflict"]:
        lines.append(
            tr(
                "CONFLICT:     project knowledge has an unresolved git merge conflict"
                " (line {line}); agents get the last clean version until you"
                " resolve it in the Library or with `jupyter-memory knowledge resolve`"
            ).format(line=s["conflict_line"])
        )
    if s["contested"]:
        lines.append(
            tr(
                "contested:    {n} shared proposal(s) decided differently in"
                " two clones (see `jupyter-memory doctor`)"
            ).format(n=len(s["contested"]))
        )
    return lines
