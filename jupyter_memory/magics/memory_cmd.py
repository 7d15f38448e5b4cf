"""``%memory``: the switches, the focused project, the agent context and the queue.

    %memory focus ./sales-q3        %memory on | off
    %memory suggestions on | off    %memory status
    %memory context                 %memory queue
    %memory suggest                 %memory process-all
    %memory digest                  %memory agent-unreviewed on | off
    %memory settings                %memory settings calls_per_day=40,tokens_per_day=200000
    %memory apply ID --to user      %memory dismiss ID
    %memory revert ID [--then dismissed]   (undo an Apply)
    %memory keep ID                 %memory discard ID
    %memory promote ID --kind info  (review an unreviewed memory, as its card does)
    %memory propose TEXT [--quote Q] [--kind rule|info] [--to user|project]
    %memory reorganize [user|project]   (the knowledge file: merges listed, over budget said)

Also the worker's two callbacks: :func:`suggestion_round` (one extraction
round) and :func:`show_cards`. A repeated error is not proposed here: the
digest feed hands it to ``Memory.hooks.capture_gotcha`` (an auto-gotcha memory and
self-learning evidence; a proposal only past the confidence gate).
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from IPython.core.error import UsageError

from .._i18n import N_, localized, tr
from ..exceptions import ValidationError
from ..service.knowledge.results import PICK_A_PROJECT
from . import decide_cmd, digest_cmd, focus_cmd, propose_cmd
from .args import MagicParser, argument, magic_arguments, parse
from .host import MagicsHost
from .render import TextBlock
from .team_status import team_lines

SETTINGS_USAGE = N_("%memory settings calls_per_day=N,tokens_per_day=N (the daily LLM budget)")

ACTIONS = (
    "focus",
    "on",
    "off",
    "suggestions",
    "status",
    "context",
    "queue",
    "suggest",
    "process-all",
    "digest",
    "settings",
    "agent-unreviewed",
    "apply",
    "dismiss",
    "revert",
    "keep",
    "discard",
    "promote",
    "propose",
    "reorganize",
)


# The options of %memory. Every action has its own parser (IPython/jupysql style)
# with the options it takes (_TAKES), so argparse refuses one its action does not
# take, in the person's language; ``%memory?`` lists them all.
_OPTIONS: dict[str, dict[str, Any]] = {
    "--to": dict(choices=["user", "project"], help=tr("apply: the knowledge layer")),
    "--project": dict(
        help=tr("apply --to project: the project (default: the proposal's or focus)")
    ),
    "--kind": dict(choices=["rule", "info"], help=tr("promote: Rule or Info (default rule)")),
    "--then": dict(
        choices=["pending", "dismissed"],
        help=tr("revert: the proposal goes back to the queue (default) or is dismissed"),
    ),
    "--query": dict(help=tr("context: the conversation text that picks the WARM memories")),
    "--agent": dict(help=tr("context: include this agent's own reviewed memories (e.g. ask)")),
    # focus_cmd reads "--none" as its value: no project, a choice kept for the notebook
    "--none": dict(
        action="store_const",
        const="--none",
        dest="value",
        help=tr("focus: no project (the choice is kept for this notebook)"),
    ),
}
# What each action takes: its value's name (None: no value), then its options.
_TAKES: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "focus": ("PROJECT", ("--none",)),
    "on": (None, ()),
    "off": (None, ()),
    "suggestions": ("on|off", ()),
    "status": (None, ()),
    "context": (None, ("--query", "--agent")),
    "queue": (None, ()),
    "suggest": (None, ()),
    "process-all": (None, ()),
    "digest": (None, ()),
    "settings": ("calls_per_day=N,tokens_per_day=N", ()),
    "agent-unreviewed": ("on|off", ()),
    "apply": ("ID", ("--to", "--project")),
    "dismiss": ("ID", ()),
    "revert": ("ID", ("--then",)),
    "keep": ("ID", ()),
    "discard": ("ID", ()),
    "promote": ("ID", ("--kind",)),
    "reorganize": ("user|project", ()),
}
# Every attribute a handler may read, None unless its action took it.
_UNSET = ("value", *(o.removeprefix("--") for o in _OPTIONS if o != "--none"))


def _action_parser(action: str) -> MagicParser:
    value, options = _TAKES[action]
    parser = MagicParser(prog=f"memory {action}")  # IPython adds the %
    if value is not None:
        # SUPPRESS: an absent value leaves the namespace's (None, or focus's --none)
        parser.add_argument("value", nargs="?", metavar=value, default=argparse.SUPPRESS)
    for option in options:
        parser.add_argument(option, **_OPTIONS[option])
    return parser


ACTION_PARSERS: dict[str, MagicParser] = {action: _action_parser(action) for action in _TAKES}


@magic_arguments()
@argument("action", help=", ".join(ACTIONS))
@argument(
    "value",
    nargs="?",
    help=tr(
        "focus: a project folder or id · suggestions, agent-unreviewed: on or off"
        " · apply, dismiss, revert: a proposal id · keep, discard, promote: a memory id"
        " · reorganize: user or project"
    ),
)
@argument("--to", **_OPTIONS["--to"])
@argument("--project", **_OPTIONS["--project"])
@argument("--kind", **_OPTIONS["--kind"])
@argument("--then", **_OPTIONS["--then"])
@argument("--query", **_OPTIONS["--query"])
@argument("--agent", **_OPTIONS["--agent"])
@argument("--none", **_OPTIONS["--none"])
def memory(self: MagicsHost, line: str) -> Any:
    """Switches, project focus, agent context and the knowledge queue. Examples::

    %memory focus ./sales-q3
    %memory off
    %memory suggestions off
    %memory context
    %memory queue
    %memory process-all
    %memory digest
    %memory propose Revenue excludes refunds --kind rule
    """
    action, _, rest = line.strip().partition(" ")
    if action == "propose":  # free text with options: its own parser (propose_cmd)
        return propose_cmd.propose(self, rest)
    try:
        words = shlex.split(line)
    except ValueError as exc:  # shlex: an open quote
        raise UsageError(tr("{error}: close the quote").format(error=tr(str(exc)))) from exc
    if not words:  # argparse's own "the following arguments are required: action"
        parse(memory, line)
    action = words[0]
    if action not in ACTIONS:
        raise UsageError(
            tr("%memory: unknown action {action}; use one of {actions}").format(
                action=repr(action), actions=", ".join(ACTIONS)
            )
        )
    args = argparse.Namespace(action=action, **dict.fromkeys(_UNSET))
    try:
        ACTION_PARSERS[action].parse_intermixed_args(words[1:], namespace=args)
    except UsageError as exc:
        raise UsageError(f"%memory {action}: {exc}") from None
    handler = _HANDLERS[action]
    return handler(self, args)


# ``%memory?``: the shared help above, then each action's own usage.
memory.__doc__ = (memory.__doc__ or "") + "".join(
    f"\n{line}"
    for p in ACTION_PARSERS.values()
    for line in p.format_usage().splitlines()
    if line.strip() not in ("", "::")
)


def _focus(self: MagicsHost, args: Any) -> TextBlock:
    return focus_cmd.focus(self, args)


def _switch(self: MagicsHost, enabled: bool) -> TextBlock:
    with self.session.lock:
        self.service.update_settings(enabled=enabled)
    self.session.forget_flags()
    self.capture.resume()
    if enabled:
        return TextBlock(
            tr("Memory is ON: cells are captured as evidence; approved knowledge is injected.")
        )
    return TextBlock(tr("Memory is OFF: nothing is captured, extracted or injected."))


def _on(self: MagicsHost, args: Any) -> TextBlock:
    return _switch(self, True)


def _off(self: MagicsHost, args: Any) -> TextBlock:
    return _switch(self, False)


def _suggestions(self: MagicsHost, args: Any) -> TextBlock:
    if args.value not in ("on", "off"):
        raise UsageError(tr("%memory suggestions on|off"))
    with self.session.lock:
        self.service.update_settings(auto_suggestions=args.value == "on")
    self.session.forget_flags()
    if args.value == "on":
        return TextBlock(tr("Automatic suggestions are ON."))
    return TextBlock(tr("Automatic suggestions are OFF."))


def _status(self: MagicsHost, args: Any) -> TextBlock:
    with self.session.lock:
        mem = self.service
        settings = mem.settings
        pending = len(mem.queue())
        project = focus_cmd.project_line(self)
        team = team_lines(mem.hooks.team_status()) if mem.project_id else []
        llm_line = tr("LLM today:    {spend}").format(
            spend=localized(mem.hooks.llm_spend().describe())
        )
    last = self.worker.last
    feed = getattr(self, "digest_feed", None)
    if feed is not None:
        feed.flush()  # a gotcha of the last cell is captured before it is reported
    notebook = self._locate_notebook() or tr("unknown (markdown cells not read)")
    lines = [
        tr("memory:       on") if settings["enabled"] else tr("memory:       OFF"),
        tr("suggestions:  on") if settings["auto_suggestions"] else tr("suggestions:  off"),
        tr("project:      {project}").format(project=project),
        tr("home:         {home}").format(home=mem.home),
        tr("queue:        {n} pending").format(n=pending),
        tr("captured:     {n} cells this session").format(n=len(self.capture.cells)),
        tr("notebook:     {notebook}").format(notebook=notebook),
        *team,
    ]
    lines.append(llm_line)
    ended = getattr(getattr(self, "boundary", None), "last", None)
    if ended is not None:
        said = " · ".join(ended.notices) or tr("{n} proposal(s)").format(n=ended.proposals)
        lines.append(
            tr("last ending:  {boundary}: {what}").format(boundary=ended.boundary, what=said)
        )
    if last is not None:
        what = last.error or tr("{n} proposal(s)").format(n=len(last.proposals))
        lines.append(tr("last round:   {cell}: {what}").format(cell=last.cell, what=what))
    gotcha = feed.last_gotcha if feed is not None else None
    if gotcha is not None:
        cand = gotcha["candidate"]
        lines.append(
            tr(
                "last gotcha:  {signature} → auto-gotcha memory {id} (unreviewed);"
                " candidate {evidence} evidence, confidence {confidence}, {status}"
            ).format(
                signature=gotcha["signature"],
                id=gotcha["memory_id"],
                evidence=cand["evidence"],
                confidence=f"{cand['confidence']:.2f}",
                status=cand["status"],
            )
        )
        if gotcha["quote_note"]:
            lines.append(f"              {localized(gotcha['quote_note'])}")
    return TextBlock("\n".join(lines))


def _context(self: MagicsHost, args: Any) -> TextBlock:
    """Exactly the block an agent gets: knowledge, then memories by tier (docs/agents.md)."""
    query = args.query or ""
    with self.session.lock:
        block = self.service.context(agent=args.agent, query=query)
    return TextBlock(
        block or tr("(empty: memory is off, or nothing has been approved or remembered yet)")
    )


def _queue(self: MagicsHost, args: Any) -> Any:
    self.worker.wait()  # a round still running would add cards right after
    with self.session.lock:
        pending = self.service.queue()
    if not pending:
        return TextBlock(tr("The queue is empty."))
    return _cards(self, pending)


def _suggest(self: MagicsHost, args: Any) -> Any:
    enabled, _ = self.session.flags(fresh=True)
    if not enabled:
        raise UsageError(tr("%memory suggest: memory is off (turn it on with %memory on)"))
    self.worker.wait()
    _say_if_going_over(self)
    proposals = suggestion_round(self, tuple(self.capture.cells), None, background=False)
    with self.session.lock:
        notice = self.service.hooks.last_extraction_notice
    if notice:
        print(f"jupyter-memory: {notice}")
    if not proposals:
        return TextBlock(tr("No new suggestions in the recent cells."))
    return _cards(self, proposals)


def _settings(self: MagicsHost, args: Any) -> TextBlock:
    """``%memory settings [calls_per_day=N,tokens_per_day=N]``: the LLM budget, shown or set."""
    if args.value:
        budget: dict[str, int] = {}
        for part in args.value.split(","):
            key, sep, value = part.partition("=")
            if not sep or not value.strip().isdigit():
                raise UsageError(tr(SETTINGS_USAGE))
            budget[key.strip()] = int(value)
        with self.session.lock:
            try:
                self.service.update_settings(llm_budget=budget)
            except ValidationError as exc:
                raise UsageError(f"%memory settings: {exc.localized()}") from None
    with self.session.lock:
        settings = self.service.settings
        spend = self.service.hooks.llm_spend()
    limits = settings["llm_budget"]
    lines = [
        tr("LLM:          {state}").format(
            state=tr("configured") if settings.get("llm") else tr("not configured")
        ),
        tr("LLM budget:   {calls} calls and {tokens:,} tokens a day").format(
            calls=limits["calls_per_day"], tokens=limits["tokens_per_day"]
        ),
        tr("LLM spent:    {spend}").format(spend=localized(spend.describe())),
    ]
    return TextBlock("\n".join(lines))


def _process_all(self: MagicsHost, args: Any) -> TextBlock:
    """Each pending item to the layer it was suggested for (spec 002 §4.4); no layer to pick."""
    with self.session.lock:
        texts = {p.id: p.text for p in self.service.queue()}  # an applied result names only its id
        result = self.service.process_all()
    n = len(result.applied)
    applied = tr("Applied {n} proposal(s):") if result.applied else tr("Applied {n} proposal(s).")
    lines = [applied.format(n=n)]
    for done in result.applied:
        where = tr("User") if done.layer == "user" else tr("Project {project}")
        where = where.format(project=done.project)
        lines.append(f"  → {where}: {done.id}  {texts.get(done.id, '')}")
    picks = [s for s in result.skipped if s.reason == PICK_A_PROJECT]
    if picks:
        lines.append(tr("Skipped {n} that still need a project picked:").format(n=len(picks)))
        lines += [f"  {s.id}  {s.text}" for s in picks]
    failures = result.failures
    if failures:
        failed = sum(f.count for f in failures)
        lines.append(tr("Skipped {n} that could not be applied:").format(n=failed))
        # Each reason once with its count: one over-cap file refuses every later item alike.
        lines += [f"  ×{f.count}  {localized(f.reason)}" for f in failures]
    return TextBlock("\n".join(lines))


def _say_if_going_over(self: MagicsHost) -> None:
    """Before a person's LLM request: a spent budget is said first (the request still runs)."""
    from ..service.llm_budget import going_over_note

    with self.session.lock:
        mem = self.service
        spend = mem.hooks.llm_spend() if mem.llm is not None else None
    if spend is not None and spend.spent:
        print(f"jupyter-memory: {localized(going_over_note(spend))}")


