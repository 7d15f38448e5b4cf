"""The person's switches (``settings.json`` in the memory home) and the LLM they configured."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from .._i18n import M_
from ..core.llm import LLMClient
from ..exceptions import ParseError, ValidationError
from ..store.audit import AuditLog
from ..store.knowledge.files import SettingsFile
from ..store.root import StoreRoot
from ..store.storage import STORAGE_CHOICES
from .llm_budget import DEFAULT_LLM_BUDGET, LLMBudget, check_llm_budget

DEFAULT_SETTINGS: dict[str, Any] = {
    "enabled": True,
    "auto_suggestions": True,
    "extract_max_messages": 8,
    "llm": None,
    # May agent recall return memories the person has not reviewed? (issue 8; off)
    "agent_unreviewed": False,
    # Re-sync an existing AGENTS.md block after each Apply to the Project layer (off).
    "agents_md_autosync": False,
    # One daily budget for every background LLM use (llm_budget.py, issue 32).
    "llm_budget": dict(DEFAULT_LLM_BUDGET),
}
BOOLEAN_SETTINGS = ("enabled", "auto_suggestions", "agent_unreviewed", "agents_md_autosync")


class Settings:
    """Read and change the switches; every change is a person's act and is audited."""

    def __init__(
        self, user: StoreRoot, audit: AuditLog, actor: str, clock: Callable[[], datetime]
    ) -> None:
        self.user = user
        self.audit = audit
        self.actor = actor
        self.clock = clock
        self._llm: LLMClient | None = None
        self._llm_set = False
        self.budget = LLMBudget(user.root, self.read, clock)

    def read(self) -> dict[str, Any]:
        """The switches: ``enabled`` (master), ``auto_suggestions``, ``extract_max_messages``, ``llm``."""
        stored = SettingsFile(self.user.layout).read()
        out = dict(DEFAULT_SETTINGS)
        for key in DEFAULT_SETTINGS:
            if key in stored:
                out[key] = stored[key]
        for key in BOOLEAN_SETTINGS:
            if not isinstance(out[key], bool):
                raise ParseError(
                    M_("field {key!r} must be true or false", key=key),
                    path=self.user.layout.settings,
                )
        try:
            out["llm_budget"] = check_llm_budget(out["llm_budget"])
        except ValidationError as exc:
            raise ParseError(
                M_("field 'llm_budget': {why}", why=str(exc)), path=self.user.layout.settings
            ) from exc
        return out

    def update(
        self,
        *,
        enabled: bool | None = None,
        auto_suggestions: bool | None = None,
        extract_max_messages: int | None = None,
        llm: dict[str, str] | None = None,
        agent_unreviewed: bool | None = None,
        agents_md_autosync: bool | None = None,
        llm_budget: dict[str, int] | None = None,
    ) -> dict[str, Any]:
        """Persist switches (a person's act); returns the new settings."""
        changes: dict[str, Any] = {}
        for key, value in (
            ("enabled", enabled),
            ("auto_suggestions", auto_suggestions),
            ("agent_unreviewed", agent_unreviewed),
            ("agents_md_autosync", agents_md_autosync),
        ):
            if value is not None:
                if not isinstance(value, bool):
                    raise ValidationError(M_("must be true or false"), field=key)
                changes[key] = value
        if extract_max_messages is not None:
            if not isinstance(extract_max_messages, int) or not 1 <= extract_max_messages <= 100:
                raise ValidationError(
                    M_("must be an integer from 1 to 100"), field="extract_max_messages"
                )
            changes["extract_max_messages"] = extract_max_messages
        if llm_budget is not None:
            current = check_llm_budget(self.read()["llm_budget"])
            changes["llm_budget"] = check_llm_budget({**current, **dict(llm_budget)})
        if llm is not None:
            from .llm_http import check_llm_config

            changes["llm"] = check_llm_config(llm)
            self._llm_set = False
        if changes:
            with self.user.locked():
                SettingsFile(self.user.layout).update(changes)
            self.audit.append(
                "settings",
                actor=self.actor,
                at=self.clock(),
                **{k: str(v) for k, v in changes.items()},
            )
        return self.read()

    def project_storage(self, folder: Path) -> str | None:
        """The person's storage choice for a project folder, ``None`` for auto-detection."""
        table = SettingsFile(self.user.layout).read().get("project_storage") or {}
        if not isinstance(table, dict):
            raise ParseError(
                M_("field 'project_storage' must be an object of folder → choice"),
                path=self.user.layout.settings,
            )
        choice = table.get(os.path.abspath(folder))
        return choice if choice in ("local", "network") else None

    def set_project_storage(self, folder: Path, choice: str) -> str:
        """Choose local or network storage for a project folder, or ``auto`` (detect)."""
        if choice not in STORAGE_CHOICES:
            raise ValidationError(
                M_(
                    "{choice!r} is not one of: {choices}",
                    choice=choice,
                    choices=", ".join(STORAGE_CHOICES),
                ),
                field="storage",
            )
        key = os.path.abspath(folder)
        with self.user.locked():
            sfile = SettingsFile(self.user.layout)
            table = dict(sfile.read().get("project_storage") or {})
            if choice == "auto":
                table.pop(key, None)
            else:
                table[key] = choice
            sfile.update({"project_storage": table})
        self.audit.append(
            "settings", actor=self.actor, at=self.clock(), project_storage=f"{key}={choice}"
        )
        return choice

    @property
    def enabled(self) -> bool:
        return bool(self.read()["enabled"])

    @property
    def llm(self) -> LLMClient | None:
        """The configured LLM client, or ``None`` (the deterministic default)."""
        if not self._llm_set:
            config = self.read().get("llm")
            if config:
                from .llm_http import OpenAICompatibleClient

                self._llm = OpenAICompatibleClient.from_config(config)
            self._llm_set = True
        return self._llm

    @llm.setter
    def llm(self, client: LLMClient | None) -> None:
        self._llm, self._llm_set = client, True
