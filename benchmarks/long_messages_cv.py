"""Cross-validated analyser and bm25 knobs on long messages and on LoCoMo (issue 33).

Each knob of ``lexical_variants.KNOBS`` (stopword list, stemming, irregular
forms, numbers, dates, title weight, k1, b, the idf formula, what counts as a
message's length) is checked as ``ranking_cv.py`` checks the ranking
constants: with every other knob at production's value, tune it on three of
the five conversations (the grid value with the best pooled recall@5; ties go
to production's value), measure it on the other two against production's
value; all 10 splits, mean held-out and in-sample Δ in points of recall@5.
It is done on both corpora — the long messages (``long_corpus.py``) and the
LoCoMo observations — and a knob is worth shipping only when its held-out Δ
is above 0 on both.

Scored with the Python mirror of production's ranking (``lexical_variants``),
which ``long_messages_bench.py`` checks against the production path. The
nested row tunes every knob jointly (coordinate ascent from production, two
rounds) on the three and measures on the two, against plain BM25 there.

Usage: python benchmarks/long_messages_cv.py [--data PATH] [--base knob=value,...]
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import cache
from itertools import combinations
from pathlib import Path

from lexical_variants import KNOBS, Scorer, Variant, plain_bm25, production, with_knob
from long_messages_bench import corpus
from quality_bench import DEFAULT_DATA

K = 5
CORPORA = ("long", "observations")


class Bench:
    def __init__(self, data: Path) -> None:
        self.data = {kind: corpus(data, kind) for kind in CORPORA}
        self.texts = {k: [[d["text"] for d in docs] for docs, _ in v] for k, v in self.data.items()}

    @cache  # noqa: B019 - one bench per run
    def shares(self, v: Variant, kind: str, c: int) -> tuple[float, ...]:
        docs, qs = self.data[kind][c]
        scorer = Scorer(
            [d["text"] for d in docs], v, ties="oldest" if v == plain_bm25() else "newest"
        )
        out = []
        for q in qs:
            found = {t for i in scorer.top(q["q"], K) for t in docs[i]["turns"]}
            out.append(len(found & set(q["evidence"])) / len(q["evidence"]))
        return tuple(out)

    def recall(self, v: Variant, kind: str, convs: tuple[int, ...]) -> float:
        values = [s for c in convs for s in self.shares(v, kind, c)]
        return 100 * sum(values) / len(values)


def splits(n: int = 5) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    every = tuple(range(n))
    return [(tr, tuple(c for c in every if c not in tr)) for tr in combinations(every, n - 2)]


def best(bench: Bench, base: Variant, name: str, kind: str, train: tuple[int, ...]) -> object:
    grid = KNOBS[name]
    scored = [
        (round(bench.recall(with_knob(base, name, g), kind, train), 6), -i, g)
        for i, g in enumerate(grid)
    ]
    return max(scored, key=lambda t: (t[0], t[1]))[2]


def check(bench: Bench, base: Variant, name: str, kind: str) -> dict:
    held, ins, picks = [], [], []
    neutral = with_knob(base, name, getattr(base, name))
    for train, test in splits():
        v = best(bench, base, name, kind, train)
        picks.append(v)
        tuned = with_knob(base, name, v)
        held.append(bench.recall(tuned, kind, test) - bench.recall(neutral, kind, test))
        ins.append(bench.recall(tuned, kind, train) - bench.recall(neutral, kind, train))
    return {
        "held_out": round(sum(held) / len(held), 2),
        "in_sample": round(sum(ins) / len(ins), 2),
        "picked": {str(p): picks.count(p) for p in dict.fromkeys(picks)},
        "all_five": {
            str(g): round(bench.recall(with_knob(base, name, g), kind, tuple(range(5))), 2)
            for g in KNOBS[name]
        },
    }


def nested(bench: Bench, base: Variant, kind: str) -> dict:
    rows: dict[str, list[float]] = {"plain_bm25": [], "production": [], "nested": []}
    for train, test in splits():
        v = base
        for _ in range(2):
            for name in KNOBS:
                v = with_knob(v, name, best(bench, v, name, kind, train))
        rows["plain_bm25"].append(bench.recall(plain_bm25(), kind, test))
        rows["production"].append(bench.recall(base, kind, test))
        rows["nested"].append(bench.recall(v, kind, test))
    return {k: round(sum(x) / len(x), 2) for k, x in rows.items()}


def parse_base(spec: str | None) -> Variant:
    v = production()
    for item in filter(None, (spec or "").split(",")):
        name, _, raw = item.partition("=")
        kind = type(KNOBS[name][0])
        value: object = (
            raw in {"1", "true", "True"} if kind is bool else kind(raw)  # type: ignore[call-arg]
        )
        v = with_knob(v, name, value)
    return v


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--base", default=None, help="start from production with knob=value,...")
    parser.add_argument("--no-nested", action="store_true", help="the one-knob checks only")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data} not found (see ../shared/data/README.md)")
    bench = Bench(args.data)
    base = parse_base(args.base)
    result: dict = {"base": repr(base), "knobs": {}, "overall_held_out_recall@5": {}}
    print("| knob | long: held-out / in-sample Δ | LoCoMo: held-out / in-sample Δ | ship |",
          file=sys.stderr)  # fmt: skip
    print("|---|---|---|---|", file=sys.stderr)
    for name in KNOBS:
        r = result["knobs"][name] = {kind: check(bench, base, name, kind) for kind in CORPORA}
        a, b = r["long"], r["observations"]
        ship = "yes" if a["held_out"] > 0 and b["held_out"] > 0 else "no"
        print(
            f"| {name} | {a['held_out']:+.2f} / {a['in_sample']:+.2f} {a['picked']} | "
            f"{b['held_out']:+.2f} / {b['in_sample']:+.2f} {b['picked']} | {ship} |",
            file=sys.stderr,
            flush=True,
        )
    if not args.no_nested:
        for kind in CORPORA:
            result["overall_held_out_recall@5"][kind] = nested(bench, base, kind)
            print(kind, result["overall_held_out_recall@5"][kind], file=sys.stderr, flush=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