def _reorganize(self: MagicsHost, args: Any) -> TextBlock:
    """The person's Reorganize of one knowledge file, as the panel's and the CLI's."""
    layer = args.value or ("project" if self.service.project_id else "user")
    if layer not in ("user", "project"):
        raise UsageError(tr("%memory reorganize user|project"))
    _say_if_going_over(self)
    with self.session.lock:
        result = self.service.reorganize(layer)
    lines = [localized(result.summary())]
    lines += [
        f"  - {m.removed}  →  {m.kept}  ({localized(m.reason)})" for m in result.outcome.merged
    ]
    return TextBlock("\n".join(lines))


_HANDLERS = {
    "focus": _focus,
    "on": _on,
    "off": _off,
    "suggestions": _suggestions,
    "status": _status,
    "context": _context,
    "queue": _queue,
    "suggest": _suggest,
    "process-all": _process_all,
    "settings": _settings,
    "digest": digest_cmd.digest,
    "agent-unreviewed": digest_cmd.agent_unreviewed,
    "apply": decide_cmd.apply,
    "dismiss": decide_cmd.dismiss,
    "revert": decide_cmd.revert,
    "keep": digest_cmd.keep,
    "discard": digest_cmd.discard,
    "promote": digest_cmd.promote,
    "reorganize": _reorganize,
}


