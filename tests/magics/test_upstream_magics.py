"""A model that fails behind a magic: a UsageError naming the service, no traceback."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from openai_test_server import llm_server


def test_memory_digest_with_an_unreachable_llm_is_a_usage_error(ip, magics):
    with llm_server([]) as llm:
        url = llm.url  # stopped on leaving the block: nothing listens there
    magics.service.update_settings(llm={"base_url": url, "model": "m"})
    ip.run_cell("# TODO: 退款按渠道拆分\nsplit = 1", store_history=True, raise_on_error=False)
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("memory", "digest")
    message = str(info.value)
    assert message.startswith("%memory: a model or external service failed: LLM endpoint ")
    assert f"{url}/chat/completions" in message and "unreachable" in message
    assert magics.service.hooks.digest_pending() == 1  # kept for the next digest
