"""Recall beside tantivy in one process, queries alternating (issue 33).

tantivy is what a person would pick instead of our SQLite index: a Rust
search library (Lucene's design) with Python bindings. This module builds a
tantivy index of the same Zipfian corpus (``zipf_corpus.py``) the way a
person would set it up for these notes: title, tags and body as text fields
with the English stemmer (``en_stem``), tags weighted 2 as ours are, CJK
runs written as overlapping bigrams (tantivy has no CJK analysis of its
own), queries parsed as OR (tantivy's default) over the three fields. Each
query is then asked of both, in alternating order, so both see the same
load; per engine the wall time and this process's CPU time, p50 / p95, and
the ratio ours / tantivy, and recall's p50 less search's over tantivy's p50
(the service's share).

"Ours" is timed three ways: ``Memory.recall(q, limit=10, level="index")``
(what a person's ``%recall`` costs, as recall_bench times it), the engine's
``SearchIndex.search`` alone (what tantivy's ``search`` is the counterpart
of) and tantivy's side includes reading each hit's stored id (as our rows
carry their metadata).

tantivy is not a dependency: install it apart, e.g. ``pip install --target
/tmp/tantivy-lib tantivy==0.27.0`` and run with ``PYTHONPATH=/tmp/tantivy-lib``.
"""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path
from typing import Any

_CJK_RUNS = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")


def bigrams(text: str) -> str:
    """CJK runs as overlapping bigrams (a lone character stays), other text as it is."""

    def split(m: re.Match[str]) -> str:
        run = m.group(0)
        grams = [run[i : i + 2] for i in range(max(1, len(run) - 1))]
        return " " + " ".join(grams) + " "

    return _CJK_RUNS.sub(split, text)


FIELDS = ("title", "tags", "body")  # as our index's columns, tags weighted 2
ONE_FIELD = ("text",)  # the fastest setup: title, tags and body in one field


def _schema(fields: tuple[str, ...]) -> Any:
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw")
    for field in fields:
        sb.add_text_field(field, tokenizer_name="en_stem")
    return sb.build()


def _fields_of(note: dict[str, Any], fields: tuple[str, ...]) -> dict[str, str]:
    title, tags = bigrams(str(note.get("title", ""))), " ".join(note.get("tags", []))
    body = bigrams(str(note["text"]))
    if fields == ONE_FIELD:
        return {"text": f"{title}\n{tags}\n{body}"}
    return {"title": title, "tags": tags, "body": body}


class Tantivy:
    """A tantivy index of the notes, in ``folder``, one segment, searched on one thread."""

    def __init__(self, folder: Path, fields: tuple[str, ...] = FIELDS) -> None:
        import tantivy  # not a dependency (see the module's docstring)

        self.fields = list(fields)
        self.boosts = {"tags": 2.0} if "tags" in fields else {}
        self.index = tantivy.Index.open(str(folder))
        self.searcher = self.index.searcher()

    @classmethod
    def build(
        cls,
        folder: Path,
        notes: list[dict[str, Any]],
        ids: list[str],
        fields: tuple[str, ...] = FIELDS,
    ) -> Tantivy:
        """Index ``notes`` into ``folder`` (one writer thread, merged to one segment)."""
        import tantivy

        if not folder.exists():
            folder.mkdir(parents=True)
            index = tantivy.Index(_schema(fields), path=str(folder))
            writer = index.writer(heap_size=256 << 20, num_threads=1)
            for note, memory_id in zip(notes, ids, strict=True):
                writer.add_document(tantivy.Document(id=memory_id, **_fields_of(note, fields)))
            writer.commit()
            writer.wait_merging_threads()
        return cls(folder, fields)

    def search(self, text: str, limit: int = 10) -> list[str]:
        query = self.index.parse_query_lenient(
            bigrams(text), self.fields, field_boosts=self.boosts
        )[0]
        hits = self.searcher.search(query, limit, count=False).hits
        return [self.searcher.doc(addr)["id"][0] for _, addr in hits]


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _summary(ms: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(ms), 3), "p95": round(_pct(ms, 0.95), 3)}


def side_by_side(
    mem: Any, engines: dict[str, Tantivy], queries: dict[str, list[str]], rounds: int
) -> dict[str, Any]:
    """Each query of each language asked of every contender in turn, order rotating.

    The ratios are ours over ``engines``' first (the setup like ours).
    """
    from jupyter_memory.store.memories.search_index import SearchQuery

    index = mem.hooks.user.index
    contenders: dict[str, Any] = {
        name: (lambda q, e=engine: e.search(q, 10)) for name, engine in engines.items()
    }
    contenders |= {
        "recall": lambda q: mem.recall(q, limit=10, level="index"),
        "index_search": lambda q: index.search(SearchQuery(text=q, limit=10)),
    }
    for q in queries["en"][:20] + queries["zh"][:20]:  # warm caches of all three
        for fn in contenders.values():
            fn(q)
    out: dict[str, Any] = {}
    for lang, qs in queries.items():
        wall: dict[str, list[float]] = {name: [] for name in contenders}
        cpu: dict[str, list[float]] = {name: [] for name in contenders}
        later: dict[str, list[float]] = {name: [] for name in contenders}  # rounds 2…
        names = list(contenders)
        for r in range(rounds):
            for i, q in enumerate(qs):
                k = (i + r) % len(names)
                for name in names[k:] + names[:k]:
                    c0, t0 = time.process_time(), time.perf_counter()
                    contenders[name](q)
                    wall[name].append((time.perf_counter() - t0) * 1000)
                    cpu[name].append((time.process_time() - c0) * 1000)
                    if r:
                        later[name].append(cpu[name][-1])
        res: dict[str, Any] = {
            n: {"wall_ms": _summary(wall[n]), "cpu_ms": _summary(cpu[n])} for n in names
        }
        if rounds > 1:
            # Each query's later asks apart: the first ask of a word reads its postings
            # into our postings cache (store/memories/postings_cache.py), which every
            # later ask of it, by any query, finds held.
            for n in names:
                res[n]["cpu_ms_later_rounds"] = _summary(later[n])
        for name in ("recall", "index_search"):
            for other in engines:
                res[f"{name}_over_{other}"] = {
                    kind: {
                        p: round(res[name][kind][p] / max(1e-9, res[other][kind][p]), 2)
                        for p in ("p50", "p95")
                    }
                    for kind in ("wall_ms", "cpu_ms", "cpu_ms_later_rounds")
                    if kind in res[name]
                }
        for other in engines:
            # What the service adds to the engine's search, in units of that engine's
            # whole query: the part of recall's ratio no engine change can take away.
            res[f"recall_less_search_over_{other}"] = {
                kind: round(
                    (res["recall"][kind]["p50"] - res["index_search"][kind]["p50"])
                    / max(1e-9, res[other][kind]["p50"]),
                    2,
                )
                for kind in ("wall_ms", "cpu_ms", "cpu_ms_later_rounds")
                if kind in res["recall"]
            }
        out[lang] = res
    return out
