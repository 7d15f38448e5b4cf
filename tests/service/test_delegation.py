"""The facade's one-line forwards reach the domain service that owns each method."""

import inspect

from jupyter_memory import Memory
from jupyter_memory.service.delegation import Delegate


def _delegates(cls: type) -> dict[str, Delegate]:  # type: ignore[type-arg]
    return {n: v for n, v in vars(cls).items() if isinstance(v, Delegate)}


def test_every_forward_is_bound_to_an_instance_of_its_owner(mem):
    # The verbs on the facade and the plumbing on its hooks (service/hooks.py).
    count = 0
    for obj in (mem, mem.hooks):
        delegates = _delegates(type(obj))
        count += len(delegates)
        for name, delegate in delegates.items():
            owner = delegate.__wrapped__.__qualname__.split(".")[0]
            bound = getattr(obj, name)
            # A wrong path in a Delegate (a plain string mypy cannot check) fails here.
            assert type(bound.__self__).__name__ == owner, name
            assert bound.__func__ is delegate.__wrapped__, name
    assert count > 90


def test_a_forward_keeps_the_owner_signature_and_docstring():
    from jupyter_memory.service.memories.writer import MemoryWriter

    assert Memory.forget.__doc__ == MemoryWriter.forget.__doc__
    assert inspect.signature(Memory.remember.__wrapped__) == inspect.signature(
        MemoryWriter.remember
    )


def test_a_forward_calls_through(mem):
    entry = mem.remember("Always dedupe orders on order_id", title="dedupe orders")
    assert mem.get(entry.id).text == entry.text
    assert mem.forget(entry.id).to_dict()["id"] == entry.id
