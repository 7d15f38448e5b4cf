"""The analyser's fast paths (a rebuild analyses every note) give what the general path gives.

* ASCII text skips the CJK split: its words' stems are looked up in C;
* text that NFKC would change has its full-width ASCII forms and ideographic
  spaces replaced first, so NFKC's slow path rarely runs on Chinese notes.
"""

from __future__ import annotations

import random
import string
import unicodedata

from jupyter_memory.core import text

STOP_AND_STEMS = ["the", "a", "I", "what", "refunds", "Refunded", "running", "ran", "children"]


def _ascii_texts(rng: random.Random, n: int) -> list[str]:
    alphabet = string.ascii_letters + string.digits + " _-.,;:!?'\"()[]{}/\\\t\n@#$%^&*=+~`|<>"
    out = []
    for i in range(n):
        parts = []
        for _ in range(rng.randint(0, 12)):
            roll = rng.random()
            if roll < 0.4:
                parts.append(rng.choice(STOP_AND_STEMS))
            elif roll < 0.6:  # a word no earlier text had: a miss in the stem cache
                parts.append(f"zq{i}x{rng.randint(0, 10**6)}ing")
            else:
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6))))
        out.append(rng.choice([" ", "", "_", "-", "\n"]).join(parts))
    return out


def test_ascii_tokens_are_the_general_paths_tokens() -> None:
    rng = random.Random(16)
    texts = _ascii_texts(rng, 3000) + [
        "",
        " ",
        "_",
        "a",
        "I",
        "q3 2023 Q3",
        "x_y z-w",
        "ŉ".encode().decode(),
    ]
    for t in texts:
        norm = text.normalize(t)
        expected = text._mixed_tokens(norm)
        if norm.isascii():
            assert text._ascii_tokens(norm) == expected, t
        assert text.index_tokens(t) == expected, t


def test_ascii_tokens_after_the_stem_cache_was_cleared() -> None:
    sample = "The refunds were Refunded, running 2023 q3_total"
    text._WORD_CACHE.clear()  # every word a miss: the fallback analyses each one
    fast = text.index_tokens(sample)
    text._WORD_CACHE.clear()
    general = text._mixed_tokens(text.normalize(sample))
    assert fast == general
    assert fast[:2] == ["refund", "refund"] and "the" not in fast and "2023" in fast


def test_full_width_forms_and_ideographic_space_normalise_as_nfkc_does() -> None:
    pool = [chr(c) for c in range(0xFF00, 0xFF70)] + list(
        "\u3000\u0301\u0308\u0345eAß收入。ﬁ①½Å\u212bİ\u1e9e é"
    )
    rng = random.Random(16)
    for _ in range(50_000):
        t = "".join(rng.choice(pool) for _ in range(rng.randint(0, 8)))
        assert text.normalize(t) == unicodedata.normalize("NFKC", t).casefold(), repr(t)


def test_chinese_and_english_with_full_width_punctuation() -> None:
    t = "退款口径：Ｑ３收入，ＡＢ测试！　Refunds？"
    assert text.normalize(t) == unicodedata.normalize("NFKC", t).casefold()
    assert text.index_tokens(t) == [
        "退款",
        "款口",
        "口径",
        "径",
        "q3",
        "收入",
        "入",
        "ab",
        "测试",
        "试",
        "refund",
    ]
