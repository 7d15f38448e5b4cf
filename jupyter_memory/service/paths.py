"""Resolve the memory home and project folders (policy, not I/O beyond stat)."""

from __future__ import annotations

import os
from pathlib import Path

from .._i18n import M_
from ..core.names import validate_project_id
from ..exceptions import NotFoundError, PolicyError, ValidationError

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
        raise ValidationError(M_("{path} exists and is not a folder", path=path), field="home")
    return path.resolve()


class RegisteredProject(str):
    """The id of a project the person registered, as an agent may name it.

    Built only by :func:`registered_project`. Whatever ``Memory`` method it
    reaches, it resolves among the registered projects alone: it never consults
    the working folder and never registers (issue 19).
    """


HOW_TO_REGISTER = M_(
    "an agent names a project by its registered id or by the folder of a registered project; "
    "the person registers a folder with `%memory focus FOLDER` or `jupyter-memory --project FOLDER`"
)


def _looks_like_path(text: str) -> bool:
    return os.sep in text or "/" in text or text.startswith((".", "~"))


def resolve_project_dir(project: str | os.PathLike[str], known: dict[str, str]) -> tuple[str, Path]:
    """A project folder, or the id of a project focused before; returns (id, folder).

    A registered id means its registered folder even when the working folder
    holds a folder of that name (a planted copy must not re-point it); to move a
    project, name its new folder as a path (``./myproj``).
    """
    if isinstance(project, RegisteredProject):
        return registered_project(project, known)
    text = os.fspath(project)
    if not text:
        raise ValidationError(M_("must not be empty"), field="project")
    if not _looks_like_path(text) and text in known and Path(known[text]).is_dir():
        return text, Path(known[text])
    candidate = Path(text).expanduser()
    if candidate.is_dir():
        folder = candidate.resolve()
        return validate_project_id(folder.name or "root", field="project"), folder
    if _looks_like_path(text):
        raise NotFoundError(M_("project folder {text!r} does not exist", text=text))
    validate_project_id(text)
    if text in known:
        return text, Path(known[text])
    raise NotFoundError(
        M_(
            "unknown project {text!r}: pass its folder (e.g. --project ./{text}) the first time",
            text=text,
        )
    )


def _resolved(path: str) -> Path | None:
    try:
        return Path(path).expanduser().resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # missing, a link loop, a NUL byte
        return None


def registered_project(project: object, known: dict[str, str]) -> tuple[RegisteredProject, Path]:
    """What an agent's ``project`` argument names, among registered projects only.

    A registered id, or a path that resolves (links followed) to a registered
    project's folder, which then means that project. Anything else is refused;
    nothing is registered and nothing is created.
    """
    if not isinstance(project, str):
        raise ValidationError(M_("must be a string"), field="project")
    if not project.strip():
        raise ValidationError(M_("must not be empty"), field="project")
    if project in known and "/" not in project and os.sep not in project:
        folder = Path(known[project])
        if not folder.is_dir():
            raise NotFoundError(
                M_(
                    "project {project!r}: its registered folder {folder} is gone; the person can "
                    "focus its new folder",
                    project=project,
                    folder=folder,
                )
            )
        return RegisteredProject(project), folder
    target = _resolved(project)
    if target is not None:
        for pid, known_folder in known.items():
            if _resolved(known_folder) == target:
                return RegisteredProject(pid), Path(known_folder)
    if _looks_like_path(project) or target is not None:
        raise PolicyError(
            M_(
                "project {project!r} is not a registered project folder: {how}",
                project=project,
                how=HOW_TO_REGISTER,
            )
        )
    raise NotFoundError(
        M_(
            "unknown project {project!r}: not a registered project; {how}",
            project=project,
            how=HOW_TO_REGISTER,
        )
    )
