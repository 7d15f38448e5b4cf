"""A storage root builds its engine through a factory typed as the SearchIndex protocol."""

from __future__ import annotations

from pathlib import Path

from jupyter_memory.core.memories.models import MemoryEntry, MemoryMeta
from jupyter_memory.store.layout import RootLayout
from jupyter_memory.store.memories.search_index import IndexedMemory, SearchIndex, SearchQuery
from jupyter_memory.store.memories.sqlite_index import SqliteIndex
from jupyter_memory.store.root import StoreRoot


def test_the_root_opens_every_engine_through_its_factory(tmp_path: Path, clock):
    opened: list[SqliteIndex] = []

    def engine(layout: RootLayout) -> SearchIndex:
        index = SqliteIndex(layout)
        opened.append(index)
        return index

    root = StoreRoot(tmp_path / "home", layer="user", engine=engine)
    meta = MemoryMeta(
        id="01TEST00000000000000000001", title="退款口径", created=clock(), updated=clock()
    )
    root.write_new(MemoryEntry(meta=meta, text="退款按到账日统计"))
    (row,) = root.search(SearchQuery(text="退款"))
    assert isinstance(row, IndexedMemory) and row.id == meta.id
    assert root.index is opened[0] and root.index.count() == 1
    second = root.open_index()  # a worker thread's own connection
    assert second is opened[1] and second is not root.index
    assert second.name_of(meta.id) == row.name
    assert second.embeddings().counts() == (0, 1)
    second.close()
    root.close()
