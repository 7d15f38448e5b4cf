"""The case, knowledge, learning, archive, focus and decision commands in Chinese (issue 15).

The console script's ``main()`` (its language from the environment, as a person's
shell sets it; in this process, and ``--help`` in a process of its own) and the
magics in a real IPython kernel; English stays as it was.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.service.case_helpers import CASE, copy_sample
from tests.support.cli import run_main

EXE = Path(sys.executable).parent / "jupyter-memory"


def _process(*argv: str, lang: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The console script in its own process, as a person's shell runs it."""
    env = {**os.environ, "JUPYTER_MEMORY_LANG": lang}
    return subprocess.run(
        [str(EXE), *argv], capture_output=True, text=True, encoding="utf-8", env=env, cwd=cwd
    )


def _cli(*argv: str, lang: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The same command's ``main()`` in this process (tests/support/cli.py)."""
    return run_main(argv, {"JUPYTER_MEMORY_LANG": lang}, cwd)


def test_the_cli_commands_speak_chinese(tmp_path: Path) -> None:
    ws = copy_sample(tmp_path)
    case = _cli("case", "--workspace", str(ws), "--case", CASE, "open", lang="zh_CN")
    assert case.returncode == 0, case.stderr
    first = case.stdout.splitlines()
    assert first[0].startswith(f"{CASE}：") and "条记录（其中" in first[0]
    assert first[1].startswith("  目录：") and first[2].startswith("  写入策略：")

    doctor = _cli("case", "--case", CASE, "doctor", lang="zh_CN", cwd=ws)
    assert doctor.returncode == 0 and doctor.stdout.startswith(f"{CASE}：15 条记录，正常")

    assert _cli("queue", lang="zh_CN").stdout == "待审队列为空\n"
    assert _cli("archive", "--dry-run", lang="zh_CN").stdout.startswith(
        "将归档 0 条记忆（关注度 < 0.1，且 90 天以上未被访问）"
    )
    assert _cli("learning", lang="zh_CN").stdout.startswith("0 条候选规则。置信度超过")
    settings = _cli("settings", lang="zh_CN").stdout.splitlines()
    assert settings[:2] == ["启用：开", "自动建议：开"]

    refused = _cli("case", "--workspace", str(ws), "open", lang="zh_CN")
    assert refused.returncode == 1
    assert "请用 --case CASE-YYYY-NNN 指定案件" in refused.stderr


def test_the_cli_commands_stay_english_without_a_language(tmp_path: Path) -> None:
    ws = copy_sample(tmp_path)
    doctor = _cli("case", "--case", CASE, "doctor", lang="", cwd=ws)
    assert doctor.stdout.startswith(f"{CASE}: 15 entries, ok")
    assert _cli("queue", lang="").stdout == "the queue is empty\n"
    assert _cli("settings", lang="").stdout.splitlines()[:2] == [
        "enabled: on",
        "automatic suggestions: on",
    ]


def run_cells(cells: list[str], lang: str, cwd: Path, home: Path | None = None) -> str:
    """Run ``cells`` in a real kernel in ``lang``; everything it printed or raised."""
    from tests.support.kernels import kernel_env, started_kernel

    env = kernel_env(JUPYTER_MEMORY_LANG=lang)
    if home is not None:
        env["JUPYTER_MEMORY_HOME"] = str(home)
    outputs: list[str] = []

    def keep(msg: dict[str, Any]) -> None:
        content = msg["content"]
        data = content.get("data", {})
        outputs.append(content.get("text") or str(data.get("text/plain", "")))
        outputs.append(str(data.get("text/html", "")))  # a card's fallback for other viewers
        outputs.append("\n".join(content.get("traceback", [])))

    with started_kernel(cwd, env) as (_, kc):
        for code in cells:
            kc.execute_interactive(code, timeout=60, output_hook=keep)
    return "\n".join(outputs)


CELLS = [
    "%load_ext jupyter_memory",
    f"%case open {CASE}",
    "%case frobnicate",
    "%memory status",
    "%memory queue",
    "%memory focus",
    "%memory apply",
    "%memory suggestions off",
    "print(get_ipython().find_line_magic('case').__doc__)",  # the argument help, as %case? shows
]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "zh_CN",
            [
                f"案件 {CASE} · 写入策略",
                "按类型：",
                "%case：未知操作 'frobnicate'；可用：open, note",
                "记忆：       开",
                "待审队列：   0 条待处理",
                "待审队列为空。",
                "未聚焦任何项目（无）。请用 %memory focus ./path/to/project",
                "%memory apply 需要一个提议 id（见 %memory queue）",
                "自动建议已关闭。",
                "open：案件的显示名称",
            ],
        ),
        (
            "en",
            [
                f"Case {CASE} · policy",
                "by type: ",
                "%case: unknown action 'frobnicate'; use one of open, note",
                "memory:       on",
                "queue:        0 pending",
                "The queue is empty.",
                "No project focused (none). Use %memory focus ./path/to/project",
                "%memory apply needs a proposal id (see %memory queue)",
                "Automatic suggestions are OFF.",
                "open: the case's display name",
            ],
        ),
    ],
)
def test_the_magics_speak_the_chosen_language_in_a_real_kernel(
    tmp_path: Path, lang: str, expected: list[str]
) -> None:
    ws = copy_sample(tmp_path)
    said = run_cells(CELLS, lang, ws)
    missing = [line for line in expected if line not in said]
    assert missing == [], said


