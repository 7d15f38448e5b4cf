"""The ``%%ask`` agent loop, free of IPython: context in, tool calls run, reply streamed.

The person's cell is recorded as their message (evidence for proposals); the
model's reply is recorded as agent output (never evidence). The model gets the
approved context as its system block (memories by tier, the WARM ones chosen
by the cell's text), the two knowledge tools of ``tool_schemas()`` and the
read-only ``recall``; a tool call runs through :class:`AgentAccess`, so a
proposal lands in the queue as pending, recall follows the MCP tool's rules
and nothing can apply knowledge.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core.knowledge.agent_tools import TOOL_MODELS, tool_schemas
from ..exceptions import JupyterMemoryError
from ..service.agent_access import AgentAccess
from .chat_stream import ToolCall, Turn
from .tool_args import RecallArgs, parse_args, recall_tool_schema

DEFAULT_MAX_ROUNDS = 5
SYSTEM_PROMPT = (
    "You are a data-analysis assistant inside the person's Jupyter notebook. Answer their "
    "message directly and concisely. When the person states a reusable rule or definition "
    "(for example how a metric is computed, or what to always or never do), you may call "
    "propose_knowledge with a verbatim quote of their words; the person reviews it. Never "
    "quote your own text as evidence. If the knowledge below is in catalog mode, call "
    "expand_knowledge_catalog with the labels you need. To read a memory the block only "
    "names (its COLD index) or to search the person's earlier work, call recall."
)


class ChatClient(Protocol):
    def turn(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        on_text: Callable[[str], None],
    ) -> Turn: ...


@dataclass
class AskResult:
    reply: str = ""
    proposals: list[dict[str, Any]] = field(default_factory=list)
    tool_results: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 0
    stopped_early: bool = False


def system_message(context: str) -> str:
    return SYSTEM_PROMPT + (f"\n\n{context}" if context else "")


def run_tool(access: AgentAccess, call: ToolCall) -> dict[str, Any]:
    """One tool call; a bad call comes back to the model as an error it can read."""
    model = (TOOL_MODELS | {"recall": RecallArgs}).get(call.name)
    if model is None:
        names = ", ".join([*TOOL_MODELS, "recall"])
        return {"error": f"no tool named {call.name!r}; available: {names}"}
    try:
        raw = json.loads(call.arguments or "{}")
        if not isinstance(raw, dict):
            return {"error": "arguments must be a JSON object"}
        args = parse_args(model, raw)
        if call.name == "propose_knowledge":
            return access.propose(**args.model_dump())
        if call.name == "recall":
            return {"memories": access.recall(**args.model_dump())}
        return access.expand(**args.model_dump())
    except ValueError as exc:  # invalid JSON, or our ValidationError (a ValueError)
        return {"error": str(exc)}
    except JupyterMemoryError as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def run_ask(
    access: AgentAccess,
    client: ChatClient,
    prompt: str,
    *,
    on_text: Callable[[str], None] = lambda _t: None,
    on_proposal: Callable[[dict[str, Any]], None] = lambda _p: None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    cell_id: str | None = None,
) -> AskResult:
    access.record_person_text(prompt, role="user", cell_id=cell_id)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_message(access.context(query=prompt))},
        {"role": "user", "content": prompt},
    ]
    result = AskResult()
    tools = [*tool_schemas(), recall_tool_schema()]
    for _ in range(max_rounds):
        result.rounds += 1
        turn = client.turn(messages, tools, on_text)
        result.reply += turn.content
        if not turn.tool_calls:
            break
        messages.append(
            {
                "role": "assistant",
                "content": turn.content or None,
                "tool_calls": [c.as_message() for c in turn.tool_calls],
            }
        )
        for call in turn.tool_calls:
            outcome = run_tool(access, call)
            result.tool_results.append({"tool": call.name} | outcome)
            if call.name == "propose_knowledge" and outcome.get("status") == "queued":
                result.proposals.append(outcome)
                on_proposal(outcome)
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call.id,
                    "content": json.dumps(outcome, ensure_ascii=False, default=str),
                }
            )
    else:
        result.stopped_early = True
    if result.reply:
        access.record_agent_output(result.reply, cell_id=cell_id)
    return result
