"""Decisions of a shared queue that a commit cannot vouch for (issue 29).

A shared queue's proposal file travels by git, so anyone with push access can
write ``status: applied``, ``decided_by: Alice`` into it. Two checks find such
decisions, and each is reported as ``contested`` (queue problems, ``doctor``,
``%memory status``, the panel's Project tab) for the person to settle; none is
silently preferred over a decision made here:

* a decision dated before its proposal was created cannot have been made;
* the commit that wrote a ``decided_by`` line must be authored by that person
  (git's author, ``Name <email>`` or the name alone). Git authorship is what
  the team's remote accepts, not proof: signed commits are the stronger check.

A decision not committed yet (made in this clone, or on a shared folder) has
no commit to compare and is not reported.
"""

from __future__ import annotations

from pathlib import Path

from ..._i18n import M_
from ...core.knowledge.proposal_merge import dated_before_creation
from ...core.knowledge.proposals import Proposal
from ...core.yaml_lines import load_flat
from ...store import git

DECIDED_BY = "decided_by:"


def _decided_by(line: str) -> str | None:
    data = load_flat(line)
    if data is None:
        import yaml  # a hand-written plain scalar; the full (safe) loader reads it

        try:
            data = yaml.safe_load(line)
        except yaml.YAMLError:
            return None
    value = data.get("decided_by") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def _matches(decided_by: str, author: str) -> bool:
    return decided_by.strip() in (author, author.split(" <", 1)[0])


def _problem(path: Path, p: Proposal, message: object) -> dict[str, str]:
    return {"path": str(path), "id": p.id, "kind": "contested", "message": str(message)}


def early_decisions(decided: list[tuple[Path, Proposal]]) -> list[dict[str, str]]:
    """Decisions dated before their proposal was created."""
    return [
        _problem(
            path,
            p,
            M_(
                "{path}: proposal {id} is marked {status} by {who} on {at}, before the "
                "proposal was created ({created}): not a valid decision (decide it again)",
                path=path,
                id=p.id,
                status=p.status,
                who=getattr(p, "decided_by", None) or "someone",
                at=p.decided_at.date().isoformat() if p.decided_at else "?",
                created=p.created.date().isoformat(),
            ),
        )
        for path, p in decided
        if dated_before_creation(p)
    ]


class DecisionWriters:
    """Who committed each ``decided_by`` line of one shared queue folder, cached by HEAD."""

    def __init__(self) -> None:
        self._cache: dict[Path, tuple[str, dict[str, list[git.AddedLine]]]] = {}

    def _writers(self, folder: Path) -> tuple[Path, dict[str, list[git.AddedLine]]] | None:
        top = git.toplevel(folder)
        head = git.head_commit(top) if top is not None else None
        if top is None or head is None:
            return None
        hit = self._cache.get(folder)
        if hit is not None and hit[0] == head:
            return top, hit[1]
        rel = str(folder.resolve().relative_to(top.resolve()))
        by_path: dict[str, list[git.AddedLine]] = {}
        for added in git.added_lines(top, rel, DECIDED_BY):
            by_path.setdefault(added.path, []).append(added)
        self._cache[folder] = (head, by_path)
        return top, by_path

    def unvouched(self, folder: Path, decided: list[tuple[Path, Proposal]]) -> list[dict[str, str]]:
        """Decisions whose ``decided_by`` was written by a commit of someone else."""
        found = self._writers(folder) if decided else None
        if found is None:
            return []
        top, by_path = found
        out: list[dict[str, str]] = []
        for path, p in decided:
            who = getattr(p, "decided_by", None)
            if not isinstance(who, str) or not who.strip():
                continue
            rel = str(path.resolve().relative_to(top.resolve()))
            writers = [a for a in by_path.get(rel, []) if _decided_by(a.line) == who]
            if not writers or any(_matches(who, a.author) for a in writers):
                continue  # not committed yet, or written by that person
            out.append(
                _problem(
                    path,
                    p,
                    M_(
                        "{path}: proposal {id} is marked {status} by {who}, but commit "
                        "{commit} that wrote it is by {author}: contested (decide it again "
                        "or ask {author})",
                        path=path,
                        id=p.id,
                        status=p.status,
                        who=who,
                        commit=writers[0].commit[:10],
                        author=writers[0].author,
                    ),
                )
            )
        return out


__all__ = ["DecisionWriters", "early_decisions"]
