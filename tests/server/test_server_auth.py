"""Authentication, XSRF and authorization on every route of ``/jupyter-memory/``."""

from __future__ import annotations

import json
import warnings

import pytest
from jupyter_server.auth import Authorizer
from jupyter_server.serverapp import ServerApp
from jupyter_server.utils import JupyterServerAuthWarning
from tornado.httpclient import HTTPClientError

from jupyter_memory.server.routes import ROUTES

VERBS = ("get", "post", "put", "patch", "delete")


def _calls() -> list[tuple[str, str]]:
    """(METHOD, path) for every verb every handler defines."""
    out = []
    for pattern, handler in ROUTES:
        path = pattern.replace("([^/]+)", "user" if pattern.startswith("knowledge") else "x1")
        out += [(v.upper(), path) for v in VERBS if v in vars(handler)]
    return out


CALLS = _calls()


def test_every_route_is_covered():
    assert len(CALLS) >= 15
    assert ("POST", "queue/x1/apply") in CALLS and ("PUT", "knowledge/user") in CALLS


def test_every_verb_is_decorated_for_authentication():
    """jupyter_server warns about handlers without @web.authenticated; none may be ours."""
    app = ServerApp(
        allow_unauthenticated_access=False,
        jpserver_extensions={"jupyter_memory": True},
        reraise_server_extension_failures=True,
    )
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        app.initialize(argv=[], find_extensions=False, new_httpserver=False)
    ours = [
        str(r.message)
        for r in records
        if issubclass(r.category, JupyterServerAuthWarning) and "jupyter-memory" in str(r.message)
    ]
    assert "jupyter_memory" in app.web_app.settings, "the extension did not load"
    assert ours == []


@pytest.mark.parametrize(("method", "path"), CALLS)
async def test_request_without_token_is_refused(jp_fetch, method, path):
    kwargs = {"body": "{}"} if method in ("POST", "PUT") else {}
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch(
            "jupyter-memory",
            *path.split("/"),
            method=method,
            headers={"Authorization": ""},
            **kwargs,
        )
    assert err.value.code == 403


async def _login_cookie(jp_fetch, jp_serverapp) -> str:
    token = jp_serverapp.identity_provider.token
    resp = await jp_fetch(
        "jupyter-memory", "projects", params={"token": token}, headers={"Authorization": ""}
    )
    cookies = resp.headers.get_list("Set-Cookie")
    assert cookies, "a token in the URL should set the login cookie"
    return "; ".join(c.split(";", 1)[0] for c in cookies)


async def test_cross_site_post_without_xsrf_header_is_refused(jp_fetch, jp_serverapp, jp_root_dir):
    (jp_root_dir / "sales-q3").mkdir()
    cookie = await _login_cookie(jp_fetch, jp_serverapp)
    body = json.dumps({"path": "sales-q3"})
    # Logged in by cookie (as a browser is), but no XSRF token: refused, nothing written.
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch(
            "jupyter-memory",
            "projects",
            method="POST",
            body=body,
            headers={"Authorization": "", "Cookie": cookie},
        )
    assert err.value.code == 403
    assert b"_xsrf" in err.value.response.body
    resp = await jp_fetch("jupyter-memory", "projects")
    assert json.loads(resp.body) == {"projects": []}
    # The same request with the XSRF cookie echoed in the header goes through.
    xsrf = "0123456789abcdef0123456789abcdef"
    resp = await jp_fetch(
        "jupyter-memory",
        "projects",
        method="POST",
        body=body,
        headers={"Authorization": "", "Cookie": f"{cookie}; _xsrf={xsrf}", "X-XSRFToken": xsrf},
    )
    assert resp.code == 201


class ReadOnlyAuthorizer(Authorizer):
    """A deployment that lets people read the memory but not approve knowledge."""

    def is_authorized(self, handler, user, action, resource):
        return resource != "jupyter_memory:approve"


class TestReadOnlyDeployment:
    @pytest.fixture
    def jp_server_config(self):
        return {
            "ServerApp": {
                "jpserver_extensions": {"jupyter_memory": True},
                "allow_unauthenticated_access": False,
                "authorizer_class": ReadOnlyAuthorizer,
            }
        }

    async def test_reads_allowed_approvals_refused(self, api, jp_root_dir):
        code, _ = await api("GET", "projects")
        assert code == 200
        (jp_root_dir / "p").mkdir()
        for method, path in CALLS:
            if method == "GET":
                continue
            code, data = await api(method, *path.split("/"))
            assert code == 403, (method, path, data)
