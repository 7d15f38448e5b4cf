"""Keeps numpy's OpenBLAS on the calling thread while the embedder multiplies.

OpenBLAS splits a large product over a pool of threads started with the
process at normal priority; the background embedder runs at nice 19 on one
core, so its products must run on its own thread. OpenBLAS's thread count is
process-wide (``openblas_set_num_threads_local`` is too in the pthreads build
numpy ships: measured), so it is set to 1 for the duration of a batch and put
back after; a product the person's code starts meanwhile runs on one thread.
Found through ``/proc/self/maps`` (Linux); elsewhere :func:`single_thread_blas`
returns ``None`` and the embedder keeps the C engine.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

_LOCK = threading.Lock()
_SETTERS = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads")
_GETTERS = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads")


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
        with _LOCK:
            before = self.threads
            if before != 1:
                self._put(1)
            try:
                yield
            finally:
                if before != 1:
                    self._put(before)


def single_thread_blas() -> BlasThreads | None:
    found = _openblas()
    return None if found is None else BlasThreads(*found)
