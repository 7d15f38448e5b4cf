"""Which root holds a memory id: the one resolver behind get, update, forget and review.

An id reaches a person from many places (``%memories``, a review card, the
panel, the CLI's ``list --json``), not only from the project the kernel is
focused on, so an id is looked for where the person most likely means it
first, then in every registered project:

1. the project the caller names (a registered id), then the focused project,
   then the user layer: the first that holds it wins;
2. else every other registered project whose folder has memories: exactly one
   must hold it. Two clones of one team project both hold the same ids, so
   two holders are refused with both named, never guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..._i18n import M_
from ...core.names import validate_id
from ...exceptions import NotFoundError, ValidationError
from ...store.layout import holds_memories, project_root
from ...store.root import StoreRoot
from ..context import ServiceContext


@dataclass(frozen=True)
class Located:
    """Where one memory is: its id, the project id (``None``: user layer), root and file name."""

    id: str
    project: str | None
    root: StoreRoot
    name: str


def _near(ctx: ServiceContext, project: str | None) -> list[tuple[str | None, StoreRoot]]:
    projects = ctx.projects
    roots: list[tuple[str | None, StoreRoot]] = []
    if project is not None:
        roots.append(projects.resolve(projects.registered(project)))
    if projects.project_root is not None and projects.project_id is not None:
        roots.append((projects.project_id, projects.project_root))
    roots.append((None, ctx.user))
    return roots


def find(ctx: ServiceContext, memory_id: str, project: str | None = None) -> Located | None:
    """Where ``memory_id`` is (see the module), or ``None`` when no root holds it.

    ``ValidationError`` (field ``id``) when it is not in a near root and more
    than one other registered project holds it.
    """
    validate_id(memory_id)
    near = _near(ctx, project)
    for pid, root in near:
        name = root.name_of(memory_id)
        if name is not None:
            return Located(memory_id, pid, root, name)
    looked = {root.root for _, root in near}
    found: list[Located] = []
    for pid, folder in sorted(ctx.projects.known().items()):
        if project_root(Path(folder)) in looked or not holds_memories(Path(folder)):
            continue  # looked at already, or nothing stored there (never create a store)
        _, root = ctx.projects.resolve(ctx.projects.registered(pid))
        looked.add(root.root)
        name = root.name_of(memory_id)
        if name is not None:
            found.append(Located(memory_id, pid, root, name))
    if len(found) > 1:
        raise ValidationError(
            M_(
                "memory id {memory_id!r} is in more than one project ({projects}): focus the "
                "one you mean and try again",
                memory_id=memory_id,
                projects=", ".join(str(f.project) for f in found),
            ),
            field="id",
        )
    return found[0] if found else None


def locate(ctx: ServiceContext, memory_id: str, project: str | None = None) -> Located:
    """Like :func:`find`, but an id no root holds is ``NotFoundError`` naming it."""
    where = find(ctx, memory_id, project)
    if where is None:
        raise NotFoundError(M_("no memory with id {memory_id!r}", memory_id=memory_id))
    return where


__all__ = ["Located", "find", "locate"]
