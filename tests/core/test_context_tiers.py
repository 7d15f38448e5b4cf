"""The pure tier selection of the agent context (spec 003 token budgets)."""

from __future__ import annotations

from jupyter_memory.core.knowledge.context import build_context
from jupyter_memory.core.memories.context_tiers import (
    COLD_TOKENS,
    HOT_TOKENS,
    WARM_LIMIT,
    WARM_TOKENS,
    TierCandidate,
    cost,
    select_tiers,
)
from jupyter_memory.core.text import estimate_tokens


def _c(i: int, attention: float, **kw: object) -> TierCandidate:
    args: dict[str, object] = {
        "id": f"m{i:04d}",
        "title": f"Note {i}",
        "text": f"Note {i}: orders are deduped on order_id before counting, case {i}.",
        "attention": attention,
        "updated": f"2026-11-{(i % 28) + 1:02d}T00:00:00+00:00",
    }
    return TierCandidate(**(args | kw))  # type: ignore[arg-type]


def test_budgets_hold_at_any_size() -> None:
    many = [_c(i, 0.9) for i in range(300)] + [_c(1000 + i, 0.6) for i in range(300)]
    many += [_c(2000 + i, 0.1) for i in range(300)]
    tiers = select_tiers(many, others=5_000)
    assert 0 < tiers.tokens("hot") <= HOT_TOKENS
    assert 0 < tiers.tokens("warm") <= WARM_TOKENS
    assert 0 < tiers.tokens("cold") <= COLD_TOKENS
    assert len(tiers.warm) <= WARM_LIMIT
    listed = len(tiers.hot) + len(tiers.warm) + len(tiers.cold)
    assert listed + tiers.cold_more == 900 + 5_000
    assert len(set(tiers.ids())) == listed


def test_hot_warm_and_cold_by_attention_and_relevance() -> None:
    hot = _c(1, 0.95)
    warm_relevant = _c(2, 0.6, relevance=3.0)
    warm_unrelated = _c(3, 0.6, relevance=0.0)
    too_cold = _c(4, 0.45, relevance=9.0)  # relevant, but attention ≤ 0.5: COLD index only
    expired = _c(5, 0.99, expired=True)  # past its sector lifetime: never loaded
    tiers = select_tiers([expired, too_cold, warm_unrelated, warm_relevant, hot], query="q")
    assert [t.id for t in tiers.hot] == ["m0001"]
    assert [t.id for t in tiers.warm] == ["m0002"]
    assert {t.id for t in tiers.cold} == {"m0003", "m0004", "m0005"}
    assert [t.id for t in tiers.cold][0] == "m0004"  # the most relevant title first
    # Spec 003's COLD index: each memory's id with its title, nothing of its text.
    assert all(t.line == f"- {t.id}: Note {int(t.id[1:])}" for t in tiers.cold), tiers.cold


def test_project_first_then_newer() -> None:
    user_new = _c(1, 0.9, updated="2026-11-30T00:00:00+00:00")
    user_old = _c(2, 0.9, updated="2026-11-01T00:00:00+00:00")
    project = _c(3, 0.8, in_project=True)
    tiers = select_tiers([user_old, user_new, project])
    assert [t.id for t in tiers.hot] == ["m0003", "m0001", "m0002"]


def test_a_long_memory_is_cut_and_an_escaped_line_is_costed() -> None:
    long = _c(1, 0.9, text="word " * 5_000, title="Long")
    tiers = select_tiers([long])
    assert tiers.hot and tiers.hot[0].tokens <= 110
    for raw in ("<memory-tier", "x <approved-knowledge <knowledge-layer", "<" * 7):
        escaped = raw.replace("<", "&lt;")  # the most the block's escaping can add
        assert cost(raw) >= estimate_tokens(escaped)
    block = build_context([], tiers)
    assert '<memory-tier tier="hot"' in block and "approved-knowledge nonce" in block


def test_nothing_selected_gives_no_block() -> None:
    assert select_tiers([]).is_empty
    assert build_context([], select_tiers([])) == ""


def test_the_neutralize_fast_path_knows_every_form_of_the_angle_bracket() -> None:
    """Text without these characters is returned as is; no other character folds to ``<``."""
    import sys
    import unicodedata

    from jupyter_memory.core.knowledge.context import _LT_FORMS, neutralize

    folds = [
        chr(c) for c in range(sys.maxunicode + 1) if "<" in unicodedata.normalize("NFKC", chr(c))
    ]
    assert all(_LT_FORMS.search(ch) for ch in folds)
    assert neutralize("＜/ａｐｐｒｏｖｅｄ-knowledge>") == "&lt;/ａｐｐｒｏｖｅｄ-knowledge>"
    assert neutralize("﹤memory\u200b-tier>") == "&lt;memory\u200b-tier>"
    plain = "收入口径不含退款 " * 50
    assert neutralize(plain) is plain
