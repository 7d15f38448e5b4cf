"""An OpenAI-compatible chat-completions client (stdlib ``urllib``), configured by the person.

Settings (``update_settings(llm={...})``)::

    {"base_url": "http://localhost:11434/v1", "model": "qwen2.5", "api_key_env": "OPENAI_API_KEY"}

The key itself is never stored: ``api_key_env`` names the environment
variable that holds it. Nothing here runs unless the person configured it.
An endpoint that cannot be reached, times out, answers an HTTP error or
answers something that is not a chat completion raises
:class:`~jupyter_memory.exceptions.UpstreamError` naming it, with the
server's own error text. A busy or failing server (HTTP 429 and 5xx) is asked
again with exponential backoff, waiting what its ``Retry-After`` says.
"""

from __future__ import annotations

import email.utils
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any, TypeVar
from urllib.parse import urlparse

from .._i18n import M_
from ..core.llm import ChatMessage
from ..exceptions import UpstreamError, ValidationError

DEFAULT_TIMEOUT_S = 300.0  # reorganize may take minutes on a local model (spec §6.2)
MAX_REPLY_BYTES = 2_000_000
SERVICE = "LLM endpoint"
# HTTP 429 and 5xx are worth asking again; any other status will not change.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
ATTEMPTS = 4
BACKOFF_S = 1.0  # then 2, 4 s: a rate limit usually clears within seconds
MAX_WAIT_S = 60.0  # a Retry-After longer than this is not waited for
ERROR_TEXT_BYTES = 4_096

T = TypeVar("T")


def bad_answer(url: str, why: str) -> UpstreamError:
    """The endpoint answered, but not with what an OpenAI-compatible server sends."""
    return UpstreamError(why, service=SERVICE, url=url)


def error_text(exc: urllib.error.HTTPError) -> str:
    """The server's own words for an HTTP error (OpenAI's ``error.message``, else the body)."""
    try:
        raw = exc.read(ERROR_TEXT_BYTES) if exc.fp is not None else b""
    except OSError:
        return ""
    text = raw.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:300]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        error = error.get("message") or error.get("detail") or error
    return " ".join(str(error).split())[:300]


def retry_after(exc: urllib.error.HTTPError, now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait (``Retry-After``: seconds or an HTTP date)."""
    value = exc.headers.get("Retry-After") if exc.headers is not None else None
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


def with_retries(
    send: Callable[[], T],
    *,
    attempts: int = ATTEMPTS,
    backoff: float = BACKOFF_S,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """``send()``, asked again on HTTP 429/5xx with exponential backoff and ``Retry-After``."""
    for attempt in range(1, attempts + 1):
        try:
            return send()
        except urllib.error.HTTPError as exc:
            if exc.code not in RETRY_STATUSES or attempt == attempts:
                raise
            asked = retry_after(exc)
            if asked is not None and asked > MAX_WAIT_S:
                raise
            sleep(asked if asked is not None else backoff * 2 ** (attempt - 1))
    raise AssertionError("unreachable: the last attempt returns or raises")


def request_failed(exc: BaseException, url: str, timeout: float) -> UpstreamError:
    """What went wrong asking ``url``: an HTTP status (with the server's text), a timeout, no connection."""
    if isinstance(exc, urllib.error.HTTPError):
        said = error_text(exc)
        why = (
            M_("answered HTTP {code}: {text}", code=exc.code, text=said)
            if said
            else M_("answered HTTP {code}", code=exc.code)
        )
        return UpstreamError(why, service=SERVICE, url=url)
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError):  # socket.timeout is TimeoutError since 3.10
        said = M_("timed out after {timeout:g} s", timeout=timeout)
        return UpstreamError(said, service=SERVICE, url=url)
    return UpstreamError(M_("unreachable: {reason}", reason=reason), service=SERVICE, url=url)


def check_llm_config(config: Mapping[str, Any]) -> dict[str, str]:
    if not isinstance(config, Mapping):
        raise ValidationError(M_("must be an object with base_url and model"), field="llm")
    out: dict[str, str] = {}
    for key in ("base_url", "model", "api_key_env"):
        value = config.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            raise ValidationError(M_("must be a non-empty string"), field=f"llm.{key}")
        out[key] = value.strip()
    unknown = set(config) - {"base_url", "model", "api_key_env"}
    if unknown:
        raise ValidationError(
            M_(
                "unknown keys {unknown} (the key itself is never stored)",
                unknown=sorted(unknown),
            ),
            field="llm",
        )
    if "base_url" not in out or "model" not in out:
        raise ValidationError(M_("needs base_url and model"), field="llm")
    if urlparse(out["base_url"]).scheme not in ("http", "https"):
        raise ValidationError(M_("must be an http(s) URL"), field="llm.base_url")
    return out


class OpenAICompatibleClient:
    """``POST {base_url}/chat/completions``; implements :class:`~jupyter_memory.core.llm.LLMClient`."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        attempts: int = ATTEMPTS,
        backoff: float = BACKOFF_S,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.attempts = attempts
        self.backoff = backoff
        # The server's usage.total_tokens of the last reply (None when it sent none),
        # read by the LLM budget (llm_budget.py).
        self.last_usage: int | None = None

    def send(self, request: urllib.request.Request, read: Callable[[Any], T]) -> T:
        """Open ``request`` (retrying 429/5xx) and ``read`` the response; errors name the endpoint."""

        def once() -> T:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 - http(s) checked
                return read(response)

        try:
            return with_retries(once, attempts=self.attempts, backoff=self.backoff)
        except (urllib.error.URLError, TimeoutError, OSError) as exc:  # HTTPError included
            raise request_failed(exc, self.url, self.timeout) from exc

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> OpenAICompatibleClient:
        cfg = check_llm_config(config)
        key = os.environ.get(cfg["api_key_env"]) if "api_key_env" in cfg else None
        return cls(cfg["base_url"], cfg["model"], api_key=key)

    def complete(self, messages: Sequence[ChatMessage], *, max_tokens: int = 2_000) -> str:
        body = json.dumps(
            {
                "model": self.model,
                "messages": list(messages),
                "max_tokens": max_tokens,
                "temperature": 0,
            }
        ).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        raw: bytes = self.send(request, lambda response: response.read(MAX_REPLY_BYTES + 1))
        if len(raw) > MAX_REPLY_BYTES:
            raise bad_answer(
                self.url, M_("the reply is larger than {limit:,} bytes", limit=MAX_REPLY_BYTES)
            )
        try:
            data = json.loads(raw.decode("utf-8"))
            content = data["choices"][0]["message"]["content"]
        except (UnicodeDecodeError, json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
            raise bad_answer(self.url, M_("the reply is not an OpenAI chat completion")) from exc
        if not isinstance(content, str):
            raise bad_answer(self.url, M_("the reply has no text content"))
        usage = data.get("usage") if isinstance(data, dict) else None
        total = usage.get("total_tokens") if isinstance(usage, dict) else None
        self.last_usage = total if isinstance(total, int) and not isinstance(total, bool) else None
        return content
