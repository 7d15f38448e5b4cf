"""The built wheel, installed as an analyst would: a fresh venv, pip, no Node anywhere.

Slow (a build, a venv, a pip install, a lab server, a browser), so it carries the
``wheel`` marker: ``make test`` leaves it out, ``make test-integrations`` (CI)
runs it. The wheel is ``$JM_WHEEL`` when set (``make test-integrations`` builds
one with ``make dist``), otherwise built here by ``scripts/build_dist.py``.
Nothing is skipped: a missing part fails with what to do. Figures (wheel size,
install time) go to ``test-output/packaging/figures.json``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path

import pytest

from tests.support.servers import jupyter_process

pytestmark = pytest.mark.wheel

REPO = Path(__file__).resolve().parents[2]
OUTPUT = REPO / "test-output" / "packaging"
CHROMIUM = os.environ.get("JM_CHROMIUM", "/usr/bin/chromium")
EXT_DIR = "share/jupyter/labextensions/jupyter-memory"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
CLASSIFIERS = {
    "Framework :: Jupyter :: JupyterLab :: 4",
    "Framework :: Jupyter :: JupyterLab :: Extensions",
    "Framework :: Jupyter :: JupyterLab :: Extensions :: Prebuilt",
}
# Everything that could point the fresh venv at the dev install or at Node.
_DROPPED_ENV = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX", "NODE_PATH")


def _figure(name: str, value: object) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / "figures.json"
    figures = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    figures[name] = value
    path.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


def _package_json_version() -> str:
    return json.loads((REPO / "labextension/package.json").read_text(encoding="utf-8"))["version"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("JM_WHEEL")
    if given:
        path = Path(given)
        if not path.is_file():
            pytest.fail(f"JM_WHEEL={given} is not a file: run `make dist` first", pytrace=False)
        return path
    if shutil.which("node") is None:
        pytest.fail(
            "building the wheel needs Node.js >= 20 on PATH (or set JM_WHEEL to a built wheel)",
            pytrace=False,
        )
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts/build_dist.py"), str(out)],
        capture_output=True,
        text=True,
    )
    wheels = sorted(out.glob("jupyter_memory-*.whl"))
    if done.returncode != 0 or not wheels:
        pytest.fail(f"building the wheel failed:\n{done.stdout}\n{done.stderr}", pytrace=False)
    return wheels[0]


@dataclass
class Venv:
    root: Path
    env: dict[str, str]

    def bin(self, name: str) -> str:
        return str(self.root / "bin" / name)

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            list(args), env=self.env, capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            pytest.fail(
                f"{' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}",
                pytrace=False,
            )
        return done


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Venv:
    base = tmp_path_factory.mktemp("fresh")
    root = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    home = base / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
    env = {k: v for k, v in env.items() if not k.startswith(("JUPYTER", "JPY_", "IPYTHON"))}
    env.update(
        # Only the venv's own scripts: Debian's /usr/bin (where node lives) is not on PATH.
        PATH=str(root / "bin"),
        HOME=str(home),
        PYTHONNOUSERSITE="1",
        JUPYTER_MEMORY_HOME=str(base / "memory-home"),
        JUPYTER_MEMORY_SEMANTIC="0",
        JUPYTER_CONFIG_DIR=str(home / ".jupyter"),
        JUPYTER_DATA_DIR=str(home / ".local/share/jupyter"),
        JUPYTER_RUNTIME_DIR=str(home / ".runtime"),
        IPYTHONDIR=str(home / ".ipython"),
    )
    for tool in ("node", "npm", "jlpm", "yarn"):
        assert shutil.which(tool, path=env["PATH"]) is None, f"{tool} is reachable from the venv"
    fresh = Venv(root, env)
    # pip keeps the machine's own HOME (its download cache): the figure is a warm-cache install.
    pip_env = {**env, "HOME": os.environ.get("HOME", str(home))}
    started = time.monotonic()
    done = subprocess.run(
        [
            fresh.bin("python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            str(wheel),
        ],
        env=pip_env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    seconds = round(time.monotonic() - started, 1)
    if done.returncode != 0:
        pytest.fail(
            f"pip install {wheel.name} failed:\n{done.stdout}\n{done.stderr}", pytrace=False
        )
    _figure("wheel", wheel.name)
    _figure("wheel_kib", round(wheel.stat().st_size / 1024))
    _figure("install_seconds_warm_pip_cache", seconds)
    return fresh


def test_wheel_carries_the_prebuilt_extension_install_json_and_one_version(wheel):
    version = _package_json_version()
    assert wheel.name == f"jupyter_memory-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        data = f"jupyter_memory-{version}.data/data/"
        meta = Parser().parsestr(
            zf.read(f"jupyter_memory-{version}.dist-info/METADATA").decode("utf-8")
        )
        install = json.loads(zf.read(f"{data}{EXT_DIR}/install.json"))
        bundled = json.loads(zf.read(f"{data}{EXT_DIR}/package.json"))
        server_switch = json.loads(
            zf.read(f"{data}etc/jupyter/jupyter_server_config.d/jupyter_memory.json")
        )
    assert install["packageManager"] == "python" and install["packageName"] == "jupyter-memory"
    assert bundled["version"] == version == meta["Version"]
    assert any(n.startswith(f"{data}{EXT_DIR}/static/remoteEntry.") for n in names)
    # The production bundle: the dev build (source maps) must not ship.
    assert not [n for n in names if n.endswith(".js.map")]
    assert server_switch["ServerApp"]["jpserver_extensions"]["jupyter_memory"] is True
    assert set(meta.get_all("Classifier") or []) >= CLASSIFIERS
    assert "jupyter_memory/_notebooks/case_retrospective.ipynb" in names
    assert "Provides-Extra: plots" in str(meta) or "plots" in (meta.get_all("Provides-Extra") or [])


def test_installed_without_node_both_extensions_are_enabled(venv):
    labext = venv.run(venv.bin("jupyter"), "labextension", "list")
    lab_out = ANSI.sub("", labext.stdout + labext.stderr)
    version = _package_json_version()
    # The extension's line, not the labextensions folder's (a temporary folder of the
    # suite is named jupyter-memory-tests.*).
    line = next((ln for ln in lab_out.splitlines() if "jupyter-memory v" in ln), "")
    assert f"jupyter-memory v{version} enabled OK (python, jupyter-memory)" in line, lab_out
    server = venv.run(venv.bin("jupyter"), "server", "extension", "list")
    server_out = ANSI.sub("", server.stdout + server.stderr)
    assert re.search(r"jupyter_memory\s+enabled", server_out), server_out
    assert f"jupyter_memory {version} OK" in server_out, server_out


def test_the_lab_catalogue_is_served_from_the_installed_wheel(venv):
    """The panel's zh_CN catalogue ships in the wheel; jupyterlab_server finds it by entry point."""
    code = (
        "import json; from jupyterlab_server.translation_utils import "
        "get_installed_packages_locale as found; data, _ = found('zh_CN'); "
        "print(json.dumps(data['jupyter_memory_lab']['Apply to User']))"
    )
    assert json.loads(venv.run(venv.bin("python"), "-c", code).stdout) == ["采纳到用户"]


