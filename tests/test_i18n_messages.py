"""What the service, the store and argparse say reaches a Chinese user in Chinese (issue 15).

Domain errors and case-write notices are made below the shells, argparse's
own words (usage, section titles, its errors) inside the standard library:
here the console script's ``main()`` runs with ``JUPYTER_MEMORY_LANG=zh_CN`` (in this
process; argparse's words and a reason read back from the index in a process of their
own) and the magics in a real IPython kernel, and the English and the ``--json``
output are checked to stay as they were.
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
from tests.support.cli import run_main
from tests.test_i18n_commands import run_cells

EXE = Path(sys.executable).parent / "jupyter-memory"
NO_POLICY = "# 团队配置\n\n- 团队: 测试组\n"  # a team profile without a Memory Write Policy


def _process(*argv: str, lang: str, home: Path, cwd: Path | None = None) -> Any:
    """The console script in its own process, as a person runs it."""
    env = {**os.environ, "JUPYTER_MEMORY_LANG": lang, "JUPYTER_MEMORY_HOME": str(home)}
    return subprocess.run(
        [str(EXE), *argv], capture_output=True, text=True, encoding="utf-8", env=env, cwd=cwd
    )


def _cli(*argv: str, lang: str, home: Path, cwd: Path | None = None) -> Any:
    """The same command's ``main()`` in this process (tests/support/cli.py)."""
    return run_main(argv, {"JUPYTER_MEMORY_LANG": lang, "JUPYTER_MEMORY_HOME": str(home)}, cwd)


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
    top = _process("--help", lang="zh_CN", home=tmp_path).stdout
    assert top.startswith("用法：jupyter-memory [-h]")
    assert "\n位置参数:\n" in top and "\n选项:\n" in top
    assert "显示此帮助信息并退出" in top and "显示程序的版本号并退出" in top
    unknown = _process("recall", "--bogus", lang="zh_CN", home=tmp_path)
    assert unknown.returncode == 2
    assert unknown.stderr.splitlines()[0].startswith("用法：jupyter-memory ")
    assert unknown.stderr.splitlines()[-1] == "jupyter-memory：错误：无法识别的参数：--bogus"
    missing = _process("get", lang="zh_CN", home=tmp_path)
    assert "jupyter-memory get：错误：缺少必需的参数：" in missing.stderr, missing.stderr
    choice = _process("frobnicate", lang="zh_CN", home=tmp_path)
    assert "参数 COMMAND：无效的选项：'frobnicate'（可选：'remember'" in choice.stderr

    en = _process("--help", lang="", home=tmp_path).stdout
    assert en.startswith("usage: jupyter-memory [-h]") and "\noptions:\n" in en
    assert "show this help message and exit" in en
    assert _process("recall", "--bogus", lang="", home=tmp_path).stderr.splitlines()[-1] == (
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


LONG_TITLE = "长" * 301  # over the 300-character cap of a memory's title


def test_a_pydantic_error_and_the_memory_stores_errors_read_in_chinese_in_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_MEMORY_SEMANTIC", "0")  # semantic recall switched off
    # pydantic's own words (string_too_long), after the field they name
    zh = _cli("remember", "x", "--title", LONG_TITLE, lang="zh_CN", home=tmp_path)
    assert zh.returncode == 1
    assert zh.stderr == "jupyter-memory：错误：title: 最多 300 个字符\n"
    en = _cli("remember", "x", "--title", LONG_TITLE, lang="", home=tmp_path)
    assert en.stderr == "jupyter-memory: error: title: String should have at most 300 characters\n"
    as_json = _cli("--json", "remember", "x", "--title", LONG_TITLE, lang="zh_CN", home=tmp_path)
    assert json.loads(as_json.stdout) == {
        "error": "ValidationError",
        "message": "title: String should have at most 300 characters",
    }
    # the recall service's and the cold archive's errors
    semantic = _cli("recall", "--mode", "semantic", "退款", lang="zh_CN", home=tmp_path)
    assert semantic.stderr == (
        "jupyter-memory：错误：mode: semantic 召回需要 semantic 扩展："
        "pip install 'jupyter-memory[semantic]'（且 JUPYTER_MEMORY_SEMANTIC 未设为 0）\n"
    )
    semantic_en = _cli("recall", "--mode", "semantic", "退款", lang="", home=tmp_path)
    assert semantic_en.stderr == (
        "jupyter-memory: error: mode: semantic recall needs the semantic extra: "
        "pip install 'jupyter-memory[semantic]' (and JUPYTER_MEMORY_SEMANTIC not set to 0)\n"
    )
    restore = _cli("archive", "--restore", "m-nope", lang="zh_CN", home=tmp_path)
    assert restore.stderr == "jupyter-memory：错误：user 层里没有 id 为 'm-nope' 的已归档记忆\n"
    restore_en = _cli("archive", "--restore", "m-nope", lang="", home=tmp_path)
    assert restore_en.stderr == (
        "jupyter-memory: error: no archived memory with id 'm-nope' in the user layer\n"
    )


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        (
            "zh_CN",
            [
                "%recall: 输入无效: mode: semantic 召回需要 semantic 扩展：pip install "
                "'jupyter-memory[semantic]'（且 JUPYTER_MEMORY_SEMANTIC 未设为 0）",
                "%remember: 输入无效: title: 最多 300 个字符",
            ],
        ),
        (
            "en",
            [
                "%recall: invalid input: mode: semantic recall needs the semantic extra: pip "
                "install 'jupyter-memory[semantic]' (and JUPYTER_MEMORY_SEMANTIC not set to 0)",
                "%remember: invalid input: title: String should have at most 300 characters",
            ],
        ),
    ],
)
def test_the_magics_show_recall_and_pydantic_errors_in_the_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str, expected: list[str]
) -> None:
    monkeypatch.setenv("JUPYTER_MEMORY_SEMANTIC", "0")
    cells = [
        "%load_ext jupyter_memory",
        "%recall --semantic 退款",
        f"%remember --title {LONG_TITLE} x",
    ]
    said = run_cells(cells, lang, tmp_path, tmp_path / "home")
    missing = [line for line in expected if line not in said]
    assert missing == [], said


