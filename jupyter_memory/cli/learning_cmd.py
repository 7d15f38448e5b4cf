"""``jupyter-memory learning …``: the self-learner's candidate rules (spec 003, 自学习).

jupyter-memory learning [--json]               candidates, evidence, confidence, thresholds
jupyter-memory learning reject KEY --reason R  the person says no (recorded; confidence 0)
jupyter-memory learning promote KEY            a queue proposal now (still only proposed)
"""

from __future__ import annotations

import argparse
from typing import Any

from .output import emit_json, open_memory


def describe_report(report: dict[str, Any]) -> list[str]:
    """Plain lines for a learning report (also used by ``%memories --learning``)."""
    t = report["thresholds"]
    lines = [
        f"{report['count']} candidate rule(s). A rule is proposed once its confidence is over "
        f"{t['min_confidence']} with at least {t['min_evidence']} pieces of evidence "
        f"(one per session; confidence halves every {t['half_life_days']:g} days without "
        f"new evidence; a gotcha is one error {t['gotcha_repeats']} times in a session)."
    ]
    for cand in report["candidates"]:
        lines.append("")
        lines.append(
            f"[{cand['status']}] {cand['rule']}  ({cand['source']}, confidence "
            f"{cand['confidence']:.2f}, evidence {cand['evidence']}/{t['min_evidence']})"
        )
        lines.append(f"  key: {cand['key']}")
        if cand["proposal_id"]:
            lines.append(f"  proposal: {cand['proposal_id']}")
        for item in cand["evidence_items"]:
            mark = "" if item["live"] else "  (before a rejection: not counted)"
            lines.append(f"  - {item['at'][:16]}  {item['session']}: {item['quote']!r}{mark}")
        for dismissal in cand["dismissals"]:
            lines.append(f"  x rejected {dismissal['at'][:16]}: {dismissal['reason']}")
    return lines


def _report(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        report = mem.learning_report().to_dict()
    if args.json:
        emit_json(report)
    else:
        print("\n".join(describe_report(report)))
    return 0


def _reject(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        cand = mem.dismiss_candidate(args.key, args.reason).to_dict()
    if args.json:
        emit_json(cand)
    else:
        print(f"rejected {cand['key']}: {args.reason} (confidence 0 until new evidence)")
    return 0


def _promote(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.promote_candidate(args.key).to_dict()
    if args.json:
        emit_json(result)
    elif result["status"] == "already_pending":
        print(f"already in the queue as {result['proposal_id']}")
    else:
        print(f"proposed as {result['proposal_id']} ({result['status']}): {result['rule']}")
    return 0


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    learning = subparsers.add_parser(
        "learning",
        parents=[common],
        help="self-learning: candidate rules with their evidence, confidence and thresholds",
    )
    learning.set_defaults(func=_report)
    actions = learning.add_subparsers(dest="learning_action", metavar="ACTION")
    reject = actions.add_parser(
        "reject", parents=[common], help="reject a candidate rule, saying why"
    )
    reject.add_argument("key", help="the candidate's key (see `jupyter-memory learning`)")
    reject.add_argument("--reason", required=True, help="why it is wrong (recorded)")
    reject.set_defaults(func=_reject)
    promote = actions.add_parser(
        "promote", parents=[common], help="queue the candidate as a proposal now"
    )
    promote.add_argument("key", help="the candidate's key (see `jupyter-memory learning`)")
    promote.set_defaults(func=_promote)
