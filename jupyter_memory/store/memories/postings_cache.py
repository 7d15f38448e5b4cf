"""Per-term postings held in memory, so bounded bm25 ranking steps no SQLite rows.

The SQL of :mod:`.sqlite_postings` reads a term's newest postings row by row
(~0.2 µs a row in SQLite, most of a one-word recall at 100k notes). This
cache keeps, per term, the postings SQLite holds (newest first: ``rid``,
``w``, ``dl``) as numpy arrays, read from the same ``postings`` table the SQL
reads, on the first query that needs them, and only as deep as that query
needs (a prefix, extended on demand). From them it computes what the SQL
computes — the same candidates (the newest ``cap`` entries holding every
term, or any term), the same bm25 per candidate (the same operations on the
same doubles, summed in the SQL's order), the same best ``limit`` — and hands
those ``(rid, rel)`` pairs back to ``sqlite_queries``, which makes their rows
from the entry columns only a write changes (held here per rowid) and the
access counts and attention read by SQL at every recall (the same expression).

It is memory only and derived from the index in the same process: the SQLite
index and the Markdown files stay the authority, and a rebuild, a repair or a
crash has nothing of it to keep or mend. It answers only while the database
is the one it read: the connection is the same object (a rebuild or a
repair swaps in a new file and a new connection), ``PRAGMA data_version`` is
unchanged (another connection — another process, or the open's check on its
thread — committed nothing) and the connection's ``total_changes`` is
unchanged (this connection wrote nothing). The one write of its own that
cannot change a posting, the buffered access counts (``acc.access``), is
told apart by :meth:`PostingsCache.after_access_write`. Anything else drops
every term at once; the statistics (df, N, average length) are constant
between two such checks, so each term's scores are computed once per state.

It is off unless ``JUPYTER_MEMORY_POSTINGS_CACHE=on`` is set when the index
is opened (:func:`wanted`). Memory is bounded: at most :data:`BUDGET_POSTINGS`
postings are held (24 bytes each, plus 8 per idf in use: ~64 MB at the bound
with one), the least recently used terms dropped first, and the columns of at
most :data:`ENTRIES_HELD` entries (~10 MB). numpy is imported by the
first query the cache answers; :func:`engaged` keeps a process's first search
off the cache unless numpy is already loaded, so a one-recall CLI call
imports nothing more (``tests/test_startup_imports.py``).
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections import OrderedDict
from collections.abc import Callable, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any

from .sqlite_postings import K1, B, TermStats

if TYPE_CHECKING:
    import numpy as np

# Off unless asked for: with it, lexical recall at 100k notes is still not within 2× of
# tantivy's fastest setup at p50 and p95 in both languages (docs/recall.md,
# "Round of 2026-12-03"), the bar set for turning it on by default.
ENV = "JUPYTER_MEMORY_POSTINGS_CACHE"


def wanted() -> bool:
    """Whether an index opened now keeps a postings cache (``JUPYTER_MEMORY_POSTINGS_CACHE=on``)."""
    return os.environ.get(ENV, "").strip().lower() in ("on", "1", "yes")


# At most this many postings in memory (~32 bytes each with one score array):
# the lists of the few hundred terms a session asks about, at 100k notes.
BUDGET_POSTINGS = 2_000_000
# Entries whose static columns are held (a hit's row costs a fifth of a one-word recall).
ENTRIES_HELD = 20_000
# The first read of a term: enough for a one-word query's cap and more.
FIRST_READ = 256
# SQLite's SUM() adds in plain double before 3.43 and with the Kahan-Babuška-
# Neumaier compensation from 3.43 on: the any-word pass sums as it does. (The
# tests compare with the SQLite they run on; 3.40 where this was measured.)
KBN_SUM = sqlite3.sqlite_version_info >= (3, 43, 0)


class _Postings:
    """One term's postings, newest first: a prefix of the list, or all of it."""

    __slots__ = ("term", "neg", "w", "dl", "complete", "scores")

    def __init__(self, term: str) -> None:
        import numpy as np

        self.term = term
        self.neg = np.empty(0, dtype=np.int64)  # -rid: ascending, for searchsorted
        self.w = np.empty(0, dtype=np.float64)
        self.dl = np.empty(0, dtype=np.float64)
        self.complete = False
        self.scores: dict[tuple[float, float, float], np.ndarray] = {}

    def __len__(self) -> int:
        return int(self.neg.shape[0])

    def read(self, con: sqlite3.Connection, more: int) -> int:
        """Read the next ``more`` postings (or the rest); how many came."""
        import numpy as np

        if len(self):
            sql = (
                "SELECT rid, w, dl FROM postings WHERE term = ? AND rid < ?"
                " ORDER BY rid DESC LIMIT ?"
            )
            rows = con.execute(sql, (self.term, -int(self.neg[-1]), more)).fetchall()
        else:
            sql = "SELECT rid, w, dl FROM postings WHERE term = ? ORDER BY rid DESC LIMIT ?"
            rows = con.execute(sql, (self.term, more)).fetchall()
        if len(rows) < more:
            self.complete = True
        if not rows:
            return 0
        # Flattened in C (np.array of a list of tuples costs twice the fetch);
        # rowids and lengths are integers far below 2**53, so exact as doubles.
        flat = np.fromiter(chain.from_iterable(rows), np.float64, count=3 * len(rows))
        cols = flat.reshape(-1, 3).T
        self.neg = np.concatenate((self.neg, -cols[0].astype(np.int64)))
        self.w = np.concatenate((self.w, cols[1]))
        self.dl = np.concatenate((self.dl, cols[2]))
        self.scores.clear()  # recomputed over the longer prefix
        return len(rows)

    def at_least(self, con: sqlite3.Connection, n: int) -> int:
        """Hold the newest ``n`` postings (or all); how many more were read."""
        got = 0
        while not self.complete and len(self) < n:
            got += self.read(con, max(n - len(self), len(self), FIRST_READ))
        return got

    def down_to(self, con: sqlite3.Connection, rid: int) -> int:
        """Hold every posting with a rowid of at least ``rid``; how many more were read."""
        got = 0
        while not self.complete and (not len(self) or -int(self.neg[-1]) > rid):
            got += self.read(con, max(len(self), FIRST_READ))
        return got

    def score(self, c: float, k: float, kb: float) -> np.ndarray:
        """bm25 of each held posting, as the SQL computes it: ``:c * w / (w + :k + :kb * dl)``."""
        key = (c, k, kb)
        out = self.scores.get(key)
        if out is None:
            out = (c * self.w) / ((self.w + k) + kb * self.dl)
            self.scores[key] = out
        return out


