"""``%%ask [--new] [--project P] [--model M]``: ask an LLM from a cell, with the approved context.

Also keeps ``memory_context`` in the user namespace up to date before every
cell, so Jupyter AI's ``%%ai <model>`` can use ``{memory_context}`` in a prompt.

Configuration (first found wins): ``--model``; ``%config AskMagics.base_url /
.model / .api_key_env``; the environment (``JUPYTER_MEMORY_LLM_BASE_URL`` or
``OPENAI_BASE_URL``, ``JUPYTER_MEMORY_LLM_MODEL`` or ``OPENAI_MODEL``, the key in
``OPENAI_API_KEY``); the memory settings' ``llm`` entry; and when none of these
names an endpoint, the chat model chosen in Jupyter AI (when it speaks the
OpenAI protocol: ``core/llm_endpoints.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, magics_class
from traitlets import Int, Unicode
from traitlets.config import Configurable

from .._i18n import N_, localized, tr
from .._i18n.argparse_words import ArgumentParser
from ..core.visible import visible
from ..exceptions import JupyterMemoryError

if TYPE_CHECKING:  # the service is imported on first use: %load_ext stays light
    from ..service.agent_access import AgentAccess

HOW_TO_CONFIGURE = N_("""%%ask needs an OpenAI-compatible LLM endpoint, and none is configured.
Set one of:
  %config AskMagics.base_url = "http://localhost:11434/v1"
  %config AskMagics.model = "qwen2.5"
  %config AskMagics.api_key_env = "OPENAI_API_KEY"   # the variable holding the key
or the environment variables OPENAI_BASE_URL, OPENAI_MODEL and OPENAI_API_KEY
(or JUPYTER_MEMORY_LLM_BASE_URL / JUPYTER_MEMORY_LLM_MODEL),
or the memory settings: Memory().update_settings(llm={"base_url": ..., "model": ...}),
or pick a chat model in Jupyter AI's settings (an OpenAI-compatible provider).""")
USAGE = "%%ask [--new] [--project P] [--model M]"


def jupyter_ai_endpoint() -> dict[str, str] | None:
    """The endpoint of Jupyter AI's chosen chat model, when it is one ``%%ask`` can speak to."""
    from jupyter_core.paths import jupyter_data_dir

    from ..core.llm_endpoints import endpoint_for_litellm
    from ..store.jupyter_ai_config import read_chat_model

    try:
        chosen = read_chat_model(Path(jupyter_data_dir()))
    except JupyterMemoryError as exc:  # a damaged Jupyter AI config: say so, go on without
        said = tr("jupyter-memory: Jupyter AI's settings: {error}").format(error=localized(exc))
        sys.stderr.write(said + "\n")
        return None
    endpoint = endpoint_for_litellm(chosen.model_id, chosen.fields) if chosen else None
    if chosen is None or endpoint is None:
        return None
    config = {"base_url": endpoint.base_url, "model": endpoint.model}
    if endpoint.api_key_env:
        config["api_key_env"] = endpoint.api_key_env
        # Jupyter AI may keep the key in its own settings rather than the environment.
        stored = chosen.api_keys.get(endpoint.api_key_env)
        if stored and not os.environ.get(endpoint.api_key_env):
            config["api_key"] = stored
    return config


def _parser() -> argparse.ArgumentParser:
    # argparse's own words (an option missing its value) in the person's language
    p = ArgumentParser(prog="%%ask", add_help=False, exit_on_error=False)
    p.add_argument("--project", help="project id or folder whose knowledge to use")
    p.add_argument("--model", help="model name for this cell")
    p.add_argument("--new", action="store_true", help="start a new conversation")
    return p