# -- worker callbacks ------------------------------------------------------------------


def suggestion_round(
    self: MagicsHost,
    cells: tuple[Any, ...],
    gotcha: Any,
    *,
    background: bool = True,
    llm: bool | None = None,
) -> list[Any]:
    """One extraction round over the recent cells (``gotcha`` is not proposed here:
    see the module docstring).

    ``background`` rounds (after a cell) respect Automatic suggestions and read
    only explicit notes: the LLM reads at conversation boundaries (boundary.py).
    ``%memory suggest`` is a person's request: it runs whenever memory is
    enabled, with the LLM when one is configured, even past the budget (and says so).
    """
    from ..service.knowledge.notebook_evidence import round_messages

    use_llm = (not background) if llm is None else llm
    window = self.recent_cells
    notebook = self._locate_notebook()
    messages = round_messages(cells[-window:], notebook, window)
    made: list[Any] = []
    with self.session.lock:
        mem = self.service
        if messages:
            made += mem.extract(
                messages,
                project=mem.project_id,
                notebook=str(notebook) if notebook else None,
                max_messages=window,
                background=background,
                llm=use_llm,
            )
    return made


def boundary_round(self: MagicsHost, boundary: str) -> tuple[list[Any], bool, list[str]]:
    """The end of a conversation (boundary.py): one LLM round, then (idle) the digest.

    With an LLM configured and Automatic suggestions on, one extraction call
    reads the recent cells (the notes were read cell by cell). When the
    notebook went idle, the cells recorded since the last digest are digested
    too (background: the LLM only within budget) and the notice says how many
    memories wait for review.
    Returns the new proposals, whether the LLM was called, and the notices.
    """
    notices: list[str] = []
    made: list[Any] = []
    called = False
    _, auto = self.session.flags(fresh=True)
    with self.session.lock:
        has_llm = self.service.llm is not None
    if has_llm and auto:
        made = suggestion_round(self, tuple(self.capture.cells), None, background=True, llm=True)
        with self.session.lock:
            mem = self.service
            called = mem.hooks.last_extraction_called_llm
            if mem.hooks.last_extraction_notice:
                notices.append(localized(mem.hooks.last_extraction_notice))
    feed = getattr(self, "digest_feed", None)
    # The notebook idle is the session's pause: digest what it recorded so far. A
    # %%ask exchange is not (the session goes on); at exit the digest feed digests.
    if feed is not None and boundary == "idle":
        feed.flush()
        with self.session.lock:
            mem = self.service
            if mem.enabled and mem.hooks.digest_pending(feed.session_key):
                report = mem.digest(session=feed.session_key, background=True)
                for said in (report.notice, report.review_notice()):
                    if said:
                        notices.append(localized(said))
    return made, called, notices


def _cards(self: MagicsHost, proposals: list[Any]) -> Any:
    from ..widgets import ProposalCards

    return ProposalCards(self.session, [p.id for p in proposals])


def show_cards(self: MagicsHost, proposals: list[Any]) -> None:
    from IPython.display import display

    display(_cards(self, proposals))  # type: ignore[no-untyped-call]  # IPython's display() is untyped