def engaged(searches: int) -> bool:
    """Whether a connection's search number ``searches`` (from 0) may use the cache."""
    return searches > 0 or "numpy" in sys.modules


class PostingsCache:
    """The postings of recently asked terms, for one connection in one state."""

    def __init__(self, budget: int = BUDGET_POSTINGS) -> None:
        self.budget = budget
        self._lists: OrderedDict[str, _Postings] = OrderedDict()
        self._held = 0
        self._state: tuple[int, int, int] | None = None  # (id(con), data_version, changes)
        self._con: sqlite3.Connection | None = None
        self._stats: dict[tuple[tuple[str, ...], str], TermStats] = {}
        # Entry columns that only a write changes (ROW_COLUMNS up to ``reviewed``), by rowid.
        self._entries: dict[int, tuple[object, ...]] = {}
        self.loads = 0  # statements read since the cache was made (tests, benchmarks)
        self.drops = 0  # times every term was dropped

    # -- validity ------------------------------------------------------------------

    def _now_state(self, con: sqlite3.Connection) -> tuple[int, int, int]:
        version = con.execute("PRAGMA main.data_version").fetchone()[0]
        return (id(con), int(version), con.total_changes)

    def valid(self, con: sqlite3.Connection) -> bool:
        """Whether what is held is still what ``con``'s database holds; drops it when not."""
        state = self._now_state(con)
        if self._con is con and state == self._state:
            return True
        self.clear()
        self._con, self._state = con, state
        return False

    def after_access_write(
        self, con: sqlite3.Connection, was_valid: bool, before: int, rows: int
    ) -> None:
        """This connection just wrote ``rows`` access counts (``acc.access``), which no
        posting depends on, its change count at ``before`` when it began: what was
        valid before stays valid, unless anything else changed in between."""
        state = self._state
        ours = state is not None and state[2] == before == con.total_changes - rows
        if was_valid and self._con is con and state is not None and ours:
            # Only the own-changes count moves on: data_version stays as it was
            # read before, so another process's commit in between still shows.
            self._state = (state[0], state[1], before + rows)

    def clear(self) -> None:
        if self._lists or self._stats or self._entries:
            self.drops += 1
        self._lists.clear()
        self._stats.clear()
        self._entries.clear()
        self._held = 0
        self._con = self._state = None

    @property
    def held(self) -> int:
        """Postings held now (bounded by ``budget``, beyond the terms of one query)."""
        return self._held

    # -- reads ---------------------------------------------------------------------

    def statistics(
        self,
        con: sqlite3.Connection,
        terms: Sequence[str],
        idf: str,
        read: Callable[[], TermStats],
    ) -> TermStats:
        """The terms' statistics: constant while the cache is valid, read once."""
        key = (tuple(sorted(terms)), idf)
        stats = self._stats.get(key)
        if stats is None:
            if len(self._stats) > 4096:
                self._stats.clear()
            stats = self._stats[key] = read()
        return stats

    def entries(
        self, con: sqlite3.Connection, rids: Sequence[int], read: Callable[[list[int]], Any]
    ) -> dict[int, tuple[object, ...]]:
        """The static columns of the entries ``rids`` (``read`` gives ``(rid, *columns)``
        for those not held yet); an entry no longer in the index is left out."""
        held = self._entries
        missing = [r for r in rids if r not in held]
        if missing:
            if len(held) + len(missing) > ENTRIES_HELD:
                # Full: start again from this query's entries (all read anew, so
                # none of those held before is lost by the clearing).
                held.clear()
                missing = list(rids)
            for row in read(missing):
                held[int(row[0])] = tuple(row[1:])
        return {r: held[r] for r in rids if r in held}

    def _list(self, term: str) -> _Postings:
        p = self._lists.get(term)
        if p is None:
            p = self._lists[term] = _Postings(term)
        else:
            self._lists.move_to_end(term)
        return p

    def _grew(self, n: int, keep: Sequence[_Postings]) -> None:
        self._held += n
        if n:
            self.loads += 1
        while self._held > self.budget and len(self._lists) > len(keep):
            term, p = next(iter(self._lists.items()))
            if any(p is k for k in keep):
                self._lists.move_to_end(term)
                continue
            del self._lists[term]
            self._held -= len(p)

    def candidates(
        self,
        con: sqlite3.Connection,
        terms: Sequence[str],
        stats: TermStats,
        *,
        every: bool,
        cap: int,
        limit: int,
    ) -> list[tuple[int, float]] | None:
        """The best ``limit`` ``(rid, rel)`` of the newest ``cap`` candidates, best
        first (rel, then the newest), as ``candidates_sql`` and the final ``top``
        choose them; ``None`` where the SQL returns no statement (no rows)."""
        import numpy as np

        idf = stats.idf
        present = [t for t in terms if t in idf]
        if every and len(present) < len(terms) or not present:
            return None
        k, kb = K1 * (1 - B), K1 * B / stats.avgdl
        lists = [self._list(t) for t in present]
        consts = [idf[t] * (K1 + 1.0) for t in present]
        if every and len(present) > 1:
            rids, rel = self._all_words(con, lists, consts, k, kb, cap, stats, present)
        elif every:
            p = lists[0]
            self._grew(p.at_least(con, cap), lists)
            rids = -p.neg[:cap]
            rel = p.score(consts[0], k, kb)[:cap]
        else:
            rids, rel = self._any_word(con, lists, consts, k, kb, cap)
        if not rids.shape[0]:
            return []
        # ORDER BY rel DESC, rid DESC LIMIT :limit
        order = np.lexsort((rids, rel))[::-1][:limit]
        return list(zip(rids[order].tolist(), rel[order].tolist(), strict=True))

    def _all_words(
        self,
        con: sqlite3.Connection,
        lists: list[_Postings],
        consts: list[float],
        k: float,
        kb: float,
        cap: int,
        stats: TermStats,
        present: list[str],
    ) -> tuple[np.ndarray, np.ndarray]:
        """The newest ``cap`` entries holding every term, and their summed bm25."""
        import numpy as np

        # The rarest term drives (any driver gives the same set; the rarest reads least).
        order = sorted(range(len(present)), key=lambda i: -stats.idf[present[i]])
        drive = lists[order[0]]
        found_pos: list[list[np.ndarray]] = [[] for _ in lists]
        found = 0
        start, step = 0, max(cap, FIRST_READ)
        while found < cap:
            self._grew(drive.at_least(con, start + step), lists)
            seg = drive.neg[start : start + step]
            if not seg.shape[0]:
                break
            lowest = -int(seg[-1])
            keep = np.ones(seg.shape[0], dtype=bool)
            where: dict[int, np.ndarray] = {order[0]: np.arange(start, start + seg.shape[0])}
            for i in order[1:]:
                other = lists[i]
                self._grew(other.down_to(con, lowest), lists)
                pos = np.searchsorted(other.neg, seg)
                inside = pos < other.neg.shape[0]
                hit = np.zeros(seg.shape[0], dtype=bool)
                hit[inside] = other.neg[pos[inside]] == seg[inside]
                keep &= hit
                where[i] = pos
            kept = np.flatnonzero(keep)[: cap - found]
            for i in range(len(lists)):
                found_pos[i].append(where[i][kept])
            found += kept.shape[0]
            start += seg.shape[0]
            step *= 2
        pos0 = np.concatenate(found_pos[0])
        rids = -lists[0].neg[pos0]
        # The SQL's rel is the sum in the query's term order: ((s0 + s1) + s2) ...
        rel = lists[0].score(consts[0], k, kb)[pos0]
        for i in range(1, len(lists)):
            rel = rel + lists[i].score(consts[i], k, kb)[np.concatenate(found_pos[i])]
        return rids, rel

    def _any_word(
        self,
        con: sqlite3.Connection,
        lists: list[_Postings],
        consts: list[float],
        k: float,
        kb: float,
        cap: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The newest ``cap`` entries holding any term, and their summed bm25."""
        import numpy as np

        for p in lists:
            self._grew(p.at_least(con, cap), lists)
        if len(lists) == 1:
            p = lists[0]
            return -p.neg[:cap], p.score(consts[0], k, kb)[:cap]
        parts = [-p.neg[:cap] for p in lists]
        scores = [p.score(c, k, kb)[:cap] for p, c in zip(lists, consts, strict=True)]
        rids = np.concatenate(parts)
        uniq, inverse = np.unique(rids, return_inverse=True)
        # GROUP BY rid: each group's rows added in the order of the UNION ALL's parts.
        rel = _group_sum(inverse, scores, uniq.shape[0])
        return uniq[::-1][:cap], rel[::-1][:cap]


def _group_sum(inverse: np.ndarray, scores: list[np.ndarray], groups: int) -> np.ndarray:
    """Per group, the sum of its values in the order the parts come, as SQLite's
    ``SUM()`` adds them (plain doubles, or with the Kahan-Babuška-Neumaier
    compensation from SQLite 3.43 on)."""
    import numpy as np

    # Both start at 0.0, as SQLite's sum does (0.0 + x is x; a term's rids are
    # distinct, so no index repeats within one part).
    total = np.zeros(groups, dtype=np.float64)
    err = np.zeros(groups, dtype=np.float64)
    at = 0
    for s in scores:
        idx = inverse[at : at + s.shape[0]]
        at += s.shape[0]
        old = total[idx]
        new = old + s
        if KBN_SUM:
            big = np.abs(old) > np.abs(s)
            err[idx] = err[idx] + np.where(big, (old - new) + s, (s - new) + old)
        total[idx] = new
    return total + err if KBN_SUM else total
