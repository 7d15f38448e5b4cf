"""Build the sdist and the wheel of jupyter-memory from a clean copy of the tree.

``make dist`` runs this. The working tree usually holds the *development* build
of the lab extension (the editable install writes it to
``jupyter_memory/labextension``), and the build hook skips the npm build when
that folder exists, so a wheel built in place would ship the dev bundle. Here
the files git would commit (tracked, plus new ones not ignored) are copied to a
staging folder without any build output; ``python -m build`` then makes the
sdist there, whose hook runs the production build of the extension (Node is
needed here, and only here), and the wheel from that sdist.

Usage: python scripts/build_dist.py [OUTDIR]   (default: dist)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def source_files(repo: Path) -> list[str]:
    """Paths git would put in a commit: tracked and untracked-but-not-ignored, still present."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=repo,
        check=True,
        capture_output=True,
    ).stdout.decode("utf-8")
    return sorted({p for p in out.split("\0") if p and (repo / p).is_file()})


def stage(repo: Path, dest: Path) -> None:
    for rel in source_files(repo):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / rel, target)


def build(outdir: Path) -> list[Path]:
    if shutil.which("node") is None:
        raise SystemExit("build_dist: Node.js (>= 20) must be on PATH to build the lab extension")
    outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="jupyter-memory-dist-") as tmp:
        src = Path(tmp) / "src"
        stage(REPO, src)
        before = set(outdir.glob("jupyter_memory-*"))
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "build", "--outdir", str(outdir.resolve()), str(src)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            sys.stderr.write(done.stdout[-20000:] + done.stderr[-20000:])
            raise SystemExit(f"build_dist: python -m build failed (exit {done.returncode})")
        built = sorted(set(outdir.glob("jupyter_memory-*")) - before) or sorted(
            outdir.glob("jupyter_memory-*")
        )
        seconds = time.monotonic() - started
    for path in built:
        print(f"{path}  {path.stat().st_size / 1024:.0f} KiB")
    print(f"built in {seconds:.0f} s")
    return built


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "dist")
