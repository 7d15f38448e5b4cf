"""Memory commands: remember, recall, get, forget, list, stats, import, export,
rebuild-index, doctor."""

from __future__ import annotations

import argparse
import csv
import io
import sys
from typing import Any

from .._i18n import N_, localized, ntr, tr
from ..core.memories.embed_progress import embedding_line
from ..core.memories.recall_query import RecallQuery
from ..core.memories.usage import GROUP_LABELS
from ..exceptions import ValidationError
from .output import emit_json, json_text, open_memory
from .stdin import read_stdin


def _remember(args: argparse.Namespace) -> int:
    text = args.text if args.text != "-" else read_stdin("text")
    with open_memory(args) as mem:
        entry = mem.remember(
            text,
            title=args.title,
            type=args.type,
            tier=args.tier,
            # like %remember: `--tags sales,refunds q3` is three tags
            tags=[t.strip() for arg in args.tags or () for t in arg.split(",") if t.strip()],
            scope=args.scope,
            agent=args.agent,
            allow_secret=args.allow_secret,
        )
        if args.json:
            emit_json(entry.to_dict())
        else:
            print(tr("remembered {id}").format(id=entry.id) + f"\n  {entry.path}")
    return 0


def _recall(args: argparse.Namespace) -> int:
    if args.agent and args.scope:
        raise ValidationError(tr("give --agent NAME or --scope, not both"), field="agent")
    with open_memory(args) as mem:
        query = RecallQuery.of(
            " ".join(args.query),
            type=args.type,
            tier=args.tier,
            # --agent NAME: that agent's own memories (spec 003 "*recall --agent dev"),
            # ranked by its preferred sectors; without it shared ones are all there.
            scope=f"agent:{args.agent}" if args.agent else args.scope,
            agent=args.agent,
            tags=args.tag or (),
            recent=args.recent,
            limit=args.limit,
            level=args.level,
            budget=args.budget,
            mode=args.mode,
        )
        hits = mem.hooks.recall_query(query)
    if args.json:
        emit_json([h.to_dict() for h in hits])
        return 0
    if not hits:
        print(tr("no memories found"))
    for h in hits:
        later = (
            "  " + tr("(superseded by {id})").format(id=h.superseded_by) if h.superseded_by else ""
        )
        print(f"{h.score:5.2f}  {h.id}  [{h.type}/{h.tier}/{h.scope}]  {h.title}{later}")
        if h.text and h.text != h.title:
            print(f"       {h.text}")
        for quote in h.evidence:  # spec 003's L2: evidence, then where it comes from
            print(f"       > {quote}")
        if h.provenance:
            print(f"       {h.provenance}")
    return 0


