"""Worker threads over blocks of columns for the greedy engines (numpy and nogil numba kernels)."""

from __future__ import annotations

import contextvars
import os
from concurrent.futures import ThreadPoolExecutor

__all__ = ["MAX_THREADS", "THREADS_MIN_ENTRIES", "block_pool", "n_threads", "threads_for"]

# At most this many worker threads, and only for matrices of at least THREADS_MIN_ENTRIES
# entries: below that, threads contending for the GIL between kernel calls (and waking up
# on a loaded machine) cost more than they save.
MAX_THREADS = 4
THREADS_MIN_ENTRIES = 20_000_000


def n_threads(n_blocks: int) -> int:
    """Threads worth using for ``n_blocks`` independent blocks (CPUs this process may use)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_THREADS, n_blocks))


def threads_for(n_rows: int, n_columns: int) -> int:
    """Threads for a matrix: one below THREADS_MIN_ENTRIES entries, else :func:`n_threads`."""
    return n_threads(n_columns) if n_rows * n_columns >= THREADS_MIN_ENTRIES else 1


class _Serial:
    """The subset of an executor used here, run in the calling thread."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, fn, items):
        return map(fn, items)

    def submit(self, fn, *args):
        result = fn(*args)

        class _Done:
            def result(self):
                return result

        return _Done()


class _ContextPool(ThreadPoolExecutor):
    """Worker threads that run each task in a copy of the submitting thread's context, so
    that scoped state (the caller's label-free cache) reaches the workers."""

    def submit(self, fn, /, *args, **kwargs):
        return super().submit(contextvars.copy_context().run, fn, *args, **kwargs)


def block_pool(threads: int):
    """A thread pool of ``threads`` workers, or a serial stand-in for one thread."""
    return _ContextPool(threads) if threads > 1 else _Serial()
