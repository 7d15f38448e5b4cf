"""A pydantic validation failure as our :class:`~jupyter_memory.exceptions.ValidationError`.

The one place that turns pydantic's first error into a field path, so every
surface names a bad field the same way: object keys joined with ``.``, list
positions in brackets (``messages[0].role``, ``items[1].text``).

It is also the one place that makes pydantic's words translatable: the
error's ``type`` picks one of :data:`PYDANTIC_WORDS` (a catalogue msgid), its
``ctx`` fills it. As a ``str`` the text stays pydantic's own English (REST,
MCP, JSON and logs are unchanged); a magic or the CLI shows the catalogue's
words. A ``type`` without an entry stays pydantic's English everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._i18n import M_, N_, Message
from ..exceptions import ValidationError

if TYPE_CHECKING:
    from pydantic import ValidationError as PydanticValidationError

# pydantic error type → the English it says (our msgid; a translation keeps its fields).
PYDANTIC_WORDS: dict[str, str] = {
    "missing": N_("Field required"),
    "extra_forbidden": N_("Extra inputs are not permitted"),
    "string_type": N_("Input should be a valid string"),
    "string_too_short": N_("String should have at least {min_length} characters"),
    "string_too_long": N_("String should have at most {max_length} characters"),
    "string_pattern_mismatch": N_("String should match pattern '{pattern}'"),
    "too_short": N_("should have at least {min_length} items, not {actual_length}"),
    "too_long": N_("should have at most {max_length} items, not {actual_length}"),
    "list_type": N_("Input should be a valid list"),
    "dict_type": N_("Input should be a valid dictionary"),
    "model_type": N_("Input should be a valid dictionary or object"),
    "model_attributes_type": N_("Input should be a valid dictionary or object"),
    "literal_error": N_("Input should be {expected}"),
    "enum": N_("Input should be {expected}"),
    "int_type": N_("Input should be a valid integer"),
    "int_parsing": N_("Input should be a valid integer"),
    "int_from_float": N_("Input should be a valid integer"),
    "float_type": N_("Input should be a valid number"),
    "float_parsing": N_("Input should be a valid number"),
    "bool_type": N_("Input should be a valid boolean"),
    "bool_parsing": N_("Input should be a valid boolean"),
    "datetime_type": N_("Input should be a valid datetime"),
    "datetime_parsing": N_("Input should be a valid datetime"),
    "datetime_from_date_parsing": N_("Input should be a valid datetime"),
    "greater_than": N_("Input should be greater than {gt}"),
    "greater_than_equal": N_("Input should be greater than or equal to {ge}"),
    "less_than": N_("Input should be less than {lt}"),
    "less_than_equal": N_("Input should be less than or equal to {le}"),
    "value_error": N_("Value error, {error}"),
}


class PydanticWords(Message):
    """pydantic's English as the text; shown through our catalogue where it has the
    words (in English, or without an entry, pydantic's own text is shown as it is)."""

    def render(self, translate: Callable[[str], str]) -> str:
        if translate(self.template) == self.template:
            return str(self)
        return super().render(translate)


def _either(expected: str) -> Message | str:
    """pydantic's ``'a', 'b' or 'c'``, with its "or" translatable."""
    head, sep, last = expected.rpartition(" or ")
    return M_("{values} or {last}", values=head, last=last) if sep else expected


def _error_param(error: Any) -> Any:
    """A validator's error as a param: our error or a Message is shown in the language."""
    if isinstance(error, BaseException) and not callable(getattr(error, "render", None)):
        first = error.args[0] if error.args else ""
        return first if isinstance(first, Message) else str(error)
    return error


def _number(value: Any) -> Any:
    """A bound as pydantic writes it: ``1``, not ``1.0``."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def problem_message(err: Mapping[str, Any]) -> Message:
    """One pydantic error (an item of ``errors()``) as a Message; ``str()`` is its ``msg``."""
    english = str(err.get("msg", ""))
    template = PYDANTIC_WORDS.get(str(err.get("type")))
    words = PydanticWords(english)
    if template is not None:
        params = {key: _number(value) for key, value in (err.get("ctx") or {}).items()}
        if "expected" in params:
            params["expected"] = _either(str(params["expected"]))
        if "error" in params:
            params["error"] = _error_param(params["error"])
        words.template = template
        words.params = params
    return words


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
) -> tuple[str, Message]:
    """``(field, message)`` of the first error; ``default`` names a whole-model error."""
    err = exc.errors()[0]
    return field_path(err["loc"], prefix=prefix) or default, problem_message(err)


def validation_error(
    exc: PydanticValidationError, *, default: str, prefix: str = ""
) -> ValidationError:
    """The first error of ``exc`` as our ValidationError naming its field."""
    field, message = first_problem(exc, default=default, prefix=prefix)
    return ValidationError(message, field=field)


__all__ = [
    "PYDANTIC_WORDS",
    "PydanticWords",
    "field_path",
    "first_problem",
    "problem_message",
    "validation_error",
]
