"""Every proposal source the service writes is one the REST schema and the panel know.

``jupyter-memory import-from`` queues proposals with source ``import`` (issue
18); GET /queue must answer them within tests/server/schemas/proposal.json,
and the panel's types (labextension/src/schemas.ts, generated from it) and
labels (``sourceLabels`` in labextension/src/decided.ts, shared by the queue
view and the cards) must name them.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from jupyter_memory.core.knowledge.proposals import SOURCES

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = Path(__file__).resolve().parent / "schemas"
IMPORTS = ROOT / "tests" / "data" / "imports"
DECIDED_TS = ROOT / "labextension" / "src" / "decided.ts"


def _validator(name: str) -> Draft202012Validator:
    schemas = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in SCHEMAS.glob("*.json")}
    registry: Registry = Registry().with_resources(
        (n, Resource.from_contents(s)) for n, s in schemas.items()
    )
    return Draft202012Validator(schemas[name], registry=registry)


def test_the_schema_lists_exactly_the_sources_of_the_model():
    schema = json.loads((SCHEMAS / "proposal.json").read_text(encoding="utf-8"))
    assert schema["properties"]["source"]["enum"] == list(SOURCES)


def test_the_panel_has_a_label_for_every_source():
    text = DECIDED_TS.read_text(encoding="utf-8")
    block = re.search(r"function sourceLabels\(.*?return \{(.*?)\n  \};", text, re.S)
    assert block is not None, "sourceLabels not found in decided.ts"
    keys = re.findall(r"^\s*'?([a-z-]+)'?\s*:", block.group(1), re.M)
    assert keys == list(SOURCES)


async def test_an_imported_proposal_is_listed_within_the_schema(api, server_memory, tmp_path):
    folder = tmp_path / "agents-md"
    shutil.copytree(IMPORTS / "agents-md", folder)
    report = server_memory.import_from("agents-md", folder)
    assert report.proposals, report
    code, data = await api("GET", "queue")
    assert code == 200, data
    assert data["count"] == len(report.proposals)
    assert {p["source"] for p in data["items"]} == {"import"}
    validator = _validator("queue.json")
    problems = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(data)
    ]
    assert not problems, problems
    zh = [p for p in data["items"] if "收入口径" in p["text"]]
    assert zh and zh[0]["source"] == "import"
