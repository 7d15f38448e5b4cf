"""Lexical recall on long chat messages beside a plain BM25, per kind of question (issue 33).

The corpus (``long_corpus.py``): the LoCoMo dev half's observations joined into
2,000–4,000-character messages with assistant-style replies, plus distractor
messages, ~290 a conversation; every question with evidence is asked.

Rows, in the same run, on the same messages and questions:

* ``lexical`` — the production recall path (``Memory.recall``, lexical mode,
  limit 10), each message imported as a memory dated by its session;
* ``mirror`` — ``lexical_variants.production()``, the Python mirror of it that
  ``long_messages_cv.py`` varies (it should agree with ``lexical``);
* ``plain_bm25`` — issue 33's baseline: regex words, a short stopword list, no
  stemming, Lucene's idf, k1 1.5, b 0.75, over the message text.

Kinds: LoCoMo's categories, and whether a question's evidence is in one
message or spread over several (multi-message).
``--corpus observations`` runs the same rows on the observations themselves.

Usage: python benchmarks/long_messages_bench.py [--data PATH] [--corpus long|observations]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

from lexical_variants import Scorer, plain_bm25, production
from long_corpus import long_messages
from quality_bench import CATEGORIES, DEFAULT_DATA, observations, questions, store

KS = (5, 10)


def corpus(data: Path, kind: str) -> list[tuple[list[dict], list[dict]]]:
    """Per conversation: its documents (``text``, ``turns``, …) and its questions."""
    convs = json.loads(data.read_text("utf-8"))
    out = []
    for i, conv in enumerate(convs):
        if kind == "long":
            docs = long_messages(conv, [c for j, c in enumerate(convs) if j != i])
        else:
            docs = observations(conv)
        out.append((docs, questions(conv)))
    return out


def kinds(q: dict, docs: list[dict]) -> list[str]:
    holders = {i for i, d in enumerate(docs) for t in d["turns"] if t in q["evidence"]}
    spread = "multi-message" if len(holders) > 1 else "one message"
    return ["overall", CATEGORIES.get(q["cat"], str(q["cat"])), spread]


def share(evidence: list[str], ranked: list[list[str]], k: int) -> float:
    found = {t for turns in ranked[:k] for t in turns}
    return len(found & set(evidence)) / len(evidence)


def run(data: Path, kind: str) -> dict:
    rows: dict[str, dict[str, dict[int, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    sizes = []
    for docs, qs in corpus(data, kind):
        sizes.append(len(docs))
        mirror = Scorer([d["text"] for d in docs], production())
        plain = Scorer([d["text"] for d in docs], plain_bm25(), ties="oldest")
        tmp = Path(tempfile.mkdtemp(prefix="jm-long-"))
        try:
            now = max(d["created"] for d in docs) + timedelta(days=1)
            mem, turns = store(tmp / "home", docs, dated=True, now=now, semantic=False)
            for q in qs:
                hits = mem.recall(
                    q["q"], limit=max(KS), level="index", record_access=False, mode="lexical"
                )
                ranked = {
                    "lexical": [turns[h.id] for h in hits],
                    "mirror": [docs[i]["turns"] for i in mirror.top(q["q"], max(KS))],
                    "plain_bm25": [docs[i]["turns"] for i in plain.top(q["q"], max(KS))],
                }
                for name, r in ranked.items():
                    for kd in kinds(q, docs):
                        for k in KS:
                            rows[name][kd][k].append(share(q["evidence"], r, k))
            mem.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return {
        "data": str(data),
        "corpus": kind,
        "documents_per_conversation": sizes,
        "mean_chars": round(
            statistics.fmean(len(d["text"]) for docs, _ in corpus(data, kind) for d in docs)
        ),
        "rows": {
            name: {
                kd: {f"recall@{k}": round(100 * statistics.fmean(v), 1) for k, v in ks.items()}
                | {"n": len(ks[KS[0]])}
                for kd, ks in by_kind.items()
            }
            for name, by_kind in rows.items()
        },
    }


def table(result: dict) -> str:
    kinds_ = list(result["rows"]["plain_bm25"])
    lines = [
        "| kind | n | " + " | ".join(f"{r} @5 / @10" for r in result["rows"]) + " | Δ@5 |",
        "|---|---|" + "---|" * (len(result["rows"]) + 1),
    ]
    for kd in kinds_:
        cells = [
            f"{result['rows'][r][kd]['recall@5']:.1f} / {result['rows'][r][kd]['recall@10']:.1f}"
            for r in result["rows"]
        ]
        delta = (
            result["rows"]["lexical"][kd]["recall@5"] - result["rows"]["plain_bm25"][kd]["recall@5"]
        )
        n = result["rows"]["plain_bm25"][kd]["n"]
        lines.append(f"| {kd} | {n} | " + " | ".join(cells) + f" | {delta:+.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--corpus", choices=("long", "observations"), default="long")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data} not found (see ../shared/data/README.md)")
    result = run(args.data, args.corpus)
    print(json.dumps(result))
    print(table(result), file=sys.stderr)


if __name__ == "__main__":
    main()
