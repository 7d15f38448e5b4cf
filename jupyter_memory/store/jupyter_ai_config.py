"""Reading Jupyter AI's own settings file (``<jupyter data dir>/jupyter_ai/config.json``).

Read only, never written: ``%%ask`` reuses the chat model the person chose in
Jupyter AI when none is configured for jupyter-memory (docs/agents.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..exceptions import ParseError
from .input_files import read_input_json


@dataclass(frozen=True)
class JupyterAIChatModel:
    model_id: str
    fields: dict[str, Any] = field(default_factory=dict)
    api_keys: dict[str, str] = field(default_factory=dict)


def config_path(data_dir: Path) -> Path:
    return data_dir / "jupyter_ai" / "config.json"


def _object(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def read_chat_model(data_dir: Path) -> JupyterAIChatModel | None:
    """The chat model chosen in Jupyter AI, or ``None`` when there is no choice (or no file)."""
    path = config_path(data_dir)
    if not path.is_file():
        return None
    data = read_input_json(path)  # size cap, UTF-8 and JSON errors name the file
    if not isinstance(data, dict):
        raise ParseError(M_("must be a JSON object"), path=path)
    model_id = data.get("model_provider_id")
    if not isinstance(model_id, str) or not model_id.strip():
        return None
    fields = _object(data, "fields")
    own = fields.get(model_id)
    keys = _object(data, "api_keys")
    return JupyterAIChatModel(
        model_id.strip(),
        dict(own) if isinstance(own, dict) else {},
        {str(k): v for k, v in keys.items() if isinstance(v, str)},
    )


__all__ = ["JupyterAIChatModel", "config_path", "read_chat_model"]
