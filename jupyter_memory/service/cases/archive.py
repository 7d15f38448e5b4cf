"""``CaseArchiver``: case closure (spec 000 "归档规则"), kept apart from the everyday write path.

1. snapshot ``INDEX.pre-archive.md``; 2. mark final states (entry file first,
then INDEX.md, then read back); 3. return the 已纳入 entries as retrospective
input; 4. delete the entries confirmed worthless, file and row together;
5. the final INDEX.md stays. Legacy v1 entries are kept untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from ...core.cases.entry_format import validate_status
from ...core.cases.index_format import SNAPSHOT_NAME
from ...exceptions import ConflictError, NotFoundError, ValidationError
from .index_keeper import CaseIndexKeeper, EntryRef
from .results import CaseArchiveResult, CaseRecord


class CaseArchiver:
    """Close one case: snapshot, final states, deletions, the 已纳入 list."""

    def __init__(self, keeper: CaseIndexKeeper) -> None:
        self.keeper = keeper

    def archive(
        self,
        final_states: Mapping[str, str] | None = None,
        delete: Iterable[EntryRef] = (),
        *,
        actor: str = "person",
    ) -> CaseArchiveResult:
        keeper = self.keeper
        keeper.require_writable()
        states = {keeper.entry_name(k): validate_status(v) for k, v in (final_states or {}).items()}
        doomed = list(dict.fromkeys(keeper.entry_name(d) for d in delete))
        both = sorted(set(states) & set(doomed))
        if both:
            raise ValidationError(
                f"both given a final state and deleted: {', '.join(both)}", field="delete"
            )
        with keeper.locked():
            snapshot, records, updated = self._mark(states, doomed, actor)
        included = sorted(
            (r for r in records if r.status == "已纳入"), key=lambda r: (r.date, r.name)
        )
        return CaseArchiveResult(
            keeper.case_id,
            snapshot,
            included,
            updated,
            doomed,
            [r.name for r in records if r.legacy],
        )

    def _mark(
        self, states: dict[str, str], doomed: list[str], actor: str
    ) -> tuple[Path, list[CaseRecord], list[str]]:
        """Under the lock: snapshot, final states, deletions; the records left."""
        keeper, store = self.keeper, self.keeper.store
        if store.snapshot_path.exists():
            raise ConflictError(
                f"{store.snapshot_path} exists: the case was archived before; move the old "
                "snapshot away to archive again"
            )
        records, report = keeper.ensure_index(actor)
        by_name = {r.name: r for r in records}
        for name in [*states, *doomed]:
            keeper.stop_if_blocked(report, name)  # unreadable or ambiguous: names both files
            if name not in by_name:
                raise NotFoundError(f"no case memory entry {name} in {store.memory_dir}")
            if by_name[name].legacy and (name in doomed or states[name] != by_name[name].status):
                raise ConflictError(f"{name} is a legacy v1 entry: read-only, kept as it is")
        index_text = store.read_index() or ""
        snapshot = store.write(
            SNAPSHOT_NAME, index_text, action="case.snapshot", actor=actor, at=keeper.now()
        )
        updated = []
        for name, status in states.items():
            record = by_name[name]
            if record.status != status:
                new = replace(record.entry, status=status)
                keeper.rewrite(record, new, actor)
                by_name[name] = replace(record, entry=new)
                updated.append(name)
        records = list(by_name.values())
        if updated:
            keeper.write_index(records, actor, action="case.index")
            for name in updated:
                keeper.verify(name, records)
        for name in doomed:
            keeper.delete_entry(name, actor)
        records = [r for r in records if r.name not in doomed]
        if doomed:
            keeper.write_index(records, actor, action="case.index")
            keeper.verify_gone([by_name[n] for n in doomed], records)
        return snapshot, records, updated


__all__ = ["CaseArchiver"]
