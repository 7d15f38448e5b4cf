"""One-line forwarding from the ``Memory`` facade to the domain service that owns a method.

``remember = Delegate("memory_writer", MemoryWriter.remember)`` makes
``Memory(...).remember`` the bound ``remember`` of the facade's ``memory_writer``:
the call costs one attribute lookup, and the signature, docstring and types are
the domain service's own, so the facade cannot drift from them (mypy checks
callers against the domain method through the ParamSpec; ``help()`` and
``inspect.signature`` show it through ``__wrapped__``).

A start (``from jupyter_memory import Memory``, a CLI recall) should not import
every domain service, so the facade names a service's class by ``Later``: the
type checker sees the real class (imported under ``TYPE_CHECKING``), the running
code a stand-in that imports the class the first time a docstring, a signature
or ``__wrapped__`` is asked for. The call itself never needs the class: it reads
the method off the service object, which the facade builds on first use.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from functools import cached_property
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

# One lock for every first build: the REST routes call one ``Memory`` from several
# threads, and two first calls at once must get one service, not two (a queue keeps
# per-round state). Reentrant: building the team builds the knowledge services.
_BUILDING = threading.RLock()


class built_once(cached_property[T]):  # lower case: a decorator, like cached_property
    """A domain service of the facade, built on first use, once, whatever the threads.

    ``functools.cached_property`` has no lock from Python 3.12 on. Once built, the
    service sits in the instance's ``__dict__`` and is read without the lock.
    """

    @overload
    def __get__(self, instance: None, owner: type[Any] | None = None) -> built_once[T]: ...

    @overload
    def __get__(self, instance: object, owner: type[Any] | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type[Any] | None = None) -> Any:
        if instance is None:
            return self
        with _BUILDING:
            return super().__get__(instance, owner)


class Later:
    """A class named by its module and name, imported the first time it is needed."""

    def __init__(self, module: str, name: str) -> None:
        self._module = module
        self._name = name

    def resolve(self) -> type:
        return getattr(importlib.import_module(self._module), self._name)  # type: ignore[no-any-return]

    def __getattr__(self, attr: str) -> LaterMethod:
        if attr.startswith("__"):  # copy, pickle and repr probes are not methods
            raise AttributeError(attr)
        return LaterMethod(self, attr)

    def __repr__(self) -> str:
        return f"Later({self._module!r}, {self._name!r})"


class LaterMethod:
    """``Later(...).method``: the method's name now, the function when resolved."""

    def __init__(self, owner: Later, name: str) -> None:
        self.owner = owner
        self.__name__ = name

    def resolve(self) -> Callable[..., Any]:
        method: Callable[..., Any] = getattr(self.owner.resolve(), self.__name__)
        return method


class Delegate(Generic[P, R]):
    """A facade method that is ``method`` of the object at ``path`` (dotted attributes)."""

    def __init__(self, path: str, method: Callable[Concatenate[Any, P], R]) -> None:
        self._path = tuple(path.split("."))
        self._name = method.__name__
        self._method: Any = method

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        if isinstance(self._method, LaterMethod):
            self._method = self._method.resolve()
        method: Callable[..., Any] = self._method
        return method

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.__wrapped__.__doc__

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


__all__ = ["Delegate", "Later", "LaterMethod", "built_once"]
