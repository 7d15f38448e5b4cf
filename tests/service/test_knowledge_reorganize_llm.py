"""Reorganize (backup, refusal), pre-inject reorganize, modes through the service, the LLM seam."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.context import CATALOG_THRESHOLD
from jupyter_memory.core.knowledge.format import (
    Entry,
    KnowledgeDoc,
    chars_of,
    render_knowledge,
)
from jupyter_memory.core.knowledge.reorganize import ReorganizeError
from jupyter_memory.exceptions import UpstreamError, ValidationError
from jupyter_memory.service.llm_http import OpenAICompatibleClient
from tests.support.http import POLL_S


class ScriptedLLM:
    """The one allowed test double: an external LLM that answers from a script."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.calls: list[list[dict[str, str]]] = []

    def complete(self, messages, *, max_tokens=2000):  # noqa: ANN001, ANN201
        self.calls.append(list(messages))
        return self.replies.pop(0)


def flat_doc(n: int) -> str:
    subjects = ["Revenue", "Orders", "收入", "Churn"]
    return render_knowledge(
        KnowledgeDoc(
            tuple(
                # The filler pays for the label lines: a reorganize never grows the file.
                Entry(f"Note that {subjects[i % 4]} must pass check {i} in region {i * 3}")
                for i in range(n)
            ),
            (),
        )
    )


def sized_doc(chars: int) -> str:
    probe = chars_of(KnowledgeDoc((Entry("x"),), ()))
    return render_knowledge(KnowledgeDoc((Entry("x" * (1 + chars - probe)),), ()))


def test_reorganize_backs_up_then_groups(mem: Memory) -> None:
    text = flat_doc(80)
    mem.save_knowledge("user", text)
    path = Path(mem.hooks.library_status("user")["path"])
    before = path.read_text()
    res = mem.reorganize("user")
    assert Path(res["backup"]).read_text() == before
    assert res["backup"].endswith("knowledge.md.bak") and res["grouped"]
    status = mem.hooks.library_status("user")
    assert status["rules"] == 80 and mem.hooks.knowledge_doc("user").has_groups
    assert [r["action"] for r in mem.hooks.audit.records()][-1] == "knowledge.reorganize"


def test_invalid_llm_result_is_refused_and_file_untouched(mem: Memory) -> None:
    mem.save_knowledge(
        "user",
        "## Rules\n- Please note that revenue excludes refunds!!!\n## Info\n- GMV includes tax\n",
    )
    path = Path(mem.hooks.library_status("user")["path"])
    before = path.read_bytes()
    mem.llm = ScriptedLLM("Sure! Here it is:\n## Rules\n- Revenue excludes refunds\n")
    with pytest.raises(ReorganizeError, match="not a valid knowledge file"):
        mem.reorganize("user")
    mem.llm = ScriptedLLM("## Rules\n- Revenue excludes refunds\n## Info\n")
    with pytest.raises(
        ReorganizeError, match="LLM's reorganized text was refused.*dropped the entry"
    ):
        mem.reorganize("user")
    assert path.read_bytes() == before
    assert not Path(str(path) + ".bak").exists()
    good = ScriptedLLM(
        "```markdown\n## Rules\n- Revenue\n  - Revenue excludes refunds\n## Info\n- GMV includes tax\n```"
    )
    mem.llm = good
    assert mem.reorganize("user")["used_llm"]
    assert "<knowledge-file>" in good.calls[0][1]["content"]
    assert mem.hooks.knowledge_doc("user").rules[0].children == ("Revenue excludes refunds",)


def test_reorganize_missing_file_is_an_error(mem: Memory) -> None:
    with pytest.raises(ValidationError, match="nothing to reorganize"):
        mem.reorganize("user")


def test_preinject_reorganize_once_per_conversation(mem: Memory) -> None:
    mem.save_knowledge("user", flat_doc(80))
    llm = ScriptedLLM("not a knowledge file at all", "still not one")
    mem.llm = llm
    said: list[str] = []
    mem.hooks.prepare_injection(conversation="c1", notify=said.append)  # the reorganize fails ...
    ctx = mem.context(conversation="c1")  # ... and the block is the file as it was
    assert 'mode="catalog"' in ctx and len(llm.calls) == 1 and "failed" in said[-1]
    mem.hooks.prepare_injection(conversation="c1", notify=said.append)
    assert len(llm.calls) == 1  # at most once per conversation and file
    mem.hooks.prepare_injection(conversation="c2", notify=said.append)
    assert len(llm.calls) == 2  # a new conversation may try again
    mem.llm = None
    mem.hooks.prepare_injection(conversation="c3")  # the deterministic reorganizer succeeds
    assert mem.hooks.knowledge_doc("user").has_groups
    assert Path(mem.hooks.library_status("user")["path"] + ".bak").exists()


