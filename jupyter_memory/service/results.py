"""The common base of the typed results the domain services return.

A result is a frozen dataclass whose ``to_dict()`` gives exactly the keys the
operation returned as a plain dict before (REST responses, ``--json`` output
and the MCP tools are built from it). It is also a read-only mapping over that
dict, so code that reads ``result["status"]`` keeps working and compares equal
to the old dict; new code reads the attributes.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Mapping
from typing import Any


class MappingResult(Mapping[str, Any]):
    """A typed result that reads like the dict it replaces (``to_dict()`` is the source)."""

    __slots__ = ()

    @abstractmethod
    def to_dict(self) -> dict[str, Any]: ...

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())
