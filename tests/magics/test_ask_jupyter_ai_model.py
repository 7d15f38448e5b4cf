"""``%%ask`` reuses the chat model chosen in Jupyter AI when none is configured here."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from openai_test_server import Scripted, llm_server

from jupyter_memory.core.llm_endpoints import endpoint_for_litellm


def _jupyter_ai_config(data: dict[str, Any]) -> Path:
    path = Path(os.environ["JUPYTER_DATA_DIR"]) / "jupyter_ai" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_ask_uses_jupyter_ais_chat_model(ip: Any, capsys: pytest.CaptureFixture[str]) -> None:
    with llm_server([Scripted("来自 Jupyter AI 的模型")]) as llm:
        _jupyter_ai_config(
            {
                "model_provider_id": "hosted_vllm/local-qwen",
                "fields": {"hosted_vllm/local-qwen": {"api_base": llm.url}},
                "api_keys": {"HOSTED_VLLM_API_KEY": "sk-jai"},
            }
        )
        ip.run_cell("%%ask\n你好")
    assert "来自 Jupyter AI 的模型" in capsys.readouterr().out
    assert llm.requests[0]["model"] == "local-qwen"


def test_a_setting_here_wins_over_jupyter_ai(
    ip: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with llm_server([Scripted("ours")]) as llm:
        _jupyter_ai_config({"model_provider_id": "openai/gpt-4o"})
        monkeypatch.setenv("OPENAI_BASE_URL", llm.url)
        monkeypatch.setenv("OPENAI_MODEL", "ours-model")
        ip.run_cell("%%ask\nhello")
    assert llm.requests[0]["model"] == "ours-model"


def test_a_provider_without_the_openai_protocol_says_how_to_configure(
    ip: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _jupyter_ai_config({"model_provider_id": "anthropic/claude-sonnet-4"})
    ip.run_cell("%%ask\nhello")
    out = capsys.readouterr().out
    assert "needs an OpenAI-compatible LLM endpoint" in out and "Jupyter AI" in out


def test_a_damaged_jupyter_ai_config_is_named_and_nothing_breaks(
    ip: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _jupyter_ai_config({})
    path.write_text("{not json", encoding="utf-8")
    ip.run_cell("%%ask\nhello")
    captured = capsys.readouterr()
    assert "needs an OpenAI-compatible LLM endpoint" in captured.out
    assert "config.json" in captured.err


@pytest.mark.parametrize(
    ("model_id", "fields", "expected"),
    [
        ("openai/gpt-4o", {}, ("https://api.openai.com/v1", "gpt-4o", "OPENAI_API_KEY")),
        ("ollama/qwen2.5", {}, ("http://localhost:11434/v1", "qwen2.5", None)),
        ("ollama/qwen2.5", {"api_base": "http://gpu:11434/"}, ("http://gpu:11434/v1", "qwen2.5", None)),
        ("dashscope/qwen-max", {}, ("https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-max", "DASHSCOPE_API_KEY")),
        ("openrouter/meta/llama-3", {}, ("https://openrouter.ai/api/v1", "meta/llama-3", "OPENROUTER_API_KEY")),
        ("hosted_vllm/x", {}, None),  # no default address: needs api_base
        ("anthropic/claude", {}, None),
        ("gpt-4o", {}, None),
    ],
)  # fmt: skip
def test_litellm_ids_map_to_openai_compatible_endpoints(
    model_id: str, fields: dict[str, str], expected: tuple[str, str, str | None] | None
) -> None:
    got = endpoint_for_litellm(model_id, fields)
    assert (got and (got.base_url, got.model, got.api_key_env)) == expected
