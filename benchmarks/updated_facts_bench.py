"""Updated facts ranked newer-first (issue 33), beside a plain BM25, in the same run.

Questions about a fact that changed: an older memory states it, a newer one
restates the same subject with another value, and the question asks for it.
Two sources:

* **LoCoMo dev**: every observation holding a number (``4 years``, ``two
  kids``) becomes an old fact dated in its session; its update is the same
  sentence with the number changed, dated after the last session; the question
  is the sentence without its number. The conversation's other observations
  are the haystack (imported first).
* **our own**: ``FACTS`` below — appointments, times, amounts, colours,
  counts — each old/new pair with its question, in a haystack of the same
  conversation's observations.

Each new fact is stored with ``Memory.remember``, which links it to the old one
when identity calls it an update of the same subject (``supersedes``); the old
ones are stored earlier the same way. Figures: the share of questions whose
newer fact ranks above the older one within the top 10 (newer-first), recall@5
of the newer fact, and the share linked. Rows: ``lexical`` (production, links
on), ``lexical, no links`` (the same memories stored with ``supersedes=()``:
the order before this change), ``plain_bm25`` (``lexical_variants.plain_bm25``
over the same texts, ties to the older, as Lucene orders them).

Usage: python benchmarks/updated_facts_bench.py [--data PATH]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from lexical_variants import Scorer, plain_bm25
from quality_bench import DEFAULT_DATA, observations

from jupyter_memory import Memory

LIMIT = 10
_NUMBER = re.compile(
    r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b(?! ?(?:am|pm|:))", re.I
)
RESTATE = (
    "Quick update on what I said before: {}.",
    "{}, as of this month.",
    "Things changed a bit since we last talked, {}.",
)
_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]

# (old, new, question): facts a person states and later restates with a new value.
FACTS = [
    ("My dentist appointment is on Tuesday at 3pm.", "Quick update: the dentist moved my appointment, it is on Tuesday at 4pm now.", "When is my dentist appointment?"),
    ("The team standup is at 9:00 every morning.", "From next week the team standup is at 10:30 every morning instead.", "What time is the team standup?"),
    ("Our gym membership costs 40 dollars a month.", "They raised the price: our gym membership costs 55 dollars a month now.", "How much does the gym membership cost?"),
    ("My favourite colour is blue.", "These days my favourite colour is green, honestly.", "What is my favourite colour?"),
    ("I have two cats at home.", "We adopted another one, so I have three cats at home now.", "How many cats do I have?"),
    ("The nightly backup runs at 2am.", "We changed the schedule and the nightly backup runs at 3am from today.", "When does the nightly backup run?"),
    ("My rent is 1200 dollars a month.", "The landlord renewed the lease and my rent is 1350 dollars a month now.", "How much is my rent?"),
    ("The book club meets on Thursday evenings.", "Heads up, the book club meets on Wednesday evenings from this month.", "When does the book club meet?"),
    ("I run 5 kilometres every Sunday.", "Training is going well: I run 8 kilometres every Sunday these days.", "How far do I run on Sundays?"),
    ("The piano lesson starts at 5pm.", "The teacher asked to shift it, so the piano lesson starts at 6pm now.", "When does the piano lesson start?"),
    ("My daughter is in grade 3.", "The school year began and my daughter is in grade 4 now.", "Which grade is my daughter in?"),
    ("The car needs service every 10000 miles.", "The new manual says the car needs service every 15000 miles, not less.", "How often does the car need service?"),
    ("Our wedding anniversary dinner is booked for 7pm.", "The restaurant called: our wedding anniversary dinner is booked for 8pm instead.", "When is the anniversary dinner booked?"),
    ("The kitchen walls are painted yellow.", "We repainted over the weekend and the kitchen walls are painted white now.", "What colour are the kitchen walls?"),
    ("I sleep about 6 hours a night.", "Since I changed jobs I sleep about 7 hours a night, which feels better.", "How many hours do I sleep a night?"),
    ("The pottery class costs 30 dollars per session.", "The studio updated its prices and the pottery class costs 35 dollars per session.", "How much is the pottery class?"),
    ("The farmers market opens at 8am on Saturdays.", "For the summer the farmers market opens at 7am on Saturdays.", "When does the farmers market open?"),
    ("My commute takes 45 minutes each way.", "After the move my commute takes 25 minutes each way, a big relief.", "How long is my commute?"),
    ("We have 4 tomato plants in the garden.", "We planted more this spring, so we have 6 tomato plants in the garden.", "How many tomato plants are in the garden?"),
    ("The yoga class is on Monday mornings.", "The instructor rescheduled and the yoga class is on Friday mornings now.", "When is the yoga class?"),
]  # fmt: skip


def locomo_pairs(conv: dict) -> list[tuple[dict, str, str]]:
    """(old observation, new text, question) for observations holding one number."""
    out = []
    for o in observations(conv):
        found = _NUMBER.findall(o["text"])
        if len(found) != 1:
            continue
        value = found[0]
        if value.isdigit():
            new_value = str(int(value) + 1 if int(value) < 1900 else int(value) + 2)
        else:
            new_value = _WORDS[(_WORDS.index(value.lower()) + 1) % len(_WORDS)]
        new = _NUMBER.sub(new_value, o["text"], count=1)
        # An update is rarely said in the same words: a few more around it.
        new = RESTATE[len(out) % len(RESTATE)].format(new[0].lower() + new[1:].rstrip("."))
        question = " ".join(_NUMBER.sub("", o["text"]).split()).rstrip(".") + "?"
        out.append((o, new, question))
    return out


def run(data: Path) -> dict:
    convs = json.loads(data.read_text("utf-8"))
    rows: dict[str, dict[str, list[float]]] = {}
    linked: dict[str, list[bool]] = {"locomo": [], "own": []}

    def add(row: str, source: str, newer_first: bool, newer_at5: bool) -> None:
        for key in (source, "overall"):
            r = rows.setdefault(row, {}).setdefault(key, [])
            r.append(float(newer_first))
            rows[row].setdefault(key + "@5", []).append(float(newer_at5))

    for ci, conv in enumerate(convs):
        obs = observations(conv)
        pairs = locomo_pairs(conv)
        used = {id(o) for o, _, _ in pairs}
        hay = [o for o in obs if id(o) not in used]
        later = max(o["created"] for o in obs) + timedelta(days=7)
        facts = [
            ({"text": old, "created": min(o["created"] for o in obs)}, new, q, "own")
            for old, new, q in (FACTS if ci == 0 else [])
        ] + [(o, new, q, "locomo") for o, new, q in pairs]
        tmp = Path(tempfile.mkdtemp(prefix="jm-updated-"))
        try:
            for links in (True, False):
                home = tmp / ("links" if links else "plain")
                jsonl = tmp / f"hay-{links}.jsonl"
                jsonl.write_text(
                    "".join(
                        json.dumps({"text": o["text"], "created": o["created"].isoformat()}) + "\n"
                        for o in hay
                    ),
                    "utf-8",
                )
                now = later + timedelta(days=1)
                mem = Memory(home=home, clock=lambda now=now: now, semantic=False)
                mem.hooks.import_jsonl(jsonl)
                ids = []
                for old, new, _, _ in facts:
                    a = mem.remember(old["text"], created=old["created"], supersedes=())
                    b = mem.remember(new, created=later, supersedes=None if links else ())
                    ids.append((a.id, b.id))
                    if links:
                        linked[facts[len(ids) - 1][3]].append(a.id in b.meta.supersedes)
                for (a, b), (_, _, q, source) in zip(ids, facts, strict=True):
                    hits = [
                        h.id for h in mem.recall(q, limit=LIMIT, level="index", record_access=False)
                    ]
                    first = b in hits and (a not in hits or hits.index(b) < hits.index(a))
                    add("lexical" if links else "lexical, no links", source, first, b in hits[:5])
                mem.close()
            # Plain BM25 over the same texts, in the order they were stored.
            texts = [o["text"] for o in hay]
            olds, news = [], []
            for old, new, _, _ in facts:
                olds.append(len(texts))
                texts.append(old["text"])
                news.append(len(texts))
                texts.append(new)
            scorer = Scorer(texts, plain_bm25(), ties="oldest")
            for (_, _, q, source), a, b in zip(facts, olds, news, strict=True):
                top = scorer.top(q, LIMIT)
                first = b in top and (a not in top or top.index(b) < top.index(a))
                add("plain_bm25", source, first, b in top[:5])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return {
        "data": str(data),
        "questions": {k: len(v) for k, v in rows["plain_bm25"].items() if "@" not in k},
        "linked_share": {k: round(100 * sum(v) / len(v), 1) for k, v in linked.items() if v},
        "rows": {
            row: {k: round(100 * sum(v) / len(v), 1) for k, v in by.items()}
            for row, by in rows.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data} not found (see ../shared/data/README.md)")
    result = run(args.data)
    print(json.dumps(result))
    print(
        "| row | newer first: overall / LoCoMo / own | newer in top 5: overall |", file=sys.stderr
    )
    print("|---|---|---|", file=sys.stderr)
    for row, r in result["rows"].items():
        print(
            f"| {row} | {r['overall']:.1f} / {r['locomo']:.1f} / {r['own']:.1f} | "
            f"{r['overall@5']:.1f} |",
            file=sys.stderr,
        )
    print(json.dumps(result["questions"]), json.dumps(result["linked_share"]), file=sys.stderr)


if __name__ == "__main__":
    main()
