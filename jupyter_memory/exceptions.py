"""Every error jupyter-memory raises on purpose.

Hierarchy::

    JupyterMemoryError
    ├── ValidationError          bad input from a person or agent (field named)
    │   ├── UnsafeNameError      path traversal / control chars in a slug, id or project
    │   │   └── LinkedPathError  a symlink below a storage root (never followed)
    │   ├── HiddenTextError      agent text holding a control, escape or bidi character
    │   ├── OversizeError        input past a size cap
    │   ├── SecretError          text holding a secret (kinds named, never the secret)
    │   └── ReorganizeError      a reorganized knowledge file that would lose or invent
    │                            entries (defined in core/knowledge/reorganize.py)
    ├── NotFoundError            unknown id, label, project or case
    ├── ConflictError            already decided (apply/dismiss twice), stale state
    │   └── KnowledgeConflictError   a knowledge save named a version the file no longer has
    ├── PolicyError              refused by policy (memory disabled, write policy, rate limit)
    ├── ParseError               a stored file cannot be read (path and reason named)
    ├── StoreError               a durable write or delete failed (path named)
    │   └── LockTimeoutError     another writer held the lock too long (what it held named)
    ├── BusyError                a request's deadline ran out waiting (git, another request)
    ├── DerivedIndexError        the derived index disagrees and cannot be repaired
    └── UpstreamError            a model or external service failed: unreachable,
                                 timed out, or a bad answer (service and URL named)

Adapters (magics, REST, CLI, MCP) turn these into ``UsageError``, HTTP status
codes (``UpstreamError`` is 502: the fault is past this server), exit codes and
tool errors; the service never swallows them.

A message is a plain ``str`` or a :class:`~jupyter_memory._i18n.Message` (a
``str`` that is the English, built by ``M_("no memory with id {id}", id=...)``):
``str(exc)`` is always the English (REST, MCP, JSON, logs); ``exc.localized()``
is what magics and the CLI show a person, in their language. What frames the
message (a field, a path, a service) stays as it is: names, not prose.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ._i18n import M_, Message, tr


class JupyterMemoryError(Exception):
    """Base class for every deliberate jupyter-memory error."""

    def __init__(self, message: str = "", *, prefix: str = "") -> None:
        self.message = message
        self.prefix = prefix
        super().__init__(f"{prefix}{message}")

    def localized(self) -> str:
        """The message in the person's language (English where no translation exists)."""
        return self.render(tr)

    def as_message(self) -> Message:
        """``str(self)`` as a :class:`Message`, for a result that reports this error
        and is shown later (English as text, translated where shown)."""
        return Message("{prefix}{message}", {"prefix": self.prefix, "message": self.message})

    def render(self, translate: Callable[[str], str]) -> str:
        text = self.message.render(translate) if isinstance(self.message, Message) else self.message
        return f"{self.prefix}{text}"


class ValidationError(JupyterMemoryError, ValueError):
    """Input that cannot be accepted; ``field`` names what was wrong."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.field = field
        super().__init__(message, prefix=f"{field}: " if field else "")


class UnsafeNameError(ValidationError):
    """A name that could escape its folder or confuse a file system."""


class HiddenTextError(ValidationError):
    """Text holding a character that acts instead of showing (``core/visible.py``):
    ``code`` names it (``U+001B``), ``position`` is where it is (1-based)."""

    def __init__(self, message: str, *, field: str, code: str, position: int) -> None:
        self.code = code
        self.position = position
        super().__init__(message, field=field)


class LinkedPathError(UnsafeNameError):
    """A symlink below a storage root; ``path`` is the link, which is never followed."""

    def __init__(
        self, path: os.PathLike[str] | str, *, root: os.PathLike[str] | str | None = None
    ) -> None:
        self.path = Path(path)
        self.root = Path(root) if root is not None else None
        super().__init__(
            M_("refusing to follow a symlink below the memory store: {path}", path=path),
            field="path",
        )


class OversizeError(ValidationError):
    """Input larger than the cap for its kind."""


class SecretError(ValidationError):
    """Text that holds a secret (an API key, a password …): refused, ``kinds`` named.

    The message names the kinds of secret (``aws-access-key``), never the secret.
    """

    def __init__(self, message: str, *, kinds: tuple[str, ...], field: str | None = None) -> None:
        self.kinds = tuple(kinds)
        super().__init__(message, field=field)


class NotFoundError(JupyterMemoryError, KeyError):
    """An id, label, project or case that does not exist."""

    def __str__(self) -> str:  # KeyError quotes its argument; we want the message
        return str(self.args[0]) if self.args else ""


class ConflictError(JupyterMemoryError):
    """The thing was already decided or changed underneath the caller."""

    def __init__(self, message: str, *, state: str | None = None) -> None:
        self.state = state
        super().__init__(message)


class KnowledgeConflictError(ConflictError):
    """A knowledge save edited an older version of the file; nothing was written.

    Carries both sides so an adapter can show them: the file's ``current_text``
    and ``current_version`` now, and the ``text`` the caller tried to save on
    top of ``base``.
    """

    def __init__(
        self,
        message: str,
        *,
        path: os.PathLike[str] | str,
        base: str,
        current_version: str,
        current_text: str,
        text: str,
    ) -> None:
        self.path = Path(path)
        self.base = base
        self.current_version = current_version
        self.current_text = current_text
        self.text = text
        super().__init__(message, state="stale_version")


class PolicyError(JupyterMemoryError):
    """Refused by a switch, a write policy or a rate limit."""


class LLMBudgetSpentError(PolicyError):
    """Today's LLM budget (settings ``llm_budget``) is spent: background LLM work stops."""