def _pydantic_problems() -> list[Any]:
    """One pydantic error of each kind our models raise, as our ValidationError."""
    from pydantic import BaseModel, Field
    from pydantic import ValidationError as PydanticValidationError

    from jupyter_memory.agents.tool_args import RecallArgs
    from jupyter_memory.core.knowledge.agent_tools import (
        ExpandKnowledgeCatalogArgs as ExpandArgs,
    )
    from jupyter_memory.core.knowledge.agent_tools import ProposeKnowledgeArgs as ProposeArgs
    from jupyter_memory.core.learning.work_memory import BatchMessage
    from jupyter_memory.core.validation import validation_error

    class Flag(BaseModel):
        on: bool
        ratio: float = Field(default=0.5, gt=0, lt=1)

    attempts: list[tuple[type[BaseModel], dict[str, Any]]] = [
        (RecallArgs, {"query": "x", "limit": 0}),  # greater_than_equal
        (RecallArgs, {"query": "x", "limit": 500}),  # less_than_equal
        (RecallArgs, {"query": "x", "limit": "many"}),  # int_parsing
        (RecallArgs, {"query": "x", "level": "all"}),  # literal_error
        (RecallArgs, {"query": "x", "bogus": 1}),  # extra_forbidden
        (BatchMessage, {"id": "m", "text": "t"}),  # missing
        (ProposeArgs, {"text": "", "kind": "rule", "evidence_quote": "q"}),  # string_too_short
        (ExpandArgs, {"labels": ["a"] * 51}),  # too_long
        (ExpandArgs, {"labels": []}),  # too_short
        (ProposeArgs, {"text": 5, "kind": "rule", "evidence_quote": "q"}),  # string_type
        (Flag, {"on": "perhaps"}),  # bool_parsing
        (Flag, {"on": True, "ratio": 2}),  # less_than
        (Flag, {"on": True, "ratio": 0}),  # greater_than
    ]
    out = []
    for model, data in attempts:
        try:
            model.model_validate(data)
        except PydanticValidationError as exc:
            out.append((exc.errors()[0], validation_error(exc, default="args")))
        else:
            raise AssertionError(f"{model.__name__} accepted {data}")
    return out


