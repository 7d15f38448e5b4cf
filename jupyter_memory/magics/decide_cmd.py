"""``%memory apply ID --to user|project [--project P]``, ``%memory dismiss ID``, ``%memory revert ID``.

Deciding a proposal by its id, in a cell: what a card's HTML fallback tells
the person to type where our lab extension is absent (VS Code, a copy on
nbviewer, a server without jupyter-memory). The lab extension's cards and the
panel notice the decision through the server's change feed.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from .._i18n import tr
from ..service.knowledge.results import AlreadyDecided, Applied, DecisionResult, Dismissed
from .host import MagicsHost
from .render import TextBlock


def _proposal_id(args: Any, action: str) -> str:
    if not args.value:
        raise UsageError(
            tr("%memory {action} needs a proposal id (see %memory queue)").format(action=action)
        )
    return str(args.value)


def apply(self: MagicsHost, args: Any) -> TextBlock:
    pid = _proposal_id(args, "apply")
    if args.to is None:
        raise UsageError(tr("%memory apply {id} needs --to user or --to project").format(id=pid))
    with self.session.lock:
        # Without --project, Project means the proposal's own project, else this
        # notebook's focus (the service picks, as a card's Project button does).
        result = self.service.apply(pid, to=args.to, project=args.project)
    return TextBlock(describe(result))


def dismiss(self: MagicsHost, args: Any) -> TextBlock:
    pid = _proposal_id(args, "dismiss")
    with self.session.lock:
        result = self.service.dismiss(pid)
    return TextBlock(describe(result))


def revert(self: MagicsHost, args: Any) -> TextBlock:
    """Undo an Apply: the entry leaves its file; the proposal is pending again or dismissed."""
    pid = _proposal_id(args, "revert")
    with self.session.lock:
        result = self.service.revert(pid, then=args.then or "pending")
    where = tr("Project · {project}") if result.layer == "project" else tr("User")
    where = where.format(project=result.project)
    said = (
        tr("Reverted {id}: removed from {where} ({path}); it is back in the queue.")
        if result.status == "pending"
        else tr("Reverted {id}: removed from {where} ({path}); dismissed.")
    )
    return TextBlock(said.format(id=result.id, where=where, path=result.path))


def _where(layer: str | None, project: str | None) -> str:
    where = tr("Project · {project}") if layer == "project" else tr("User")
    return where.format(project=project)


def describe(result: DecisionResult) -> str:
    """One line, as a card says it: where it went, or that it was already decided."""
    match result:
        case Applied():
            where = _where(result.layer, result.project)
            return tr("Saved to {where}: {path}").format(where=where, path=result.path)
        case Dismissed():
            return tr("Dismissed {id}; it will not be suggested again.").format(id=result.id)
        case AlreadyDecided(state="saved"):
            where = _where(result.layer, result.project)
            return tr("Already saved elsewhere ({where}); nothing written.").format(where=where)
        case AlreadyDecided(state="dismissed"):
            return tr("Already dismissed elsewhere; nothing written.")
        case AlreadyDecided():  # superseded
            return tr("Already replaced by {id}; nothing written.").format(id=result.superseded_by)
