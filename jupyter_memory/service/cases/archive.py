"""Case closure (spec 000 "归档规则"), kept apart from the everyday write path.

1. snapshot ``INDEX.pre-archive.md``; 2. mark final states (entry file first,
then INDEX.md, then read back); 3. return the 已纳入 entries as retrospective
input; 4. delete the entries confirmed worthless, file and row together;
5. the final INDEX.md stays. Legacy v1 entries are kept untouched.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from ...core.cases.format import SNAPSHOT_NAME, entry_row, validate_status
from ...exceptions import ConflictError, DerivedIndexError, NotFoundError, ValidationError
from .results import ArchiveResult, CaseRecord

if TYPE_CHECKING:
    from .memory import CaseMemory


def run_archive(
    cm: CaseMemory,
    final_states: dict[str, str],
    delete: list[str | os.PathLike[str] | CaseRecord],
    actor: str,
) -> ArchiveResult:
    states = {cm._entry_name(k): validate_status(v) for k, v in final_states.items()}
    doomed = list(dict.fromkeys(cm._entry_name(d) for d in delete))
    both = sorted(set(states) & set(doomed))
    if both:
        raise ValidationError(
            f"both given a final state and deleted: {', '.join(both)}", field="delete"
        )
    store = cm.store
    with store.locked():
        if store.snapshot_path.exists():
            raise ConflictError(
                f"{store.snapshot_path} exists: the case was archived before; move the old "
                "snapshot away to archive again"
            )
        records, _ = cm._ensure_index(actor)
        by_name = {r.name: r for r in records}
        for name in [*states, *doomed]:
            if name not in by_name:
                raise NotFoundError(f"no case memory entry {name} in {store.memory_dir}")
            if by_name[name].legacy and (name in doomed or states[name] != by_name[name].status):
                raise ConflictError(f"{name} is a legacy v1 entry: read-only, kept as it is")
        index_text = store.read_index() or ""
        snapshot = store.write(
            SNAPSHOT_NAME, index_text, action="case.snapshot", actor=actor, at=cm._clock()
        )
        updated = []
        for name, status in states.items():
            record = by_name[name]
            if record.status != status:
                new = replace(record.entry, status=status)
                cm._rewrite(record, new, actor)
                by_name[name] = replace(record, entry=new)
                updated.append(name)
        records = list(by_name.values())
        if updated:
            cm._write_index(records, actor, action="case.index")
            for name in updated:
                cm._verify(name, records)
        for name in doomed:
            store.delete(name, actor=actor, at=cm._clock())
        records = [r for r in records if r.name not in doomed]
        if doomed:
            cm._write_index(records, actor, action="case.index")
            _verify_gone(cm, [by_name[n] for n in doomed], records)
    included = sorted((r for r in records if r.status == "已纳入"), key=lambda r: (r.date, r.name))
    return ArchiveResult(
        cm.case_id,
        snapshot,
        included,
        updated,
        doomed,
        [r.name for r in records if r.legacy],
    )


def _verify_gone(cm: CaseMemory, gone: list[CaseRecord], records: list[CaseRecord]) -> None:
    from ...core.cases.format import parse_index

    index = parse_index(cm.store.read_index() or "", path=str(cm.store.index_path))
    keys = {r.key for r in index.rows}
    left = [r.name for r in gone if entry_row(r.entry).key in keys or r.path.exists()]
    if left or len(index.rows) != len(records):
        raise DerivedIndexError(f"read-back after archive: still present: {', '.join(left)}")
