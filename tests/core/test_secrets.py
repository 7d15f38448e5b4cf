"""The secret detector (core/secrets): each kind found, analysis code left alone, redaction safe."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_memory.core.secrets.detector import find_secrets, redact, secret_kinds

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import vendor_gitleaks  # noqa: E402

# (kind, the cell as typed, the secret in it). Keys are made up for the test.
AWS_ID = "AKIAQX3VLDRKZ7Q4WN2M"
AWS_SECRET = "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"
OPENAI = "sk-proj-Ab3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5"
PRIVATE_BODY = "MIIEowIBAAKCAQEAx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zx9Yw8Vu7Ts6Rq5Po4Nm3L"
PRIVATE = f"-----BEGIN RSA PRIVATE KEY-----\n{PRIVATE_BODY}\n-----END RSA PRIVATE KEY-----"
CASES = [
    ("aws-access-key", f'aws_access_key_id = "{AWS_ID}"', AWS_ID),
    ("aws-secret-key", f'aws_secret_access_key = "{AWS_SECRET}"', AWS_SECRET),
    (
        "dsn-password",
        'engine = create_engine("postgresql://analyst:Sup3rS3cretPw@db.internal:5432/sales")',
        "Sup3rS3cretPw",
    ),
    (
        "connection-string-password",
        'cs = "Server=db;Database=sales;User Id=sa;Password=Tr0ub4dor&3x;"',
        "Tr0ub4dor&3x",
    ),
    (
        "bearer-token",
        'requests.get(url, headers={"Authorization": "Bearer 9fK2mQ7xL4pZ8vN3bR6tY1wE"})',
        "9fK2mQ7xL4pZ8vN3bR6tY1wE",
    ),
    ("openai-api-key", f'client = OpenAI(api_key="{OPENAI}")', OPENAI),
    ("secret-assignment", "DB_PASSWORD=hunter2pw\nDEBUG=1", "hunter2pw"),
    ("secret-assignment", '密码 = "Sup3r密码1"', "Sup3r密码1"),
    ("secret-assignment", "口令：ab12cd34ef", "ab12cd34ef"),
    ("generic-api-key", '"client_secret": "Qm9vZ2llV29vZ2llMjAyNQx"', "Qm9vZ2llV29vZ2llMjAyNQx"),
    ("private-key", PRIVATE, PRIVATE_BODY),
    ("github-pat", 'token = "ghp_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"', "ghp_aB3dE5"),
]
# Ordinary analysis code: none of it is a secret.
SAFE = [
    "df['key'].value_counts()",
    "token_count = 5",
    "password = getpass()",
    "password = os.environ['DB_PASSWORD']",
    "conn = connect(host=h, password=pw)",
    "key = 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3'",
    "commit_id = '9fceb02d0ae598e95dc970b74767f19372d61af8'",
    "for key, value in d.items(): print(key)",
    "token = tokenizer(text)",
    "api = requests.get(url, params={'key': k})",
    'url = "postgresql://localhost:5432/sales"',
    'dsn = "postgresql://user:${DB_PASSWORD}@db/sales"',
    "auth = None",
    "tokens = text.split()",
    "monthly = df.groupby(df['date'].dt.to_period('M'))['revenue'].sum()",
    "# the API key lives in the vault; ask Alice",
    "sort_key = lambda row: row['revenue']",
    "password_min_length = 12",
    "!pwd\ndata2024/",
    "# the password reset flow is documented in the wiki",
]


@pytest.mark.parametrize(("kind", "cell", "secret"), CASES, ids=[c[1][:30] for c in CASES])
def test_each_kind_is_found_and_redacted(kind: str, cell: str, secret: str) -> None:
    assert kind in secret_kinds(cell)
    out = redact(cell)
    assert secret not in out
    assert f"⟨redacted: {kind}⟩" in out


def test_a_dotenv_dump_loses_every_value() -> None:
    dump = (
        "DB_PASSWORD=hunter2pw\nSECRET_KEY=django-insecure-8f#k2@x!q9z$w7v\n"
        f"AWS_ACCESS_KEY_ID={AWS_ID}\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\nDEBUG=true\n"
    )
    out = redact(dump)
    for secret in ("hunter2pw", "django-insecure-8f#k2@x!q9z$w7v", AWS_ID, AWS_SECRET):
        assert secret not in out
    assert "DEBUG=true" in out


def test_only_the_password_of_a_dsn_goes() -> None:
    out = redact('e = create_engine("postgresql://analyst:Sup3rS3cretPw@db.internal/sales")')
    assert (
        out
        == 'e = create_engine("postgresql://analyst:⟨redacted: dsn-password⟩@db.internal/sales")'
    )


@pytest.mark.parametrize("cell", SAFE)
def test_analysis_code_is_not_a_secret(cell: str) -> None:
    assert find_secrets(cell) == ()
    assert redact(cell) == cell


SECRETS = st.sampled_from(CASES)
FILLER = st.sampled_from(SAFE + ["", "x = 1", "print(df.head())", "# 月度收入"])


@settings(max_examples=150, deadline=None)
@given(SECRETS, st.lists(FILLER, max_size=4), st.lists(FILLER, max_size=4))
def test_redaction_removes_the_secret_and_is_idempotent(case, before, after) -> None:
    _, cell, secret = case
    text = "\n".join([*before, cell, *after])
    once = redact(text)
    assert secret not in once
    assert redact(once) == once
    assert find_secrets(once) == ()


@settings(max_examples=200, deadline=None)
@given(st.lists(FILLER, min_size=1, max_size=8))
def test_safe_text_is_unchanged(lines) -> None:
    text = "\n".join(lines)
    assert redact(text) == text


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_redacting_any_text_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_the_vendored_rules_module_is_what_the_gitleaks_file_gives() -> None:
    assert vendor_gitleaks.main(["--check"]) == 0


@pytest.mark.parametrize(
    ("go", "python"),
    [
        (r"\b(p8e-(?i)[a-z0-9]{32})", r"\b(p8e-(?i:[a-z0-9]{32}))"),
        (r"a(?i)b|c", r"a(?i:b)|(?i:c)"),
        (r"(?i)abc", r"(?i)abc"),
        (r"x(?:\s|\z)", r"x(?:\s|\Z)"),
        (r"pat[[:alnum:]]{14}", r"pat[a-zA-Z0-9]{14}"),
    ],
)
def test_go_regex_syntax_is_translated(go: str, python: str) -> None:
    assert vendor_gitleaks.translate(go) == python


def test_a_slug_is_made_from_the_redacted_title() -> None:
    from jupyter_memory.core.names import slugify

    slug = slugify("Warehouse password sup3rs3cretpw")
    assert "sup3rs3cretpw" not in slug and "redacted" in slug
    assert slugify("Revenue excludes refunds") == "revenue-excludes-refunds"


def test_our_own_ids_are_never_secrets() -> None:
    # A memory id's random part can spell "key" or "token"; beside another id or a
    # long word after a colon, gitleaks' generic rule read it as an assignment
    # (the doctor then flagged the home's own files).
    for text in (
        "m-01rcz0b1m0z8a4keyx0f = m-01rcz0b1m0z8a4abcdef\n",
        "related: m-01rcz0b1m0z8a4tokenx, m-01rcz0b1m0z8a4abcdef\n",
        "- p-01rcz0b1m0z8a4keyx0f: Refunds_are_booked_separately\n",
    ):
        assert find_secrets(text) == (), text


def test_a_secret_beside_an_id_is_still_found() -> None:
    text = "m-01rcz0b1m0z8a4keyx0f: api_key = 'Zq8vT3kLmN0pRs7uWx2yBc4d'\n"
    (hit,) = find_secrets(text)
    assert text[hit.start : hit.end] == "Zq8vT3kLmN0pRs7uWx2yBc4d"
