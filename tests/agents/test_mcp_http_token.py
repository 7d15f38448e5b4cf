"""``jupyter-memory mcp --http`` answers only a client holding the token (issue 27, finding 2).

Another local user could call ``recall`` and read a stored password, and each
new HTTP session had a fresh proposal allowance. Now every request needs
``Authorization: Bearer <token>`` (``<home>/mcp-token``, 0600); without it the
server answers 401 before the SDK sees the request, and the allowance counts
per token. Real server subprocesses, the SDK's streamable HTTP client.
"""

from __future__ import annotations

import http.client
import json
import stat
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from agents_helpers import INITIALIZE, data_of, http_server, print_token, text_of

from jupyter_memory import Memory
from jupyter_memory.agents import mcp_compat
from jupyter_memory.service.agent_access import AgentAccess

pytestmark = pytest.mark.anyio

QUOTE = "revenue always excludes refunds"
SECRET = "the staging database password is Tr0ub4dor-staging"
TEXTS = [f"Revenue rule number {i} excludes refunds in report {i * 11}." for i in range(8)]
PROPOSE = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {
        "name": "propose_knowledge",
        "arguments": {"text": TEXTS[0], "kind": "rule", "evidence_quote": QUOTE},
    },
}


def _seed(home: Path) -> None:
    with Memory(home) as mem:
        AgentAccess(mem).record_person_text(f"Note for later: {QUOTE}.", role="user")
        # the person keeps it on purpose (user layer only): what another local user must not read
        mem.remember(SECRET, title="staging credentials", allow_secret=True)


def _post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
    """One raw POST (stdlib, so no SDK client is involved): status, headers, body."""
    parts = urlsplit(url)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request(
            "POST",
            parts.path,
            body=data,
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "Host": f"127.0.0.1:{parts.port}",
                **(headers or {}),
            },
        )
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


