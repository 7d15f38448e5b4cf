"""One-line forwarding from the ``Memory`` facade to the domain service that owns a method.

``remember = Delegate("memory_writer", MemoryWriter.remember)`` makes
``Memory(...).remember`` the bound ``remember`` of the facade's ``memory_writer``:
the call costs one attribute lookup, and the signature, docstring and types are
the domain service's own, so the facade cannot drift from them (mypy checks
callers against the domain method through the ParamSpec; ``help()`` and
``inspect.signature`` show it through ``__wrapped__``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")


class Delegate(Generic[P, R]):
    """A facade method that is ``method`` of the object at ``path`` (dotted attributes)."""

    def __init__(self, path: str, method: Callable[Concatenate[Any, P], R]) -> None:
        self._path = tuple(path.split("."))
        self._name = method.__name__
        self.__wrapped__ = method
        self.__doc__ = method.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.__name__ = name

    @overload
    def __get__(self, obj: None, objtype: type | None = None) -> Delegate[P, R]: ...

    @overload
    def __get__(self, obj: object, objtype: type | None = None) -> Callable[P, R]: ...

    def __get__(self, obj: object | None, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        target: Any = obj
        for part in self._path:
            target = getattr(target, part)
        return getattr(target, self._name)


__all__ = ["Delegate"]
