"""The credential of ``jupyter-memory mcp --http``: ``<memory home>/mcp-token`` (issue 27).

One line, a ``secrets.token_urlsafe`` string, written 0600 by the one durable
write path (a fresh ``mkstemp`` file renamed over the old one). It is created
on first use and replaced only when the person rotates it. The HTTP server
reads it again for every request, so a rotation (or removing the file)
takes effect in a running server at once.

A token file another user can read protects nothing, so it is refused (with
the ``chmod`` that fixes it) rather than used; so is one reached through a
symlink (it would not be ours).
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path

from .._i18n import M_
from ..exceptions import ParseError, PolicyError
from .atomic import root_lock, write_text_atomic
from .links import refuse_link

FILE_NAME = "mcp-token"
TOKEN_BYTES = 32  # 256 bits; token_urlsafe makes them 43 characters
_SHAPE = re.compile(r"[A-Za-z0-9_-]{32,256}")
MAX_FILE_BYTES = 1024


class McpTokenFile:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = home / FILE_NAME

    def read(self) -> str | None:
        """The stored token; ``None`` when there is none yet (or it was removed)."""
        refuse_link(self.home, self.path)
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ParseError(
                M_("cannot read: {reason}", reason=exc.strerror or exc), path=self.path
            ) from exc
        with os.fdopen(fd, "rb") as fh:
            mode = stat.S_IMODE(os.fstat(fh.fileno()).st_mode)
            data = fh.read(MAX_FILE_BYTES + 1)
        if os.name != "nt" and mode & 0o077:
            raise PolicyError(
                M_(
                    "{path}: other users can read this token (mode {mode:04o}); "
                    "make it private with: chmod 600 {path}",
                    path=str(self.path),
                    mode=mode,
                )
            )
        text = data.decode("ascii", errors="replace").strip()
        if len(data) > MAX_FILE_BYTES or not _SHAPE.fullmatch(text):
            raise ParseError(
                M_(
                    "not a token (one line of 32 to 256 letters, digits, '-' or '_'); "
                    "write a new one with: jupyter-memory mcp --rotate-token"
                ),
                path=self.path,
            )
        return text

    def ensure(self) -> str:
        """The stored token, created (0600) if there is none."""
        current = self.read()
        if current is not None:
            return current
        with root_lock(self.home):
            current = self.read()  # another process may have created it meanwhile
            return current if current is not None else self._write_new()

    def rotate(self) -> str:
        """A new token replaces the old one, which stops working at once."""
        with root_lock(self.home):
            return self._write_new()

    def _write_new(self) -> str:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        write_text_atomic(self.path, token + "\n", root=self.home)
        return token
