"""Index chunks over candidates or subsets, run in threads (one chunk per job).

Each chunk runs in a copy of the caller's context, so that the label-free cache of a
:func:`widefs._utils.sharing_label_free_work` block (a context variable) is shared with
the threads that do the block's work.
"""

from __future__ import annotations

import contextvars

import numpy as np

__all__: list[str] = []


def _split(n: int, n_jobs) -> list[np.ndarray]:
    """Index chunks of ``range(n)``, one per effective job."""
    from joblib import effective_n_jobs

    n_chunks = max(1, min(n, effective_n_jobs(n_jobs)))
    return [c for c in np.array_split(np.arange(n), n_chunks) if c.size]


def _chunk_order(visit, idx) -> np.ndarray:
    """The positions of chunk ``idx`` (a range of a :func:`_split`) in the order ``visit``
    gives them, counted from the chunk's start; empty stays empty (natural order)."""
    if visit.size == 0:
        return visit
    inside = visit[(visit >= idx[0]) & (visit <= idx[-1])]
    return np.ascontiguousarray(inside - idx[0])


def _map_chunks(work, chunks) -> list:
    """``[work(c) for c in chunks]``, in threads when there is more than one chunk.

    Each thread runs ``work`` in its own copy of the caller's context (a context can be
    entered by one thread at a time), so it sees the caller's label-free cache.
    """
    if len(chunks) <= 1:  # none: nothing to do (no candidates)
        return [work(c) for c in chunks]
    from joblib import Parallel, delayed

    runs = [contextvars.copy_context().run for _ in chunks]
    return Parallel(n_jobs=len(chunks), backend="threading")(
        delayed(run)(work, c) for run, c in zip(runs, chunks)
    )


def _threaded(work, chunks, out):
    """Fill ``out[idx] = rows`` from ``work(idx) -> (idx, rows)`` over index chunks."""
    for idx, part in _map_chunks(work, chunks):
        out[idx] = part
    return out
