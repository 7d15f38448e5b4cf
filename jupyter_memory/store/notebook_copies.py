"""Copy the notebooks that ship with the package into a folder the person names.

Every file is checked before the first is written: an existing file is never
overwritten unless asked (``overwrite``), so a copy either happens whole or
not at all, and a person's edited retrospective is never lost to a re-run.
"""

from __future__ import annotations

from pathlib import Path

from .._i18n import M_
from ..exceptions import ConflictError, NotFoundError
from .atomic import write_bytes_atomic
from .links import refuse_link


def shipped_files(source: Path) -> list[Path]:
    """The files below ``source`` (relative paths, sorted), skipping caches and dotfiles."""
    if not source.is_dir():
        raise NotFoundError(
            M_("the packaged notebooks are missing: {source} is not a folder", source=source)
        )
    return sorted(
        p.relative_to(source)
        for p in source.rglob("*")
        if p.is_file()
        and not any(part.startswith(".") or part == "__pycache__" for part in p.parts)
    )


def copy_notebooks(source: Path, out: Path, *, overwrite: bool = False) -> list[Path]:
    """Copy every shipped file from ``source`` into ``out``; the written paths."""
    files = shipped_files(source)
    targets = [out / rel for rel in files]
    for target in targets:
        refuse_link(out, target)
    existing = [t for t in targets if t.exists()]
    if existing and not overwrite:
        names = ", ".join(str(t) for t in existing[:3]) + (" …" if len(existing) > 3 else "")
        raise ConflictError(
            M_(
                "{n} file(s) already there ({names}); pass --force to overwrite them",
                n=len(existing),
                names=names,
            )
        )
    for rel, target in zip(files, targets, strict=True):
        write_bytes_atomic(target, (source / rel).read_bytes(), root=out)
    return targets


__all__ = ["copy_notebooks", "shipped_files"]