def test_version_and_the_jupyter_subcommand(venv):
    version = _package_json_version()
    assert venv.run(venv.bin("jupyter-memory"), "--version").stdout.strip() == (
        f"jupyter-memory {version}"
    )
    # `jupyter memory …` finds the jupyter-memory script on PATH.
    assert venv.run(venv.bin("jupyter"), "memory", "--version").stdout.strip() == (
        f"jupyter-memory {version}"
    )


def test_notebooks_are_copied_from_the_installed_wheel(venv, tmp_path):
    out = tmp_path / "nb"
    done = venv.run(venv.bin("jupyter-memory"), "notebooks", "--out", str(out))
    assert "retrospective.ipynb" in done.stdout, done.stdout
    assert (out / "quickstart.ipynb").is_file()
    assert (out / "sample_workspace" / "team-profile.md").is_file()


def test_demo_runs_from_the_installed_wheel(venv, tmp_path):
    done = venv.run(venv.bin("jupyter-memory"), "demo", "--home", str(tmp_path / "demo"))
    assert "doctor: ok" in done.stdout, done.stdout
    assert "收入口径" in done.stdout
    assert (tmp_path / "demo" / "audit.jsonl").is_file()


@dataclass
class Lab:
    url: str
    token: str
    root: Path
    process: subprocess.Popen[bytes]

    def lab_url(self, path: str = "lab") -> str:
        return f"{self.url}/{path}?reset&token={self.token}"


@pytest.fixture
def lab_from_venv(venv: Venv, tmp_path: Path) -> Iterator[Lab]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: `apt-get install -y chromium`", pytrace=False
        )
    root = tmp_path / "root"
    root.mkdir()
    settings = tmp_path / "app-settings"
    settings.mkdir()
    no_news = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false"}}
    (settings / "overrides.json").write_text(json.dumps(no_news), encoding="utf-8")
    args = [
        f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
        f"--LabApp.app_settings_dir={settings}",
        "--LabApp.expose_app_in_browser=True",
    ]
    with jupyter_process(
        root,
        OUTPUT / "lab-from-wheel.log",
        env=venv.env,
        command=[venv.bin("jupyter-lab")],
        args=args,
        cwd=root,
    ) as server:
        server.ready(timeout=90)
        yield Lab(server.url, server.token, root, server.process)


def _write_notebook(path: Path, sources: list[str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }
    nbformat.write(nb, path)


def test_panel_opens_and_a_card_renders_in_lab_from_the_wheel(venv, lab_from_venv):
    from playwright.sync_api import sync_playwright

    lab = lab_from_venv
    text = "Fiscal weeks start on Monday"
    venv.run(venv.bin("jupyter-memory"), "propose", text, "--kind", "rule")
    _write_notebook(lab.root / "cards.ipynb", ["%load_ext jupyter_memory", "%memory queue"])
    panel = "#jupyter-memory-panel"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
        )
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.set_default_timeout(60_000)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(lab.lab_url("lab/tree/cards.ipynb"))
            page.wait_for_selector(f"{panel}[data-jm-loaded='true']", state="attached")
            if not page.locator(panel).is_visible():
                page.locator(".jp-SideBar [data-id='jupyter-memory-panel']").click()
            page.locator(f"{panel} .jm-queue-item", has_text=text).wait_for()
            page.locator(".jp-StatusBar-Widget", has_text="Python 3 (ipykernel) | Idle").wait_for()
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            card = page.locator(".jp-OutputArea-output", has_text=text)
            card.wait_for()
            # A rendered card has buttons; a text/plain fallback or a broken widget has none.
            card.locator("button", has_text="Dismiss").wait_for()
            body = page.locator(".jp-Notebook").inner_text()
            assert "Error displaying widget" not in body and "model not found" not in body
            OUTPUT.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(OUTPUT / "wheel-lab-card.png"))
            assert errors == []
        finally:
            browser.close()
