"""Who may talk to ``jupyter-memory mcp --http``: a client holding the memory home's token.

stdio needs none (the client owns the server process); over HTTP any local
user could connect, so every request carries ``Authorization: Bearer <token>``
(docs/agents.md, "MCP over HTTP"). The token is ``<home>/mcp-token``
(:mod:`..store.mcp_token`).

A client is known to the server by its credential's fingerprint, never by the
token itself: that is what the proposal allowance counts under, so two
clients holding one token share one allowance and a new HTTP session gets no
fresh one.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

from ..store.mcp_token import McpTokenFile
from .paths import resolve_home


class HttpCredential:
    def __init__(self, home: str | os.PathLike[str] | None) -> None:
        self._file = McpTokenFile(resolve_home(home))

    @property
    def path(self) -> Path:
        return self._file.path

    def token(self) -> str:
        """The token clients send; created on first use."""
        return self._file.ensure()

    def rotate(self) -> str:
        """A new token; clients holding the old one are refused from their next request."""
        return self._file.rotate()

    def client_of(self, presented: str) -> str | None:
        """The client a presented token stands for (``token-<fingerprint>``), or ``None``.

        Compared in constant time; the file is read on every call, so a
        rotation reaches a running server. A damaged or unsafe token file
        raises (naming it), and no request gets in.
        """
        current = self._file.read()
        if current is None:
            return None
        if not hmac.compare_digest(presented.encode("utf-8"), current.encode("utf-8")):
            return None
        return "token-" + hashlib.sha256(current.encode("utf-8")).hexdigest()[:16]
