from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jupyter_memory.core.names import slugify, validate_id, validate_project_id, validate_slug
from jupyter_memory.core.text import analyze, query_terms
from jupyter_memory.exceptions import UnsafeNameError, ValidationError

UNSAFE = ["../x", "..", "/etc/passwd", "a/b", "a\\b", "~root", "C:evil", "a\x00b", "tab\there", ""]


@pytest.mark.parametrize("value", UNSAFE)
def test_unsafe_ids_and_projects_refused(value):
    with pytest.raises(ValidationError) as info:
        validate_id(value)
    assert "id" in str(info.value)
    with pytest.raises(ValidationError) as info:
        validate_project_id(value)
    assert "project" in str(info.value)


def test_slug_refuses_traversal():
    with pytest.raises(UnsafeNameError):
        validate_slug("../a")


def test_chinese_title_keeps_its_characters():
    assert slugify("收入口径") == "收入口径"
    assert slugify("Q3 收入口径") == "q3-收入口径"


@given(st.text(max_size=200))
def test_slug_always_safe(title):
    validate_slug(slugify(title))


def test_bigrams():
    assert analyze("收入不含退款") == ["收入", "入不", "不含", "含退", "退款"]
    assert analyze("Revenue 收入") == ["revenue", "收入"]
    assert analyze("税") == ["税"]
    assert query_terms("退款 refunds") == [["退款"], ["refunds"]]
    assert query_terms("收入口径") == [["收入", "入口", "口径"]]


def test_fullwidth_and_case_fold():
    assert analyze("ＲＥＶＥＮＵＥ") == ["revenue"]