def test_the_cli_help_speaks_chinese() -> None:
    top = _process("--help", lang="zh_CN").stdout
    assert "Jupyter 中受治理的 AI 智能体记忆。" in top
    assert "调查案件记忆（case_memory/、INDEX.md）" in top and "待审的知识提议" in top
    case = _process("case", "--help", lang="zh_CN").stdout
    assert "设置一条记录的后续状态（先改文件，再改 INDEX.md）" in case
    assert "案件编号，例如 CASE-2026-001" in case
    driver = _process("merge-knowledge", "--help", lang="zh_CN").stdout
    assert "%A：本克隆的版本；合并结果写到这里" in driver  # argparse's %% kept in the translation
    assert (
        "investigation case memory (case_memory/, INDEX.md)" in _process("--help", lang="").stdout
    )


ASK_CELLS = [
    "%load_ext jupyter_memory",
    "%config AskMagics.max_tool_rounds = 1",
    "%%ask --bogus\nhi",
    "%%ask --new\n记住：收入一律不含退款。",
]
ASK_TURNS = [
    (
        "propose_knowledge",
        {"text": "收入不含退款", "kind": "rule", "evidence_quote": "收入一律不含退款"},
    )
]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "zh_CN",
            [
                "%%ask：无法识别的参数：--bogus（用法：%%ask [--new] [--project P] [--model M]）",
                "[新对话：重新获得一份知识提议额度]",
                "[已提议，等你审阅：收入不含退款 — id p-",
                # the proposal card's text/plain and text/html fallbacks
                "[规则] 收入不含退款\n  “收入一律不含退款” — 来自智能体\n  待处理 · %memory apply p-",
                "<b>生成此输出时尚待处理。</b> 请在智能体记忆面板中处理，或在单元格中运行 <code>",
                "或在终端运行 <code>jupyter-memory apply p-",
                '<div style="color:#57606a">提议 <code>p-',
                "[模型回合已达上限 1 轮，已停止]",
            ],
        ),
        (
            "en",
            [
                "%%ask: unrecognized arguments: --bogus (usage: %%ask [--new] [--project P] [--model M])",
                "[new conversation: a fresh allowance of knowledge proposals]",
                "[proposed for your review: 收入不含退款 — id p-",
                "[Rule] 收入不含退款\n  “收入一律不含退款” — from an agent\n  pending · %memory apply p-",
                "<b>Pending when this output was made.</b> Decide it in the Agent Memory panel, "
                "or in a cell with <code>",
                "or in a terminal with <code>jupyter-memory apply p-",
                '<div style="color:#57606a">proposal <code>p-',
                "[stopped after 1 model turns]",
            ],
        ),
    ],
)
def test_ask_and_its_proposal_card_speak_the_language_in_a_real_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str, expected: list[str]
) -> None:
    from openai_test_server import Scripted, llm_server

    with llm_server([Scripted("好的。", ASK_TURNS)]) as llm:  # the LLM: the one double
        monkeypatch.setenv("JUPYTER_MEMORY_LLM_BASE_URL", llm.url)
        monkeypatch.setenv("JUPYTER_MEMORY_LLM_MODEL", "test-model")
        said = run_cells(ASK_CELLS, lang, tmp_path, tmp_path / "home")
    missing = [line for line in expected if line not in said]
    assert missing == [], said
