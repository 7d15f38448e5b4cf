"""The background embedder's thread yields its core to any other thread at once.

At nice 19 alone, a recall waking on the core where the int8 engine runs a
layer inside onnxruntime (no GIL needed) could wait out the worker's time
slice; ``SCHED_IDLE`` on that thread only makes every waking thread preempt it.
"""

from __future__ import annotations

import os
import threading

from jupyter_memory.service.memories.embed_worker import BACKGROUND_NICE, lower_thread_priority


def test_the_worker_thread_goes_idle_class_and_the_others_keep_theirs():
    before = os.sched_getscheduler(0)
    seen: dict[str, object] = {}

    def worker() -> None:
        seen["nice"] = lower_thread_priority()
        seen["policy"] = os.sched_getscheduler(0)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(60)
    assert seen["policy"] == os.SCHED_IDLE
    assert seen["nice"] == max(os.getpriority(os.PRIO_PROCESS, 0), BACKGROUND_NICE)
    assert os.sched_getscheduler(0) == before  # the caller (the person's kernel) is untouched
