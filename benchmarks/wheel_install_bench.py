"""Install time of the built wheel into a fresh venv, and the wheel's size (issue 15 figure).

Each variant makes a new venv (``python -m venv``) and times
``pip install <wheel>`` in it, as an analyst installs the package:

- ``warm``: this machine's pip configuration and its own download cache, primed
  by one untimed install first (what a second install on the same machine costs);
- ``cold``: the same configuration with an empty ``--cache-dir``, so every
  dependency is fetched again from wherever the configuration points (on a
  machine with a local wheel mirror, that mirror);
- ``pypi``: no pip configuration at all (``PIP_CONFIG_FILE=/dev/null``, no
  ``PIP_*`` variables), an empty ``--cache-dir`` and https://pypi.org/simple:
  a first install on a fresh machine, network included.

PATH holds only the venv's own scripts, so no Node and no dev install is
reachable (the wheel carries the prebuilt extension). Prints one JSON object: wheel size, seconds per variant, how many
distributions each install brought in.

Usage: python benchmarks/wheel_install_bench.py [--wheel PATH | --build]
       [--variants warm,cold,pypi]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYPI = "https://pypi.org/simple"


def newest_wheel() -> Path:
    wheels = sorted((REPO / "dist").glob("jupyter_memory-*.whl"), key=lambda p: p.stat().st_mtime)
    if not wheels:
        raise SystemExit("no dist/jupyter_memory-*.whl: run `make dist`, or pass --build")
    return wheels[-1]


def build(into: Path) -> Path:
    subprocess.run([sys.executable, str(REPO / "scripts/build_dist.py"), str(into)], check=True)
    return next(into.glob("jupyter_memory-*.whl"))


def _env(variant: str, venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = str(venv / "bin")  # the venv's own tools only: no node, no dev install
    if variant == "pypi":
        env = {k: v for k, v in env.items() if not k.startswith("PIP_")}
        env["PIP_CONFIG_FILE"] = os.devnull  # no index mirror, no find-links, no constraints
    return env


def install(wheel: Path, variant: str, work: Path) -> dict[str, object]:
    venv = work / f"venv-{variant}"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin/python"), "-m", "pip", "install", "--disable-pip-version-check"]
    if variant in ("cold", "pypi"):
        pip += ["--cache-dir", str(work / f"cache-{variant}")]
    if variant == "pypi":
        pip += ["--index-url", PYPI]
    started = time.perf_counter()
    done = subprocess.run(
        [*pip, str(wheel)], env=_env(variant, venv), capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{variant}: pip install failed\n{done.stdout}\n{done.stderr}")
    freeze = subprocess.run(
        [str(venv / "bin/python"), "-m", "pip", "list", "--format=json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return {"seconds": round(seconds, 1), "distributions": len(json.loads(freeze.stdout))}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--wheel", type=Path, help="the wheel (default: the newest in dist/)")
    p.add_argument("--build", action="store_true", help="build one from this tree first")
    p.add_argument("--variants", default="warm,cold,pypi")
    args = p.parse_args()
    variants = [v for v in args.variants.split(",") if v]
    unknown = set(variants) - {"warm", "cold", "pypi"}
    if unknown:
        raise SystemExit(f"unknown variants: {sorted(unknown)}")
    with tempfile.TemporaryDirectory(prefix="jm-wheel-bench-") as tmp:
        work = Path(tmp)
        wheel = build(work / "dist") if args.build else (args.wheel or newest_wheel())
        size = wheel.stat().st_size
        results: dict[str, object] = {}
        if "warm" in variants:
            install(wheel, "prime", work)  # fills this machine's pip cache; not timed
        for variant in variants:
            results[variant] = install(wheel, variant, work)
            print(f"{variant}: {results[variant]}", file=sys.stderr)
        print(
            json.dumps(
                {
                    "wheel": wheel.name,
                    "wheel_bytes": size,
                    "wheel_mb": round(size / 1e6, 2),
                    "python": sys.version.split()[0],
                    "install": results,
                }
            )
        )


if __name__ == "__main__":
    main()
