"""Turn the service's domain errors into IPython ``UsageError`` with a useful hint.

A magic never shows a Python traceback for bad input: the person sees one
line saying what was wrong and what to type instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from IPython.core.error import UsageError

from .._i18n import N_, localized, tr
from ..exceptions import (
    ConflictError,
    JupyterMemoryError,
    KnowledgeConflictError,
    NotFoundError,
    ParseError,
    PolicyError,
    StoreError,
    UpstreamError,
    ValidationError,
)

F = TypeVar("F", bound=Callable[..., Any])

_HINTS: list[tuple[type[JupyterMemoryError], str]] = [
    (NotFoundError, N_("not found")),
    (KnowledgeConflictError, N_("the knowledge file changed since it was read")),
    (ConflictError, N_("conflict")),
    (PolicyError, N_("refused")),
    (ParseError, N_("cannot read a stored file")),
    (StoreError, N_("write failed")),
    (UpstreamError, N_("a model or external service failed")),
    (ValidationError, N_("invalid input")),
]


def usage_error(exc: JupyterMemoryError, command: str) -> UsageError:
    kind = tr(next((hint for cls, hint in _HINTS if isinstance(exc, cls)), N_("error")))
    message = f"%{command}: {kind}: {localized(exc)}"
    if isinstance(exc, NotFoundError) and "project" in str(exc):
        message += tr("  (focus it once with %memory focus ./path/to/project)")
    elif isinstance(exc, NotFoundError):
        message += tr("  (list ids with %memories or %recall)")
    return UsageError(message)


def magic_errors(command: str) -> Callable[[F], F]:
    """Decorator: domain errors become ``UsageError`` naming the magic."""

    def wrap(func: F) -> F:
        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            try:
                return func(*args, **kwargs)
            except JupyterMemoryError as exc:
                raise usage_error(exc, command) from exc

        return inner  # type: ignore[return-value]

    return wrap
