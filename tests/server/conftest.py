"""A real jupyter_server with the jupyter-memory extension, per test (pytest-jupyter).

pytest-jupyter's fixtures are imported here rather than enabled with
``pytest_plugins`` so that its event-loop fixtures only apply to this folder.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from pytest_jupyter.jupyter_server import *  # noqa: F403
from tornado.httpclient import HTTPClientError

from tests.server.server_config import memory_server_config

Api = Callable[..., Awaitable[tuple[int, Any]]]


@pytest.fixture
def jp_server_config():  # replaces pytest-jupyter's (imported above)
    return memory_server_config()


@pytest.fixture
def api(jp_fetch) -> Api:
    """``await api("GET", "queue")`` → (status, JSON body); errors are returned, not raised."""

    async def call(method: str, *parts: str, body: Any = None, **kwargs: Any) -> tuple[int, Any]:
        if body is not None:
            kwargs["body"] = body if isinstance(body, (str, bytes)) else json.dumps(body)
        elif method in ("POST", "PUT"):
            kwargs["body"] = "{}"
        try:
            resp = await jp_fetch("jupyter-memory", *parts, method=method, **kwargs)
        except HTTPClientError as exc:
            assert exc.response is not None, exc
            return exc.code, json.loads(exc.response.body or b"null")
        return resp.code, json.loads(resp.body or b"null")

    return call


@pytest.fixture
def server_memory(memory_home: Path):
    """A second ``Memory`` on the server's home: another process's view of the same files."""
    from jupyter_memory import Memory

    m = Memory(home=memory_home)
    yield m
    m.close()
