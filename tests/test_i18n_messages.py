"""What the service, the store and argparse say reaches a Chinese user in Chinese (issue 15).

Domain errors and case-write notices are made below the shells, argparse's
own words (usage, section titles, its errors) inside the standard library:
here the console script runs in a subprocess and the magics in a real
IPython kernel with ``JUPYTER_MEMORY_LANG=zh_CN``, and the English and the
``--json`` output are checked to stay as they were.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.service.case_helpers import CASE, copy_sample
from tests.test_i18n_commands import run_cells

EXE = Path(sys.executable).parent / "jupyter-memory"
NO_POLICY = "# 团队配置\n\n- 团队: 测试组\n"  # a team profile without a Memory Write Policy


def _cli(*argv: str, lang: str, home: Path, cwd: Path | None = None) -> Any:
    env = {**os.environ, "JUPYTER_MEMORY_LANG": lang, "JUPYTER_MEMORY_HOME": str(home)}
    return subprocess.run(
        [str(EXE), *argv], capture_output=True, text=True, encoding="utf-8", env=env, cwd=cwd
    )


def test_a_domain_error_reads_in_chinese_in_the_cli_and_stays_english_in_json(
    tmp_path: Path,
) -> None:
    zh = _cli("forget", "m-nope", lang="zh_CN", home=tmp_path)
    assert zh.returncode == 1
    assert zh.stderr == "jupyter-memory：错误：没有 id 为 'm-nope' 的记忆\n"
    en = _cli("forget", "m-nope", lang="", home=tmp_path)
    assert en.stderr == "jupyter-memory: error: no memory with id 'm-nope'\n"
    as_json = _cli("--json", "forget", "m-nope", lang="zh_CN", home=tmp_path)
    assert json.loads(as_json.stdout) == {
        "error": "NotFoundError",
        "message": "no memory with id 'm-nope'",
    }
    # an error of the service naming a folder: the path stays, the prose is Chinese
    gone = tmp_path / "no-such-workspace"
    case = _cli(
        "case", "--workspace", str(gone), "--case", CASE, "open", lang="zh_CN", home=tmp_path
    )
    assert case.stderr == f"jupyter-memory：错误：找不到工作区目录：{gone}\n"
    # a ValidationError keeps its field name; the prose after it is translated
    bad = _cli("recall", "--type", "bogus", "x", lang="zh_CN", home=tmp_path)
    assert bad.stderr == (
        "jupyter-memory：错误：type: 'bogus' 不是以下之一：episodic, semantic, procedural, reflective\n"
    )


def test_a_case_write_notice_and_its_policy_hint_read_in_chinese(tmp_path: Path) -> None:
    ws = copy_sample(tmp_path)
    (ws / "team-profile.md").write_text(NO_POLICY, encoding="utf-8")
    argv = ["case", "--workspace", str(ws), "--case", CASE, "note", "insight"]
    zh = _cli(
        *argv,
        "退款集中在一个商户",
        "--body",
        "三份报告都指向同一商户。",
        lang="zh_CN",
        home=tmp_path,
    )
    assert zh.returncode == 0, zh.stderr
    line = zh.stdout.splitlines()[0]
    assert line.startswith(f"案件记忆 {CASE}：已创建 ") and "（新记录）" in line, line
    assert "中没有 Memory Write Policy；暂用安全的默认值 'notify'" in line, line
    en = _cli(
        *argv,
        "Refunds sit with one merchant",
        "--body",
        "Three reports agree.",
        lang="",
        home=tmp_path,
    )
    line = en.stdout.splitlines()[0]
    assert line.startswith(f"case memory {CASE}: created ") and "(new entry)" in line, line
    assert "no Memory Write Policy in" in line and "using the safe default 'notify'" in line
    as_json = _cli(
        *argv,
        "退款集中在一个商户",
        "--body",
        "三份报告都指向同一商户。",
        "--json",
        lang="zh_CN",
        home=tmp_path,
    )
    said = json.loads(as_json.stdout)
    assert said["action"] == "skipped" and said["reason"].startswith("exact duplicate of ")
    assert said["hint"].startswith("no Memory Write Policy in ")


def test_a_case_doctor_problem_reads_in_chinese(tmp_path: Path) -> None:
    ws = copy_sample(tmp_path)
    stray = ws / "cases" / CASE / "case_memory" / "notes.md"
    stray.write_text("# 随手记\n", encoding="utf-8")
    zh = _cli("case", "--case", CASE, "doctor", lang="zh_CN", home=tmp_path, cwd=ws)
    assert "文件名不是 <YYYY-MM-DD>_<type>_<slug>.md；未编入索引" in zh.stdout, zh.stdout
    en = _cli("case", "--case", CASE, "doctor", lang="", home=tmp_path, cwd=ws)
    assert "not named <YYYY-MM-DD>_<type>_<slug>.md; not indexed" in en.stdout, en.stdout
    as_json = _cli("case", "--case", CASE, "doctor", "--json", lang="zh_CN", home=tmp_path, cwd=ws)
    assert "not named <YYYY-MM-DD>_<type>_<slug>.md; not indexed" in as_json.stdout


def test_argparse_speaks_chinese_in_the_cli(tmp_path: Path) -> None:
    top = _cli("--help", lang="zh_CN", home=tmp_path).stdout
    assert top.startswith("用法：jupyter-memory [-h]")
    assert "\n位置参数:\n" in top and "\n选项:\n" in top
    assert "显示此帮助信息并退出" in top and "显示程序的版本号并退出" in top
    unknown = _cli("recall", "--bogus", lang="zh_CN", home=tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.splitlines()[0].startswith("用法：jupyter-memory ")
    assert unknown.stderr.splitlines()[-1] == "jupyter-memory：错误：无法识别的参数：--bogus"
    missing = _cli("get", lang="zh_CN", home=tmp_path)
    assert "jupyter-memory get：错误：缺少必需的参数：" in missing.stderr, missing.stderr
    choice = _cli("frobnicate", lang="zh_CN", home=tmp_path)
    assert "参数 COMMAND：无效的选项：'frobnicate'（可选：'remember'" in choice.stderr

    en = _cli("--help", lang="", home=tmp_path).stdout
    assert en.startswith("usage: jupyter-memory [-h]") and "\noptions:\n" in en
    assert "show this help message and exit" in en
    assert _cli("recall", "--bogus", lang="", home=tmp_path).stderr.splitlines()[-1] == (
        "jupyter-memory: error: unrecognized arguments: --bogus"
    )


CELLS = [
    "%load_ext jupyter_memory",
    "%forget m-nope",
    "%recall --bogus",
    "%forget",  # no id: argparse says what is missing
    "print(get_ipython().find_line_magic('recall').__doc__)",  # what %recall? shows
    f"%case open {CASE}",
    '%case note --type insight --title "退款集中在一个商户" 三份报告都指向同一商户。',
]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "zh_CN",
            [
                "%forget: 未找到: 没有 id 为 'm-nope' 的记忆",
                "无法识别的参数：--bogus",
                "缺少必需的参数：",
                "\n位置参数:\n",
                "\n选项:\n",
                f"案件记忆 {CASE}：已创建 ",
                "（新记录） · ",
                "中没有 Memory Write Policy；暂用安全的默认值 'notify'",
            ],
        ),
        (
            "en",
            [
                "%forget: not found: no memory with id 'm-nope'",
                "unrecognized arguments: --bogus",
                "the following arguments are required: ",
                "\npositional arguments:\n",
                "\noptions:\n",
                f"case memory {CASE}: created ",
                "(new entry) · no Memory Write Policy in ",
            ],
        ),
    ],
)
def test_the_magics_show_service_and_argparse_words_in_the_language(
    tmp_path: Path, lang: str, expected: list[str]
) -> None:
    ws = copy_sample(tmp_path)
    (ws / "team-profile.md").write_text(NO_POLICY, encoding="utf-8")
    said = run_cells(CELLS, lang, ws, tmp_path / "home")
    missing = [line for line in expected if line not in said]
    assert missing == [], said
