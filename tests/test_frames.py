"""frames: documented columns and real dtypes, read through the service."""

from __future__ import annotations

import pandas as pd

from jupyter_memory import frames


def _is_dt(series) -> bool:
    return isinstance(series.dtype, pd.DatetimeTZDtype)


def _is_cat(series) -> bool:
    return isinstance(series.dtype, pd.CategoricalDtype)


def test_memories_frame(mem, clock):
    mem.remember("Always run tests", tags="ci")
    clock.advance(days=1)
    mem.remember("收入口径不含退款", type="semantic", tier="daily")
    mem.recall("tests")
    df = frames.memories_frame(mem)
    assert list(df.columns) == frames.MEMORY_COLUMNS
    assert len(df) == 2
    for col in ("created", "updated", "last_accessed"):
        assert _is_dt(df[col])
    for col in ("type", "tier", "scope", "heat", "layer", "source"):
        assert _is_cat(df[col])
    assert df["access_count"].dtype == "int64" and df["attention"].dtype == "float64"
    assert df.loc[df.title == "Always run tests", "access_count"].item() == 1
    assert set(df["type"]) == {"procedural", "semantic"}


def test_empty_frames_keep_their_columns(mem):
    assert list(frames.memories_frame(mem).columns) == frames.MEMORY_COLUMNS
    assert list(frames.queue_frame(mem).columns) == frames.QUEUE_COLUMNS
    assert list(frames.knowledge_frame(mem).columns) == frames.KNOWLEDGE_COLUMNS
    assert frames.audit_frame(mem).empty


def test_queue_frame_has_every_status_and_decision_times(mem, clock, project_dir):
    mem.focus(project_dir)
    msgs = [
        {"role": "code", "text": "# note: revenue excludes refunds\nx=1", "cell_id": "c1"},
        {"role": "markdown", "text": "rule: Always exclude test accounts.", "cell_id": "c2"},
    ]
    made = mem.extract(msgs, project="sales-q3", background=False)
    assert len(made) == 2
    clock.advance(minutes=5)
    mem.apply(made[0].id, to="project")
    clock.advance(minutes=1)
    mem.dismiss(made[1].id)
    df = frames.queue_frame(mem)
    assert list(df.columns) == frames.QUEUE_COLUMNS
    assert set(df["status"]) == {"applied", "dismissed"}
    for col in ("kind", "source", "status", "suggested_layer", "applied_to"):
        assert _is_cat(df[col])
    assert _is_dt(df["created"]) and _is_dt(df["decided_at"])
    assert sorted(df["decision_seconds"]) == [300.0, 360.0]
    assert set(df["cell_id"]) == {"c1", "c2"}


def test_knowledge_frame_one_row_per_leaf(mem, project_dir):
    mem.save_knowledge(
        "user", "## Rules\n- Always use UTC\n\n## Info\n- Fiscal year starts in Feb\n"
    )
    mem.focus(project_dir)
    mem.save_knowledge(
        "project",
        "## Rules\n- Revenue\n  - excludes refunds\n  - excludes tax\n\n## Info\n",
        project="sales-q3",
    )
    df = frames.knowledge_frame(mem)
    assert list(df.columns) == frames.KNOWLEDGE_COLUMNS
    assert _is_cat(df["layer"]) and _is_cat(df["section"]) and df["position"].dtype == "int64"
    user = df[df.layer == "user"]
    assert set(zip(user.section, user.text, strict=True)) == {
        ("rules", "Always use UTC"),
        ("info", "Fiscal year starts in Feb"),
    }
    proj = df[df.layer == "project"]
    assert list(proj.label) == ["Revenue", "Revenue"]
    assert list(proj.text) == ["excludes refunds", "excludes tax"]
    assert set(proj.project) == {"sales-q3"}


def test_audit_frame(mem):
    mem.remember("kept around")
    entry = mem.remember("to be forgotten")
    mem.forget(entry.id)
    df = frames.audit_frame(mem)
    assert list(df.columns[: len(frames.AUDIT_COLUMNS)]) == frames.AUDIT_COLUMNS
    # the service hides a forgotten memory's create line (its file name carries its slug)
    assert list(df["action"]) == ["create", "delete"]
    assert list(df["id"]) != [entry.id, entry.id]
    assert _is_dt(df["at"]) and _is_cat(df["action"]) and _is_cat(df["actor"])
    assert (
        "to-be-forgotten" not in df.to_string() and "to be forgotten" not in df.to_string()
    )  # a forgotten memory keeps only id + hash
