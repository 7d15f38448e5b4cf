"""Our rules for what gitleaks' default set leaves to context: secrets in notebook text.

gitleaks finds keys by their shape (AKIA…, ghp_…, private key blocks) and a
generic ``key = value`` rule tuned for source files. A notebook also holds a
DSN with a password, a ``password=`` connection string, a bearer token pasted
from a curl line, a ``.env`` dump, today's ``sk-…`` keys and names in Chinese
(密码, 口令, 密钥). Each rule is (kind, regex, keywords, min entropy of the
secret, min length) with the secret in the group named ``s``.

The values must keep ordinary analysis code quiet: ``df['key']``,
``token_count = 5``, ``password = getpass()``, a commit id under ``key`` are
not secrets (tests/core/test_secrets.py lists the cases).
"""

from __future__ import annotations

# What a password-like name may be called; other names need a high-entropy value.
PASSWORD_NAMES = r"(?:password|passwd|passphrase|pwd|pass|密码|口令)"
SECRET_NAMES = (
    r"(?:secret|token|api[_.-]?key|apikey|access[_.-]?key|private[_.-]?key|client[_.-]?secret"
    r"|auth|credentials?|key|密钥|秘钥|令牌|凭证)"
)
_NAME_EDGE = r"(?<![A-Za-z0-9])"  # a name starts a word (or follows _ . -: DB_PASSWORD)
# Templated values and references are not secrets: ${VAR}, <password>, ****, {{ x }}, %(x)s.
TEMPLATED_VALUE = (
    r"(?i)^(?:\$\{?[\w.]+\}?|<[^>]*>|\*+|x+|\.+|\{\{.*\}\}|%\(\w+\)s|\{\w*\}|changeme|none|null"
    r"|true|false|password|secret|your[_-]?\w+|example\w*|redacted|xxx\w*)$"
)
# Python expressions are names, not values: getpass, os.environ, settings.KEY.
IDENTIFIER_CHAIN = r"^[A-Za-z_][A-Za-z_.]*$"

OWN_RULES: tuple[tuple[str, str, tuple[str, ...], float, int], ...] = (
    (
        "dsn-password",
        # scheme://user:PASSWORD@host — only the password is the secret
        r"(?i)\b[a-z][a-z0-9+.-]{1,30}://[^\s:/@'\"]{1,100}:(?P<s>[^\s@/'\"]{1,200})@[\w.\[\]-]",
        ("://",),
        0.0,
        1,
    ),
    (
        "connection-string-password",
        # host=…;password=hunter2; — inside a string, ended by ; a quote or the line
        r"(?i)(?:^|[;\s'\"(,])(?:password|passwd|pwd)\s*=\s*(?P<s>[^;'\"\s,()\[\]]{3,200})"
        r"(?=[;'\"]|\s|$)",
        ("password", "passwd", "pwd"),
        0.0,
        3,
    ),
    (
        "password-in-prose",
        # "the password is Sup3rS3cret", a title "password sup3rs3cretpw": a word
        # with letters and digits after the name
        r"(?i)(?:password|passwd|pwd|密码|口令)(?:[ \t]+(?:is|was)[ \t]+|[ \t]*(?:为|是)[ \t]*|[ \t]+)['\"]?"
        r"(?P<s>(?=[^\s'\"]*\d)(?=[^\s'\"]*[A-Za-z])[^\s'\"，。]{6,100})",
        ("password", "passwd", "pwd", "密码", "口令"),
        0.0,
        6,
    ),
    (
        "bearer-token",
        r"(?i)\bbearer\s+(?P<s>[A-Za-z0-9\-._~+/]{16,}=*)",
        ("bearer",),
        3.0,
        16,
    ),
    (
        "openai-api-key",
        r"(?<![\w-])(?P<s>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})",
        ("sk-",),
        3.5,
        23,
    ),
    (
        "aws-secret-key",
        r"(?i)aws.{0,20}?(?:secret|sk)[\w.-]{0,20}['\"]?\s*(?::|=|=>)\s*['\"]?"
        r"(?P<s>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        ("aws",),
        3.0,
        40,
    ),
)

# name = "value", name: 'value', "name": "value" (JSON), NAME=value (.env), 密码：value
ASSIGNMENT = (
    r"(?im)"
    + _NAME_EDGE
    + r"(?P<name>[\w.-]{0,40}?(?:"
    + PASSWORD_NAMES
    + "|"
    + SECRET_NAMES
    + r")"
    r"[\w.-]{0,20})['\"]?\s*(?::=|=>|[:=：])\s*"
    r"(?:(?P<q>['\"])(?P<s>[^'\"\s]{6,200})(?P=q)"
    r"|(?P<u>[^\s'\"(\[{,;]{6,200})(?=\s*$))"
)
PASSWORD_NAME = r"(?i)" + PASSWORD_NAMES
ASSIGNMENT_KEYWORDS = (
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "auth",
    "credential",
    "密码",
    "口令",
    "密钥",
    "秘钥",
    "令牌",
    "凭证",
)
# A password may be short and plain (hunter2); a token or key is long and random.
PASSWORD_MIN = (6, 2.0)
SECRET_MIN = (16, 3.5)

__all__ = [
    "ASSIGNMENT",
    "ASSIGNMENT_KEYWORDS",
    "IDENTIFIER_CHAIN",
    "OWN_RULES",
    "PASSWORD_MIN",
    "PASSWORD_NAME",
    "TEMPLATED_VALUE",
    "SECRET_MIN",
]
