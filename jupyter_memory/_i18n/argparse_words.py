"""argparse's own words (``usage:``, ``options:``, its error messages) in the person's language.

argparse asks ``gettext`` for them through the names ``_`` and ``ngettext``
bound in its module (Python 3.10–3.13 alike), in the *default* text domain:
nothing of ours would be looked up. :class:`ArgumentParser` swaps those two
names for our ``argparse`` catalogue (``locale/<lang>/LC_MESSAGES/argparse.po``)
only while one of its own methods runs, so no other parser in the process
changes language. English, or a word the catalogue lacks, reads as argparse
says it.
"""

from __future__ import annotations

import argparse
import gettext
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, NoReturn, TypeVar

from . import LOCALE_DIR, languages

ARGPARSE_DOMAIN = "argparse"
_SWAP = threading.Lock()  # one swap at a time: argparse's names are process-wide
_inside = threading.local()  # how deep this thread is in swapped calls
_R = TypeVar("_R")


@lru_cache(maxsize=8)
def _catalog(langs: tuple[str, ...]) -> gettext.NullTranslations:
    return gettext.translation(
        ARGPARSE_DOMAIN, localedir=LOCALE_DIR, languages=list(langs) or None, fallback=True
    )


@contextmanager
def argparse_words() -> Iterator[None]:
    """While inside, argparse words come from our catalogue in the person's language."""
    if getattr(_inside, "depth", 0):  # parse_args → parse_known_args → error: swapped once
        _inside.depth += 1
        try:
            yield
        finally:
            _inside.depth -= 1
        return
    with _SWAP:
        _inside.depth = 1
        mod: Any = argparse
        saved_gettext: Callable[[str], str] = mod._
        saved_ngettext: Callable[[str, str, int], str] = mod.ngettext

        # The language is looked up when argparse first asks for a word: a parse
        # that succeeds asks for none.
        def words(message: str) -> str:
            said = _catalog(languages()).gettext(message)
            return said if said != message else saved_gettext(message)

        def nwords(singular: str, plural: str, n: int) -> str:
            said = _catalog(languages()).ngettext(singular, plural, n)
            return said if said not in (singular, plural) else saved_ngettext(singular, plural, n)

        mod._, mod.ngettext = words, nwords
        try:
            yield
        finally:
            mod._, mod.ngettext = saved_gettext, saved_ngettext
            _inside.depth = 0


def in_words(call: Callable[[], _R]) -> _R:
    with argparse_words():
        return call()


class ArgumentParser(argparse.ArgumentParser):
    """An ``argparse.ArgumentParser`` whose help, usage and errors follow the person's language.

    Every method that formats a word of argparse's own runs inside
    :func:`argparse_words`; sub-command parsers are of this class too
    (``add_subparsers`` passes its own class on).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        with argparse_words():
            super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        return in_words(lambda: super(ArgumentParser, self).add_argument(*args, **kwargs))

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        return in_words(lambda: super(ArgumentParser, self).parse_known_args(args, namespace))

    def parse_known_intermixed_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        return in_words(
            lambda: super(ArgumentParser, self).parse_known_intermixed_args(args, namespace)
        )

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> Any:
        return in_words(lambda: super(ArgumentParser, self).parse_args(args, namespace))

    def parse_intermixed_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> Any:
        return in_words(lambda: super(ArgumentParser, self).parse_intermixed_args(args, namespace))

    def format_usage(self) -> str:
        return in_words(lambda: super(ArgumentParser, self).format_usage())

    def format_help(self) -> str:
        return in_words(lambda: super(ArgumentParser, self).format_help())

    def error(self, message: str) -> NoReturn:
        with argparse_words():
            super().error(message)


__all__ = ["ARGPARSE_DOMAIN", "ArgumentParser", "argparse_words"]
