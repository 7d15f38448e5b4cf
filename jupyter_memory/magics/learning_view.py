"""``%memories --learning``: the self-learner's candidate rules, as a person reads them.

Each candidate shows its status, confidence, evidence (the person's quotes,
verbatim, escaped) and rejections, under the thresholds a rule must pass to
become a queue proposal. Rejecting or promoting is ``jupyter-memory learning
reject|promote`` or the lab panel's Learning view.
"""

from __future__ import annotations

import html
from typing import Any

from .._i18n import N_, tr
from ..core.visible import visible, visible_html
from .render import STYLE


def _headline(report: dict[str, Any]) -> str:
    t = report["thresholds"]
    return tr(
        "{count} candidate rule(s). Proposed once confidence > {min_confidence}"
        " with ≥ {min_evidence} pieces of evidence (one per session; confidence halves"
        " every {half_life_days} days without new evidence; a gotcha is one error"
        " {gotcha_repeats} times in a session)."
    ).format(
        count=report["count"],
        min_confidence=t["min_confidence"],
        min_evidence=t["min_evidence"],
        half_life_days=f"{t['half_life_days']:g}",
        gotcha_repeats=t["gotcha_repeats"],
    )


def _summary(cand: dict[str, Any], needed: int) -> str:
    return tr(
        "[{status}] {rule}  ({source}, confidence {confidence}, evidence {evidence}/{needed})"
    ).format(
        status=cand["status"],
        rule=cand["rule"],
        source=cand["source"],
        confidence=f"{cand['confidence']:.2f}",
        evidence=cand["evidence"],
        needed=needed,
    )


_HEADS = (N_("status"), N_("rule"), N_("confidence"), N_("evidence"), N_("quotes"))


class LearningView(dict):  # type: ignore[type-arg]
    """The learning report (``Memory.hooks.learning_report().to_dict()``), rendered."""

    def __repr__(self) -> str:
        needed = self["thresholds"]["min_evidence"]
        lines = [_headline(self)]
        for cand in self["candidates"]:
            lines += ["", _summary(cand, needed), "  " + tr("key: {key}").format(key=cand["key"])]
            for item in cand["evidence_items"]:
                old = "" if item["live"] else "  " + tr("(before a rejection)")
                lines.append(f"  - {item['at'][:16]} {item['session']}: {item['quote']!r}{old}")
            for d in cand["dismissals"]:
                said = tr("x rejected {at}: {reason}").format(at=d["at"][:16], reason=d["reason"])
                lines.append(f"  {said}")
        return visible("\n".join(lines))

    def _repr_html_(self) -> str:
        needed = self["thresholds"]["min_evidence"]
        rows = []
        for cand in self["candidates"]:
            quotes = "".join(
                ("<li>" if e["live"] else '<li style="opacity:.6">')
                + f"{html.escape(e['at'][:16])} · {html.escape(e['session'])}: "
                + f"<code>{visible_html(e['quote'])}</code></li>"
                for e in cand["evidence_items"]
            )
            rejected = "".join(
                "<li>"
                + tr("rejected {at}: {reason}").format(
                    at=html.escape(d["at"][:16]), reason=visible_html(d["reason"])
                )
                + "</li>"
                for d in cand["dismissals"]
            )
            rows.append(
                f"<tr><td>{html.escape(cand['status'])}</td>"
                f"<td>{visible_html(cand['rule'])}<br><small>{visible_html(cand['key'])}</small></td>"
                f"<td>{cand['confidence']:.2f}</td><td>{cand['evidence']}/{needed}</td>"
                f"<td><ul>{quotes}{rejected}</ul></td></tr>"
            )
        head = "<tr>" + "".join(f"<th>{html.escape(tr(h))}</th>" for h in _HEADS) + "</tr>"
        return (
            f'{STYLE}<table class="jm-table"><caption>{html.escape(_headline(self))}</caption>'
            f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
        )
