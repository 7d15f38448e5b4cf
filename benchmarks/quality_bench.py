"""Recall quality on LoCoMo observations (issue 9 figures).

Data: ``../shared/data/locomo10-dev.json`` beside the repository (five LoCoMo
conversations, CC BY-NC 4.0, see its README; not copied into this repository).
Another copy can be named with ``--data``.

For each conversation, every observation becomes a memory in a fresh home,
stored through the public API (``Memory.hooks.import_jsonl``) with its dialog turn
ids in an ``extra`` frontmatter key ``turns`` and its session's date as
``created``; the benchmark reads the turn ids back from the stored files. Every
question with evidence is asked as a recall query; recall@k is the share of the
question's evidence turn ids found among the turn ids of the top k hits,
averaged over questions, per category and overall.

Rows (same observations, same questions, same run):

* ``bm25_baseline`` — plain Okapi BM25 (k1 1.2, b 0.75) over lower-cased
  ``\\w+`` tokens, written here, no stemming, no stopwords, no attention.
* ``lexical`` — the default engine, memories dated by session (attention on).
* ``lexical_same_age`` — the same engine, every memory the same age: relevance
  alone, so the difference to ``lexical`` is the effect of attention.
* ``semantic`` and ``hybrid`` — with the ``semantic`` extra installed; the
  benchmark waits until every observation is embedded before asking.

Prints one JSON object, then a short table.

Usage: python benchmarks/quality_bench.py [--data PATH] [--modes lexical,semantic,hybrid]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

from jupyter_memory import Memory

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo10-dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (1, 5, 10)
_TURN_RE = re.compile(r"D:?(\d+):(\d+)")
_DATE_RE = re.compile(
    r"(\d{1,2}) (January|February|March|April|May|June|July|August|"
    r"September|October|November|December),? (\d{4})"
)
MONTHS = {
    m: i
    for i, m in enumerate(
        (
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ),
        start=1,
    )
}


def turn_ids(value: object) -> list[str]:
    """Evidence as turn ids; tolerates the dataset's stray forms ("D8:6; D9:17", "D:11:26")."""
    items = value if isinstance(value, list) else [value]
    return [f"D{a}:{b}" for item in items for a, b in _TURN_RE.findall(str(item))]


def session_dates(conv: dict) -> dict[int, datetime]:
    """Session number → its date, read from the session summaries."""
    out: dict[int, datetime] = {}
    for key, text in conv.get("session_summary", {}).items():
        num = re.search(r"session_(\d+)", key)
        date = _DATE_RE.search(str(text))
        if num and date:
            day, month, year = date.groups()
            out[int(num.group(1))] = datetime(
                int(year), MONTHS[month], int(day), 12, tzinfo=timezone.utc
            )
    return out


def observations(conv: dict) -> list[dict]:
    dates = session_dates(conv)
    start = min(dates.values(), default=datetime(2023, 1, 1, tzinfo=timezone.utc))
    rows = []
    for key, by_speaker in conv["observation"].items():
        session = int(re.search(r"session_(\d+)", key).group(1))  # type: ignore[union-attr]
        created = dates.get(session, start + timedelta(days=7 * session))
        for speaker, items in by_speaker.items():
            for text, evidence in items:
                rows.append(
                    {
                        "text": text,
                        "turns": turn_ids(evidence),
                        "speaker": speaker,
                        "session": session,
                        "created": created,
                    }
                )
    return rows


def questions(conv: dict) -> list[dict]:
    out = []
    for qa in conv["qa"]:
        evidence = sorted(set(turn_ids(qa.get("evidence", []))))
        if evidence:
            out.append({"q": qa["question"], "evidence": evidence, "cat": int(qa["category"])})
    return out


# -- the plain BM25 baseline ------------------------------------------------------------


