"""``jupyter-memory learning …``: the self-learner's candidate rules (spec 003, 自学习).

jupyter-memory learning [--json]               candidates, evidence, confidence, thresholds
jupyter-memory learning reject KEY --reason R  the person says no (recorded; confidence 0)
jupyter-memory learning promote KEY            a queue proposal now (still only proposed)
"""

from __future__ import annotations

import argparse
from typing import Any

from .._i18n import tr
from .output import emit_json, open_memory


def describe_report(report: dict[str, Any]) -> list[str]:
    """Plain lines for a learning report (also used by ``%memories --learning``)."""
    t = report["thresholds"]
    lines = [
        tr(
            "{count} candidate rule(s). A rule is proposed once its confidence is over"
            " {min_confidence} with at least {min_evidence} pieces of evidence"
            " (one per session; confidence halves every {half_life_days} days without"
            " new evidence; a gotcha is one error {gotcha_repeats} times in a session)."
        ).format(
            count=report["count"],
            min_confidence=t["min_confidence"],
            min_evidence=t["min_evidence"],
            half_life_days=f"{t['half_life_days']:g}",
            gotcha_repeats=t["gotcha_repeats"],
        )
    ]
    for cand in report["candidates"]:
        lines.append("")
        lines.append(
            tr(
                "[{status}] {rule}  ({source}, confidence {confidence}, evidence {evidence}/{needed})"
            ).format(
                status=cand["status"],
                rule=cand["rule"],
                source=cand["source"],
                confidence=f"{cand['confidence']:.2f}",
                evidence=cand["evidence"],
                needed=t["min_evidence"],
            )
        )
        lines.append("  " + tr("key: {key}").format(key=cand["key"]))
        if cand["proposal_id"]:
            lines.append("  " + tr("proposal: {id}").format(id=cand["proposal_id"]))
        for item in cand["evidence_items"]:
            mark = "" if item["live"] else "  " + tr("(before a rejection: not counted)")
            lines.append(f"  - {item['at'][:16]}  {item['session']}: {item['quote']!r}{mark}")
        for dismissal in cand["dismissals"]:
            said = tr("x rejected {at}: {reason}").format(
                at=dismissal["at"][:16], reason=dismissal["reason"]
            )
            lines.append(f"  {said}")
    return lines


def _report(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        report = mem.hooks.learning_report().to_dict()
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
        print(
            tr("rejected {key}: {reason} (confidence 0 until new evidence)").format(
                key=cand["key"], reason=args.reason
            )
        )
    return 0


def _promote(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.promote_candidate(args.key).to_dict()
    if args.json:
        emit_json(result)
    elif result["status"] == "already_pending":
        print(tr("already in the queue as {id}").format(id=result["proposal_id"]))
    else:
        print(
            tr("proposed as {id} ({status}): {rule}").format(
                id=result["proposal_id"], status=result["status"], rule=result["rule"]
            )
        )
    return 0


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    learning = subparsers.add_parser(
        "learning",
        parents=[common],
        help=tr("self-learning: candidate rules with their evidence, confidence and thresholds"),
    )
    learning.set_defaults(func=_report)
    actions = learning.add_subparsers(dest="learning_action", metavar="ACTION")
    reject = actions.add_parser(
        "reject", parents=[common], help=tr("reject a candidate rule, saying why")
    )
    reject.add_argument("key", help=tr("the candidate's key (see `jupyter-memory learning`)"))
    reject.add_argument("--reason", required=True, help=tr("why it is wrong (recorded)"))
    reject.set_defaults(func=_reject)
    promote = actions.add_parser(
        "promote", parents=[common], help=tr("queue the candidate as a proposal now")
    )
    promote.add_argument("key", help=tr("the candidate's key (see `jupyter-memory learning`)"))
    promote.set_defaults(func=_promote)
