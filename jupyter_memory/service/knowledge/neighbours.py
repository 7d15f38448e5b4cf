"""The nearest approved and pending entries of queued proposals, kept while nothing changed.

A queue listing shows each item of a page with its neighbours among every known
entry (issue 32). Building the index analyses every pending text, and each
item's neighbours cost an identity decision per candidate: on a queue of 5,000
that was seconds of CPU per page, holding the GIL of the lab server. The index
and each item's answer are kept per project, keyed by what they are computed
from: the queue folders' fingerprint (``stat`` only, so a write by another
process or a teammate's ``git pull`` is seen) and the layers' knowledge entries
(parsed files, themselves cached by ``stat``). Any change there rebuilds the
index and forgets the answers, so a listing reads the same as one computed
afresh; a second page or a refresh with no change reuses them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core.knowledge.known import Known
from ...core.knowledge.proposals import Proposal

if TYPE_CHECKING:  # the identity analysis loads with the first index built, not the queue
    from ...core.knowledge.dedup import Neighbour, NeighbourIndex


@dataclass
class _Layer:
    """One project's index, the key it was built under, and the answers given since."""

    key: tuple[Any, tuple[Known, ...]]
    index: NeighbourIndex
    answers: dict[tuple[str, str], list[Neighbour]] = field(default_factory=dict)


class NeighbourCache:
    """Per-project neighbour indexes of one queue, valid while the queue and knowledge are.

    ``enabled=False`` computes every answer afresh (the baseline of
    benchmarks/queue_neighbours_bench.py, and the reference its tests compare with).
    """

    def __init__(
        self,
        fingerprint: Callable[[], object],
        pending: Callable[[], list[Proposal]],
        knowledge: Callable[[str | None], list[Known]],
        *,
        enabled: bool = True,
    ) -> None:
        self._fingerprint = fingerprint
        self._pending = pending
        self._knowledge = knowledge
        self.enabled = enabled
        self._layers: dict[str | None, _Layer] = {}
        self._queue: tuple[object, list[Proposal]] | None = None
        self.builds = 0  # indexes built (tests and the benchmark read it)

    def _pending_now(self, stamp: object) -> list[Proposal]:
        if self._queue is None or self._queue[0] != stamp:
            self._queue = (stamp, self._pending())
        return self._queue[1]

    def _layer(self, pid: str | None, stamp: object) -> _Layer:
        knowledge = tuple(self._knowledge(pid))
        key = (stamp, knowledge)
        layer = self._layers.get(pid)
        if layer is None or layer.key != key:
            pending = self._pending_now(stamp)
            known = [*knowledge, *(Known(p.text, "pending", p.id) for p in pending)]
            from ...core.knowledge.dedup import NeighbourIndex

            layer = _Layer(key, NeighbourIndex(known))
            self.builds += 1
            self._layers[pid] = layer
        return layer

    def nearest(self, proposals: Iterable[Proposal]) -> dict[str, list[Neighbour]]:
        """Each pending proposal's nearest entries (:meth:`NeighbourIndex.nearest`)."""
        items = [p for p in proposals if p.is_pending]
        if not items:
            return {}
        if not self.enabled:  # the baseline: nothing kept from an earlier call
            self._layers.clear()
            self._queue = None
        # One fingerprint per call: every project's answer is read from the same state.
        stamp = self._fingerprint()
        layers: dict[str | None, _Layer] = {}
        out: dict[str, list[Neighbour]] = {}
        for p in items:
            if p.project not in layers:
                layers[p.project] = self._layer(p.project, stamp)
            answers = layers[p.project].answers
            asked = (p.id, p.text)
            if asked not in answers:
                answers[asked] = layers[p.project].index.nearest(p.text, skip_ref=p.id)
            out[p.id] = list(answers[asked])
        return out


__all__ = ["NeighbourCache"]
