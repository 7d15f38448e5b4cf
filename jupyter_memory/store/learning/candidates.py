"""Candidate rules of the self-learner: ``<memory home>/learning/candidates.json``."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from ..._i18n import M_
from ...core.learning.corrections import Evidence, LearningCandidate
from ...exceptions import ParseError
from ..atomic import root_lock
from ..json_file import read_json, write_json


def _to_json(c: LearningCandidate, proposal_id: str | None) -> dict[str, Any]:
    return {
        "key": c.key,
        "rule": c.rule,
        "source": c.source,
        "proposal_id": proposal_id,
        "evidence": [
            {"session": e.session, "quote": e.quote, "at": e.at.isoformat()} for e in c.evidence
        ],
        "dismissals": [{"at": at.isoformat(), "reason": why} for at, why in c.dismissals],
    }


def _from_json(d: dict[str, Any]) -> tuple[LearningCandidate, str | None]:
    c = LearningCandidate(key=str(d["key"]), rule=str(d["rule"]), source=str(d["source"]))
    c.evidence = [
        Evidence(str(e["session"]), str(e["quote"]), datetime.fromisoformat(e["at"]))
        for e in d.get("evidence", [])
    ]
    c.dismissals = [
        (datetime.fromisoformat(x["at"]), str(x["reason"])) for x in d.get("dismissals", [])
    ]
    proposal = d.get("proposal_id")
    return c, str(proposal) if proposal else None


class LearningStore:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.folder = home / "learning"
        self.path = self.folder / "candidates.json"

    def load(self) -> dict[str, tuple[LearningCandidate, str | None]]:
        data = read_json(self.path, [], root=self.home)
        try:
            pairs = [_from_json(d) for d in data]
        except (KeyError, TypeError, ValueError) as exc:
            raise ParseError(
                M_("not a list of candidate rules: {exc}", exc=exc), path=self.path
            ) from exc
        return {c.key: (c, pid) for c, pid in pairs}

    def save(self, candidates: dict[str, tuple[LearningCandidate, str | None]]) -> None:
        with root_lock(self.folder, within=self.home):
            write_json(
                self.path,
                [_to_json(c, pid) for c, pid in candidates.values()],
                root=self.home,
            )
