"""``CaseArchiver``: case closure (spec 000 "归档规则"), kept apart from the everyday write path.

1. snapshot ``INDEX.pre-archive.md``; 2. mark final states (entry file first,
then INDEX.md, then read back); 3. return the 已纳入 entries as retrospective
input; 4. delete the entries confirmed worthless, file and row together;
5. the final INDEX.md stays. Legacy v1 entries are kept untouched.

Optionally (``compress_excluded``) every v2 entry whose final state is 已排除
has its record compressed into a one-line summary (spec 000: "可压缩为一行摘要");
the snapshot then also holds those entries' full text, and
:meth:`CaseArchiver.uncompress` gives the records back from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from ..._i18n import M_
from ...core.cases.archive_format import (
    COMPRESSED_MARK,
    is_compressed,
    one_line_summary,
    render_snapshot,
    snapshot_originals,
)
from ...core.cases.entry_format import parse_entry, validate_status
from ...core.cases.index_format import SNAPSHOT_NAME
from ...exceptions import ConflictError, NotFoundError, ValidationError
from .index_keeper import CaseIndexKeeper, EntryRef
from .results import CaseArchiveResult, CaseRecord, CaseUncompressResult


class CaseArchiver:
    """Close one case: snapshot, final states, deletions, compression, the 已纳入 list."""

    def __init__(self, keeper: CaseIndexKeeper) -> None:
        self.keeper = keeper

    def archive(
        self,
        final_states: Mapping[str, str] | None = None,
        delete: Iterable[EntryRef] = (),
        *,
        compress_excluded: bool = False,
        actor: str = "person",
    ) -> CaseArchiveResult:
        keeper = self.keeper
        keeper.require_writable()
        states = {keeper.entry_name(k): validate_status(v) for k, v in (final_states or {}).items()}
        doomed = list(dict.fromkeys(keeper.entry_name(d) for d in delete))
        both = sorted(set(states) & set(doomed))
        if both:
            raise ValidationError(
                M_("both given a final state and deleted: {names}", names=", ".join(both)),
                field="delete",
            )
        with keeper.locked():
            snapshot, records, updated, compressed, refused = self._mark(
                states, doomed, compress_excluded, actor
            )
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
            compressed,
            refused,
        )

    def _to_compress(
        self, records: list[CaseRecord], states: dict[str, str], doomed: list[str]
    ) -> tuple[list[str], list[str]]:
        """``(names to compress, "name: why" of 已排除 entries left as they are)``."""
        names: list[str] = []
        refused: list[str] = []
        for r in records:
            if r.name in doomed or states.get(r.name, r.status) != "已排除":
                continue
            if r.legacy:  # spec 000: a v1 entry is never compressed (listed in kept_legacy)
                continue
            why = self.keeper.why_not_rewritable(r)
            if why is not None:
                refused.append(M_("{name}: {why}", name=r.name, why=why))
                continue
            if one_line_summary(r.entry.body) == r.entry.body + COMPRESSED_MARK:
                refused.append(M_("{name}: already one sentence", name=r.name))
                continue
            names.append(r.name)
        return names, refused

    def _mark(
        self, states: dict[str, str], doomed: list[str], compress_excluded: bool, actor: str
    ) -> tuple[Path, list[CaseRecord], list[str], list[str], list[str]]:
        """Under the lock: snapshot, final states, compression, deletions; the records left."""
        keeper, store = self.keeper, self.keeper.store
        if store.snapshot_path.exists():
            raise ConflictError(
                M_(
                    "{snapshot_path} exists: the case was archived before; move the old snapshot "
                    "away to archive again",
                    snapshot_path=store.snapshot_path,
                )
            )
        records, report = keeper.ensure_index(actor)
        by_name = {r.name: r for r in records}
        for name in [*states, *doomed]:
            keeper.stop_if_blocked(report, name)  # unreadable or ambiguous: names both files
            if name not in by_name:
                raise NotFoundError(
                    M_(
                        "no case memory entry {name} in {memory_dir}",
                        name=name,
                        memory_dir=store.memory_dir,
                    )
                )
            if by_name[name].legacy and (name in doomed or states[name] != by_name[name].status):
                raise ConflictError(
                    M_("{name} is a legacy v1 entry: read-only, kept as it is", name=name)
                )
        compress, refused = (
            self._to_compress(records, states, doomed) if compress_excluded else ([], [])
        )
        originals = [(name, store.read_entry(name)) for name in compress]
        snapshot = store.write(
            SNAPSHOT_NAME,
            render_snapshot(store.read_index() or "", originals),
            action="case.snapshot",
            actor=actor,
            at=keeper.now(),
        )
        updated = []
        for name, status in states.items():
            record = by_name[name]
            if record.status != status:
                new = replace(record.entry, status=status)
                keeper.rewrite(record, new, actor)
                by_name[name] = replace(record, entry=new)
                updated.append(name)
        for name in compress:
            record = by_name[name]
            new = replace(record.entry, body=one_line_summary(record.entry.body))
            keeper.rewrite(record, new, actor)
            by_name[name] = replace(record, entry=new)
        records = list(by_name.values())
        if updated or compress:
            keeper.write_index(records, actor, action="case.index")
            for name in dict.fromkeys([*updated, *compress]):
                keeper.verify(name, records)
        for name in doomed:
            keeper.delete_entry(name, actor)
        records = [r for r in records if r.name not in doomed]
        if doomed:
            keeper.write_index(records, actor, action="case.index")
            keeper.verify_gone([by_name[n] for n in doomed], records)
        return snapshot, records, updated, compress, refused

    def uncompress(
        self, entries: Iterable[EntryRef] = (), *, actor: str = "person"
    ) -> CaseUncompressResult:
        """Give compressed entries their record back from ``INDEX.pre-archive.md``
        (all it holds, or ``entries``); their state and links stay as they are now."""
        keeper, store = self.keeper, self.keeper.store
        keeper.require_writable()
        wanted = list(dict.fromkeys(keeper.entry_name(e) for e in entries))
        rel = store.relative(store.snapshot_path)
        with keeper.locked():
            text = store.read_snapshot()
            if text is None:
                raise NotFoundError(
                    M_("no {rel}: the case was not archived, nothing to give back", rel=rel)
                )
            originals = snapshot_originals(text, path=rel)
            missing = [n for n in wanted if n not in originals]
            if missing:
                raise NotFoundError(
                    M_(
                        "{rel} holds no compressed text of {names}",
                        rel=rel,
                        names=", ".join(missing),
                    )
                )
            records, report = keeper.ensure_index(actor)
            by_name = {r.name: r for r in records}
            restored: list[str] = []
            skipped: list[str] = []
            for name in wanted or list(originals):
                keeper.stop_if_blocked(report, name)
                record = by_name.get(name)
                if record is None:
                    where = store.relative(store.memory_dir)
                    skipped.append(M_("{name}: no longer in {where}", name=name, where=where))
                    continue
                if not is_compressed(record.entry.body):
                    said = M_("{name}: not compressed (given back or edited since)", name=name)
                    skipped.append(said)
                    continue
                original = parse_entry(originals[name], path=f"{rel}#{name}")
                new = replace(record.entry, body=original.body)
                keeper.rewrite(record, new, actor)
                by_name[name] = replace(record, entry=new)
                restored.append(name)
            if restored:
                records = list(by_name.values())
                keeper.write_index(records, actor, action="case.index")
                for name in restored:
                    keeper.verify(name, records)
        return CaseUncompressResult(keeper.case_id, store.snapshot_path, restored, skipped)


__all__ = ["CaseArchiver"]