@magics_class
class AskMagics(Magics, Configurable):
    """An agent loop in the notebook over the person's configured LLM."""

    base_url = Unicode(
        None, allow_none=True, help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1"
    ).tag(config=True)
    model = Unicode(None, allow_none=True, help="Model name sent to the endpoint.").tag(config=True)
    api_key_env = Unicode(
        "OPENAI_API_KEY", help="Environment variable holding the API key (never stored)."
    ).tag(config=True)
    max_tool_rounds = Int(5, help="Most model turns per %%ask cell.").tag(config=True)

    def __init__(self, shell: Any = None, memory_magics: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self.memory_magics = memory_magics
        # A conversation lasts for the kernel session until `%%ask --new`: its
        # proposal allowance is kept in the memory home under this key
        # (docs/agents.md), so reloading the extension does not renew it.
        self._kernel_session = _kernel_session(shell)
        self._conversations = 0
        self.conversation = f"ask:{self._kernel_session}:0"

    def new_conversation(self) -> str:
        """``%%ask --new``: a new conversation with its own allowance (and pre-inject)."""
        self._conversations += 1
        self.conversation = f"ask:{self._kernel_session}:{self._conversations}"
        return self.conversation

    # -- wiring ------------------------------------------------------------------------

    def _session(self) -> Any:
        return self.memory_magics.session

    def access(self, project: str | None = None) -> AgentAccess:
        from ..service.agent_access import AgentAccess

        mem = self._session().memory
        return AgentAccess(
            mem,
            agent="ask",
            # --project is the person's own line, so it may register a folder;
            # the model's tool calls can only name registered projects.
            project=mem.register_project(project) if project is not None else mem.project_id,
            conversation=self.conversation,
        )

    def llm_config(self, model: str | None) -> dict[str, str] | None:
        settings_llm: dict[str, Any] = {}
        try:
            settings_llm = self._session().memory.settings.get("llm") or {}
        except JupyterMemoryError as exc:  # a damaged settings file: say so, use the rest
            sys.stderr.write(f"jupyter-memory: {localized(exc)}\n")
        base_url = (
            self.base_url
            or os.environ.get("JUPYTER_MEMORY_LLM_BASE_URL")
            or os.environ.get("OPENAI_BASE_URL")
            or settings_llm.get("base_url")
        )
        name = (
            model
            or self.model
            or os.environ.get("JUPYTER_MEMORY_LLM_MODEL")
            or os.environ.get("OPENAI_MODEL")
            or settings_llm.get("model")
        )
        if not base_url and not name:
            # Nothing chosen here: reuse the chat model picked in Jupyter AI.
            return jupyter_ai_endpoint()
        if not base_url or not name:
            return None
        key_env = self.api_key_env
        if key_env == "OPENAI_API_KEY" and settings_llm.get("api_key_env"):
            key_env = settings_llm["api_key_env"]
        return {"base_url": base_url, "model": name, "api_key_env": key_env}

    # -- the magic ---------------------------------------------------------------------

    @cell_magic
    def ask(self, line: str, cell: str) -> None:
        """Ask the configured LLM; the approved knowledge is its system context."""
        from .ask_loop import run_ask
        from .chat_stream import ChatStreamClient

        try:
            opts, extra = _parser().parse_known_args(shlex.split(line))
        except (argparse.ArgumentError, SystemExit, ValueError) as exc:
            said = tr("%%ask: {error} (usage: {usage})").format(error=exc, usage=USAGE)
            raise UsageError(said) from None
        if extra:
            said = tr("%%ask: unrecognized arguments: {args} (usage: {usage})")
            raise UsageError(said.format(args=" ".join(extra), usage=USAGE))
        if not cell.strip():
            raise UsageError(tr("%%ask: write your question in the cell below the magic line"))
        config = self.llm_config(opts.model)
        if config is None:
            print(tr(HOW_TO_CONFIGURE))
            return
        if opts.new:
            self.new_conversation()
            print(tr("[new conversation: a fresh allowance of knowledge proposals]"))
        feed = getattr(self.memory_magics, "evidence_feed", None)
        if feed is not None:
            feed.flush()  # the cells run just before are quotable by this cell's model
        key_env = config.get("api_key_env")
        client = ChatStreamClient(
            config["base_url"],
            config["model"],
            api_key=(os.environ.get(key_env) if key_env else None) or config.get("api_key"),
        )

        def on_text(text: str) -> None:
            sys.stdout.write(visible(text))  # a model's reply never drives the output's ANSI
            sys.stdout.flush()

        try:
            # The suggestion worker uses the same service from its thread.
            with self._session().lock:
                access = self.access(opts.project)
                access.notify = show_notice  # the pre-inject reorganize, under this cell
                result = run_ask(
                    access,
                    client,
                    cell.strip(),
                    on_text=on_text,
                    on_proposal=self._show_proposal,
                    max_rounds=self.max_tool_rounds,
                    cell_id=running_cell_id(self.shell),
                )
        except JupyterMemoryError as exc:
            raise UsageError(f"%%ask: {exc.localized()}") from None
        digest = getattr(self.memory_magics, "digest_feed", None)
        if digest is not None:  # the turn joins the session digest like a cell
            digest.on_agent_turn(cell.strip(), result.reply, running_cell_id(self.shell))
        if result.reply and not result.reply.endswith("\n"):
            sys.stdout.write("\n")
        if result.stopped_early:
            print(tr("[stopped after {n} model turns]").format(n=self.max_tool_rounds))

    def _show_proposal(self, outcome: dict[str, Any]) -> None:
        proposal = outcome.get("proposal") or {}
        said = tr("[proposed for your review: {text} — id {id}]")
        print("\n" + said.format(text=proposal.get("text", ""), id=outcome["id"]))
        try:
            from IPython.display import display

            from ..widgets import ProposalCards

            display(ProposalCards(self._session(), [outcome["id"]]))  # type: ignore[no-untyped-call]  # IPython's display() is untyped
        except ImportError:  # no widget layer: the line above is the card
            pass

    # -- {memory_context} for %%ai --------------------------------------------------------

    def refresh_memory_context(self, info: Any = None, *_: Any) -> None:
        """``pre_run_cell`` hook: the approved block, current when the cell runs.

        Only a cell that injects the block (it names ``memory_context``, as an
        ``%%ai`` prompt with ``{memory_context}`` does) is an agent request: it
        may run the pre-inject reorganize, with the notice under that cell.
        Any other cell gets the block as the files are, and never waits.
        """
        raw = getattr(info, "raw_cell", None) or ""
        try:
            with self._session().lock:
                access = self.access()
                if "memory_context" in raw:
                    access.notify = show_notice
                else:
                    access.conversation = None  # not an agent request: no reorganize
                text = access.context()
        except JupyterMemoryError as exc:
            said = tr("jupyter-memory: memory_context not updated: {error}")
            sys.stderr.write(said.format(error=localized(exc)) + "\n")
            return
        if self.shell is not None:  # always, once the magics are registered
            self.shell.user_ns["memory_context"] = text


def show_notice(text: str) -> None:
    """The pre-inject reorganize's notice and outcome, in the running cell's output."""
    sys.stdout.write(f"[{localized(text)}]\n")  # a Message: in the person's language
    sys.stdout.flush()


def _kernel_session(shell: Any) -> str:
    """The kernel's session id (new for every kernel start), else an id for this process."""
    session = getattr(getattr(shell, "kernel", None), "session", None)
    key = getattr(session, "session", None)
    if isinstance(key, str) and key:
        return key[:64]
    return f"{os.getpid()}-{uuid.uuid4().hex[:12]}"


def running_cell_id(shell: Any) -> str | None:
    """The front end's id of the running cell, when the kernel got one."""
    try:
        parent = shell.kernel.get_parent()
        value = parent.get("metadata", {}).get("cellId")
        return str(value) if value else None
    except Exception:  # noqa: BLE001 - not in a kernel, or an older ipykernel
        return None


def register_ask(shell: Any, memory_magics: Any) -> AskMagics:
    """Add ``%%ask`` and the ``memory_context`` variable (called by ``%load_ext``)."""
    magics = AskMagics(shell=shell, memory_magics=memory_magics, parent=shell)
    shell.register_magics(magics)
    shell.events.register("pre_run_cell", magics.refresh_memory_context)
    memory_magics.ask_magics = magics
    return magics


def unregister_ask(shell: Any, memory_magics: Any) -> None:
    magics = getattr(memory_magics, "ask_magics", None)
    if magics is None:
        return
    with contextlib.suppress(ValueError):  # already removed by hand
        shell.events.unregister("pre_run_cell", magics.refresh_memory_context)
    while magics in shell.configurables:
        shell.configurables.remove(magics)
    shell.magics_manager.magics["cell"].pop("ask", None)
    shell.magics_manager.registry.pop(type(magics).__name__, None)
    shell.user_ns.pop("memory_context", None)
    memory_magics.ask_magics = None