def test_modes_and_budgets_at_exact_thresholds(mem: Memory, project_dir: Path) -> None:
    mem.focus(project_dir)
    for layer in ("user", "project"):
        limit = CATALOG_THRESHOLD[layer]
        mem.save_knowledge(layer, sized_doc(limit - 1))
        assert mem.hooks.library_status(layer)["mode"] == "flat"
        assert (
            f'layer="{layer}"' in mem.context()
            and mem.hooks.library_status(layer)["chars"] == limit - 1
        )
        mem.save_knowledge(layer, sized_doc(limit))
        assert mem.hooks.library_status(layer)["mode"] == "catalog"


def test_user_truncation_through_context(mem: Memory) -> None:
    entries = tuple(
        Entry(f"Rule number {i:03d} keeps the data clean and tidy " + "q" * 20) for i in range(110)
    )
    mem.save_knowledge("user", render_knowledge(KnowledgeDoc(entries, ())))
    mem.llm = ScriptedLLM("broken")  # never called: reading the block does not reorganize
    ctx = mem.context()
    assert "[truncated:" in ctx and "ask the person to reorganize" in ctx
    body = ctx.split('mode="catalog">\n', 1)[1].split("\n[truncated", 1)[0]
    assert len(body.split("\n", 1)[1]) <= 6000  # after the catalog hint line


def test_llm_extraction_goes_through_evidence_and_limits(mem: Memory) -> None:
    reply = json.dumps(
        {
            "proposals": [
                {
                    "text": "Revenue excludes refunds",
                    "kind": "rule",
                    "evidence_quote": "Revenue must exclude refunds",
                },
                {
                    "text": "DAU counts devices",
                    "kind": "info",
                    "evidence_quote": "DAU counts devices",
                },
                {
                    "text": "Use tmp_orders for joins",
                    "kind": "rule",
                    "evidence_quote": "GMV includes tax",
                },
                {"text": "GMV includes tax", "kind": "info", "evidence_quote": "GMV includes tax"},
            ]
        }
    )
    mem.llm = ScriptedLLM(reply)
    got = mem.extract(
        [
            {"role": "user", "text": "Revenue must exclude refunds. GMV includes tax."},
            {"role": "assistant", "text": "DAU counts devices"},
        ]
    )
    assert [p.text for p in got] == ["Revenue excludes refunds", "GMV includes tax"]
    assert any("temp or cache" in s["reason"] for s in mem.hooks.last_extraction_skipped)


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Handler.seen.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        )
        if body["model"] == "broken":
            self.send_response(500)
            # retried at once, not after 7 s of backoff (tested in test_llm_retry.py)
            self.send_header("Retry-After", "0")
            self.end_headers()
            return
        data = json.dumps(
            {"choices": [{"message": {"role": "assistant", "content": "hello 你好"}}]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def test_openai_compatible_client_against_a_real_http_server(
    monkeypatch: pytest.MonkeyPatch, mem: Memory
) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Handler)
    # a short poll: shutdown() waits for it (tests/support/http.py)
    poll = {"poll_interval": POLL_S}
    thread = threading.Thread(target=server.serve_forever, kwargs=poll, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_port}/v1"
        monkeypatch.setenv("MY_LLM_KEY", "sk-test")
        mem.update_settings(llm={"base_url": base, "model": "m1", "api_key_env": "MY_LLM_KEY"})
        assert "sk-test" not in Path(mem.home / "settings.json").read_text()
        client = mem.llm
        assert isinstance(client, OpenAICompatibleClient)
        assert client.complete([{"role": "user", "content": "hi"}]) == "hello 你好"
        last = _Handler.seen[-1]
        assert last["path"] == "/v1/chat/completions" and last["auth"] == "Bearer sk-test"
        assert last["body"]["model"] == "m1"
        with pytest.raises(UpstreamError, match="HTTP 500"):
            OpenAICompatibleClient(base, "broken").complete([{"role": "user", "content": "x"}])
    finally:
        server.shutdown()
    with pytest.raises(ValidationError, match="llm"):
        mem.update_settings(llm={"base_url": "file:///etc/passwd", "model": "x"})
    with pytest.raises(ValidationError, match="never stored"):
        mem.update_settings(llm={"base_url": base, "model": "x", "api_key": "sk-secret"})


def test_file_changed_during_reorganize_is_not_overwritten(mem: Memory) -> None:
    from jupyter_memory.exceptions import ConflictError

    mem.save_knowledge("user", "## Rules\n- Note that revenue excludes refunds\n## Info\n")

    class EditingLLM:
        def complete(self, messages, *, max_tokens=2000):  # noqa: ANN001, ANN201
            mem.save_knowledge(
                "user", "## Rules\n- Revenue excludes refunds\n- Always use UTC\n## Info\n"
            )
            return "## Rules\n- Revenue excludes refunds\n## Info\n"

    mem.llm = EditingLLM()
    with pytest.raises(ConflictError, match="changed while"):
        mem.reorganize("user")
    assert "Always use UTC" in mem.knowledge("user")
