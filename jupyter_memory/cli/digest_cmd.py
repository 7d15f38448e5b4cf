"""``jupyter-memory digest …``: session digests (spec 001).

``digest`` runs the extraction over every batch not yet consumed and reports
what it stored (as unreviewed memories). ``digest validate`` checks any extractor's output against its batch and scene
pool and prints what was accepted and what was rejected, with the rule. It
exits 0 whatever the verdict; only an input file that cannot be read (or a
batch or pool that is not one) is an error, and the message names the file.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .._i18n import localized, tr
from ..exceptions import ValidationError
from ..store.input_files import read_input_json, read_input_text
from .output import emit_json, open_memory

if TYPE_CHECKING:
    from ..core.learning.work_memory import ValidationReport


def _load(kind: str, path: str) -> Any:
    # The work-memory checks load for ``digest validate``, not with every parser.
    from ..core.learning.work_memory import parse_batch, parse_pool

    data = read_input_json(path)
    try:
        return parse_batch(data) if kind == "batch" else parse_pool(data)
    except ValidationError as exc:
        raise ValidationError(f"{path}: {exc}") from None


def _print_report(report: ValidationReport) -> None:
    said = tr("accepted {accepted}, rejected {rejected}")
    print(said.format(accepted=len(report.accepted), rejected=len(report.rejected)))
    for memory in report.accepted:
        scene = memory.scene.label or tr("(unclassified)")
        print(f"  + [{memory.type.value} {memory.priority}] {scene}: {memory.content}")
    for rejection in report.rejected:
        if rejection.scene_index is not None:
            where = tr("scene {n}").format(n=rejection.scene_index)
        else:
            where = tr("output")
        if rejection.memory_index is not None:
            where += ", " + tr("memory {n}").format(n=rejection.memory_index)
        print(f"  - {rejection.rule} ({where}): {rejection.message}")


def _validate(args: argparse.Namespace) -> int:
    batch = _load("batch", args.batch)
    pool = _load("pool", args.pool) if args.pool else []
    output_text = read_input_text(args.output)
    from ..core.learning.work_memory import validate_work_memories

    report = validate_work_memories(batch, output_text, pool)
    if args.json:
        emit_json(report.to_dict())
    else:
        _print_report(report)
    return 0


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    digest = subparsers.add_parser(
        "digest",
        parents=[common],
        help=tr("session digests: extract work memories and check extractor output"),
    )
    actions = digest.add_subparsers(dest="digest_action", metavar="ACTION")
    validate = actions.add_parser(
        "validate",
        parents=[common],
        help=tr("check an extractor's JSON output against its batch and scene pool"),
    )
    validate.add_argument("--batch", required=True, metavar="BATCH.json", help=tr("the batch"))
    validate.add_argument(
        "--output", required=True, metavar="OUTPUT.json", help=tr("the extractor's JSON array")
    )
    validate.add_argument("--pool", metavar="POOL.json", help=tr("the scene pool (default: empty)"))
    validate.set_defaults(func=_validate)
    digest.add_argument("--session", metavar="KEY", help=tr("only this session key (or chat file)"))
    digest.set_defaults(func=_run_digest)


def _run_digest(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        report = mem.digest(session=args.session).to_dict()
    if args.json:
        emit_json(report)
        return 0
    batches = report["batches"]
    if not batches:
        print(tr("nothing new to digest"))
    for batch in batches:
        said = tr(
            "{source}: {messages} new messages, {stored} memories stored, {rejected} rejected"
        )
        print(
            said.format(
                source=batch["source"],
                messages=batch["messages"],
                stored=batch["stored"],
                rejected=batch["rejected"],
            )
        )
    for item in report["stored"]:
        said = tr("[{type}, unreviewed]").format(type=item["type"])
        print(f"  + {item['id']}  {said}  {item['title']}")
    for rejection in report["rejected"]:
        print(f"  - {rejection['rule']}: {rejection['message']}")
    if report["notice"]:  # the LLM budget: this request went over it
        print(localized(report["notice"]))
    return 0
