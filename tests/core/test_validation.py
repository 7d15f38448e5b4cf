"""One conversion of a pydantic error into our ValidationError, naming the field."""

import pytest
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from jupyter_memory.core.validation import first_problem, validation_error
from jupyter_memory.exceptions import ValidationError


class _Item(BaseModel):
    text: str


class _Batch(BaseModel):
    title: str
    items: list[_Item] = []


def _fail(data: object) -> PydanticValidationError:
    with pytest.raises(PydanticValidationError) as info:
        _Batch.model_validate(data)
    return info.value


def test_names_a_top_level_field():
    err = validation_error(_fail({"title": 3}), default="batch")
    assert isinstance(err, ValidationError)
    assert err.field == "title"
    assert str(err).startswith("title: ") and "string" in str(err)


def test_list_positions_are_bracketed_and_prefix_joins():
    exc = _fail({"title": "t", "items": [{"text": "ok"}, {"text": None}]})
    assert validation_error(exc, default="batch").field == "items[1].text"
    assert validation_error(exc, default="batch", prefix="messages[0]").field == (
        "messages[0].items[1].text"
    )


def test_model_level_error_falls_back_to_the_default_name():
    exc = _fail("not an object")
    field, message = first_problem(exc, default="batch")
    assert field == "batch" and message
    assert validation_error(exc, default="batch", prefix="pool[2]").field == "pool[2]"


def test_a_missing_field_is_named_even_when_other_keys_are_chinese():
    exc = _fail({"标题": "x"})
    err = validation_error(exc, default="batch")
    assert err.field == "title" and "required" in str(err).lower()
