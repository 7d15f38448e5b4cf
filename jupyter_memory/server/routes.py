"""The URL table of ``/jupyter-memory/``."""

from __future__ import annotations

from typing import Any

from jupyter_server.utils import url_path_join

from .cases_routes import CaseEntryHandler, CaseHandler, CasesHandler
from .focus_routes import FocusHandler
from .knowledge_routes import (
    KnowledgeHandler,
    KnowledgeMergeHandler,
    ReorganizeHandler,
    StatusHandler,
)
from .learning_routes import LearningHandler, PromoteCandidateHandler, RejectCandidateHandler
from .memories_routes import MemoriesHandler
from .queue_routes import (
    ApplyHandler,
    DismissHandler,
    ProcessAllHandler,
    ProposalStatesHandler,
    PurgeHandler,
    QueueHandler,
)
from .review_routes import (
    DiscardHandler,
    KeepHandler,
    PromoteHandler,
    ReviewCountHandler,
    ReviewStatesHandler,
)
from .settings_routes import ProjectsHandler, SettingsHandler
from .team_routes import TeamHandler
from .undo_routes import (
    AppliedHandler,
    ProcessAllPlanHandler,
    ReorganizeTextHandler,
    RevertHandler,
)

PREFIX = "jupyter-memory"
_SEGMENT = r"([^/]+)"

ROUTES: list[tuple[str, type]] = [
    ("queue", QueueHandler),
    ("queue/process-all", ProcessAllHandler),
    ("queue/process-all/plan", ProcessAllPlanHandler),
    ("queue/applied", AppliedHandler),
    ("queue/proposals", ProposalStatesHandler),
    (f"queue/{_SEGMENT}/apply", ApplyHandler),
    (f"queue/{_SEGMENT}/dismiss", DismissHandler),
    (f"queue/{_SEGMENT}/revert", RevertHandler),
    (f"queue/{_SEGMENT}/purge", PurgeHandler),
    (f"knowledge/{_SEGMENT}", KnowledgeHandler),
    (f"knowledge/{_SEGMENT}/status", StatusHandler),
    (f"knowledge/{_SEGMENT}/reorganize", ReorganizeHandler),
    (f"knowledge/{_SEGMENT}/reorganize-text", ReorganizeTextHandler),
    (f"knowledge/{_SEGMENT}/merge", KnowledgeMergeHandler),
    ("settings", SettingsHandler),
    ("projects", ProjectsHandler),
    ("focus", FocusHandler),
    ("team", TeamHandler),
    ("memories", MemoriesHandler),
    ("review", ReviewStatesHandler),
    ("review/count", ReviewCountHandler),
    (f"review/{_SEGMENT}/keep", KeepHandler),
    (f"review/{_SEGMENT}/discard", DiscardHandler),
    (f"review/{_SEGMENT}/promote", PromoteHandler),
    ("learning", LearningHandler),
    ("learning/reject", RejectCandidateHandler),
    ("learning/promote", PromoteCandidateHandler),
    ("cases", CasesHandler),
    (f"cases/{_SEGMENT}", CaseHandler),
    (f"cases/{_SEGMENT}/entries/{_SEGMENT}", CaseEntryHandler),
]


def route_table(base_url: str) -> list[tuple[str, Any]]:
    return [(url_path_join(base_url, PREFIX, path), handler) for path, handler in ROUTES]
