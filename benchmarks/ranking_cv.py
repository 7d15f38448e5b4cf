"""Cross-validated ranking constants on LoCoMo (issue 16, "Ranking that generalises").

Each ranking constant is checked the same way: with every other constant at its
production value, tune it on three of the five development conversations
(pick the grid value with the best pooled recall@5 there; a tie goes to the
value nearest the neutral one), then measure it on the other two against its
neutral value. All 10 ways to choose three of five are used (5 choose 3), so
every conversation is held out in four splits. Reported per constant: the mean
held-out Δ recall@5 (tuned − neutral, on the two conversations it was not
tuned on), the mean in-sample Δ (on the three it was tuned on), the value each
split picked, and kept or dropped by the constant's kind (``cv_knobs.py``: a
quality constant is kept when its held-out Δ is above 0, a bound unless it is
below 0; an unmeasurable one is reported as n/a).

The overall figure is nested the same way: per split, every measurable
constant is tuned jointly on the three training conversations (coordinate
ascent from plain BM25, two rounds) and the result is measured on the two
held-out ones against plain BM25 there. With ``--hybrid`` the same split-tuned
lexical constants are used inside hybrid recall on the held-out conversations.

Every run goes through the production path: ``Memory.hooks.recall_query`` with a
:class:`RankingParams` in ``RecallQuery(ranking=...)``. The analyser's switches
(stems, the Snowball stopword list, the added stopwords, the irregular verb
forms) shape the stored tokens, so a variant other than production's is built
by rewriting memories, their titles and the questions alike into the tokens
that variant would store, each written ``x0`` + token: a word with a digit is
kept as written by the production analyser, so it indexes exactly those
tokens (a stopword is left out, a word not stemmed stays whole).
``--check-emulation`` also runs production's own analyser through the rewrite
and reports both figures, which should agree.

Data and homes as in ``quality_bench.py`` (memories dated by session, asked
with limit 10). The hybrid run embeds each conversation once and reuses it
across splits (its ``QUERY_CACHE`` also keeps the question vectors), and names
the engine that embedded the passages (``passage_engine``): the vectors, and
so the hybrid figures, move a little with it.

Usage: python benchmarks/ranking_cv.py [--data PATH] [--hybrid] [--knobs a,b]
       [--grid relevance_floor=1,0.9,0.85] (a grid's first value is its neutral one)
       [--check-emulation]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import timedelta
from itertools import combinations
from pathlib import Path

import Stemmer
from cv_knobs import HYBRID_KNOBS, KNOBS, Config, Knob, plain_config, production_config
from quality_bench import DEFAULT_DATA, PlainBM25, observations, questions, store

from jupyter_memory import Memory
from jupyter_memory.core.memories.disclosure import Level
from jupyter_memory.core.memories.inputs import default_title
from jupyter_memory.core.memories.ranking import UNBOUNDED
from jupyter_memory.core.memories.recall_query import RecallQuery
from jupyter_memory.core.stopwords import ADDED_STOPWORDS, ENGLISH_STOPWORDS, IRREGULAR_FORMS
from jupyter_memory.core.text import normalize
from jupyter_memory.service.memories import semantic as semantic_service

K = 5
LIMIT = 10
FUSION_ROUNDS = 1  # coordinate ascent over the fusion constants, from production's
# Every question of a conversation encoded once, not again on each pass (a
# conversation has up to 260 questions; the production cache keeps 256).
semantic_service.QUERY_CACHE = 4096
_WORD = re.compile(r"[^\W_]+")
_LETTERS = re.compile(r"[a-z]+")
_STEM = Stemmer.Stemmer("english")
BASE_STOPWORDS = ENGLISH_STOPWORDS - ADDED_STOPWORDS
Analyser = tuple[bool, bool, bool, bool]  # stemming, base list, added stopwords, irregular forms
PROD: Analyser = production_config().analyser


def rewrite(text: str, analyser: Analyser) -> str:
    """``text`` as the tokens ``analyser`` would store, each ``x0`` + token (module doc)."""
    stemming, base, added, irregular = analyser

    def one(m: re.Match[str]) -> str:
        word = m.group(0)
        if not _LETTERS.fullmatch(word):
            return word  # a number, a word with a digit: kept as written by every variant
        if (base and word in BASE_STOPWORDS) or (added and word in ADDED_STOPWORDS):
            return ""
        if irregular:
            word = IRREGULAR_FORMS.get(word, word)
        return "x0" + (_STEM.stemWord(word) if stemming else word)

    return _WORD.sub(one, normalize(text))


@dataclass
class Conv:
    obs: list[dict]
    qs: list[dict]
    homes: dict[tuple[Analyser, bool], tuple[Memory, dict[str, list[str]]]]


def share(evidence: list[str], ranked: list[list[str]]) -> float:
    found = {t for turns in ranked[:K] for t in turns}
    return len(found & set(evidence)) / len(evidence)


class Bench:
    """Per-(config, mode, conversation) recall@5 shares, computed once each."""

    def __init__(self, data: Path, tmp: Path, *, hybrid: bool) -> None:
        self.tmp, self.hybrid = tmp, hybrid
        self.force_rewrite = False
        self.convs: list[Conv] = []
        for conv in json.loads(data.read_text("utf-8")):
            self.convs.append(Conv(observations(conv), questions(conv), {}))
        self.cache: dict[tuple[Config, str, int, bool], list[float]] = {}
        self.embed_seconds = 0.0

    def emulated(self, analyser: Analyser) -> bool:
        return self.force_rewrite or analyser != PROD

    def home(self, c: int, analyser: Analyser) -> tuple[Memory, dict[str, list[str]]]:
        conv = self.convs[c]
        key = (analyser, self.emulated(analyser))
        if key not in conv.homes:
            obs = conv.obs
            if key[1]:
                obs = [
                    o
                    | {"text": rewrite(o["text"], analyser)}
                    | {"title": rewrite(default_title(o["text"]), analyser)}
                    for o in obs
                ]
            now = max(o["created"] for o in obs) + timedelta(days=1)
            name = "".join(str(int(b)) for b in analyser) + ("e" if key[1] else "")
            semantic = self.hybrid and not key[1]
            conv.homes[key] = store(
                self.tmp / f"c{c}-{name}", obs, dated=True, now=now, semantic=semantic
            )
        return conv.homes[key]

    def shares(self, cfg: Config, c: int, mode: str = "lexical") -> list[float]:
        key = (cfg, mode, c, self.force_rewrite)
        if key not in self.cache:
            mem, turns = self.home(c, cfg.analyser)
            if mode != "lexical":
                started = time.perf_counter()
                if not mem.hooks.semantic.wait(timeout=3600):
                    raise SystemExit("embedding did not finish within an hour")
                self.embed_seconds += time.perf_counter() - started
            out = []
            for q in self.convs[c].qs:
                text = rewrite(q["q"], cfg.analyser) if self.emulated(cfg.analyser) else q["q"]
                hits = mem.hooks.recall_query(
                    RecallQuery(
                        text=text, limit=LIMIT, level=Level.index, record_access=False,
                        mode=mode, ranking=cfg.ranking,
                    )
                )  # fmt: skip
                out.append(share(q["evidence"], [turns[h.id] for h in hits]))
            self.cache[key] = out
        return self.cache[key]

    def recall(self, cfg: Config, convs: tuple[int, ...], mode: str = "lexical") -> float:
        """Pooled recall@5 in % over the questions of ``convs``."""
        values = [v for c in convs for v in self.shares(cfg, c, mode)]
        return 100 * sum(values) / len(values)

    def okapi(self, convs: tuple[int, ...]) -> float:
        """quality_bench's plain Okapi BM25 over lower-cased ``\\w+`` tokens (no stems)."""
        values = []
        for c in convs:
            obs = self.convs[c].obs
            bm25 = PlainBM25([o["text"] for o in obs])
            for q in self.convs[c].qs:
                ranked = [obs[i]["turns"] for i in bm25.top(q["q"], K)]
                values.append(share(q["evidence"], ranked))
        return 100 * sum(values) / len(values)

    def close(self) -> None:
        for conv in self.convs:
            for mem, _ in conv.homes.values():
                mem.close()


