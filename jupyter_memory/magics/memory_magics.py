"""``MemoryMagics``: the IPython magics of jupyter-memory, configurable with ``%config``.

Each magic's parsing and rendering lives in its own module (``remember``,
``recall``, ``listing``, ``memory_cmd``, ``case_cmd``); this class binds them
and owns the kernel's session (service, capture hook, suggestion worker).

Options (``%config MemoryMagics.<name> = value`` or ``ipython_config.py``):
``home``, ``project``, ``recent_cells``, ``level``, ``limit``, ``llm_idle_minutes``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from traitlets import CaselessStrEnum, Float, Int, TraitError, Unicode, observe, validate
from traitlets.config import Configurable

from . import case_cmd, memory_cmd
from . import listing as listing_cmd
from . import recall as recall_cmd
from . import remember as remember_cmd
from .capture import CellCapture
from .cells import CapturedCell, Gotcha
from .errors import magic_errors
from .session import NotebookSession
from .worker import SuggestionWorker

if TYPE_CHECKING:
    from ..service.cases.memory import CaseMemory
    from ..service.memory import Memory
    from .boundary import ConversationBoundary
    from .digest_feed import DigestFeed
    from .evidence_feed import EvidenceFeed
    from .host import MagicsHost


@magics_class
class MemoryMagics(Magics, Configurable):
    """Governed memory in the notebook: remember, recall, forget, review proposals."""

    home = Unicode(
        None,
        allow_none=True,
        help="Memory home folder (default: $JUPYTER_MEMORY_HOME or <jupyter data dir>/memory).",
    ).tag(config=True)
    project = Unicode(
        None, allow_none=True, help="Project folder (or known project id) focused on first use."
    ).tag(config=True)
    recent_cells = Int(
        8, help="How many recent cells (code and markdown) one extraction round reads."
    ).tag(config=True)
    level = CaselessStrEnum(
        ["index", "snippet", "full"],
        default_value="snippet",
        help="Default %recall disclosure: index (titles), snippet, or full text.",
    ).tag(config=True)
    limit = Int(10, help="Default number of rows shown by %recall and %memories.").tag(config=True)
    llm_idle_minutes = Float(
        5.0,
        help="With an LLM configured: minutes without a run after which the notebook's "
        "conversation ended and one LLM extraction round reads the recent cells.",
    ).tag(config=True)

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self.session = NotebookSession(self.home, self.project, self._named_notebook)
        self.worker = SuggestionWorker(self._suggestion_round, self._show_cards)
        self.capture = CellCapture(self.session, self.worker)
        self.case_memory: CaseMemory | None = None
        # Installed by %load_ext (magics/__init__.py), removed by %unload_ext.
        self.digest_feed: DigestFeed | None = None
        self.evidence_feed: EvidenceFeed | None = None
        self.boundary: ConversationBoundary | None = None
        self.ask_magics: Any = None
        # Ids and titles of the last %recall (%forget completes them), and the
        # completer added to the shell (magics/completion.py).
        self.last_recall: list[tuple[str, str]] = []
        self.completion_matcher: Any = None

    @validate("limit")
    def _check_limit(self, proposal: Any) -> int:
        value = int(proposal["value"])
        if not 1 <= value <= 1000:
            raise TraitError("MemoryMagics.limit must be from 1 to 1000")
        return value

    @validate("recent_cells")
    def _check_window(self, proposal: Any) -> int:
        value = int(proposal["value"])
        if not 1 <= value <= 100:
            raise TraitError("MemoryMagics.recent_cells must be from 1 to 100")
        return value

    @validate("llm_idle_minutes")
    def _check_idle(self, proposal: Any) -> float:
        value = float(proposal["value"])
        if not 0 < value <= 24 * 60:
            raise TraitError("MemoryMagics.llm_idle_minutes must be above 0 and at most 1440")
        return value

    @observe("home", "project")
    def _place_changed(self, change: Any) -> None:
        if hasattr(self, "session"):
            self.session.reset(self.home, self.project)
            self.capture.resume()

    @property
    def service(self) -> Memory:
        """The ``Memory`` service (opened on first use)."""
        return self.session.memory

    # -- the magics (parsing and rendering live in the command modules) -------------

    remember = line_cell_magic(magic_errors("remember")(remember_cmd.remember))
    forget = line_magic(magic_errors("forget")(remember_cmd.forget))
    recall = line_magic(magic_errors("recall")(recall_cmd.recall))
    memories = line_magic(magic_errors("memories")(listing_cmd.memories))
    memory = line_magic(magic_errors("memory")(memory_cmd.memory))
    case = line_cell_magic(magic_errors("case")(case_cmd.case))

    # -- extraction rounds (worker thread) --------------------------------------------

    def _locate_notebook(self) -> Path | None:
        """This kernel's notebook where it is now (followed across renames and moves)."""
        return self.session.current_notebook()

    def _named_notebook(self) -> Path | None:
        """The notebook this kernel was started for, by the name it had then."""
        from ..store.knowledge.notebook_cells import named_notebook

        ns = self.shell.user_ns if self.shell is not None else {}
        # jupyter_server names the notebook in JPY_SESSION_NAME (an absolute path
        # when JupyterLab opens it); ipykernel copies it to __session__.
        name = (
            ns.get("__vsc_ipynb_file__")
            or os.environ.get("JPY_SESSION_NAME")
            or ns.get("__session__")
        )
        return named_notebook(name, Path.cwd())

    def _suggestion_round(
        self, cell: CapturedCell, cells: tuple[CapturedCell, ...], gotcha: Gotcha | None
    ) -> list[Any]:
        return memory_cmd.suggestion_round(self, cells, gotcha, background=True)

    def _show_cards(self, proposals: list[Any], cell: CapturedCell) -> None:
        memory_cmd.show_cards(self, proposals)

    def close(self) -> None:
        self.worker.stop()
        self.session.close()


if TYPE_CHECKING:  # the command modules' ``self``: mypy checks the class provides it

    def _host(magics: MemoryMagics) -> MagicsHost:
        return magics


__all__ = ["MemoryMagics"]
