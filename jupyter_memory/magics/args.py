"""Argument helpers shared by the magics.

Free text (``%remember Don't count refunds --tags sales``) is split from the
options *before* shell-style parsing, so an apostrophe in a rule does not
become an "unbalanced quote" error. Quoted text is parsed the usual way.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Any, TypeVar

from IPython.core import magic_arguments as _ipython_args
from IPython.core.error import UsageError

from .._i18n import N_, tr
from .._i18n.argparse_words import ArgumentParser

_MagicT = TypeVar("_MagicT", bound=Callable[..., Any])
# shlex's own errors, translated where they are shown
_SHLEX_WORDS = (N_("No closing quotation"), N_("No escaped character"))


class MagicParser(ArgumentParser, _ipython_args.MagicArgumentParser):
    """IPython's magic parser (errors are ``UsageError``, ``%name`` usage) whose own
    words ("positional arguments", "the following arguments are required"…)
    follow the person's language."""


# IPython's magic_arguments decorators are untyped: these typed doors keep the
# magics' own signatures visible to mypy (same objects at run time).
def magic_arguments() -> Callable[[_MagicT], _MagicT]:
    """IPython's ``@magic_arguments()``, building a :class:`MagicParser` instead.

    As IPython's, it runs last (the ``@argument`` lines below it have collected
    their decorators) and makes the magic's docstring, what ``%name?`` shows,
    the parser's help."""

    def decorate(func: _MagicT) -> _MagicT:
        state: Any = func
        if not getattr(func, "has_arguments", False):
            state.has_arguments = True
            state.decorators = []
        kwds = dict(getattr(func, "argcmd_kwds", {}))
        kwds.setdefault("description", func.__doc__)
        parser = MagicParser(_ipython_args.real_name(func), **kwds)  # type: ignore[no-untyped-call]  # IPython's real_name is untyped
        group = None
        for deco in state.decorators[::-1]:  # in the order they appear in the source
            result = deco.add_to_parser(parser, group)
            if result is not None:
                group = result
        state.__doc__ = parser.format_help()
        state.parser = parser
        return func

    return decorate


def argument(*args: Any, **kwargs: Any) -> Callable[[_MagicT], _MagicT]:
    decorator: Callable[[_MagicT], _MagicT] = _ipython_args.argument(*args, **kwargs)  # type: ignore[no-untyped-call]  # IPython's magic_arguments is untyped
    return decorator


def parse_argstring(func: Callable[..., Any], line: str) -> Any:
    """Like IPython's, but POSIX quoting (``--title "Refund policy"`` loses its quotes)
    and words may follow options (``%case note --type insight --title T the body``)."""
    return func.parser.parse_intermixed_args(shlex.split(line))  # type: ignore[attr-defined]


_FIRST_OPTION = re.compile(r"(?:^|\s)(--?[A-Za-z])")


def split_text_and_options(line: str) -> tuple[str | None, str]:
    """``(free_text, options)``; ``free_text`` is None when the line starts with a quote."""
    stripped = line.strip()
    if not stripped or stripped[0] in "\"'":
        return None, stripped
    match = _FIRST_OPTION.search(stripped)
    if match is None:
        return stripped, ""
    return stripped[: match.start(1)].strip(), stripped[match.start(1) :]


def parse_with_text(func: Callable[..., Any], line: str, text_dest: str) -> Any:
    """Parse ``line`` for ``func``; the free text (if any) lands in ``args.<text_dest>``."""
    text, options = split_text_and_options(line)
    try:
        args = parse_argstring(func, options)
    except ValueError as exc:  # shlex: "No closing quotation"
        said = tr("{error}: close the quote, or put the text in a %%cell magic")
        raise UsageError(said.format(error=tr(str(exc)))) from exc
    if text is not None:
        existing = getattr(args, text_dest) or []
        setattr(args, text_dest, [text, *existing])
    return args


def parse(func: Callable[..., Any], line: str) -> Any:
    try:
        return parse_argstring(func, line)
    except ValueError as exc:
        raise UsageError(tr("{error}: close the quote").format(error=tr(str(exc)))) from exc


def joined(words: list[str] | None) -> str:
    return " ".join(words or []).strip()
