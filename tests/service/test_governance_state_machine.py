"""Invariants 3 and 5 under random sequences of person and agent actions.

After every step: nothing pending, dismissed or superseded is in ``context()``;
everything applied is in ``context()`` (flat) or reachable through
``expand_knowledge_catalog`` (catalog); with Enabled off, ``context()`` is
empty and extraction enqueues nothing; memories never leak into the block.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, multiple, rule

from jupyter_memory import Memory
from jupyter_memory.core.knowledge.context import neutralize
from jupyter_memory.core.knowledge.format import Entry, KnowledgeDoc, render_knowledge
from jupyter_memory.exceptions import PolicyError

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
MARKER = "zq-memory-marker"


class Governance(RuleBasedStateMachine):
    proposals = Bundle("proposals")

    def __init__(self) -> None:
        super().__init__()
        self.base = Path(tempfile.mkdtemp(prefix="jm-gov-"))
        (self.base / "proj").mkdir()
        self.mem = Memory(home=self.base / "home", project=self.base / "proj")
        self.approved: dict[str, set[str]] = {"user": set(), "project": set()}
        self.texts: dict[str, str] = {}
        self.fillers = 0

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
        doc = self.mem.knowledge_doc("user")
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
        doc = self.mem.knowledge_doc("user")
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

    @rule()
    def remember_and_forget(self) -> None:
        entry = self.mem.remember(f"{MARKER} kept in memories, not knowledge")
        assert MARKER not in self.mem.context()
        self.mem.forget(entry.id)

    @rule()
    def reorganize(self) -> None:
        if self.mem.library_status("user")["exists"]:
            self.mem.reorganize("user")

    # -- the invariants ---------------------------------------------------------------------

    @invariant()
    def only_approved_reaches_the_agent(self) -> None:
        ctx = self.mem.context()
        if not self.mem.settings["enabled"]:
            assert ctx == ""
            return
        assert MARKER not in ctx
        approved = self.approved["user"] | self.approved["project"]
        for p in self.mem.queue(include_decided=True):
            if p.status != "applied" and p.text not in approved:
                assert p.text not in ctx, f"{p.status} proposal leaked into context"
        labels = re.findall(r"^- (.+)$", ctx, flags=re.M)
        children: list[str] = []
        for start in range(0, len(labels), 50):  # the tool takes at most 50 labels a call
            found = self.mem.expand_knowledge_catalog(labels[start : start + 50])
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