def _get(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        entry = mem.get(args.id)
    if args.json:
        emit_json(entry.to_dict())
    else:
        links = [
            tr("supersedes: {ids}").format(ids=", ".join(entry.meta.supersedes))
            if entry.meta.supersedes
            else "",
            tr("superseded by: {id}").format(id=entry.superseded_by) if entry.superseded_by else "",
        ]
        head = "".join(f"{line}\n" for line in links if line)
        print(f"# {entry.title}\n{entry.path}\n{head}\n{entry.text}")
    return 0


def _forget(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        result = mem.forget(args.id)
    emit_json(result.to_dict()) if args.json else print(tr("forgot {id}").format(id=args.id))
    return 0


def _list(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        rows = mem.memories(limit=args.limit)
    if args.json:
        emit_json(rows)
        return 0
    for r in rows:
        print(f"{r['heat']:4}  {r['id']}  [{r['type']}/{r['tier']}/{r['scope']}]  {r['title']}")
    return 0


def _stats(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        stats = mem.stats()
        spend = mem.hooks.llm_spend()
    if args.json:
        emit_json({**stats.to_dict(), "llm_spend": spend.to_dict()})
        return 0
    print(tr("{n} memories in {home}").format(n=stats.total, home=stats.home))
    print(tr("LLM today:    {spend}").format(spend=localized(spend.describe())))
    counts = stats.to_dict()
    for key in ("by_type", "by_tier", "by_scope", "by_project", "by_heat"):
        print(f"  {key[3:]:8} " + ", ".join(f"{k}: {v}" for k, v in sorted(counts[key].items())))
    _print_usage(counts["usage"])
    line = embedding_line(counts["semantic"])  # what is left to embed, and how long
    if line:
        print(f"{tr('embedding')}: {line}")
    return 0


def _when(value: str | None) -> str:
    return value[:16].replace("T", " ") if value else "never"


def _print_usage(usage: dict[str, Any]) -> None:
    """Recalls per memory, sector, tier and heat (spec 003 usage statistics)."""
    print(
        f"recalls: {usage['accesses']} in all; {usage['accessed']} memories recalled, "
        f"{usage['never_accessed']} never; last {_when(usage['last_accessed'])}"
    )
    if usage["most_recalled"]:
        print("most recalled:")
        for top in usage["most_recalled"]:
            print(
                f"  {top['access_count']:>4}×  {top['id']}  {top['title']}  "
                f"({top['type']}/{top['tier']}, last {_when(top['last_accessed'])})"
            )
    for group, label in GROUP_LABELS.items():
        print(f"{tr(label)}:")
        for name, g in usage[group].items():
            print(
                f"  {name:10} {g['memories']:>4} memories  {g['accesses']:>5} recalls  "
                f"last {_when(g['last_accessed'])}"
            )


def _import(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        ids = mem.hooks.import_jsonl(args.file)
    emit_json({"imported": len(ids), "ids": ids}) if args.json else print(
        ntr("imported {n} memory", "imported {n} memories", len(ids)).format(n=len(ids))
    )
    return 0


def _export(args: argparse.Namespace) -> int:
    if args.format in ("basic-memory", "agents-md"):
        from ..service.imports.export import export_agents_md, export_basic_memory

        if not args.target:
            raise ValidationError(
                f"--format {args.format} needs a target folder or file", field="target"
            )
        write = export_basic_memory if args.format == "basic-memory" else export_agents_md
        with open_memory(args) as mem:
            result = write(mem, args.target)
        emit_json(result) if args.json else print(
            tr("exported to {path}").format(path=result["path"])
        )
        return 0
    with open_memory(args) as mem:
        rows = mem.export()
    if args.format == "jsonl":
        for r in rows:
            sys.stdout.write(json_text(r, default=str) + "\n")
        return 0
    fields = [
        "id",
        "title",
        "type",
        "tier",
        "scope",
        "project",
        "tags",
        "source",
        "confidence",
        "created",
        "updated",
        "layer",
        "heat",
        "text",
    ]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=fields, extrasaction="ignore")
    writer.writeheader()
    for r in rows:
        writer.writerow({**r, "tags": ";".join(r.get("tags", []))})
    sys.stdout.write(buf.getvalue())
    return 0


def _rebuild(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        report = mem.hooks.rebuild_index()
    if args.json:
        emit_json(report.to_dict())
    else:
        for layer, rep in report.layers.items():
            said = tr("{layer}: indexed {n} files, {bad} unreadable")
            print(said.format(layer=layer, n=rep.indexed, bad=len(rep.problems)))
    return 0


def _embed(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        report = mem.hooks.embed(rebuild=args.rebuild, timeout=args.timeout)
    if args.json:
        emit_json(report.to_dict())
    else:
        for root in report.status["roots"]:
            said = tr("{layer}: {embedded} embedded, {pending} pending")
            print(
                said.format(layer=root["layer"], embedded=root["embedded"], pending=root["pending"])
            )
    return 0 if report.done else 1


# The kinds of problem doctor finds, as a person reads them (the code stays in --json).
DOCTOR_KINDS = {
    "symlink": N_("symlink"),
    "unreadable": N_("unreadable"),
    "audit": N_("audit log"),
    "merge-driver": N_("merge driver"),
    "secret": N_("secret"),
}


def _doctor(args: argparse.Namespace) -> int:
    with open_memory(args) as mem:
        fixed = mem.hooks.redact_derived_secrets() if args.fix else None
        report = mem.doctor(fix=args.fix)
    if args.json:
        data = report.to_dict()
        out = {"ok": report.ok, "problems": data["problems"], "notices": data["notices"]}
        if args.fix:
            out["fixed"] = data.get("fixed", [])
        if fixed is not None:
            out["redacted"] = list(fixed.redacted)
        emit_json(out)
        return 0 if report.ok else 1
    for path in fixed.redacted if fixed is not None else ():
        print(tr("redacted secrets in {path}").format(path=path))
    if report.ok:
        print(tr("ok: no problems found"))
    modes = [p for p in report.problems if p.kind == "mode"]
    for p in report.problems:
        if p.kind != "mode":
            print(f"{tr(DOCTOR_KINDS.get(p.kind, p.kind))}: {p.path}: {localized(p.message)}")
    if modes:
        # One heading, then one path a line: an old home can list every folder in it.
        print(tr("open to group or others (`jupyter-memory doctor --fix` makes them private):"))
        for p in modes:
            print(f"  {p.path}: {localized(p.message)}")
    if report.fixed:
        print(tr("made private:"))
        for f in report.fixed:
            print(f"  {f.path}: {f.before:04o} → {f.after:04o}")
    for notice in report.notices:  # e.g. which storage a team project uses, and why
        print(tr("note: {notice}").format(notice=localized(notice)))
    return 0 if report.ok else 1


def _filters(p: argparse.ArgumentParser) -> None:
    p.add_argument("--type", help=tr("episodic, semantic, procedural or reflective (comma list)"))
    p.add_argument("--tier", help=tr("session, daily or durable (comma list)"))
    p.add_argument("--scope", help=tr("user, project or agent:NAME"))
    p.add_argument("--agent", help=tr("only agent NAME's own memories (shared ones: leave it out)"))


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("remember", parents=[common], help=tr("store a memory"))
    p.add_argument("text", help=tr("the memory text ('-' reads stdin)"))
    p.add_argument("--title")
    p.add_argument("--type", default="procedural")
    p.add_argument("--tier", default="durable")
    p.add_argument("--tags", nargs="*")
    p.add_argument("--scope")
    p.add_argument("--agent")
    p.add_argument(
        "--allow-secret",
        action="store_true",
        help=tr("keep text that holds a secret (user layer only; agents see it redacted)"),
    )
    p.set_defaults(func=_remember)

    p = sub.add_parser("recall", parents=[common], help=tr("search memories"))
    p.add_argument("query", nargs="*")
    _filters(p)
    p.add_argument("--tag", action="append")
    p.add_argument("--recent", help=tr("only memories updated within e.g. 7d, 12h"))
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--level", default="snippet", choices=["index", "snippet", "full"])
    p.add_argument("--budget", type=int, help=tr("cap on the tokens returned"))
    p.add_argument(
        "--mode",
        choices=["lexical", "semantic", "hybrid"],
        help=tr("default: hybrid with the semantic extra, else lexical"),
    )
    p.set_defaults(func=_recall)

    p = sub.add_parser("get", parents=[common], help=tr("show one memory"))
    p.add_argument("id")
    p.set_defaults(func=_get)

    p = sub.add_parser("forget", parents=[common], help=tr("delete a memory and its traces"))
    p.add_argument("id")
    p.set_defaults(func=_forget)

    p = sub.add_parser("list", parents=[common], help=tr("list memories, HOT first"))
    p.add_argument("--limit", type=int)
    p.set_defaults(func=_list)

    p = sub.add_parser("stats", parents=[common], help=tr("counts by type, tier, scope, project"))
    p.set_defaults(func=_stats)

    p = sub.add_parser("import", parents=[common], help=tr("bulk import a JSON-lines file"))
    p.add_argument("file")
    p.set_defaults(func=_import)

    p = sub.add_parser("export", parents=[common], help=tr("export every memory"))
    p.add_argument(
        "--format", choices=["jsonl", "csv", "basic-memory", "agents-md"], default="jsonl"
    )
    p.add_argument("target", nargs="?", help=tr("basic-memory: a folder; agents-md: a file"))
    p.set_defaults(func=_export)

    p = sub.add_parser(
        "rebuild-index", parents=[common], help=tr("rebuild the derived index from files")
    )
    p.set_defaults(func=_rebuild)

    p = sub.add_parser("embed", parents=[common], help=tr("embed memories now (semantic extra)"))
    p.add_argument("--rebuild", action="store_true", help=tr("re-embed everything"))
    p.add_argument("--timeout", type=float, help=tr("give up waiting after this many seconds"))
    p.set_defaults(func=_embed)

    p = sub.add_parser(
        "doctor", parents=[common], help=tr("check files and index; exit 1 on problems")
    )
    p.add_argument(
        "--fix",
        action="store_true",
        help=tr(
            "make files and folders that others can open private (0600 / 0700) and redact"
            " secrets in derived files (recorded texts, digest inbox)"
        ),
    )
    p.set_defaults(func=_doctor)
