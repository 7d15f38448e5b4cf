"""%remember, %recall, %forget, %memories through a real shell: output, help, errors."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError


def test_remember_then_recall_english_and_chinese(ip, capsys):
    ip.run_line_magic("remember", "Always run tests before push --tags ci")
    ip.run_cell("%remember 收入口径不含退款 --type semantic")
    out = capsys.readouterr().out
    assert out.count("Remembered") == 2
    hits = ip.run_line_magic("recall", "tests before push")
    assert hits and hits[0]["title"] == "Always run tests before push"
    assert hits[0]["type"] == "procedural" and hits[0]["tier"] == "durable"
    zh = ip.run_line_magic("recall", "退款")
    assert [h["title"] for h in zh] == ["收入口径不含退款"]
    assert zh[0]["type"] == "semantic"


def test_recall_result_lands_in_underscore_and_converts_to_dataframe(ip):
    import pandas as pd

    ip.run_line_magic("remember", "Refunds are netted monthly --type semantic")
    ip.run_cell("%recall refunds")
    result = ip.user_ns["_"]
    frame = pd.DataFrame(result)
    assert list(frame["title"]) == ["Refunds are netted monthly"]
    typed = result.to_frame()
    assert str(typed["created"].dtype).startswith("datetime64")
    assert str(typed["type"].dtype) == "category"


def test_recall_html_escapes_stored_strings(ip):
    ip.run_line_magic("remember", "<img src=x onerror=alert(1)> payload")
    hits = ip.run_line_magic("recall", "payload")
    page = hits._repr_html_()
    assert "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "payload" in repr(hits)  # plain-text fallback


def test_recall_filters_and_options(ip):
    ip.run_line_magic("remember", "alpha one --type semantic --tier daily")
    ip.run_line_magic("remember", "alpha two --type procedural")
    ip.run_line_magic("remember", "alpha private --agent dev")
    assert [h["title"] for h in ip.run_line_magic("recall", "alpha --type semantic")] == [
        "alpha one"
    ]
    assert [h["title"] for h in ip.run_line_magic("recall", "alpha --tier daily")] == ["alpha one"]
    assert len(ip.run_line_magic("recall", "alpha --limit 1")) == 1
    titles = {h["title"] for h in ip.run_line_magic("recall", "alpha --agent dev")}
    assert "alpha private" in titles
    assert all(h["text"] == "" for h in ip.run_line_magic("recall", "alpha --level index"))
    assert len(ip.run_line_magic("recall", "alpha --recent 7d")) == 3
    assert len(ip.run_line_magic("recall", "alpha --lexical")) == 3


def test_recall_mode_flags(ip):
    from IPython.core.error import UsageError

    ip.run_line_magic("remember", "alpha words")
    with pytest.raises(UsageError, match="one of --semantic and --lexical"):
        ip.run_line_magic("recall", "alpha --semantic --lexical")
    # the suite runs without the semantic extra switched on: --semantic says what to install
    with pytest.raises(UsageError, match="semantic"):
        ip.run_line_magic("recall", "alpha --semantic")


def magics_limit(ip):
    from jupyter_memory.magics import loaded_magics

    return loaded_magics(ip).limit


def test_config_limit_and_level(ip):
    for i in range(4):
        ip.run_line_magic("remember", f"beta number {i}")
    ip.run_line_magic("config", "MemoryMagics.limit = 2")
    assert len(ip.run_line_magic("recall", "beta")) == 2
    ip.run_line_magic("config", "MemoryMagics.level = 'index'")
    assert ip.run_line_magic("recall", "beta")[0]["level"] == "index"
    ip.run_line_magic("config", "MemoryMagics.limit = 0")  # logged and refused by traitlets
    assert magics_limit(ip) == 2


def test_config_home_switches_store(ip, tmp_path):
    ip.run_line_magic("remember", "gamma in the first home")
    ip.run_line_magic("config", f"MemoryMagics.home = {str(tmp_path / 'other')!r}")
    assert ip.run_line_magic("recall", "gamma") == []
    assert (tmp_path / "other").is_dir()


def test_cell_remember_and_apostrophes(ip):
    ip.run_cell_magic(
        "remember", "--title 'Refund policy' --type semantic", "Refunds don't count.\n"
    )
    ip.run_line_magic("remember", "Don't join on email --tags crm")
    titles = {h["title"] for h in ip.run_line_magic("recall", "")}
    assert titles == {"Refund policy", "Don't join on email"}


def test_forget_removes_and_unknown_id_is_usage_error(ip, capsys):
    ip.run_line_magic("remember", "delta to forget")
    hit = ip.run_line_magic("recall", "delta")[0]
    ip.run_line_magic("forget", hit["id"])
    assert "Forgot " + hit["id"] in capsys.readouterr().out
    assert ip.run_line_magic("recall", "delta") == []
    with pytest.raises(UsageError, match="not found.*%memories"):
        ip.run_line_magic("forget", hit["id"])


def test_memories_listing_stats_and_frame(ip):
    ip.run_line_magic("remember", "epsilon one --type semantic")
    ip.run_line_magic("remember", "epsilon two --tier session")
    rows = ip.run_line_magic("memories", "")
    assert {r["title"] for r in rows} == {"epsilon one", "epsilon two"}
    assert rows[0]["heat"] in ("HOT", "WARM")
    stats = ip.run_line_magic("memories", "--stats")
    assert stats["total"] == 2 and stats["by_type"]["semantic"] == 1
    assert "index (user)" in repr(stats) and "2 entries, ok" in repr(stats)
    frame = ip.run_line_magic("memories", "--frame")
    assert len(frame) == 2 and str(frame["tier"].dtype) == "category"


@pytest.mark.parametrize(
    ("magic", "line", "message"),
    [
        ("remember", "", "needs text"),
        ("remember", "x --type nonsense", "type.*not one of"),
        ("remember", "x --user --agent dev", "choose one of"),
        ("remember", "x --project nowhere-known", "unknown project"),
        ("recall", "x --recent soon", "recent"),
        ("recall", "x --tier forever", "tier"),
        ("recall", "x --limit 0", "limit"),
        ("recall", "x --level everything", "level"),
        ("recall", '"unclosed', "close the quote"),
        ("forget", "", "arguments are required|id"),
        ("forget", "../etc/passwd", "invalid input"),
        ("memories", "--stats --frame", "not both"),
        ("memories", "--bogus", "unrecognized"),
    ],
)
def test_bad_input_is_usage_error(ip, magic, line, message):
    with pytest.raises(UsageError, match=message):
        ip.run_line_magic(magic, line)


@pytest.mark.parametrize("name", ["recall", "remember", "forget", "memories", "memory", "case"])
def test_help_text_is_real(ip, name):
    info = ip.object_inspect(f"%{name}")
    assert info["found"]
    doc = info["docstring"]
    assert "usage:" in doc.lower() or "::" in doc
    if name == "recall":
        for flag in ("--agent", "--type", "--tier", "--recent", "--limit", "--level"):
            assert flag in doc


def test_unload_removes_magics_and_hook(_shell):
    from jupyter_memory.magics import loaded_magics

    _shell.run_line_magic("load_ext", "jupyter_memory")
    m = loaded_magics(_shell)
    assert m.capture.post_run_cell in _shell.events.callbacks["post_run_cell"]
    _shell.run_line_magic("unload_ext", "jupyter_memory")
    assert loaded_magics(_shell) is None
    assert m.capture.post_run_cell not in _shell.events.callbacks["post_run_cell"]
    assert "recall" not in _shell.magics_manager.magics["line"]
    assert m not in _shell.configurables


def test_recall_frame_and_out_variable(ip):
    import pandas as pd
    import pytest
    from IPython.core.error import UsageError

    ip.run_line_magic("remember", "退款 口径: refunds are netted per order")
    ip.run_line_magic("remember", "refunds older than 90 days are excluded")
    frame = ip.run_line_magic("recall", "refunds --frame")
    assert isinstance(frame, pd.DataFrame) and len(frame) == 2
    assert str(frame["tier"].dtype) == "category"
    table = ip.run_line_magic("recall", "退款 -o zh_hits")
    assert not isinstance(table, pd.DataFrame) and len(table) == 1  # the table still shows
    kept = ip.user_ns["zh_hits"]
    assert isinstance(kept, pd.DataFrame) and list(kept["id"]) == [table[0]["id"]]
    for bad in ("1abc", "class", "a-b"):
        with pytest.raises(UsageError, match="variable name"):
            ip.run_line_magic("recall", f"refunds -o {bad}")
