"""Secrets never stored: the service's one door for the person's and agents' texts.

Every captured cell and chat text is redacted here before it is written
(``recent/person-text.json``, the digest inbox, a round's evidence, a gotcha's
quote), so digests, extraction and evidence only ever see ``⟨redacted: kind⟩``.
Text that would become knowledge or a memory as it stands (a proposal, a
``remember``) is refused instead, naming the kinds (:class:`SecretError`).

The detector (core/secrets) is imported on first use: a kernel that captures
nothing does not pay for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._i18n import N_, Message
from ..exceptions import SecretError

TEXT_FIELDS = ("text", "content", "source")


def redacted(text: str) -> str:
    """``text`` with its secrets replaced by ``⟨redacted: kind⟩``."""
    from ..core.secrets.detector import redact

    return redact(text) if isinstance(text, str) and text else text


def kinds_in(text: str) -> tuple[str, ...]:
    """The kinds of secret in ``text`` (empty when none)."""
    from ..core.secrets.detector import secret_kinds

    return secret_kinds(text) if isinstance(text, str) and text else ()


def redacted_records(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each record (a message or a cell) with its text fields redacted."""
    out = []
    for record in records:
        clean = dict(record)
        for field in TEXT_FIELDS:
            if isinstance(clean.get(field), str):
                clean[field] = redacted(clean[field])
        out.append(clean)
    return out


def refuse_secrets(message: str, **texts: str | None) -> None:
    """Raise :class:`SecretError` naming the field and kinds when any text holds a secret.

    ``message`` is one of the refusals below (marked with ``N_``), with a ``{kinds}`` field.
    """
    for field, text in texts.items():
        kinds = kinds_in(text or "")
        if kinds:
            raise SecretError(
                Message(message, {"kinds": ", ".join(kinds)}), kinds=kinds, field=field
            )


# The refusals, marked for the catalogue; formatted (and translated) where shown.
PROPOSAL_REFUSED = N_("refused: holds a secret ({kinds}); secrets never become knowledge")
REMEMBER_REFUSED = N_(
    "holds a secret ({kinds}): not saved; pass --allow-secret (allow_secret=True) "
    "to keep it in your user layer only"
)
PROJECT_REFUSED = N_(
    "holds a secret ({kinds}): never saved in a project layer, whose files are shared "
    "with the team; save it in your user layer (--user)"
)
CASE_NOTE_REFUSED = N_(
    "holds a secret ({kinds}): not written to case memory, whose files are shared; "
    "leave the secret out (and rotate it)"
)
