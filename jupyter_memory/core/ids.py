"""Sortable ids, unique across processes: ``m-`` + 10 time chars + 10 random chars.

Crockford base32 of the millisecond clock keeps ids in creation order; 50
random bits make two kernels writing in the same millisecond collide with
negligible probability (and the store refuses an existing id anyway).
"""

from __future__ import annotations

import os
import re
from datetime import datetime

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def _b32(value: int, width: int) -> str:
    chars = []
    for _ in range(width):
        chars.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(chars))


def new_id(now: datetime, prefix: str = "m", random_bytes: bytes | None = None) -> str:
    ms = int(now.timestamp() * 1000)
    rnd = int.from_bytes(random_bytes if random_bytes is not None else os.urandom(7), "big")
    return f"{prefix}-{_b32(ms, 10)}{_b32(rnd, 10)}"


# An id this module makes, where it stands alone in a text (the secret detector
# reads ids as ids: their random part can spell "key" or "token").
ID_RE = re.compile(r"(?<![\w-])[mp]-[0-9a-hjkmnp-tv-z]{20}(?![\w-])")
