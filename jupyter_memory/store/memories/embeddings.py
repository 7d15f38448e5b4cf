"""Stored embeddings (derived data, like the index) and their in-memory matrix.

``<root>/.index/embeddings.sqlite`` holds one vector per memory id with the
``ekey`` (hash of the embedded text) it was computed from. It is a separate
file so an index rebuild keeps hours of embedding work; an entry whose text
changed has a new ``ekey`` and is embedded again; a forgotten entry's vector
is deleted with its index row (``sqlite_rows.remove``) and, as a backstop,
by :meth:`EmbeddingStore.prune`. Vectors are stored as float16 (half the
disk, no measurable change in ranking) and searched as float32.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .blas_threads import one_blas_thread
from .search_index import VectorStore
from .sqlite_db import transaction

if TYPE_CHECKING:  # numpy is imported where a vector is touched: counting the stored
    # vectors (a recall on a home too little embedded for hybrid) needs only SQLite.
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

# Created on first use: the schema of embeddings.sqlite belongs to the index.
RATE_TABLE = "CREATE TABLE IF NOT EXISTS emb.rate (notes_per_s REAL NOT NULL)"


class EmbeddingHost(Protocol):
    """The index whose connection the vectors are read through (:class:`.SqliteIndex`)."""

    def connection(self) -> sqlite3.Connection: ...

    def attach_embeddings(self, con: sqlite3.Connection, *, create: bool) -> bool: ...


class EmbeddingStore:
    """Reads and writes ``emb.vectors`` through one index connection."""

    def __init__(self, index: EmbeddingHost) -> None:
        self.index = index

    def _con(self, *, create: bool = False) -> sqlite3.Connection | None:
        con = self.index.connection()
        if not self.index.attach_embeddings(con, create=create):
            return None
        return con

    def use_model(self, name: str) -> None:
        """Vectors of another model are meaningless here: drop them."""
        con = self._con(create=True)
        assert con is not None
        row = con.execute("SELECT name FROM emb.model").fetchone()
        if row is not None and row[0] == name:
            return
        with transaction(con):
            con.execute("DELETE FROM emb.vectors")
            con.execute("DELETE FROM emb.model")
            con.execute("INSERT INTO emb.model (name) VALUES (?)", (name,))

    def clear(self) -> None:
        con = self._con()
        if con is not None:
            with transaction(con):
                con.execute("DELETE FROM emb.vectors")

    def prune(self) -> int:
        """Delete vectors whose memory is no longer indexed; returns how many."""
        con = self._con()
        if con is None:
            return 0
        with transaction(con):
            cur = con.execute(
                "DELETE FROM emb.vectors WHERE id NOT IN (SELECT id FROM main.entries)"
            )
        return int(cur.rowcount)

    def pending(self, limit: int) -> list[tuple[str, str, str, str]]:
        """Up to ``limit`` (id, ekey, title, body) not embedded in their current form."""
        con = self._con()
        if con is None:
            sql = "SELECT id, ekey, title, body FROM entries ORDER BY updated DESC LIMIT ?"
            return [tuple(r) for r in self.index.connection().execute(sql, (limit,))]
        sql = (
            "SELECT e.id, e.ekey, e.title, e.body FROM entries e"
            " LEFT JOIN emb.vectors v ON v.id = e.id AND v.ekey = e.ekey"
            " WHERE v.id IS NULL ORDER BY e.updated DESC LIMIT ?"
        )
        return [tuple(r) for r in con.execute(sql, (limit,))]

    def counts(self) -> tuple[int, int]:
        """(memories embedded in their current form, memories indexed)."""
        con = self.index.connection()
        total = int(con.execute("SELECT count(*) FROM entries").fetchone()[0])
        if self._con() is None:
            return 0, total
        done = con.execute(
            "SELECT count(*) FROM entries e JOIN emb.vectors v ON v.id = e.id AND v.ekey = e.ekey"
        ).fetchone()[0]
        return int(done), total

    def save(self, items: Sequence[tuple[str, str]], vectors: Matrix) -> int:
        """Store vectors for (id, ekey) items whose entry still has that ekey.

        The check and the write are one transaction, so a memory forgotten or
        edited while it was being embedded never gets a stale vector.
        """
        import numpy as np

        con = self._con(create=True)
        assert con is not None
        blobs = np.asarray(vectors, dtype=np.float16)
        saved = 0
        with transaction(con):
            for (memory_id, ekey), vec in zip(items, blobs, strict=True):
                cur = con.execute(
                    "INSERT OR REPLACE INTO emb.vectors (id, ekey, vec)"
                    " SELECT ?, ?, ? WHERE EXISTS"
                    " (SELECT 1 FROM main.entries WHERE id = ? AND ekey = ?)",
                    (memory_id, ekey, vec.tobytes(), memory_id, ekey),
                )
                saved += cur.rowcount
        return saved

    def rows_since(self, rid: int) -> list[tuple[int, str, bytes]]:
        con = self._con()
        if con is None:
            return []
        return [
            (int(r[0]), str(r[1]), bytes(r[2]))
            for r in con.execute(
                "SELECT rid, id, vec FROM emb.vectors WHERE rid > ? ORDER BY rid", (rid,)
            )
        ]

    def count(self) -> int:
        con = self._con()
        if con is None:
            return 0
        return int(con.execute("SELECT count(*) FROM emb.vectors").fetchone()[0])

    def save_rate(self, notes_per_s: float) -> None:
        """Remember the embedding rate measured here, for another process's estimate."""
        con = self._con(create=True)
        assert con is not None
        with transaction(con):
            con.execute(RATE_TABLE)
            con.execute("DELETE FROM emb.rate")
            con.execute("INSERT INTO emb.rate (notes_per_s) VALUES (?)", (float(notes_per_s),))

    def rate(self) -> float | None:
        """The last embedding rate stored by a worker (notes per second), if any."""
        con = self._con()
        if con is None:
            return None
        try:
            row = con.execute("SELECT notes_per_s FROM emb.rate").fetchone()
        except sqlite3.OperationalError:  # no worker has measured one yet
            return None
        return float(row[0]) if row else None


