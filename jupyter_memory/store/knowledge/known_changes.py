"""The labelled pair changes the identity decision reads with the semantic extra (round ten).

``identity_changes.npz`` ships in the wheel beside this module: for each pair of the read pair
sets (``benchmarks/data/identity_pairs_*.json``) that the slot reading leaves open, the unit
direction of its change in the bundled embedder's space (float16) and whether it is a
paraphrase (and which pair of which set it is: a test replays the slot reading over the sets
and fails when the bank is stale). ``benchmarks/identity_meaning.py --write-bank`` makes it; docs/knowledge.md,
"Round ten", says how it was judged. It is read here because reading it touches disk (the store
is the layer that does); numpy is present with the extra, the only way here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BANK = Path(__file__).with_name("identity_changes.npz")


@dataclass(frozen=True)
class ChangeBank:
    """Unit change directions (n × dim, float32) and whether each is a paraphrase (n, bool)."""

    model: str  # the embedder's base name the directions were made with
    changes: Any
    paraphrase: Any

    @property
    def dim(self) -> int:
        return int(self.changes.shape[1])


@functools.cache
def load_bank(path: Path = BANK) -> ChangeBank | None:
    """The packaged changes, read once per process; None when the file is absent."""
    import numpy as np

    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as saved:
        return ChangeBank(
            model=str(saved["model"]),
            changes=np.asarray(saved["changes"], dtype=np.float32),
            paraphrase=np.asarray(saved["paraphrase"], dtype=bool),
        )


__all__ = ["BANK", "ChangeBank", "load_bank"]
