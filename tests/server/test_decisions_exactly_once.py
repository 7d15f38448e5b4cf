"""One proposal decided at the same moment from a kernel, the panel's REST API and the CLI (issue 16).

Three real processes race on each proposal: a kernel (an IPython shell in its
own process running ``%memory apply`` / ``%memory dismiss``, the lines a card
offers in a cell), the real jupyter_server behind the panel and the cards of
the lab extension, and the ``jupyter-memory`` CLI's ``main`` in a subprocess. Each surface takes a different decision (Apply to User, Apply to
Project, Dismiss), rotated per proposal. Exactly one decision may take effect:
one status change, one audit line, one knowledge bullet when it was an Apply
and none when it was a Dismiss; the other two answer "already saved" /
"already dismissed" and write nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

# Texts far enough apart that none supersedes another in the queue.
TEXTS = [
    "Revenue excludes refunds issued in the same month",
    "收入口径：不含当月退款",
    "Fiscal quarters start in February for the retail unit",
    "Customer ids are hashed before any export leaves the warehouse",
    "客户编号在导出前必须脱敏",
    "Weekly churn is measured on Sunday midnight snapshots",
]
SLOT_S = 0.4  # time between two proposals' races

KERNEL = textwrap.dedent(
    """
    import json, sys, time
    from IPython.core.interactiveshell import InteractiveShell
    plan = json.loads(sys.argv[1])
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "jupyter_memory")
    print("ready", flush=True)
    start = float(sys.stdin.readline())
    out = []
    for at, pid, action in plan:
        line = f"dismiss {pid}" if action == "dismiss" else f"apply {pid} --to {action}"
        while time.time() < start + at:
            time.sleep(0.001)
        out.append(str(ip.run_line_magic("memory", line)))
    print(json.dumps(out))
    """
)

CLI = textwrap.dedent(
    """
    import sys, time
    from jupyter_memory.cli.main import main
    print("ready", flush=True)
    at = float(sys.stdin.readline()) + float(sys.argv[1])
    while time.time() < at:
        time.sleep(0.001)
    sys.exit(main(sys.argv[2:]))
    """
)

ACTIONS = ("user", "project", "dismiss")


def _cli_args(pid: str, action: str) -> list[str]:
    if action == "dismiss":
        return ["dismiss", pid]
    return ["apply", pid, "--to", action]


async def test_same_proposal_decided_at_once_from_kernel_rest_and_cli(
    api, server_memory, memory_home: Path, project_dir: Path
):
    server_memory.focus(project_dir)  # registers the project for all three surfaces
    project = server_memory.project_id
    ids = []
    for text in TEXTS:
        result = server_memory.propose(text, "rule", text, source="manual", project=project)
        assert result["status"] == "queued", result
        ids.append(result["proposal"]["id"])
    env = dict(os.environ, JUPYTER_MEMORY_HOME=str(memory_home))
    kernel_plan, cli_procs, rest_plan = [], [], []
    for k, pid in enumerate(ids):
        kernel_action, rest_action, cli_action = (ACTIONS[(k + i) % 3] for i in range(3))
        kernel_plan.append((k * SLOT_S, pid, kernel_action))
        rest_plan.append((k * SLOT_S, pid, rest_action))
        cli_procs.append(
            subprocess.Popen(
                [sys.executable, "-c", CLI, str(k * SLOT_S), *_cli_args(pid, cli_action)],
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    kernel = subprocess.Popen(
        [sys.executable, "-c", KERNEL, json.dumps(kernel_plan)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # One start time, sent once every process has imported (a fixed 6 s head start
    # was mostly waiting); the server keeps serving meanwhile.
    for proc in [kernel, *cli_procs]:
        ready = await asyncio.to_thread(proc.stdout.readline)
        assert ready == "ready\n", (ready, proc.stderr.read() if not ready else "")
    start = time.time() + 0.5
    for proc in [kernel, *cli_procs]:
        proc.stdin.write(f"{start}\n")
        proc.stdin.flush()
    rest_answers = []
    for at, pid, action in rest_plan:
        await asyncio.sleep(max(0.0, start + at - time.time()))
        if action == "dismiss":
            rest_answers.append(await api("POST", "queue", pid, "dismiss"))
        else:
            body = {"to": action, "project": project if action == "project" else None}
            rest_answers.append(await api("POST", "queue", pid, "apply", body=body))
    kernel_out, kernel_err = kernel.communicate(timeout=120)
    assert kernel.returncode == 0, kernel_err
    kernel_lines = json.loads(kernel_out.strip().splitlines()[-1])
    cli_out = []
    for proc in cli_procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        cli_out.append(out.strip())

    user_kn = server_memory.knowledge("user")
    project_kn = server_memory.knowledge("project", project=project)
    audit = [
        r
        for r in server_memory.hooks.audit_records()
        if r["action"] in ("proposal.apply", "proposal.dismiss")
    ]
    for k, (pid, text) in enumerate(zip(ids, TEXTS, strict=True)):
        status = server_memory.proposal(pid).status
        (code, rest), kernel_line, cli_line = rest_answers[k], kernel_lines[k], cli_out[k]
        took = [
            code == 200,
            "Already" not in kernel_line,
            not cli_line.startswith("already"),
        ]
        assert sum(took) == 1, (pid, rest_answers[k], kernel_line, cli_line)
        lines = [r for r in audit if r.get("id") == pid]
        assert len(lines) == 1, (pid, lines)
        bullets = user_kn.count(text) + project_kn.count(text)
        if status == "dismissed":
            assert bullets == 0, (pid, kernel_line, cli_line, rest)
            assert lines[0]["action"] == "proposal.dismiss"
            already, rest_state = "Already dismissed", "already_dismissed"
        else:
            assert status == "applied"
            assert bullets == 1, (pid, kernel_line, cli_line, rest)
            assert lines[0]["action"] == "proposal.apply"
            already, rest_state = "Already saved", "already_saved"
        # The losers say what happened instead, and wrote nothing.
        if code != 200:
            assert code == 409 and rest["state"] == rest_state, rest
        if took[1] is False:
            assert already in kernel_line, kernel_line
        if took[2] is False:
            assert cli_line == f"{rest_state.replace('_', ' ')}: nothing changed" or (
                cli_line == rest_state.replace("_", " ")
            ), cli_line
