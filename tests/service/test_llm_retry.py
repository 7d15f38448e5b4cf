"""The OpenAI-compatible client against a real HTTP server that is busy or failing."""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from jupyter_memory.agents.chat_stream import ChatStreamClient
from jupyter_memory.exceptions import UpstreamError
from jupyter_memory.service import llm_http
from jupyter_memory.service.llm_http import OpenAICompatibleClient
from tests.support.http import serving

OK = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "好的 done"}}]}


@contextmanager
def scripted(answers: list[tuple[int, dict[str, str], Any]]) -> Iterator[list[float]]:
    """Serve ``answers`` (status, headers, JSON body) in order; yield the request times."""
    seen: list[float] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(time.monotonic())
            status, headers, body = answers[min(len(seen), len(answers)) - 1]
            raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with serving(server):
        seen.append(float(server.server_port))  # first item: the port
        yield seen


def client(seen: list[float], **kw: Any) -> OpenAICompatibleClient:
    return OpenAICompatibleClient(f"http://127.0.0.1:{int(seen.pop(0))}/v1", "m", **kw)


MSG = [{"role": "user", "content": "hi"}]


def test_a_rate_limit_and_a_5xx_are_asked_again_with_backoff() -> None:
    answers = [(429, {}, {"error": {"message": "slow down"}}), (503, {}, "busy"), (200, {}, OK)]
    with scripted(answers) as seen:
        llm = client(seen, backoff=0.05)
        assert llm.complete(MSG) == "好的 done"
    assert len(seen) == 3
    assert seen[1] - seen[0] >= 0.05 and seen[2] - seen[1] >= 0.1  # exponential


def test_retry_after_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    # The wait the client asks for is recorded, not slept through (a second per run).
    waits: list[float] = []
    retrying = functools.partial(llm_http.with_retries, sleep=waits.append)
    monkeypatch.setattr(llm_http, "with_retries", retrying)
    answers = [(429, {"Retry-After": "1"}, {"error": "rate limited"}), (200, {}, OK)]
    with scripted(answers) as seen:
        assert client(seen, backoff=0.01).complete(MSG) == "好的 done"
    assert len(seen) == 2 and waits == [1.0]


def test_a_client_error_is_not_retried_and_keeps_the_servers_words() -> None:
    body = {"error": {"message": "The model `gpt-9` does not exist", "type": "invalid_request"}}
    with scripted([(400, {}, body), (200, {}, OK)]) as seen:
        llm = client(seen, backoff=0.01)
        with pytest.raises(UpstreamError, match=r"HTTP 400: The model `gpt-9` does not exist"):
            llm.complete(MSG)
    assert len(seen) == 1


def test_a_server_that_keeps_failing_gives_up_after_the_attempts() -> None:
    with scripted([(502, {}, "<html>bad gateway</html>")]) as seen:
        llm = client(seen, backoff=0.01, attempts=3)
        with pytest.raises(UpstreamError, match=r"HTTP 502: <html>bad gateway</html>"):
            llm.complete(MSG)
    assert len(seen) == 3


def test_a_retry_after_too_long_is_not_waited_for() -> None:
    with scripted([(429, {"Retry-After": "3600"}, {"error": "quota"}), (200, {}, OK)]) as seen:
        llm = client(seen, backoff=0.01)
        with pytest.raises(UpstreamError, match="HTTP 429: quota"):
            llm.complete(MSG)
    assert len(seen) == 1


def test_the_ask_stream_client_retries_too() -> None:
    with scripted([(503, {}, "busy"), (200, {}, OK)]) as seen:
        port = int(seen.pop(0))
        stream = ChatStreamClient(f"http://127.0.0.1:{port}/v1", "m", backoff=0.01)
        assert stream.turn(MSG).content == "好的 done"
    assert len(seen) == 2
