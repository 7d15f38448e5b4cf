"""``doctor``'s secret check: which stored file holds a secret, and ``--fix`` for derived ones.

Names the file and the kinds of secret, never the secret. Only the derived
copies of the person's text (``recent/``, the digest inbox) are rewritten by
``--fix``; a memory, a knowledge file or a proposal is the person's to edit
(or forget), so it is only reported, with what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._i18n import M_, Message
from ..store.secret_files import derived_files, rewrite_json_strings, text_files
from .context import ServiceContext
from .results import MappingResult
from .secret_guard import kinds_in, redacted

KIND = "secret"


@dataclass(frozen=True, eq=False)
class SecretFinding(MappingResult):
    """A stored file that holds secrets: its path and their kinds (never the text)."""

    path: str
    kinds: tuple[str, ...]
    derived: bool

    def message(self) -> Message:
        kinds = ", ".join(self.kinds)
        if self.derived:
            return M_(
                "holds a secret ({kinds}); run `jupyter-memory doctor --fix` to redact it",
                kinds=kinds,
            )
        return M_(
            "holds a secret ({kinds}); edit the text or forget it (and rotate the secret)",
            kinds=kinds,
        )

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kinds": list(self.kinds), "derived": self.derived}


@dataclass(frozen=True, eq=False)
class SecretFix(MappingResult):
    """What ``doctor --fix`` redacted."""

    redacted: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"redacted": list(self.redacted)}


class SecretDoctor:
    """Searches every storage root for secrets; redacts the derived files on request."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx

    def scan(self) -> list[SecretFinding]:
        derived = {str(p) for p in derived_files(self.ctx.home)}
        folders = [self.ctx.home, *(r.root for r in self.ctx.projects.roots())]
        seen: set[str] = set()
        found = []
        for folder in folders:
            for path, text in text_files(folder):
                if str(path) in seen:
                    continue
                seen.add(str(path))
                kinds = kinds_in(text)
                if kinds:
                    found.append(SecretFinding(str(path), kinds, str(path) in derived))
        return found

    def findings(self) -> tuple[list[tuple[str, str, str]], list[str]]:
        """As a doctor check: (path, kind, message) problems, no notices."""
        return [(f.path, KIND, f.message()) for f in self.scan()], []

    def fix(self) -> SecretFix:
        """Redact the secrets in the derived files (recorded texts, digest inbox)."""
        done = [
            str(p)
            for p in derived_files(self.ctx.home)
            if rewrite_json_strings(p, self.ctx.home, redacted)
        ]
        return SecretFix(done)


__all__ = ["SecretDoctor", "SecretFinding", "SecretFix"]
