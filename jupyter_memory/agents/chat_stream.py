"""Streaming chat completions with tool calls from an OpenAI-compatible endpoint.

``%%ask`` needs what the extraction client (:mod:`jupyter_memory.service.llm_http`)
does not: the reply as it is generated, and the model's tool calls. This is
the same wire format (``POST {base_url}/chat/completions``) with
``stream: true`` and ``tools``; an endpoint that ignores ``stream`` and
answers with one JSON object works too.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..service.llm_http import OpenAICompatibleClient, bad_answer

DEFAULT_TIMEOUT_S = 120.0
MAX_LINE_BYTES = 1_000_000


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, as the model wrote it

    def as_message(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass
class Turn:
    """One assistant turn: its text and the tools it asked for."""

    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)


class ChatStreamClient(OpenAICompatibleClient):
    """The same endpoint as the LLM client, spoken in streaming turns with tools."""

    def turn(
        self,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] = (),
        on_text: Callable[[str], None] = lambda _t: None,
    ) -> Turn:
        """Send the conversation; call ``on_text`` with each piece of text as it arrives."""
        payload: dict[str, Any] = {"model": self.model, "messages": list(messages), "stream": True}
        if tools:
            payload["tools"] = list(tools)
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.url, data=json.dumps(payload).encode("utf-8"), headers=headers, method="POST"
        )

        def read(response: Any) -> Turn:
            if "text/event-stream" in response.headers.get("Content-Type", ""):
                return _read_stream(response, on_text, self.url)
            return _read_whole(response.read(MAX_LINE_BYTES + 1), on_text, self.url)

        # A 429/5xx comes before any text streams, so asking again repeats nothing.
        return self.send(request, read)


def _read_whole(raw: bytes, on_text: Callable[[str], None], url: str) -> Turn:
    try:
        message = json.loads(raw.decode("utf-8"))["choices"][0]["message"]
    except (UnicodeDecodeError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise bad_answer(url, "the reply is not an OpenAI chat completion") from exc
    turn = Turn(content=message.get("content") or "")
    if turn.content:
        on_text(turn.content)
    for i, call in enumerate(message.get("tool_calls") or []):
        fn = call.get("function") or {}
        turn.tool_calls.append(
            ToolCall(call.get("id") or f"call_{i}", fn.get("name", ""), fn.get("arguments") or "")
        )
    return turn


def _read_stream(response: Any, on_text: Callable[[str], None], url: str) -> Turn:
    turn = Turn()
    calls: dict[int, ToolCall] = {}
    for raw in response:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line.startswith("data:"):
            continue
        data = line[len("data:") :].strip()
        if data == "[DONE]":
            break
        try:
            delta = json.loads(data)["choices"][0].get("delta") or {}
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise bad_answer(
                url, "a streamed chunk is not an OpenAI chat completion chunk"
            ) from exc
        text = delta.get("content")
        if text:
            turn.content += text
            on_text(text)
        for part in delta.get("tool_calls") or []:
            index = int(part.get("index", len(calls)))
            call = calls.setdefault(index, ToolCall(part.get("id") or f"call_{index}", "", ""))
            fn = part.get("function") or {}
            call.name += fn.get("name") or ""
            call.arguments += fn.get("arguments") or ""
    turn.tool_calls = [calls[i] for i in sorted(calls)]
    return turn