async def _connect_and_propose(url: str, token: str | None) -> Any:
    from mcp import ClientSession

    async with (
        mcp_compat.open_http_client(url, token) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return await session.call_tool(
            "propose_knowledge", {"text": TEXTS[0], "kind": "rule", "evidence_quote": QUOTE}
        )


def _leaves(exc: BaseException) -> list[BaseException]:
    """The errors inside (nested) exception groups, as the SDK client's task groups raise them."""
    inner = getattr(exc, "exceptions", None)
    return [leaf for e in inner for leaf in _leaves(e)] if inner else [exc]


def _nothing_ran(home: Path) -> None:
    with Memory(home) as mem:
        assert mem.queue(include_decided=True) == []
    assert not (home / "recent" / "agent-proposals.json").exists()


async def test_without_the_token_or_with_a_wrong_one_nothing_runs(
    memory_home: Path, tmp_path: Path
) -> None:
    _seed(memory_home)
    with http_server(memory_home, log=tmp_path / "err.log") as url:
        token = print_token(memory_home)
        for headers in (
            {},
            {"Authorization": "Bearer not-the-token"},
            {"Authorization": f"Bearer {token}x"},
            {"Authorization": f"Basic {token}"},
            {"Authorization": token},
        ):
            for body in (INITIALIZE, PROPOSE):
                status, said, content = _post(url, body, headers | {"mcp-session-id": "guess"})
                assert status == 401, (headers, body["method"], status, content)
                assert said["WWW-Authenticate"].startswith("Bearer")
                assert json.loads(content)["error"]["message"].startswith("unauthorized")
                assert SECRET.encode() not in content
        # The SDK's own client, without the token and with a wrong one, gets no session.
        for wrong in (None, "not-the-token"):
            with pytest.raises(Exception) as refused:  # noqa: B017 - the SDK wraps it in groups
                await _connect_and_propose(url, wrong)
            # 1.x raises the HTTP status; 2.x shows the JSON-RPC error the 401 carries.
            said = [str(leaf) for leaf in _leaves(refused.value)]
            assert any("401" in s or "--print-token" in s for s in said), refused.value
        _nothing_ran(memory_home)

        # With the token the same client works: tools, resources, recall.
        from mcp import ClientSession

        async with (
            mcp_compat.open_http_client(url, token) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            hits = data_of(await session.call_tool("recall", {"query": "staging password"}))
            # with the token the memory is found (an agent sees its secret redacted)
            assert any("staging database password" in hit["text"] for hit in hits)
            assert not any(SECRET in hit["text"] for hit in hits)
        assert data_of(await _connect_and_propose(url, token))["status"] == "queued"


async def test_the_token_is_private_stable_and_rotatable(memory_home: Path, tmp_path: Path) -> None:
    token = print_token(memory_home, process=True)  # the command a person runs, once for real
    path = memory_home / "mcp-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(token) >= 40 and token in path.read_text(encoding="utf-8")
    assert print_token(memory_home) == token  # printed again, not replaced
    _seed(memory_home)
    with http_server(memory_home, log=tmp_path / "err.log") as url:
        assert print_token(memory_home) == token  # the server adopted it
        assert data_of(await _connect_and_propose(url, token))["status"] == "queued"
        # Rotating takes effect in the running server: the old token stops working.
        new = print_token(memory_home, "--rotate-token")
        assert new != token and print_token(memory_home) == new
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert _post(url, INITIALIZE, {"Authorization": f"Bearer {token}"})[0] == 401
        status, _, _ = _post(url, INITIALIZE, {"Authorization": f"Bearer {new}"})
        assert status == 200
        # A token file others can read is refused, naming it, rather than used.
        path.chmod(0o644)
        status, _, content = _post(url, INITIALIZE, {"Authorization": f"Bearer {new}"})
        assert status == 500 and "chmod 600" in json.loads(content)["error"]["message"]
        assert str(path) in json.loads(content)["error"]["message"]


async def test_two_clients_with_one_token_share_one_allowance(
    memory_home: Path, tmp_path: Path
) -> None:
    """A new HTTP session, or a second client, gets no fresh allowance: it is the token's."""
    from mcp import ClientSession

    _seed(memory_home)
    token = print_token(memory_home)
    args = {"kind": "rule", "evidence_quote": QUOTE}
    with http_server(memory_home, log=tmp_path / "err.log") as url:
        async with (
            mcp_compat.open_http_client(url, token) as (read_a, write_a),
            ClientSession(read_a, write_a) as a,
            mcp_compat.open_http_client(url, token) as (read_b, write_b),
            ClientSession(read_b, write_b) as b,
        ):
            await a.initialize()
            await b.initialize()
            for i in range(5):
                client = a if i % 2 == 0 else b
                queued = data_of(
                    await client.call_tool("propose_knowledge", args | {"text": TEXTS[i]})
                )
                assert queued["status"] == "queued"
            for client in (a, b):
                refused = await client.call_tool("propose_knowledge", args | {"text": TEXTS[5]})
                assert mcp_compat.is_error(refused) and "rate limit" in text_of(refused)
        # A third session with the same token: still spent.
        refused = await _connect_and_propose(url, token)
        assert mcp_compat.is_error(refused) and "rate limit" in text_of(refused)
    # A restarted server: the token's count is kept.
    with http_server(memory_home, log=tmp_path / "err2.log") as url:
        refused = await _connect_and_propose(url, token)
        assert mcp_compat.is_error(refused) and "rate limit" in text_of(refused)
    with Memory(memory_home) as mem:
        assert len(mem.queue(include_decided=True)) == 5


def test_with_the_token_host_origin_and_body_checks_still_hold(
    memory_home: Path, tmp_path: Path
) -> None:
    token = print_token(memory_home)
    bearer = {"Authorization": f"Bearer {token}"}
    with http_server(memory_home, log=tmp_path / "err.log") as url:
        assert _post(url, INITIALIZE, bearer | {"Host": "evil.example:80"})[0] == 421
        assert _post(url, INITIALIZE, bearer | {"Origin": "http://evil.example"})[0] == 403
        assert _post(url, b"[" + b" " * (5 * 1024 * 1024) + b"]", bearer)[0] == 413
        assert _post(url, INITIALIZE, bearer)[0] == 200


def test_a_token_file_others_can_read_or_a_damaged_one_lets_nobody_in(memory_home: Path) -> None:
    from jupyter_memory.exceptions import LinkedPathError, ParseError, PolicyError
    from jupyter_memory.service.http_credential import HttpCredential

    credential = HttpCredential(memory_home)
    token = credential.token()
    assert credential.client_of(token) == credential.client_of(token) is not None
    assert credential.client_of(token[:-1]) is None and credential.client_of("") is None
    credential.path.chmod(0o644)
    with pytest.raises(PolicyError, match="chmod 600") as loose:
        credential.client_of(token)
    assert str(credential.path) in str(loose.value)
    credential.path.chmod(0o600)
    credential.path.write_text("short\n", encoding="utf-8")
    with pytest.raises(ParseError, match="--rotate-token") as damaged:
        credential.client_of(token)
    assert str(credential.path) in str(damaged.value)
    credential.path.unlink()
    assert credential.client_of(token) is None  # removed: revoked until a new one is made
    elsewhere = memory_home.parent / "planted-token"
    elsewhere.write_text(token + "\n", encoding="utf-8")
    elsewhere.chmod(0o600)
    credential.path.symlink_to(elsewhere)
    with pytest.raises(LinkedPathError):
        credential.client_of(token)
