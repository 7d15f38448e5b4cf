"""A pydantic validation failure as our :class:`~jupyter_memory.exceptions.ValidationError`.

The one place that turns pydantic's first error into a field path, so every
surface names a bad field the same way: object keys joined with ``.``, list
positions in brackets (``messages[0].role``, ``items[1].text``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..exceptions import ValidationError

if TYPE_CHECKING:
    from pydantic import ValidationError as PydanticValidationError


def field_path(loc: Sequence[str | int], *, prefix: str = "") -> str:
    """``("items", 1, "text")`` → ``items[1].text`` (after ``prefix`` when given)."""
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def first_problem(
    exc: PydanticValidationError, *, default: str, prefix: str = ""
) -> tuple[str, str]:
    """``(field, message)`` of the first error; ``default`` names a whole-model error."""
    err = exc.errors()[0]
    return field_path(err["loc"], prefix=prefix) or default, str(err["msg"])


def validation_error(
    exc: PydanticValidationError, *, default: str, prefix: str = ""
) -> ValidationError:
    """The first error of ``exc`` as our ValidationError naming its field."""
    field, message = first_problem(exc, default=default, prefix=prefix)
    return ValidationError(message, field=field)


__all__ = ["field_path", "first_problem", "validation_error"]
