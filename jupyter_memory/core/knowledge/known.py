"""What a new proposal is compared with: an approved entry, a pending or a dismissed one.

Apart from :mod:`.dedup`, which decides with the identity analysis: the queue and the
importer list what is known on every call, and only a proposal to decide on needs the
analysis loaded.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Known:
    """Something a new proposal is compared with."""

    text: str
    where: str  # "knowledge" (an approved file), "pending" or "dismissed" (the queue)
    ref: str  # layer label for knowledge, proposal id for pending and dismissed