def test_pydantic_words_are_translated_naming_the_field_and_stay_pydantics_in_english(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import re

    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "zh_CN")
    problems = _pydantic_problems()
    for err, ours in problems:
        # English (REST, MCP, JSON, logs) is pydantic's own text, as before
        assert str(ours) == f"{ours.field}: {err['msg']}", err
        shown = ours.localized()
        assert shown.startswith(f"{ours.field}: "), shown
        assert re.search(r"[\u4e00-\u9fff]", shown), (err["type"], shown)  # Chinese words
    shown = {err["type"]: ours.localized() for err, ours in problems}
    assert shown["greater_than_equal"] == "limit: 必须大于或等于 1"
    assert shown["less_than_equal"] == "limit: 必须小于或等于 50"
    assert shown["int_parsing"] == "limit: 必须是整数"
    assert shown["literal_error"] == "level: 必须是以下之一：'index', 'snippet' 或 'full'"
    assert shown["extra_forbidden"] == "bogus: 不允许有这个字段"
    assert shown["missing"] == "role: 缺少必填字段"
    assert shown["string_too_short"] == "text: 至少 1 个字符"
    assert shown["too_long"] == "labels: 最多 50 项，实际 51 项"
    monkeypatch.setenv("JUPYTER_MEMORY_LANG", "en")
    for err, ours in problems:
        assert ours.localized() == str(ours) == f"{ours.field}: {err['msg']}"


def test_our_own_validators_words_read_in_chinese_inside_pydantics_value_error(
    tmp_path: Path,
) -> None:
    """A validator of ours (too many tags) is translated, not English inside Chinese."""
    tags = [f"t{i}" for i in range(60)]
    zh_tags = _cli("remember", "x", "--tags", *tags, lang="zh_CN", home=tmp_path)
    assert zh_tags.returncode == 1
    assert zh_tags.stderr == "jupyter-memory：错误：tags: 值无效：标签最多 50 个\n"
    en_tags = _cli("remember", "x", "--tags", *tags, lang="", home=tmp_path)
    assert en_tags.stderr == "jupyter-memory: error: tags: Value error, at most 50 tags\n"


def test_doctor_names_an_unreadable_file_and_its_reason_in_the_language_after_indexing(
    tmp_path: Path,
) -> None:
    """The reason is kept in the index; read back later it is still translatable."""
    assert _process("remember", "refunds are net", lang="", home=tmp_path).returncode == 0
    bad = tmp_path / "memories" / "2026-01-01_semantic_bad.md"
    bad.write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    for _ in range(2):  # the first run indexes the file, the second reads the stored reason
        zh = _process("doctor", lang="zh_CN", home=tmp_path)
        assert zh.returncode == 1
        assert zh.stdout.startswith(f"无法读取: {bad}: {bad}: YAML frontmatter 格式有误："), (
            zh.stdout
        )
        assert "malformed" not in zh.stdout and "unreadable" not in zh.stdout
    en = _process("doctor", lang="", home=tmp_path)
    assert en.stdout.startswith(f"unreadable: {bad}: {bad}: malformed YAML frontmatter: ")
    as_json = json.loads(_process("--json", "doctor", lang="zh_CN", home=tmp_path).stdout)
    assert as_json["problems"][0]["kind"] == "unreadable"
    assert "malformed YAML frontmatter" in as_json["problems"][0]["message"]
