"""Keeps numpy's OpenBLAS on the calling thread while the embedder or a recall multiplies.

OpenBLAS splits a large product over a pool of threads started with the
process at normal priority; the background embedder runs at nice 19 on one
core, so its products must run on its own thread. A recall's product (the
query against a layer's embeddings, ``embeddings.py``) is one matrix-vector
product of a millisecond: woken for it, the pool's threads spin afterwards
waiting for more work, which doubled a hybrid recall's process CPU (measured:
18-22 ms against 9 ms on a 5k home), so it runs on the calling thread too
(:func:`one_blas_thread`).

OpenBLAS's thread count is process-wide (``openblas_set_num_threads_local``
is too in the pthreads build numpy ships: measured), so it is set to 1 while
anyone holds it and put back when the last holder is done; a product the
person's code starts meanwhile runs on one thread. Holders do not wait for
each other: a recall never queues behind the embedder's batch. Found through
``/proc/self/maps`` (Linux); elsewhere :func:`single_thread_blas` returns
``None``, the embedder keeps the C engine and a recall multiplies as numpy does.
"""

from __future__ import annotations

import ctypes
import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

_LOCK = threading.Lock()
_SETTERS = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads")


class _Holders:
    """Who holds OpenBLAS at one thread (one count per process: one OpenBLAS)."""

    count = 0
    restore = 1


def _openblas() -> tuple[Callable[[], int], Callable[[int], None]] | None:
    import numpy  # noqa: F401  (its OpenBLAS must be loaded to be found)

    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    paths = {line.split()[-1] for line in maps.splitlines() if "openblas" in line.lower()}
    for path in sorted(p for p in paths if p.startswith("/") and ".so" in p):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        get = next((getattr(lib, n) for n in _GETTERS if hasattr(lib, n)), None)
        put = next((getattr(lib, n) for n in _SETTERS if hasattr(lib, n)), None)
        if get is not None and put is not None:
            get.restype, get.argtypes = ctypes.c_int, []
            put.restype, put.argtypes = None, [ctypes.c_int]
            return get, put
    return None


class BlasThreads:
    def __init__(self, get: Callable[[], int], put: Callable[[int], None]) -> None:
        self._get, self._put = get, put

    @property
    def threads(self) -> int:
        return int(self._get())

    @contextmanager
    def one(self) -> Iterator[None]:
        """One thread until the last of the overlapping holders leaves; then as before."""
        with _LOCK:
            if _Holders.count == 0:
                _Holders.restore = self.threads
                if _Holders.restore != 1:
                    self._put(1)
            _Holders.count += 1
        try:
            yield
        finally:
            with _LOCK:
                _Holders.count -= 1
                if _Holders.count == 0 and _Holders.restore != 1:
                    self._put(_Holders.restore)


def single_thread_blas() -> BlasThreads | None:
    found = _openblas()
    return None if found is None else BlasThreads(*found)


@functools.cache
def _process_blas() -> BlasThreads | None:
    return single_thread_blas()  # the maps are read once per process


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """The products inside run on the calling thread (as numpy does where BLAS is not found)."""
    blas = _process_blas()
    if blas is None:
        yield
        return
    with blas.one():
        yield
