"""Which OpenAI-compatible endpoint a Jupyter AI (LiteLLM) model id stands for.

Jupyter AI 3 names its chat model the LiteLLM way, ``provider/model``
(``openai/gpt-4o``, ``ollama/qwen2.5``), with optional per-model fields such as
``api_base``. ``%%ask`` speaks the OpenAI chat-completions protocol, so it can
reuse that choice only for providers that offer that protocol; for any other
provider the answer is ``None`` and the person configures an endpoint here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key_env: str | None


# provider → (default base URL, the variable LiteLLM reads the key from).
OPENAI_COMPATIBLE: dict[str, tuple[str | None, str | None]] = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "ollama": ("http://localhost:11434/v1", None),
    "ollama_chat": ("http://localhost:11434/v1", None),
    "lm_studio": ("http://localhost:1234/v1", "LM_STUDIO_API_KEY"),
    "hosted_vllm": (None, "HOSTED_VLLM_API_KEY"),  # no default: needs api_base
    "openrouter": ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
    "deepseek": ("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
    "groq": ("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
    "mistral": ("https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
    "together_ai": ("https://api.together.xyz/v1", "TOGETHERAI_API_KEY"),
    "fireworks_ai": ("https://api.fireworks.ai/inference/v1", "FIREWORKS_AI_API_KEY"),
    "xai": ("https://api.x.ai/v1", "XAI_API_KEY"),
    "dashscope": ("https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"),
    "moonshot": ("https://api.moonshot.cn/v1", "MOONSHOT_API_KEY"),
}

_OLLAMA = ("ollama", "ollama_chat")


def endpoint_for_litellm(model_id: str, fields: Mapping[str, Any] | None = None) -> Endpoint | None:
    """The endpoint for ``model_id`` (``provider/model``), or ``None`` when it has none we speak."""
    provider, sep, model = model_id.strip().partition("/")
    if not sep or not model or provider not in OPENAI_COMPATIBLE:
        return None
    default_base, key_env = OPENAI_COMPATIBLE[provider]
    fields = fields or {}
    base = fields.get("api_base") or fields.get("base_url") or default_base
    if not isinstance(base, str) or not base.strip():
        return None
    base = base.strip().rstrip("/")
    if provider in _OLLAMA and not base.endswith("/v1"):
        base += "/v1"  # LiteLLM's ollama api_base is the server root; its OpenAI API is /v1
    return Endpoint(base, model, key_env)


__all__ = ["OPENAI_COMPATIBLE", "Endpoint", "endpoint_for_litellm"]
