"""A model that fails behind a REST call is a 502 naming the service; nothing is written."""

from __future__ import annotations

from openai_test_server import llm_server

from jupyter_memory.exceptions import UpstreamError
from jupyter_memory.server.errors import status_and_payload
from tests.support.waiting import polled


def test_upstream_error_maps_to_502_with_the_service() -> None:
    exc = UpstreamError("answered HTTP 500", service="LLM endpoint", url="http://x/v1")
    assert status_and_payload(exc) == (
        502,
        {
            "message": "LLM endpoint http://x/v1: answered HTTP 500",
            "error": "upstream_failed",
            "service": "LLM endpoint",
        },
    )


async def test_reorganize_with_an_unreachable_llm_fails_with_502(api, server_memory, memory_home):
    with llm_server([]) as llm:
        url = llm.url  # the server stops here: nothing listens at url any more
    server_memory.update_settings(llm={"base_url": url, "model": "m"})
    _, read = await api("GET", "knowledge", "user")
    text = "## Rules\n\n- 收入不含退款\n- Revenue excludes refunds\n\n## Info\n"
    code, _ = await api("PUT", "knowledge", "user", body={"text": text, "base": read["version"]})
    assert code == 200
    before = (memory_home / "knowledge.md").read_bytes()
    code, job = await api("POST", "knowledge", "user", "reorganize")
    assert code == 202
    code, job = await polled(
        lambda: api("GET", "knowledge", "user", "reorganize"),
        lambda answer: answer[1]["state"] != "running",
    )
    assert job["state"] == "failed" and job["status"] == 502, job
    assert job["error"]["error"] == "upstream_failed"
    assert job["error"]["service"] == "LLM endpoint"
    assert f"{url}/chat/completions" in job["error"]["message"]
    assert "unreachable" in job["error"]["message"]
    assert (memory_home / "knowledge.md").read_bytes() == before