class ParseError(JupyterMemoryError):
    """A stored file that cannot be parsed; ``path`` and ``reason`` say why."""

    def __init__(
        self, reason: str, *, path: os.PathLike[str] | str | None = None, line: int | None = None
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.reason = reason  # a Message stays one: translated where it is shown
        self.line = line
        where = str(path) if path is not None else "<input>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(reason, prefix=f"{where}: ")


class StoreError(JupyterMemoryError, OSError):
    """A write, rename or delete on disk failed; nothing half-written is left."""

    def __init__(self, message: str, *, path: os.PathLike[str] | str | None = None) -> None:
        self.path = Path(path) if path is not None else None
        super().__init__(message, prefix=f"{path}: " if path is not None else "")

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class LockTimeoutError(StoreError):
    """Another writer held the lock longer than the timeout.

    ``held_by`` names what was held (``home lock <path>``, ``project lock <path>``):
    REST answers it in its ``503 busy``, with ``retry_after`` seconds.
    """

    def __init__(
        self,
        message: str,
        *,
        path: os.PathLike[str] | str | None = None,
        held_by: str = "lock",
        retry_after: float = 1.0,
    ) -> None:
        self.held_by = held_by
        self.retry_after = retry_after
        super().__init__(message, path=path)


class BusyError(JupyterMemoryError):
    """A request's deadline ran out while something else held what it needed.

    Not a lock (that is :class:`LockTimeoutError`): a slow ``git`` that spent the
    request's budget, or another request of this server still holding the memory.
    Nothing was written; trying again after ``retry_after`` seconds is the remedy.
    """

    def __init__(self, message: str, *, held_by: str, retry_after: float = 1.0) -> None:
        self.held_by = held_by
        self.retry_after = retry_after
        super().__init__(message)


class DerivedIndexError(JupyterMemoryError):
    """A derived view disagrees with the files and cannot be repaired unambiguously."""


class UpstreamError(JupyterMemoryError):
    """A model or external service failed: unreachable, timed out, or a bad answer.

    Not a :class:`StoreError`: nothing of ours was written or lost, and trying
    again later (or fixing the service's settings) is the remedy. ``service``
    names what failed (``LLM endpoint``), ``url`` where it was asked.
    """

    def __init__(self, reason: str, *, service: str, url: str | None = None) -> None:
        self.service = service
        self.url = url
        self.reason = reason
        super().__init__(reason, prefix=f"{service} {url}: " if url else f"{service}: ")


__all__ = [
    "BusyError",
    "ConflictError",
    "DerivedIndexError",
    "HiddenTextError",
    "JupyterMemoryError",
    "KnowledgeConflictError",
    "LLMBudgetSpentError",
    "LinkedPathError",
    "LockTimeoutError",
    "NotFoundError",
    "OversizeError",
    "ParseError",
    "PolicyError",
    "StoreError",
    "UnsafeNameError",
    "UpstreamError",
    "ValidationError",
]
