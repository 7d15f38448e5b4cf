"""A failing model endpoint is an UpstreamError naming the service, never a StoreError."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from openai_test_server import Scripted, llm_server

from jupyter_memory.exceptions import JupyterMemoryError, StoreError, UpstreamError
from jupyter_memory.service.llm_http import OpenAICompatibleClient
from tests.support.http import serving

HELLO = [{"role": "user", "content": "你好"}]


def closed_url() -> str:
    """The address of a test server that has already stopped: nothing listens there."""
    with llm_server([]) as llm:
        return llm.url


def _check(exc: UpstreamError, url: str) -> None:
    assert isinstance(exc, JupyterMemoryError) and not isinstance(exc, StoreError)
    assert exc.service == "LLM endpoint" and exc.url == f"{url}/chat/completions"
    assert str(exc).startswith(f"LLM endpoint {url}/chat/completions: ")


def test_a_closed_port_is_unreachable() -> None:
    url = closed_url()
    with pytest.raises(UpstreamError, match="unreachable") as info:
        OpenAICompatibleClient(url, "m", timeout=5).complete(HELLO)
    _check(info.value, url)


def test_an_http_500_names_the_status() -> None:
    # no scripted turn left: the server answers 500
    with llm_server([]) as llm, pytest.raises(UpstreamError, match="answered HTTP 500") as info:
        OpenAICompatibleClient(llm.url, "m").complete(HELLO)
    _check(info.value, llm.url)


def test_a_silent_server_times_out() -> None:
    with socket.socket() as listener:  # accepts the connection, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        with pytest.raises(UpstreamError, match=r"timed out after 0\.5 s") as info:
            OpenAICompatibleClient(url, "m", timeout=0.5).complete(HELLO)
    _check(info.value, url)


class _Junk(BaseHTTPRequestHandler):
    reply = b"<html>not a chat completion</html>"

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Length", str(len(self.reply)))
        self.end_headers()
        self.wfile.write(self.reply)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def junk_server(reply: bytes) -> Iterator[str]:
    handler = type("Handler", (_Junk,), {"reply": reply})
    server = HTTPServer(("127.0.0.1", 0), handler)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_port}/v1"


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (b"<html>not a chat completion</html>", "not an OpenAI chat completion"),
        (b'{"choices": [{"message": {"content": null}}]}', "no text content"),
    ],
)
def test_a_bad_answer_is_an_upstream_failure(reply: bytes, why: str) -> None:
    with junk_server(reply) as url, pytest.raises(UpstreamError, match=why) as info:
        OpenAICompatibleClient(url, "m").complete(HELLO)
    _check(info.value, url)


def test_a_good_answer_still_comes_back() -> None:
    with llm_server([Scripted("好的 fine")], stream=False) as llm:
        assert OpenAICompatibleClient(llm.url, "m").complete(HELLO) == "好的 fine"
