"""In a real ipykernel: captured cells are digested when the kernel shuts down."""

from __future__ import annotations

import pytest

from tests.support.kernels import kernel_env, started_kernel

pytestmark = pytest.mark.slow


def _execute(kc, code: str) -> None:
    kc.execute(code)
    reply = kc.get_shell_msg(timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]


def test_a_graceful_shutdown_digests_the_session(tmp_path):
    from jupyter_memory import Memory

    home = tmp_path / "home"
    env = kernel_env(JUPYTER_MEMORY_HOME=str(home))
    # graceful: a shutdown_request, the kernel exits and runs atexit
    with started_kernel(tmp_path, env, graceful=True) as (km, kc):
        _execute(kc, "%load_ext jupyter_memory")
        _execute(kc, "%memory suggestions off")
        _execute(kc, "# TODO: reconcile refunds with the ledger before Friday\nx = 1")
        _execute(kc, "# 下一步：把退款按渠道拆分\ny = 2")
        _execute(
            kc,
            "# We decided to count revenue on the booking date because finance closes on it.\n"
            "z = 3",
        )
    with Memory(home=home) as mem:
        rows = mem.memories()
        assert [r["source"] for r in rows] == ["session-digest"]
        assert all(not r["reviewed"] for r in rows)
        texts = " ".join(mem.get(r["id"]).text for r in rows)
        assert "booking date" in texts
        # A TODO or next-step line is the person's own list in the notebook: it never becomes
        # a memory nobody has seen (issue 32), nor a card.
        assert "reconcile refunds" not in texts and "退款" not in texts
        assert mem.queue() == []
        assert mem.hooks.digest_pending() == 0
    # Exited by itself: a kernel killed after the shutdown wait would not have run atexit,
    # and the digests above would be missing.
    assert not km.is_alive()
