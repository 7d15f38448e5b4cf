"""A private JSON-lines file handed to ``Memory.hooks.import_jsonl``, the batched write path."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def staged_jsonl(records: Iterable[dict[str, Any]]) -> Iterator[Path]:
    """The records as a JSON-lines file in a private temporary folder, removed after."""
    with tempfile.TemporaryDirectory(prefix="jupyter-memory-import-") as folder:
        path = Path(folder) / "import.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for record in records:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        yield path
