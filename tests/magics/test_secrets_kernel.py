"""Secrets typed in a real kernel's cells are stored nowhere (issue 29, finding 1).

The kernel loads the extension and runs a cell per kind of secret, a
``%remember`` of a password (refused) and a digest; then every file under the
memory home and the project folder (names and bytes) is searched for each secret.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_memory import Memory
from tests.support.kernels import execute, kernel_env, new_notebook

pytestmark = pytest.mark.slow

# Made-up secrets, one per kind the issue names.
AWS_ID = "AKIAQX3VLDRKZ7Q4WN2M"
AWS_SECRET = "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"
DSN_PASSWORD = "Sup3rS3cretPw"
CONN_PASSWORD = "Tr0ub4dorX3y"
BEARER = "9fK2mQ7xL4pZ8vN3bR6tY1wE"
OPENAI = "sk-proj-Ab3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5"
ENV_PASSWORD = "hunter2pwQ"
ENV_TOKEN = "xoxb-1234567890-0987654321-Ab3cD4eF5gH6iJ7kL8mN9oP0"
KEY_BODY = "MIIEowIBAAKCAQEAx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zx9Yw8Vu7Ts6Rq5Po4Nm3L"
REMEMBERED = "Wh4tAb0utTh1s"
SECRETS = [
    AWS_ID,
    AWS_SECRET,
    DSN_PASSWORD,
    CONN_PASSWORD,
    BEARER,
    OPENAI,
    ENV_PASSWORD,
    ENV_TOKEN,
    KEY_BODY,
    REMEMBERED,
]
CELLS = [
    f'aws_access_key_id = "{AWS_ID}"\naws_secret_access_key = "{AWS_SECRET}"',
    f'dsn = "postgresql://analyst:{DSN_PASSWORD}@db.internal:5432/sales"',
    f'conn_str = "Server=db;Database=sales;User Id=sa;Password={CONN_PASSWORD};"',
    f'headers = {{"Authorization": "Bearer {BEARER}"}}',
    f'OPENAI_API_KEY = "{OPENAI}"',
    f'env = """DB_PASSWORD={ENV_PASSWORD}\nSLACK_TOKEN={ENV_TOKEN}\nDEBUG=true"""',
    f'pem = """-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----"""',
    # A cell the person marks as a note: the extractor would propose it.
    f"# note: always connect with password {REMEMBERED}1 to the warehouse\nx = 1",
    f"%remember the warehouse password is {REMEMBERED}",
    f"%remember --title 'password {REMEMBERED}' connect to the warehouse",
]


def everything_under(*roots: Path) -> str:
    parts = []
    for root in roots:
        for path in root.rglob("*"):
            parts.append(str(path))
            if path.is_file():
                parts.append(path.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def test_no_secret_typed_in_a_cell_is_stored_anywhere(tmp_path: Path, memory_home: Path) -> None:
    project = tmp_path / "sales-q3"
    project.mkdir()
    nb = new_notebook(
        ["%load_ext jupyter_memory", f"%memory focus {project}", *CELLS, "%memory digest"]
    )
    env = kernel_env(
        JUPYTER_MEMORY_HOME=str(memory_home), JPY_SESSION_NAME=str(project / "orders.ipynb")
    )
    # the refused %remember cells raise UsageError
    execute(nb, project, env, allow_errors=True, timeout=180)
    said = [
        (o.get("evalue") or o.get("text") or "")
        for c in nb.cells
        for o in c.get("outputs", [])
        if o.output_type == "error" or o.get("name") == "stderr"
    ]
    refused = [t for t in said if "holds a secret" in t]
    assert len(refused) == 2, said  # both %remember cells
    assert all(REMEMBERED not in t for t in refused)
    with Memory(memory_home) as mem:
        mem.digest()  # what the kernel's cells left in the inbox, digested here too
    stored = everything_under(memory_home, project)
    assert (memory_home / "recent").is_dir()  # the cells were captured
    assert "⟨redacted:" in stored
    leaked = [s for s in SECRETS if s in stored or s.lower() in stored.lower()]
    assert leaked == []
