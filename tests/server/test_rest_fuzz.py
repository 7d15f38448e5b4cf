"""Every REST route under generated input (issue 16): never a 500, a 4xx that names the field,
and a refused request changes nothing stored.

The routes are enumerated from the server's own URL table (``server/routes.py``)
and each handler's verbs; hypothesis draws path parameters (real ids mixed
with any text), query strings (the parameters the routes read, and others)
and bodies (any JSON, JSON objects with the fields the bodies know and
wrong-typed values, bytes that are not UTF-8). The server is a real
jupyter_server process with the extension, on a home seeded with a memory,
a pending proposal, both knowledge files, a registered project and a case.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_memory.server.routes import ROUTES
from tests.support.servers import jupyter_process

pytestmark = pytest.mark.slow

SAMPLE_CASES = Path(__file__).resolve().parents[2] / "notebooks" / "sample_workspace" / "cases"
CASE = "CASE-2026-001"
ENTRY = "2026-06-03_hesitate_overseas-payment.md"
VERBS = ("get", "post", "put", "delete", "patch")
# The query parameters the routes read, and the fields request bodies know.
QUERY_KEYS = [
    "q", "limit", "offset", "cursor", "type", "tier", "project", "recent", "ids",
    "path", "evidence", "hypothesis", "job", "layer", "status",
]  # fmt: skip
BODY_KEYS = [
    "to", "project", "text", "base", "enabled", "auto_suggestions", "agents_md_autosync",
    "path", "reason", "notebook",
]  # fmt: skip


# The server extensions a dev environment enables besides ours (named even where one is absent:
# jupyter_server skips a disabled extension without importing it).
OTHER_EXTENSIONS = (
    "jupyterlab",
    "notebook",
    "notebook_shim",
    "jupyter_lsp",
    "jupyter_server_terminals",
)


@dataclass
class Server:
    url: str
    token: str
    home: Path
    root: Path
    ids: dict[str, str]
    process: subprocess.Popen[bytes]


def _seed(home: Path, root: Path) -> dict[str, str]:
    from jupyter_memory import Memory

    mem = Memory(home=home)
    memory = mem.remember("Revenue excludes refunds; 收入不含退款", title="revenue rule")
    mem.focus(root / "sales-q3")
    text = "Dates are stored in UTC"
    pid = mem.propose(text, "rule", text, source="manual")["proposal"]["id"]
    mem.save_knowledge("user", "## Rules\n\n- Use ISO dates\n\n## Info\n")
    mem.save_knowledge("project", "## Rules\n\n## Info\n\n- Q3 is July to September\n")
    mem.close()
    return {"proposal": pid, "memory": memory.id, "project": "sales-q3"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("fuzz")
    root, home, jhome = base / "root", base / "memory-home", base / "home"
    for d in (root, home, jhome, root / "sales-q3"):
        d.mkdir()
    shutil.copytree(SAMPLE_CASES, root / "cases")
    env = {
        **os.environ,
        "HOME": str(jhome),
        "JUPYTER_MEMORY_HOME": str(home),
        "JUPYTER_MEMORY_SEMANTIC": "0",
        "JUPYTER_CONFIG_DIR": str(jhome / ".jupyter"),
        "JUPYTER_DATA_DIR": str(jhome / ".local/share/jupyter"),
        "JUPYTER_RUNTIME_DIR": str(jhome / ".runtime"),
        "IPYTHONDIR": str(jhome / ".ipython"),
    }
    ids = _seed(home, root)
    # Ours alone: the lab, notebook, LSP and terminal extensions the environment enables serve
    # no route fuzzed here, and loading them was a third of the server's start (~1.5 CPU-s).
    args = [f"--ServerApp.jpserver_extensions={name}={name == 'jupyter_memory'}" for name in
            ("jupyter_memory", *OTHER_EXTENSIONS)]  # fmt: skip
    with jupyter_process(root, base / "server.log", env=env, args=args, cwd=root) as process:
        process.ready(timeout=60)
        srv = Server(process.url, process.token, home, root, ids, process.process)
        # Our extension answers too (a server can answer /api/status before loading it).
        status, _ = call(srv, "GET", "/jupyter-memory/settings")
        assert status == 200, process.log_tail()
        yield srv


def call(srv: Server, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(
        srv.url + path,
        data=body,
        method=method,
        headers={"Authorization": f"token {srv.token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def stored(home: Path) -> dict[str, str]:
    """sha256 of every stored file (the derived index, locks and temp files aside)."""
    out = {}
    for path in sorted(home.rglob("*")):
        rel = path.relative_to(home)
        if path.is_dir() or rel.parts[0] == ".index" or path.name.endswith((".lock", ".tmp")):
            continue
        out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def _verbs(handler: type) -> list[str]:
    return [
        v
        for v in VERBS
        if any(
            v in k.__dict__
            for k in handler.__mro__[:-1]
            if k.__module__.startswith("jupyter_memory")
        )
    ]


ROUTE_VERBS = [(path, verb) for path, handler in ROUTES for verb in _verbs(handler)]


def test_routes_are_enumerated_from_the_server():
    assert len(ROUTE_VERBS) >= 18, ROUTE_VERBS
    assert ("queue/([^/]+)/apply", "post") in ROUTE_VERBS


texts = st.text(min_size=0, max_size=40)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), texts)
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=10,
)  # fmt: skip


@st.composite
def requests(draw: st.DrawFn, route: str, verb: str) -> tuple[str, str, str, bytes | None, str]:
    segments = []
    for _ in range(route.count("([^/]+)")):
        segments.append(
            draw(
                st.one_of(
                    st.sampled_from(["PROPOSAL", "MEMORY", "user", "project", CASE, ENTRY]),
                    st.text(min_size=1, max_size=30).map(lambda t: urllib.parse.quote(t, safe="")),
                    # percent-encoded bytes that are not UTF-8
                    st.binary(min_size=1, max_size=12).map(
                        lambda b: urllib.parse.quote_from_bytes(b, safe="")
                    ),
                )
            )
        )
    pairs = draw(st.dictionaries(st.one_of(st.sampled_from(QUERY_KEYS), texts), texts, max_size=4))
    query = urllib.parse.urlencode(pairs)
    if draw(st.booleans()):  # a value that is not UTF-8
        key = draw(st.sampled_from(QUERY_KEYS))
        raw = draw(st.binary(min_size=1, max_size=8))
        query += ("&" if query else "") + f"{key}={urllib.parse.quote_from_bytes(raw)}"
    body = draw(
        st.one_of(
            st.none(),
            json_values.map(lambda v: json.dumps(v).encode()),
            st.dictionaries(st.sampled_from(BODY_KEYS), json_values, max_size=4).map(
                lambda v: json.dumps(v).encode()
            ),
            st.binary(max_size=40),
        )
    )
    return route, verb.upper(), query, body, "/".join(segments)


def _wait_for_job(srv: Server, url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, raw = call(srv, "GET", url.split("?")[0])
        if status != 200 or json.loads(raw).get("state") != "running":
            return
        time.sleep(0.1)
    raise AssertionError(f"the reorganize job of {url} did not end")


def _url(srv: Server, route: str, segments: list[str], query: str) -> str:
    """``segments`` are URL-encoded already (or placeholders for the seeded ids)."""
    real = {"PROPOSAL": srv.ids["proposal"], "MEMORY": srv.ids["memory"]}
    parts = iter(urllib.parse.quote(real.get(s, s), safe="%") for s in segments)
    path = re.sub(r"\(\[\^/\]\+\)", lambda _: next(parts), route)
    return f"/jupyter-memory/{path}" + (f"?{query}" if query else "")


# 20 requests per route and verb (about 700 against the one server): each run draws new ones
# (no fixed seed), so runs add up; JM_FUZZ_EXAMPLES=200 for a deeper pass by hand.
FUZZ_EXAMPLES = int(os.environ.get("JM_FUZZ_EXAMPLES", "20"))


@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@pytest.mark.parametrize(("route", "verb"), ROUTE_VERBS)
@given(data=st.data())
def test_no_route_answers_500_and_a_refusal_changes_nothing(
    server: Server, route: str, verb: str, data: st.DataObject
):
    route, method, query, body, joined = data.draw(requests(route, verb))
    segments = joined.split("/") if joined else []
    url = _url(server, route, segments, query)
    if method in ("POST", "PUT", "PATCH") and body is None:
        body = b""
    before = stored(server.home)
    status, raw = call(server, method, url, body)
    assert status < 500, (method, url, body, status, raw[:500])
    if status == 202:  # a reorganize job writes after the answer: wait for it to end
        _wait_for_job(server, url)
    if status >= 400:
        after = stored(server.home)
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        tail = (server.home / "audit.jsonl").read_text("utf-8").splitlines()[-2:]
        assert not changed, (method, url, body, status, raw[:300], changed, tail)
        if status in (404, 405) and not raw.startswith(b"{"):
            return  # tornado's own answer for a path or verb no route takes
        data = json.loads(raw)
        assert data.get("message"), (method, url, body, data)
        if status == 422:
            field = data.get("field")
            assert field, (method, url, body, data)
            assert str(field).split("[")[0].split(".")[0] in data["message"], data


def test_an_unknown_path_parameter_names_its_field(server: Server):
    for method, path in [("GET", "knowledge/team"), ("POST", "knowledge/全部/reorganize")]:
        url = "/jupyter-memory/" + urllib.parse.quote(path)
        status, raw = call(server, method, url, b"{}" if method == "POST" else None)
        data = json.loads(raw)
        assert status == 404 and data["field"] == "layer", data
        assert data["message"].startswith("layer: "), data
    status, raw = call(
        server, "POST", "/jupyter-memory/queue/not%20an%20id/apply", b'{"to": "user"}'
    )
    data = json.loads(raw)
    assert status == 422 and data["field"] == "id", data
