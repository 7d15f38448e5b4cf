"""GET /cases and /cases/{id} for the panel's Cases view (spec 000 via issue 14):
filters by type, evidence id and hypothesis id, damaged entries reported, legacy
entries listed with an unknown state. Every answer is checked against its schema."""

from __future__ import annotations

import shutil

from tests.server.test_rest_schemas import SAMPLE, check

CASE = "CASE-2026-001"
LEGACY = "2026-05-31_hesitate_related-party-doubt.md"
BROKEN = "2026-06-03_hesitate_overseas-payment.md"


async def test_case_entries_filter_by_type_evidence_and_hypothesis(api, jp_root_dir):
    shutil.copytree(SAMPLE / "cases", jp_root_dir / "cases")

    async def files(**params: str) -> list[str]:
        code, data = await api("GET", "cases", CASE, params=params)
        assert code == 200, data
        check("case.json", data)
        return [e["file"] for e in data["entries"]]

    assert len(await files()) == 15
    assert await files(evidence="E-018") == [
        "2026-06-14_hesitate_dealer-b-refund-timing.md",
        "2026-06-15_think_hypothesis-2-revised.md",
    ]
    assert len(await files(hypothesis="H-2")) == 5
    assert await files(type="think", evidence="E-018", hypothesis="H-2") == [
        "2026-06-15_think_hypothesis-2-revised.md"
    ]
    assert await files(type="observe", evidence="E-018") == []
    for name, bad in (("type", "gossip"), ("evidence", "E7"), ("hypothesis", "2")):
        code, data = await api("GET", "cases", CASE, params={name: bad})
        assert code == 422 and data["field"] == name, data
        check("error.json", data)


async def test_a_damaged_case_is_listed_with_its_problems(api, jp_root_dir):
    shutil.copytree(SAMPLE / "cases", jp_root_dir / "cases")
    folder = jp_root_dir / "cases" / CASE / "case_memory"
    text = (folder / LEGACY).read_text("utf-8")
    (folder / LEGACY).write_text(text[: text.index("## 后续状态")], "utf-8")
    (folder / BROKEN).write_bytes(b"\xff")
    code, listed = await api("GET", "cases")
    assert code == 200
    check("cases.json", listed)
    case = next(c for c in listed["cases"] if c["id"] == CASE)
    assert len(case["problems"]) == 1 and BROKEN in case["problems"][0]
    assert any(r["summary"] == "境外付款路线证据不足" for r in case["rows"])  # row kept
    legacy_row = next(r for r in case["rows"] if r["summary"] == "关联方交易的最初疑虑")
    assert legacy_row["status"] == ""
    code, detail = await api("GET", "cases", CASE)
    check("case.json", detail)
    entries = {e["file"]: e for e in detail["entries"]}
    assert BROKEN not in entries and entries[LEGACY]["status"] == ""
    code, entry = await api("GET", "cases", CASE, "entries", LEGACY)
    check("case_entry.json", entry)
    assert entry["legacy"] is True and "关联方交易" in entry["body"]
    code, err = await api("GET", "cases", CASE, "entries", BROKEN)
    assert code == 422 and BROKEN in err["message"], (code, err)


async def test_entry_files_are_objects_with_name_path_and_note(api, jp_root_dir):
    shutil.copytree(SAMPLE / "cases", jp_root_dir / "cases")
    code, detail = await api("GET", "cases", CASE)
    with_files = [e for e in detail["entries"] if e["files"]]
    assert with_files, "the sample has entries with 关联文件"
    code, entry = await api("GET", "cases", CASE, "entries", with_files[0]["file"])
    check("case_entry.json", entry)
    assert set(entry["files"][0]) == {"name", "path", "note"}


async def test_an_entry_with_a_chinese_file_name_is_read_by_its_name(api, jp_root_dir):
    from jupyter_memory.service.cases.memory import CaseMemory

    shutil.copytree(SAMPLE / "cases", jp_root_dir / "cases")
    made = CaseMemory(jp_root_dir, CASE).note(
        "insight", "退款不计入收入", "月末退款集中，原因不明。"
    )
    assert made.entry and made.entry.endswith("_insight_退款不计入收入.md")
    code, detail = await api("GET", "cases", CASE)
    assert made.entry in [e["file"] for e in detail["entries"]]
    # jp_fetch percent-encodes the segment as the panel does (encodeURIComponent)
    code, entry = await api("GET", "cases", CASE, "entries", made.entry)
    assert code == 200, entry
    check("case_entry.json", entry)
    assert entry["title"] == "退款不计入收入"