class PlainBM25:
    def __init__(self, docs: list[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs = [Counter(re.findall(r"\w+", d.lower())) for d in docs]
        self.lens = [sum(c.values()) for c in self.docs]
        self.avg = sum(self.lens) / max(1, len(self.lens))
        df: Counter[str] = Counter()
        for c in self.docs:
            df.update(c.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def top(self, query: str, k: int) -> list[int]:
        terms = set(re.findall(r"\w+", query.lower()))
        scores = []
        for i, (c, ln) in enumerate(zip(self.docs, self.lens, strict=True)):
            s = 0.0
            for t in terms:
                f = c.get(t)
                if f:
                    s += (
                        self.idf[t]
                        * f
                        * (self.k1 + 1)
                        / (f + self.k1 * (1 - self.b + self.b * ln / self.avg))
                    )
            if s > 0:
                scores.append((s, i))
        scores.sort(key=lambda t: (-t[0], t[1]))
        return [i for _, i in scores[:k]]


# -- scoring ------------------------------------------------------------------------------


class Tally:
    def __init__(self) -> None:
        self.hits: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.latency_ms: list[float] = []

    def add(self, cat: int, evidence: list[str], ranked_turns: list[list[str]]) -> None:
        for k in KS:
            found = {t for turns in ranked_turns[:k] for t in turns}
            share = len(found & set(evidence)) / len(evidence)
            self.hits[CATEGORIES.get(cat, str(cat))][k].append(share)
            self.hits["overall"][k].append(share)

    def summary(self) -> dict:
        out = {
            cat: {f"recall@{k}": round(100 * statistics.fmean(v), 1) for k, v in ks.items()}
            | {"n": len(ks[KS[0]])}
            for cat, ks in sorted(self.hits.items())
        }
        if self.latency_ms:
            lat = sorted(self.latency_ms)
            out["latency_ms"] = {
                "p50": round(lat[len(lat) // 2], 2),
                "p95": round(lat[int(len(lat) * 0.95)], 2),
            }
        return out


def store(
    home: Path, obs: list[dict], *, dated: bool, now: datetime, semantic: bool
) -> tuple[Memory, dict[str, list[str]]]:
    jsonl = home.parent / f"{home.name}.jsonl"
    with jsonl.open("w", encoding="utf-8") as fh:
        for o in obs:
            line = {
                "text": o["text"],
                "extra": {"turns": o["turns"], "speaker": o["speaker"], "session": o["session"]},
            }
            if "title" in o:  # ranking_cv.py's rewritten titles
                line["title"] = o["title"]
            if dated:
                line["created"] = o["created"].isoformat()
            fh.write(json.dumps(line) + "\n")
    mem = Memory(home=home, clock=lambda: now, semantic=semantic)
    ids = mem.hooks.import_jsonl(jsonl)
    # Read the turn ids back from the stored Markdown files.
    turns = {i: list(mem.get(i).meta.model_extra["turns"]) for i in ids}  # type: ignore[index]
    return mem, turns


def run(data: Path, modes: list[str]) -> dict:
    convs = json.loads(data.read_text("utf-8"))
    tallies: dict[str, Tally] = defaultdict(Tally)
    embed = {"observations": 0, "seconds": 0.0}
    semantic = any(m in modes for m in ("semantic", "hybrid"))
    for conv in convs:
        obs = observations(conv)
        qs = questions(conv)
        now = max(o["created"] for o in obs) + timedelta(days=1)
        bm25 = PlainBM25([o["text"] for o in obs])
        for q in qs:
            tallies["bm25_baseline"].add(
                q["cat"], q["evidence"], [obs[i]["turns"] for i in bm25.top(q["q"], max(KS))]
            )
        tmp = Path(tempfile.mkdtemp(prefix="jm-quality-"))
        try:
            homes: list[tuple[str, Memory, dict[str, list[str]], list[str]]] = []
            started = time.perf_counter()
            mem, turns = store(tmp / "dated", obs, dated=True, now=now, semantic=semantic)
            homes.append(("", mem, turns, modes))
            if "lexical" in modes:
                flat, flat_turns = store(
                    tmp / "same-age", obs, dated=False, now=now, semantic=False
                )
                homes.append(("_same_age", flat, flat_turns, ["lexical"]))
            if semantic:
                if not mem.hooks.semantic.wait(timeout=3600):
                    raise SystemExit("embedding did not finish within an hour")
                embed["seconds"] += time.perf_counter() - started
                embed["observations"] += len(obs)
            for suffix, home_mem, t, mm in homes:
                for mode in mm:
                    tally = tallies[mode + suffix]
                    # A fresh instance per mode: no query vector cached by an earlier mode.
                    m = home_mem
                    if mode != "lexical":
                        m = Memory(home=home_mem.home, clock=home_mem.hooks.clock, semantic=True)

                    def ask(text: str, m: Memory = m, mode: str = mode) -> list:
                        return m.recall(
                            text, limit=max(KS), level="index", record_access=False, mode=mode
                        )

                    ask("warm up the model and the vectors")  # not a question: not cached
                    for q in qs:
                        t0 = time.perf_counter()
                        hits = ask(q["q"])
                        tally.latency_ms.append((time.perf_counter() - t0) * 1000)
                        tally.add(q["cat"], q["evidence"], [t[h.id] for h in hits])
                    if m is not home_mem:
                        m.close()
                home_mem.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    result: dict = {
        "data": str(data),
        "conversations": len(convs),
        "questions": len(tallies["bm25_baseline"].hits["overall"][1]),
    }
    result["rows"] = {name: t.summary() for name, t in tallies.items()}
    base = result["rows"]["bm25_baseline"]["overall"]["recall@5"]
    result["ratio_recall@5_vs_baseline"] = {
        name: round(r["overall"]["recall@5"] / base, 3) for name, r in result["rows"].items()
    }
    if embed["observations"]:
        result["embedding"] = {
            "observations": embed["observations"],
            "wall_seconds_import_to_all_embedded": round(embed["seconds"], 1),
            "per_second": round(embed["observations"] / max(embed["seconds"], 1e-9), 1),
        }
    return result


def table(result: dict) -> str:
    cats = ["overall", *CATEGORIES.values()]
    lines = [f"{'row':<20}" + "".join(f"{c[:11]:>13}" for c in cats) + "   (recall@1/5/10)"]
    for name, row in result["rows"].items():
        cells = []
        for c in cats:
            r = row.get(c)
            cells.append(
                f"{r['recall@1']:.0f}/{r['recall@5']:.0f}/{r['recall@10']:.0f}" if r else "-"
            )
        lat = row.get("latency_ms")
        lines.append(
            f"{name:<20}"
            + "".join(f"{x:>13}" for x in cells)
            + (f"   p50 {lat['p50']} ms" if lat else "")
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--modes",
        default=None,
        help="comma list of lexical,semantic,hybrid (default: all available)",
    )
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(
            f"{args.data} not found: it is data/locomo10.json's first five conversations "
            "from the public snap-research/LoCoMo repository (see shared/data/README.md)"
        )
    from jupyter_memory.service.memories.semantic import default_embedder_factory

    available = default_embedder_factory(None) is not None
    modes = (
        args.modes.split(",")
        if args.modes
        else ["lexical", *(["semantic", "hybrid"] if available else [])]
    )
    result = run(args.data, modes)
    print(json.dumps(result))
    print(table(result), file=sys.stderr)


if __name__ == "__main__":
    main()
