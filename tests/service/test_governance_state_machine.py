"""Invariants 3 and 5 under random sequences of person and agent actions.

After every step: nothing pending, dismissed or superseded is in ``context()``;
everything applied is in ``context()`` (flat) or reachable through
``expand_knowledge_catalog`` (catalog); with Enabled off, ``context()`` is
empty and extraction enqueues nothing.

The memory-tier path (issue 13): memories reach the same block, but only what
the person wrote or reviewed. An unreviewed session digest or agent note
(unless the person switched ``agent_unreviewed`` on), another agent's private
memories and another project's memories (in its own folder or in the User
layer) never appear, in the person's view (``%memory context``) nor in an
agent's, with or without a conversation text; and the newest memory the
person wrote is always there (HOT).
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import nbformat
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, multiple, rule

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.context import neutralize
from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, render_knowledge
from jupyter_memory.exceptions import PolicyError, ValidationError
from jupyter_memory.service.agent_access import AgentAccess
from jupyter_memory.store.knowledge.person_text import PersonTextLog

# Pairwise dissimilar, none a substring of another, stable under reorganize's condensing.
POOL = [
    "Revenue must always exclude refunds.",
    "Fiscal quarters should start in February.",
    "Never count test accounts in weekly actives.",
    "Churn is defined as ninety days without orders.",
    "Marketing spend includes agency retainers.",
    "收入口径不含退款。",
    "订单时间必须按北京时间切日。",
    "客单价定义为成交额除以买家数。",
    "Always report currency amounts in euros.",
    "Gross margin excludes shipping subsidies.",
    "不要把内部员工订单算进销量。",
    "Cohorts must use the first paid order date.",
]
# Memory kinds: (scope arguments, reviewed, source); every text starts with its marker.
MEMORY_KINDS = {
    "person": ({}, True, "manual"),
    "digest": ({}, False, "session-digest"),
    "own-agent": ({"agent": "claude"}, True, "agent"),
    "own-agent-unreviewed": ({"agent": "claude"}, False, "agent"),
    "other-agent": ({"agent": "codex"}, True, "agent"),
    "other-project": ({"scope": "project", "project": "OTHER"}, True, "manual"),
    "other-project-user": ({"scope": "user", "project": "OTHER"}, True, "manual"),
}

# Never the person's words: each step quotes one of these plus its step number.
FOREIGN = ["Discounts are always booked net of tax", "外部文本从来不算证据"]
NOT_THE_PERSONS = ["output", "raw", "agent_reply", "instruction", "outside"]


class Governance(RuleBasedStateMachine):
    proposals = Bundle("proposals")

    def __init__(self) -> None:
        super().__init__()
        self.base = Path(tempfile.mkdtemp(prefix="jm-gov-"))
        (self.base / "proj").mkdir()
        (self.base / "other").mkdir()
        self.mem = Memory(home=self.base / "home", project=self.base / "proj")
        self.mem.register_project(self.base / "other")  # the person knows it; not in focus
        self.approved: dict[str, set[str]] = {"user": set(), "project": set()}
        self.texts: dict[str, str] = {}
        self.fillers = 0
        # memory id -> (marker, kind); reviewed ids move from digest to person when kept
        self.memories: dict[str, tuple[str, str]] = {}
        self.marker_count = 0
        self.newest_person: str | None = None
        self.cells = 0
        (self.base / "elsewhere").mkdir()

    def teardown(self) -> None:
        self.mem.close()
        shutil.rmtree(self.base, ignore_errors=True)

    # -- person and agent actions -----------------------------------------------------------

    @rule(
        target=proposals,
        i=st.integers(0, len(POOL) - 1),
        kind=st.sampled_from(["rule", "info"]),
        layer=st.sampled_from([None, "user", "project"]),
        agent=st.booleans(),
    )
    def propose(self, i: int, kind: str, layer: str | None, agent: bool):  # noqa: ANN201
        text = POOL[i]
        try:
            if agent:
                res = self.mem.propose_knowledge(
                    text, kind, text, layer, conversation=f"c{i}", messages=[text]
                )
            else:
                res = self.mem.propose(text, kind, text, layer, messages=[text])
        except PolicyError:
            assert not self.mem.settings["enabled"]
            return multiple()
        if res["status"] != "queued":
            return multiple()
        self.texts[res["id"]] = text
        return res["id"]

    @rule(
        target=proposals,
        picks=st.lists(st.integers(0, len(POOL) - 1), min_size=1, max_size=8),
        background=st.booleans(),
    )
    def extract(self, picks: list[int], background: bool):  # noqa: ANN201
        before = len(self.mem.queue())
        settings_now = self.mem.settings
        got = self.mem.extract([POOL[i] for i in picks], background=background)
        if not settings_now["enabled"] or (background and not settings_now["auto_suggestions"]):
            assert got == [] and len(self.mem.queue()) == before
        assert len(got) <= 3
        for p in got:
            self.texts[p.id] = p.text
        return multiple(*[p.id for p in got])

    @rule(pid=proposals, to=st.sampled_from(["user", "project"]))
    def apply(self, pid: str, to: str) -> None:
        status = self.mem.proposal(pid).status
        res = self.mem.apply(pid, to=to)
        if status == "pending":
            assert res["status"] == "applied"
            self.approved[to].add(self.texts[pid])
        else:
            assert res["status"].startswith("already_")

    @rule(pid=proposals)
    def dismiss(self, pid: str) -> None:
        status = self.mem.proposal(pid).status
        res = self.mem.dismiss(pid)
        assert res["status"] == ("dismissed" if status == "pending" else res["status"])

    @rule(data=st.data())
    def edit_remove(self, data: st.DataObject) -> None:
        """The person deletes an applied entry from the User file in the editor."""
        if not self.approved["user"]:
            return
        text = data.draw(st.sampled_from(sorted(self.approved["user"])))
        doc = self.mem.hooks.knowledge_doc("user")
        keep = lambda entries: tuple(  # noqa: E731
            Entry(e.text, tuple(c for c in e.children if c != text)) if e.children else e
            for e in entries
            if e.text != text
        )
        self.mem.save_knowledge(
            "user", render_knowledge(KnowledgeDoc(keep(doc.rules), keep(doc.info)))
        )
        self.approved["user"].discard(text)

    @rule()
    def edit_add_fillers(self) -> None:
        """The person writes many entries by hand, pushing the file into catalog mode."""
        if self.fillers >= 3:
            return
        doc = self.mem.hooks.knowledge_doc("user")
        new = tuple(
            Entry(
                f"Region {self.fillers}-{i:02d} reports are reviewed by team {i * 7 + self.fillers}"
            )
            for i in range(25)
        )
        self.mem.save_knowledge("user", render_knowledge(KnowledgeDoc(doc.rules, doc.info + new)))
        self.approved["user"].update(e.text for e in new)
        self.fillers += 1

    @rule(enabled=st.booleans(), auto=st.booleans())
    def toggle(self, enabled: bool, auto: bool) -> None:
        self.mem.update_settings(enabled=enabled, auto_suggestions=auto)

    @rule(kind=st.sampled_from(sorted(MEMORY_KINDS)), chinese=st.booleans())
    def remember(self, kind: str, chinese: bool) -> None:
        where, reviewed, source = MEMORY_KINDS[kind]
        if "project" in where:
            where = where | {"project": self.base / "other"}
        # A running count, never len(): a marker reused after a forget would
        # make one memory's marker appear in another's text.
        self.marker_count += 1
        marker = f"zqmem{self.marker_count:03d}"
        # The person's own memories restate one subject (each newer one supersedes
        # the last); every other kind is about another subject, so a kept digest
        # never supersedes the person's newest memory (that would be right, and
        # this invariant would not hold).
        if kind == "person":
            about = "订单按 order_id 去重" if chinese else "dedupe orders on order_id"
        else:
            about = (
                f"{kind} 的报表剔除测试账号" if chinese else f"{kind} reports exclude test accounts"
            )
        text = f"{marker} {about}"
        entry = self.mem.remember(text, reviewed=reviewed, source=source, **where)
        self.memories[entry.id] = (marker, kind)
        if kind == "person":
            self.newest_person = marker

    @rule(data=st.data())
    def keep_digest(self, data: st.DataObject) -> None:
        """The person reviews an extracted memory and keeps it."""
        digests = sorted(i for i, (_, k) in self.memories.items() if k == "digest")
        if not digests:
            return
        memory_id = data.draw(st.sampled_from(digests))
        self.mem.hooks.keep_memory(memory_id)
        self.memories[memory_id] = (self.memories[memory_id][0], "kept")

    @rule(data=st.data())
    def forget_memory(self, data: st.DataObject) -> None:
        if not self.memories:
            return
        memory_id = data.draw(st.sampled_from(sorted(self.memories)))
        marker, kind = self.memories.pop(memory_id)
        self.mem.forget(memory_id)
        if marker == self.newest_person:
            self.newest_person = None

    @rule(on=st.booleans())
    def toggle_unreviewed(self, on: bool) -> None:
        self.mem.update_settings(agent_unreviewed=on)

    @rule(
        i=st.integers(0, len(POOL) - 1),
        where=st.sampled_from(["markdown", "code", *NOT_THE_PERSONS]),
        chinese=st.booleans(),
    )
    def agent_quotes_a_cell(self, i: int, where: str, chinese: bool) -> None:
        """Invariant 4 on the cell-evidence path: an agent quotes the person's cells only.

        The person saves a notebook in the project; an agent (its own
        conversation, so the allowance never decides) proposes with a quote
        from a markdown or code cell (accepted), or from an output, a raw cell,
        its own reply, an instruction message or a notebook outside the
        project (always refused, and the queue is unchanged).
        """
        self.cells += 1
        n = self.cells
        quote = f"{FOREIGN[int(chinese)]} {n}"
        person = POOL[i]
        nb = nbformat.v4.new_notebook()
        code = nbformat.v4.new_code_cell(f"# note: {person if where == 'code' else n}")
        code.outputs = [nbformat.v4.new_output("stream", name="stdout", text=quote)]
        nb.cells = [nbformat.v4.new_markdown_cell(person if where == "markdown" else "-"), code]
        if where == "raw":
            nb.cells.append(nbformat.v4.new_raw_cell(quote))
        nbformat.write(nb, str(self.base / "proj" / f"cells-{n}.ipynb"))
        if where == "outside":
            nbformat.write(nb, str(self.base / "elsewhere" / f"out-{n}.ipynb"))
            outside = nbformat.v4.new_notebook()
            outside.cells = [nbformat.v4.new_markdown_cell(quote)]
            nbformat.write(outside, str(self.base / "elsewhere" / f"q-{n}.ipynb"))
        access = AgentAccess(self.mem, agent="gov", project="proj", conversation=f"cells-{n}")
        if where == "agent_reply":
            access.record_agent_output(f"As you said: {quote}.")
        if where == "instruction":  # a button's message the chat sent as the person's turn
            PersonTextLog(self.mem.home).append(
                [{"role": "user", "text": f"Execute plan: {quote}"}]
            )
        before = {p.id for p in self.mem.queue(include_decided=True)}
        enabled = self.mem.settings["enabled"]
        if where in NOT_THE_PERSONS:
            try:
                access.propose(f"Rule from step {n}: {quote}", "rule", quote)
            except (ValidationError, PolicyError):
                pass
            else:
                raise AssertionError(f"a quote from {where} was accepted")
            assert {p.id for p in self.mem.queue(include_decided=True)} == before
            return
        try:
            res = access.propose(person, "rule", person)
        except PolicyError:
            assert not enabled
            return
        assert res["status"] in ("queued", "skipped"), res
        if res["status"] == "queued":
            self.texts[res["id"]] = person

    @rule()
    def reorganize(self) -> None:
        if self.mem.hooks.library_status("user")["exists"]:
            self.mem.reorganize("user")

    # -- the invariants ---------------------------------------------------------------------

    @invariant()
    def only_what_the_person_wrote_or_reviewed_reaches_an_agent(self) -> None:
        settings_now = self.mem.settings
        allowed = {"person", "kept"}
        if settings_now["agent_unreviewed"]:
            allowed.add("digest")
        agent = AgentAccess(self.mem, agent="claude", project=self.mem.project_id)
        views = {
            "person": [self.mem.context(), self.mem.context(query="dedupe orders 去重")],
            "agent": [agent.context(), agent.context(query="dedupe orders on order_id")],
        }
        for who, blocks in views.items():
            may = allowed | ({"own-agent"} if who == "agent" else set())
            if who == "agent" and settings_now["agent_unreviewed"]:
                may.add("own-agent-unreviewed")
            for block in blocks:
                if not settings_now["enabled"]:
                    assert block == ""
                    continue
                for marker, kind in self.memories.values():
                    if kind not in may:
                        assert marker not in block, f"{kind} memory reached the {who}'s block"
                if self.newest_person is not None:
                    assert self.newest_person in block, "the person's newest memory is missing"

    @invariant()
    def only_approved_reaches_the_agent(self) -> None:
        ctx = self.mem.context()
        if not self.mem.settings["enabled"]:
            assert ctx == ""
            return
        approved = self.approved["user"] | self.approved["project"]
        for p in self.mem.queue(include_decided=True):
            if p.status != "applied" and p.text not in approved:
                assert p.text not in ctx, f"{p.status} proposal leaked into context"
        labels = re.findall(r"^- (.+)$", ctx, flags=re.M)
        children: list[str] = []
        for start in range(0, len(labels), 50):  # the tool takes at most 50 labels a call
            found = self.mem.hooks.expand_knowledge_catalog(labels[start : start + 50])
            children += [c for e in found["entries"] for c in e["children"]]
        reachable = ctx + "\n" + "\n".join(children)
        for text in approved:
            assert neutralize(text) in reachable, f"applied entry {text!r} is unreachable"


Governance.TestCase.settings = settings(
    max_examples=15,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestGovernance = Governance.TestCase