def best(bench: Bench, knob: Knob, base: Config, train: tuple[int, ...]) -> object:
    """The grid value with the best pooled recall@5 on ``train`` (ties: nearest neutral)."""
    scored = [
        (bench.recall(knob.set(base, v), train, knob.mode), -i, v) for i, v in enumerate(knob.grid)
    ]
    return max(scored, key=lambda t: (round(t[0], 6), t[1]))[2]


def splits(n: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    every = tuple(range(n))
    return [(tr, tuple(c for c in every if c not in tr)) for tr in combinations(every, n - 2)]


def check_knob(bench: Bench, knob: Knob, prod: Config) -> dict:
    held, ins, picks = [], [], []
    neutral = knob.set(prod, knob.grid[0])
    for train, test in splits(len(bench.convs)):
        v = best(bench, knob, prod, train)
        picks.append(v)
        tuned = knob.set(prod, v)
        held.append(bench.recall(tuned, test, knob.mode) - bench.recall(neutral, test, knob.mode))
        ins.append(bench.recall(tuned, train, knob.mode) - bench.recall(neutral, train, knob.mode))
    every = tuple(range(len(bench.convs)))
    value = knob.get(prod)
    return {
        "knob": knob.name,
        "production": value,
        "neutral": knob.grid[0],
        "grid": list(knob.grid),
        "held_out_delta": round(sum(held) / len(held), 2),
        "held_out_deltas": [round(d, 1) for d in held],
        "in_sample_delta": round(sum(ins) / len(ins), 2),
        "picked": picks,
        "full_data_best": best(bench, knob, prod, every),
        "full_data_delta_production": round(
            bench.recall(prod, every, knob.mode) - bench.recall(neutral, every, knob.mode), 2
        ),
        "mode": knob.mode,
        "kind": knob.kind,
        "kept": knob.kept(sum(held) / len(held)),
    }


def tune_jointly(bench: Bench, knobs: list[Knob], train: tuple[int, ...]) -> Config:
    cfg = plain_config()
    for _ in range(2):
        for knob in knobs:
            cfg = knob.set(cfg, best(bench, knob, cfg, train))
    return cfg


def overall(bench: Bench, knobs: list[Knob], final: Config) -> dict:
    measurable = [k for k in knobs if k.measurable and k.mode == "lexical"]
    fusion = [k for k in knobs if k.measurable and k.mode == "hybrid"]
    plain, prod = plain_config(), production_config()
    rows: dict[str, list[float]] = {
        k: [] for k in ("plain", "okapi", "nested", "production", "final")
    }
    hyb: dict[str, list[float]] = {
        "nested": [],
        "production": [],
        "plain_params": [],
        "nested_fusion": [],
        "final": [],
    }
    chosen = []
    for train, test in splits(len(bench.convs)):
        tuned = tune_jointly(bench, measurable, train)
        chosen.append({k.name: k.get(tuned) for k in measurable})
        rows["plain"].append(bench.recall(plain, test))
        rows["okapi"].append(bench.okapi(test))
        rows["nested"].append(bench.recall(tuned, test))
        rows["production"].append(bench.recall(prod, test))
        rows["final"].append(bench.recall(final, test))
        if bench.hybrid:
            # Embeddings exist for the production analyser only: hybrid takes the
            # split's tuned ranking constants with that analyser.
            as_prod = replace(
                tuned,
                stemming=prod.stemming,
                base_stopwords=prod.base_stopwords,
                added_stopwords=prod.added_stopwords,
                irregular_forms=prod.irregular_forms,
            )
            hyb["nested"].append(bench.recall(as_prod, test, "hybrid"))
            hyb["production"].append(bench.recall(prod, test, "hybrid"))
            hyb["plain_params"].append(
                bench.recall(replace(prod, ranking=plain.ranking), test, "hybrid")
            )
            hyb["final"].append(bench.recall(final, test, "hybrid"))
            # The fusion constants tuned jointly on the three, from production's.
            fused = as_prod
            for _ in range(FUSION_ROUNDS):
                for knob in fusion:
                    fused = knob.set(fused, best(bench, knob, fused, train))
            hyb["nested_fusion"].append(bench.recall(fused, test, "hybrid"))
    mean = {k: round(sum(v) / len(v), 2) for k, v in rows.items()}
    out: dict = {"held_out_recall@5": mean, "nested_choices": chosen}
    if bench.hybrid:
        out["hybrid_held_out_recall@5"] = {k: round(sum(v) / len(v), 2) for k, v in hyb.items()}
        out["embed_wait_seconds"] = round(bench.embed_seconds, 1)
        out["passage_engine"] = passage_engine()
    return out


def passage_engine() -> str:
    """Which engine embedded the passages: the vectors, and so the figures, depend on it."""
    factory = semantic_service.default_embedder_factory(True)
    assert factory is not None
    model = factory()
    if hasattr(model, "warm_up"):
        model.warm_up()
    return f"{model.name} ({getattr(model, 'engine', 'unknown')} engine)"


def fmt(v: object) -> str:
    if isinstance(v, tuple):
        return "/".join(fmt(x) for x in v)
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= UNBOUNDED:
        return "unbounded"
    return str(v)


def table(result: dict) -> str:
    lines = [
        "| constant | production | neutral | held-out Δ | in-sample Δ | picked in 10 splits | kept |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result["knobs"]:
        picks = ", ".join(f"{fmt(v)}×{r['picked'].count(v)}" for v in dict.fromkeys(r["picked"]))
        kept = "n/a" if r["kept"] is None else ("kept" if r["kept"] else "dropped")
        lines.append(
            f"| {r['knob']} | {fmt(r['production'])} | {fmt(r['neutral'])} | "
            f"{r['held_out_delta']:+.2f} | {r['in_sample_delta']:+.2f} | {picks} | {kept} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--hybrid", action="store_true", help="also hybrid (needs the semantic extra)"
    )
    parser.add_argument("--knobs", default=None, help="comma list of constants (default: all)")
    parser.add_argument("--grid", action="append", default=[], help="NAME=v1,v2,... (v1 neutral)")
    parser.add_argument(
        "--check-emulation", action="store_true", help="production analyser via the rewrite too"
    )
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data} not found (see ../shared/data/README.md)")
    knobs = {k.name: k for k in KNOBS}
    if args.hybrid:
        knobs |= {k.name: k for k in HYBRID_KNOBS}
    for spec in args.grid:
        name, _, values = spec.partition("=")
        knobs[name] = knobs[name].with_grid(values.split(","))
    chosen = [knobs[n] for n in args.knobs.split(",")] if args.knobs else list(knobs.values())
    tmp = Path(tempfile.mkdtemp(prefix="jm-cv-"))
    started = time.perf_counter()
    bench = Bench(args.data, tmp, hybrid=args.hybrid)
    try:
        prod = production_config()
        checked = [check_knob(bench, k, prod) for k in chosen]
        final = prod
        for r, k in zip(checked, chosen, strict=True):
            if r["kept"] is False:
                final = k.set(final, k.grid[0])
        result = {
            "data": str(args.data),
            "splits": "all 10 ways to tune on 3 of 5 conversations and measure on the other 2",
            "questions": sum(len(c.qs) for c in bench.convs),
            "knobs": checked,
            "final": {k.name: k.get(final) for k in chosen},
        }
        result |= overall(bench, chosen, final)
        if args.check_emulation:
            every = tuple(range(len(bench.convs)))
            direct = bench.recall(prod, every)
            bench.force_rewrite = True
            result["emulation_check_recall@5"] = {
                "direct": round(direct, 2),
                "rewritten": round(bench.recall(prod, every), 2),
            }
            bench.force_rewrite = False
        result["seconds"] = round(time.perf_counter() - started, 1)
    finally:
        bench.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result, default=str))
    print(table(result), file=sys.stderr)
    print(json.dumps({k: v for k, v in result.items() if "held_out" in k}), file=sys.stderr)


if __name__ == "__main__":
    main()
