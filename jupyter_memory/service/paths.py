"""Resolve the memory home and project folders (policy, not I/O beyond stat)."""

from __future__ import annotations

import os
from pathlib import Path

from ..core.names import validate_project_id
from ..exceptions import NotFoundError, ValidationError

ENV_HOME = "JUPYTER_MEMORY_HOME"


def default_home() -> Path:
    env = os.environ.get(ENV_HOME)
    if env:
        return Path(env).expanduser()
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "memory"


def resolve_home(home: str | os.PathLike[str] | None) -> Path:
    path = Path(home).expanduser() if home is not None else default_home()
    if path.exists() and not path.is_dir():
        raise ValidationError(f"{path} exists and is not a folder", field="home")
    return path.resolve()


def resolve_project_dir(project: str | os.PathLike[str], known: dict[str, str]) -> tuple[str, Path]:
    """A project folder, or the id of a project focused before; returns (id, folder)."""
    text = os.fspath(project)
    if not text:
        raise ValidationError("must not be empty", field="project")
    candidate = Path(text).expanduser()
    if candidate.is_dir():
        folder = candidate.resolve()
        return validate_project_id(folder.name or "root", field="project"), folder
    if os.sep in text or "/" in text or text.startswith((".", "~")):
        raise NotFoundError(f"project folder {text!r} does not exist")
    validate_project_id(text)
    if text in known:
        return text, Path(known[text])
    raise NotFoundError(
        f"unknown project {text!r}: pass its folder (e.g. --project ./{text}) the first time"
    )
