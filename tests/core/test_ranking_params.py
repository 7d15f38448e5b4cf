"""The ranking constants in code are the ones docs/recall.md states (issue 16).

The "Cross-validated constants" table of docs/recall.md names each constant's
home (a ``RankingParams`` field or the stopword module) and its value; this
parses it, so neither can change without the other.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from jupyter_memory.core.memories.attention import RELEVANCE_FLOOR, combine
from jupyter_memory.core.memories.ranking import (
    DEFAULT_RANKING,
    PLAIN_BM25,
    RankingParams,
)
from jupyter_memory.core.stopwords import ADDED_STOPWORDS, ENGLISH_STOPWORDS, IRREGULAR_FORMS
from jupyter_memory.exceptions import ValidationError

DOC = Path(__file__).resolve().parents[2] / "docs" / "recall.md"
_FIELD = re.compile(r"`RankingParams\.(\w+)(?:\[(\d)\])?`")


def _table() -> list[dict[str, str]]:
    text = DOC.read_text("utf-8")
    section = text.split("## Cross-validated constants", 1)[1].split("\n## ", 1)[0]
    lines: list[str] = []
    for ln in section.splitlines():  # the section's first table
        if ln.startswith("|"):
            lines.append(ln)
        elif lines:
            break
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    return [
        dict(zip(header, (c.strip() for c in ln.strip("|").split("|")), strict=True))
        for ln in lines[2:]
    ]


def _value(text: str) -> object:
    text = text.strip("`")
    if text in {"on", "off"}:  # a switch
        return text == "on"
    try:
        return float(text)
    except ValueError:
        return text


def _params_rows() -> list[tuple[str, int | None, object]]:
    out = []
    for row in _table():
        m = _FIELD.fullmatch(row["where"])
        if m:
            index = None if m.group(2) is None else int(m.group(2))
            out.append((m.group(1), index, _value(row["value"])))
    return out


def test_the_table_names_every_ranking_constant():
    named = {(name, index) for name, index, _ in _params_rows()}
    wanted = set()
    for f in dataclasses.fields(RankingParams):
        value = getattr(DEFAULT_RANKING, f.name)
        if isinstance(value, tuple):
            wanted |= {(f.name, i) for i in range(len(value))}
        else:
            wanted.add((f.name, None))
    assert named == wanted


@pytest.mark.parametrize(
    ("name", "index", "stated"), _params_rows(), ids=lambda v: str(v) if v is not None else ""
)
def test_defaults_are_what_the_doc_states(name, index, stated):
    value = getattr(DEFAULT_RANKING, name)
    if index is not None:
        value = value[index]
    assert value == stated


def test_analyser_constants_are_what_the_doc_states():
    rows = {row["where"]: row["value"] for row in _table()}
    added = rows["`stopwords.ADDED_STOPWORDS`"]
    irregular = rows["`stopwords.IRREGULAR_FORMS`"]
    assert added in {"in force", "off"} and irregular in {"in force", "off"}
    assert (ADDED_STOPWORDS <= ENGLISH_STOPWORDS) == (added == "in force")
    assert bool(ADDED_STOPWORDS & ENGLISH_STOPWORDS) == (added == "in force")
    assert bool(IRREGULAR_FORMS) == (irregular == "in force")


def test_attention_floor_is_the_params_one():
    assert DEFAULT_RANKING.relevance_floor == RELEVANCE_FLOOR
    assert combine(1.0, 0.0) == DEFAULT_RANKING.relevance_floor
    assert combine(2.0, 0.0, floor=1.0) == 2.0


def test_plain_bm25_is_neutral():
    assert PLAIN_BM25.bm25_weights == (1.0, 1.0, 1.0)
    assert PLAIN_BM25.relevance_floor == 1.0 and PLAIN_BM25.relaxation == "any"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"bm25_weights": (1.0, -1.0, 1.0)}, "bm25_weights"),
        ({"relevance_floor": 1.5}, "relevance_floor"),
        ({"relaxation": "all"}, "relaxation"),
        ({"rerank_pool": 0}, "rerank_pool"),
        ({"project_boost": 0.0}, "project_boost"),
    ],
)
def test_invalid_params_name_the_field(change, field):
    with pytest.raises(ValidationError) as err:
        RankingParams(**change)
    assert err.value.field == field
