"""A real OpenAI-compatible HTTP server on 127.0.0.1 that replies with scripted turns.

The one test double the guide allows: it stands in for an external LLM. It
speaks the chat-completions wire format, streamed (server-sent events, with
text and tool calls split into small deltas) or as one JSON body, and records
every request so tests can check what the model was sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.http import serving


@dataclass
class Scripted:
    """One assistant turn: text and/or tool calls ``(name, arguments-dict)``."""

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


@dataclass
class LLMServer:
    url: str
    turns: list[Scripted]
    requests: list[dict[str, Any]] = field(default_factory=list)
    stream: bool = True


def _chunks(turn: Scripted) -> Iterator[dict[str, Any]]:
    for i in range(0, len(turn.text), 4):
        yield {"choices": [{"index": 0, "delta": {"content": turn.text[i : i + 4]}}]}
    for n, (name, args) in enumerate(turn.tool_calls):
        raw = json.dumps(args, ensure_ascii=False)
        head = {"index": n, "id": f"call_{n}", "type": "function"}
        yield {
            "choices": [
                {"delta": {"tool_calls": [head | {"function": {"name": name, "arguments": ""}}]}}
            ]
        }
        for i in range(0, len(raw), 7):
            part = {"index": n, "function": {"arguments": raw[i : i + 7]}}
            yield {"choices": [{"delta": {"tool_calls": [part]}}]}
    # As the real API ends a stream: LiteLLM (Jupyter AI's chat) refuses a stream without it.
    finish = "tool_calls" if turn.tool_calls else "stop"
    yield {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}


def _message(turn: Scripted) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for n, (name, args) in enumerate(turn.tool_calls)
        ]
    return {"choices": [{"index": 0, "message": message}]}


@contextmanager
def llm_server(turns: list[Scripted], *, stream: bool = True) -> Iterator[LLMServer]:
    state = LLMServer(url="", turns=list(turns), stream=stream)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(body)
            if self.path != "/v1/chat/completions" or not state.turns:
                self.send_response(404 if state.turns else 500)
                # The client asks a 5xx again (4 attempts) after 1 + 2 + 4 s of backoff
                # unless told when: "now" keeps every retry without those 7 s per
                # call. The backoff itself is tested in tests/service/test_llm_retry.py.
                self.send_header("Retry-After", "0")
                self.end_headers()
                return
            turn = state.turns.pop(0)
            self.send_response(200)
            if state.stream and body.get("stream"):
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in _chunks(turn):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
            else:
                data = json.dumps(_message(turn)).encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    with serving(server):
        yield state