class VectorMatrix:
    """The vectors of one root in memory, refreshed incrementally by ``rid``."""

    def __init__(self, dim: int = 0) -> None:
        self._reset(dim)

    def _reset(self, dim: int = 0) -> None:
        import numpy as np

        self.dim = dim  # 0: taken from the first stored vector
        self.ids: list[str] = []
        self.pos: dict[str, int] = {}
        self._mat: Matrix = np.zeros((0, dim), dtype=np.float32)
        # Sum of the rows, kept as they change: their mean centres the cosines.
        self._sum: npt.NDArray[np.float64] = np.zeros(dim, dtype=np.float64)
        self._last_rid = 0

    def __len__(self) -> int:
        return len(self.pos)

    def refresh(self, store: VectorStore) -> None:
        import numpy as np

        stored = store.count()
        if stored < len(self.pos):  # something was deleted: reload from scratch
            self._reset()
        new = store.rows_since(self._last_rid)
        if not new:
            return
        self._last_rid = max(rid for rid, _, _ in new)
        if not self.dim:
            self.dim = len(new[0][2]) // 2  # float16
            self._mat = np.zeros((0, self.dim), dtype=np.float32)
            self._sum = np.zeros(self.dim, dtype=np.float64)
        width = self.dim * 2
        good = [(memory_id, blob) for _, memory_id, blob in new if len(blob) == width]
        vecs = (
            np.frombuffer(b"".join(blob for _, blob in good), dtype=np.float16)
            .reshape(len(good), self.dim)
            .astype(np.float32)
        )
        latest = {memory_id: row for row, (memory_id, _) in enumerate(good)}
        appended: list[int] = []
        for memory_id, row in latest.items():
            at = self.pos.get(memory_id)
            if at is None:
                self.pos[memory_id] = len(self.ids)
                self.ids.append(memory_id)
                appended.append(row)
            else:  # re-embedded after an edit: replace in place
                self._sum += vecs[row].astype(np.float64) - self._mat[at]
                self._mat[at] = vecs[row]
        if appended:
            self._mat = np.vstack([self._mat, vecs[appended]])
            self._sum += vecs[appended].sum(axis=0, dtype=np.float64)

    def top(self, query: Any, k: int, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` most similar ids (cosine; vectors are unit length)."""
        import numpy as np

        if not self.ids or k <= 0:
            return []
        # On this thread: OpenBLAS's pool would spin after it (blas_threads.py).
        with one_blas_thread():
            scores = self._mat @ np.asarray(query, dtype=np.float32)
        if allowed is not None:
            mask = np.fromiter((i in allowed for i in self.ids), dtype=bool, count=len(self.ids))
            scores = np.where(mask, scores, -np.inf)
        k = min(k, len(self.ids))
        idx = np.argpartition(-scores, k - 1)[:k]
        idx = idx[np.argsort(-scores[idx])]
        best = scores[idx]
        keep = np.isfinite(best)  # one array call, not one per candidate
        ids = self.ids
        return [(ids[i], s) for i, s in zip(idx[keep].tolist(), best[keep].tolist(), strict=True)]

    def centred(self, query: Any, ids: Iterable[str]) -> dict[str, float]:
        """Cosine of each of ``ids``' vectors to ``query``, both centred on the rows' mean.

        The mean carries what every memory of the layer shares (the home's
        common subject, the embedder's own bias); without it a memory that is
        merely typical of the home no longer scores near every query (hubness
        reduction, Suzuki et al. 2013). With fewer than two rows there is no
        mean to speak of: the plain cosine.
        """
        import numpy as np

        ids = [i for i in ids if i in self.pos]
        q = np.asarray(query, dtype=np.float32)
        rows = self._mat[[self.pos[i] for i in ids]]
        if len(self.ids) < 2:
            return dict(zip(ids, (rows @ q).tolist(), strict=True))
        mean = (self._sum / len(self.ids)).astype(np.float32)
        rows -= mean  # a copy: fancy indexing copies
        qc = q - mean
        # einsum, not BLAS: 100 rows do not pay for waking BLAS threads (~75 µs in all).
        dots = np.einsum("ij,j->i", rows, qc)
        norms = np.sqrt(np.einsum("ij,ij->i", rows, rows)) * np.float32(np.sqrt(qc @ qc))
        cos = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
        return dict(zip(ids, cos.tolist(), strict=True))
