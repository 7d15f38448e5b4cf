"""The lab panel's response types are generated from the REST schemas.

labextension/src/schemas.ts is scripts/rest_schemas_ts.py's output for
tests/server/schemas/*.json, the schemas test_rest_schemas.py checks every
response against; api.ts re-exports those types instead of declaring its own.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
API_TS = ROOT / "labextension" / "src" / "api.ts"


def _generator():
    spec = importlib.util.spec_from_file_location(
        "rest_schemas_ts", ROOT / "scripts" / "rest_schemas_ts.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_schemas_ts_is_generated_from_the_schemas():
    gen = _generator()
    committed = gen.TARGET.read_text(encoding="utf-8")
    assert gen.generate() == committed, (
        "labextension/src/schemas.ts is out of date: run "
        ".venv/bin/python scripts/rest_schemas_ts.py and rebuild the lab extension"
    )


def test_api_ts_uses_the_generated_types():
    gen = _generator()
    generated = set(re.findall(r"export interface (I\w+)", gen.generate()))
    api = API_TS.read_text(encoding="utf-8")
    hand_written = set(re.findall(r"export interface (I\w+)", api))
    assert not hand_written & generated, f"api.ts redeclares {sorted(hand_written & generated)}"
    block = re.search(r"export type \{([^}]*)\} from './schemas';", api)
    assert block is not None, "api.ts must re-export the response types from './schemas'"
    reexported = {name.strip() for name in block.group(1).split(",") if name.strip()}
    assert reexported <= generated, sorted(reexported - generated)
    assert {"IProposal", "IQueue", "IKnowledge", "ISettings", "IMemoryHit"} <= reexported


def test_an_unsupported_schema_is_refused_naming_file_and_path(tmp_path):
    gen = _generator()
    schema = {
        "title": "Odd",
        "type": "object",
        "properties": {"when": {"type": "string"}, "what": {"oneOf": [{"type": "string"}]}},
    }
    (tmp_path / "odd.json").write_text(json.dumps(schema), encoding="utf-8")
    with pytest.raises(gen.SchemaError, match=r"odd\.json/what: unsupported schema"):
        gen.generate(tmp_path)


def test_a_schema_is_rendered_as_an_interface(tmp_path):
    gen = _generator()
    schema = {
        "title": "Thing",
        "description": "A thing.",
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "size": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "kind": {"enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["id", "size", "kind"],
        "additionalProperties": False,
    }
    (tmp_path / "thing.json").write_text(json.dumps(schema), encoding="utf-8")
    assert gen.generate(tmp_path).split("*/\n\n", 1)[1] == (
        "/** A thing. */\n"
        "export interface IThing {\n"
        "  id: string;\n"
        "  size: number | null;\n"
        "  kind: 'a' | 'b';\n"
        "  tags?: string[];\n"
        "}\n"
    )
